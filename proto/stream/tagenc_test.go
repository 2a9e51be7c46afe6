package stream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/zestall/zestall/proto/pbconv"
	pb "github.com/zestall/zestall/proto/zestallpb"
	zw "github.com/zestall/zestall/proto/zestallwire"
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

// TestTagEncoding holds the encoder (tagenc.go) to proto.Marshal, byte
// for byte, for every message type of the schema: a zestallwire message,
// converted from a zestallpb one with every field set (each member of each
// oneof in turn), all zero (fields with presence still set), or with
// unknown fields, encodes to what proto.Marshal makes of the zestallpb one,
// and proto.Unmarshal reads it back equal. The encoder declines none of
// the schema's types: the Writer, which has no other encoder, writes every
// record. A field or message a later revision adds is covered here without
// a change.
func TestTagEncoding(t *testing.T) {
	all := schemaMessages()
	if len(all) < 20 {
		t.Fatalf("%d message types in the schema", len(all))
	}
	for _, md := range all {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
		if err != nil {
			t.Fatal(err)
		}
		if hasMapField(md) {
			t.Fatalf("%s has a map field, which the encoder does not handle", md.FullName())
		}
		for variant := 0; variant < 6; variant++ {
			m := mt.New()
			fillMessage(m, variant, 3)
			want, err := proto.Marshal(m.Interface())
			if err != nil {
				t.Fatal(err)
			}
			wm, ok := pbconv.MessageToWire(m.Interface())
			if !ok {
				t.Fatalf("%s: no zestallwire type", md.FullName())
			}
			got, ok := tagAppend([]byte("x"), wm)
			if !ok {
				t.Fatalf("%s: declined", md.FullName())
			}
			if !bytes.Equal(got[1:], want) {
				t.Fatalf("%s, variant %d:\n got %x\nwant %x", md.FullName(), variant, got[1:], want)
			}
			// The reflective encoder, by the struct tags, too.
			if viaTags, ok := tagAppendReflect([]byte("x"), wm); !ok || !bytes.Equal(viaTags[1:], want) {
				t.Fatalf("%s, variant %d, by the tags (declined: %v):\n got %x\nwant %x", md.FullName(), variant, !ok, viaTags[1:], want)
			}
			back := mt.New().Interface()
			if err := proto.Unmarshal(got[1:], back); err != nil || !proto.Equal(back, m.Interface()) {
				t.Fatalf("%s, variant %d: read back %v (%v), want %v", md.FullName(), variant, back, err, m.Interface())
			}
			// And the conversions lose nothing on the way back.
			if again, ok := pbconv.MessageFromWire(wm); !ok || !proto.Equal(again.(proto.Message), m.Interface()) {
				t.Fatalf("%s, variant %d: converted back %v, want %v", md.FullName(), variant, again, m.Interface())
			}
		}
	}
	// Not a zestallwire message: declined (a zestallpb message has
	// protobuf's unexported state; a plain struct has no UnknownFields).
	var nilHeader *zw.Header
	for _, m := range []any{&pb.Header{}, &struct{ A uint32 }{}, pb.Header{}, nil, nilHeader} {
		if _, ok := tagAppend(nil, m); ok {
			t.Errorf("%T was encoded", m)
		}
	}
}

// FuzzTagEncoding: any bytes proto.Unmarshal takes as a Record, converted
// to zestallwire, encode to what proto.Marshal makes of the Record
// (unknown fields included).
func FuzzTagEncoding(f *testing.F) {
	for variant := 0; variant < 6; variant++ {
		m := (&pb.Record{}).ProtoReflect()
		fillMessage(m, variant, 2)
		b, _ := proto.Marshal(m.Interface())
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var rec pb.Record
		if proto.Unmarshal(data, &rec) != nil {
			return
		}
		want, err := proto.Marshal(&rec)
		if err != nil {
			return
		}
		got, ok := appendTagged(nil, pbconv.RecordToWire(&rec))
		if !ok {
			t.Fatal("declined")
		}
		n, k := binary.Uvarint(got)
		if k <= 0 || int(n) != len(got)-k {
			t.Fatalf("length prefix %d for %d bytes", n, len(got)-k)
		}
		if !bytes.Equal(got[k:], want) {
			t.Fatalf("\n got %x\nwant %x", got[k:], want)
		}
	})
}

// schemaMessages is every message type of the schema, nested ones too.
func schemaMessages() []protoreflect.MessageDescriptor {
	var all []protoreflect.MessageDescriptor
	var walk func(protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			all = append(all, ms.Get(i))
			walk(ms.Get(i).Messages())
		}
	}
	walk(pb.File_zestall_proto.Messages())
	return all
}

func hasMapField(md protoreflect.MessageDescriptor) bool {
	for i := 0; i < md.Fields().Len(); i++ {
		if md.Fields().Get(i).IsMap() {
			return true
		}
	}
	return false
}
