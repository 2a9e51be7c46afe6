package stream

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// fillMessage sets every field of m (variant picks the member of each
// oneof, and whether scalars are zero or not), messages to depth levels.
func fillMessage(m protoreflect.Message, variant, depth int) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if od.Fields().Get(variant%od.Fields().Len()) != fd {
				continue
			}
		}
		switch {
		case fd.IsMap():
			continue // none in the schema; the encoder declines them
		case fd.IsList():
			l := m.Mutable(fd).List()
			for j := 0; j < 2; j++ {
				if fd.Kind() == protoreflect.MessageKind {
					if depth > 0 {
						e := l.NewElement()
						fillMessage(e.Message(), variant+j, depth-1)
						l.Append(e)
					}
					continue
				}
				l.Append(scalarValue(fd, variant+j+1))
			}
		case fd.Kind() == protoreflect.MessageKind:
			if depth > 0 {
				fillMessage(m.Mutable(fd).Message(), variant, depth-1)
			}
		default:
			// Variant 0 sets zeros: fields with presence (proto3
			// optional, oneof members) are still written.
			if variant%3 == 0 && !fd.HasPresence() {
				continue
			}
			m.Set(fd, scalarValue(fd, variant%3))
		}
	}
	if variant%2 == 1 {
		// Unknown fields, as a newer writer's: kept and written last.
		u := protowire.AppendTag(nil, 1999, protowire.VarintType)
		m.SetUnknown(protowire.AppendVarint(u, 7))
	}
}

// scalarValue is a value of fd's kind: zero for n == 0, negative for
// signed kinds when n is odd.
func scalarValue(fd protoreflect.FieldDescriptor, n int) protoreflect.Value {
	neg := int64(1)
	if n%2 == 1 {
		neg = -1
	}
	v := int64(n) * 300
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(n != 0)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(neg * v))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(neg * v << 20)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(v))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(v) << 33)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(neg*v) / 7)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(neg*v) / 7)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(fmt.Sprint("s", n)[:min(n, 2)])
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(bytes.Repeat([]byte{byte(n)}, n))
	}
	panic("kind " + fd.Kind().String())
}

// TestTagEncoding holds the encoder of start-up and exit records
// (tagenc.go) to proto.Marshal, byte for byte, for every message type of
// the schema: every field set (each member of each oneof in turn), all
// zero (fields with presence still set), with unknown fields. A field a
// later revision adds is covered here without a change.
func TestTagEncoding(t *testing.T) {
	msgs := pb.File_zestall_proto.Messages()
	var all []protoreflect.MessageDescriptor
	var walk func(protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			all = append(all, ms.Get(i))
			walk(ms.Get(i).Messages())
		}
	}
	walk(msgs)
	if len(all) < 20 {
		t.Fatalf("%d message types in the schema", len(all))
	}
	for _, md := range all {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
		if err != nil {
			t.Fatal(err)
		}
		for variant := 0; variant < 6; variant++ {
			m := mt.New()
			fillMessage(m, variant, 3)
			want, err := proto.Marshal(m.Interface())
			if err != nil {
				t.Fatal(err)
			}
			got, ok := tagAppend([]byte("x"), m.Interface())
			if !ok {
				if hasMapField(md) {
					continue // declined: proto.Marshal writes it
				}
				t.Fatalf("%s: declined", md.FullName())
			}
			if !bytes.Equal(got[1:], want) {
				t.Fatalf("%s, variant %d:\n got %x\nwant %x", md.FullName(), variant, got[1:], want)
			}
		}
	}
	// A dynamic message is not a generated struct: declined.
	if _, ok := tagAppend(nil, dynamicpb.NewMessage(all[0])); ok {
		t.Error("a dynamic message was encoded")
	}
}

// TestTaggedRecords: the records the Writer encodes without reflection
// (Header, Window, Counters), length-delimited as proto.Marshal makes
// them; other kinds are left to proto.Marshal.
func TestTaggedRecords(t *testing.T) {
	for _, rec := range allKinds() {
		got, ok := appendTagged(nil, rec)
		if ok != tagKind(rec) {
			t.Fatalf("%T: encoded %v, want %v", rec.Kind, ok, tagKind(rec))
		}
		if !ok {
			continue
		}
		b, _ := proto.Marshal(rec)
		want := append(protowire.AppendVarint(nil, uint64(len(b))), b...)
		if !bytes.Equal(got, want) {
			t.Errorf("%T:\n got %x\nwant %x", rec.Kind, got, want)
		}
	}
	for _, k := range []*pb.Record{
		{Kind: &pb.Record_Header{}}, {Kind: &pb.Record_Counters{}}, {Kind: &pb.Record_Window{}}, {},
	} {
		if _, ok := appendTagged(nil, k); ok {
			t.Errorf("%v: encoded a kind without its message", k)
		}
	}
}

func hasMapField(md protoreflect.MessageDescriptor) bool {
	for i := 0; i < md.Fields().Len(); i++ {
		if md.Fields().Get(i).IsMap() {
			return true
		}
	}
	return false
}
