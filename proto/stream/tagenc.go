package stream

import (
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// The records the Writer does not encode by hand (launch.go, sycl.go) are
// encoded here, without protobuf's runtime, to the bytes proto.Marshal
// makes of them: the Writer's records are package zestallwire's plain
// types, so that libzestall.so links no protobuf runtime (its package
// initialisation and relocations were half of the library's start-up:
// BENCHMARKS.md, start-up), and protobuf would also build a message
// type's reflection at the type's first use.
//
// The encoder reads each message type's fields from the struct tags
// protoc-gen-go writes (`protobuf:"varint,3,opt,name=pid,proto3"`), which
// zestallwire's types carry as zestallpb's do, with package reflect, once
// per type, and writes them in proto.Marshal's order: the fields outside
// real oneofs by number, then the set member of each oneof in declaration
// order, then the unknown fields (UnknownFields). A type it does not know
// how to encode (a map field, a wire type it does not handle) makes it
// decline, and the Writer returns an error. TestTagEncoding holds it to
// proto.Marshal of the zestallpb twin for every message type of the
// schema with every field set, so it declines none of them.

// tagWire is how a field's values are encoded (the first word of its tag).
type tagWire uint8

const (
	tagVarint tagWire = iota
	tagZigzag32
	tagZigzag64
	tagFixed32
	tagFixed64
	tagBytes // string, bytes or message
)

// tagField is one field of a tagMessage.
type tagField struct {
	index  int // in the struct
	num    fieldNumber
	wire   tagWire
	rep    bool         // repeated: a slice
	packed bool         // repeated scalars, packed
	ptr    bool         // explicit presence (proto3 optional): a pointer, written when not nil
	msg    *tagMessage  // message fields
	oneof  bool         // an interface field: the set member's wrapper is encoded
	elem   reflect.Kind // the Go kind of one value
}

// tagMessage is the encoding plan of one generated message type.
type tagMessage struct {
	fields  []tagField // in proto.Marshal's order
	unknown int        // index of the unknown fields, -1 if none
	// declined: the encoder does not handle this type (a plan that
	// refers to it, built while it was, declines too when encoding).
	declined bool
}

var (
	tagMu    sync.Mutex
	tagPlans map[reflect.Type]*tagMessage // by struct type; nil: declined
	// tagWrappers: a oneof member's wrapper type (a pointer to a struct
	// of one field) -> its field, with msg set for a message member.
	tagWrappers map[reflect.Type]*tagField
	// Both are made at the first record (tagPlan, under tagMu): nothing
	// is built when libzestall.so is loaded (docs/level-zero-loader.md
	// §8.4 "Start-up cost of `LD_PRELOAD`").
)

// appendTagged appends rec, length-delimited, to b, and reports whether it
// did. The caller checks the size against MaxRecordSize.
func appendTagged(b []byte, rec *pb.Record) ([]byte, bool) {
	start := len(b)
	b, ok := tagAppend(b, rec)
	if !ok {
		return b[:start], false
	}
	return insertLength(b, start), true
}

// wireAppender is a zestallwire message: its generated AppendWire
// (proto/internal/wiregen) encodes it without reflection.
type wireAppender interface{ AppendWire([]byte) []byte }

// tagAppend appends the wire encoding of msg, a pointer to a generated
// message, to b; false if the encoder declines it (b is then to be
// discarded). zestallwire's messages encode themselves (AppendWire,
// generated): building the reflective plans of the header's types at the
// first record cost every process about 0.5 ms and 11 page faults
// (BENCHMARKS.md, issue 14, session 10, startup). The reflective encoder
// below remains for other types and as the generated code's second
// reference in TestTagEncoding.
func tagAppend(b []byte, msg any) ([]byte, bool) {
	if m, ok := msg.(wireAppender); ok {
		if v := reflect.ValueOf(msg); v.Kind() != reflect.Ptr || v.IsNil() {
			return b, false
		}
		return m.AppendWire(b), true
	}
	return tagAppendReflect(b, msg)
}

// tagAppendReflect is tagAppend by the struct tags, with package reflect.
func tagAppendReflect(b []byte, msg any) ([]byte, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Ptr || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return b, false
	}
	tagMu.Lock()
	m := tagPlan(v.Elem().Type())
	tagMu.Unlock()
	if m == nil {
		return b, false
	}
	return m.append(b, v.Elem())
}

// insertLength puts the length of b[start:] as a varint before it.
func insertLength(b []byte, start int) []byte {
	n := len(b) - start
	k := sizeVarint(uint64(n))
	b = append(b, make([]byte, k)...)
	copy(b[start+k:], b[start:start+n])
	appendVarint(b[start:start], uint64(n))
	return b
}

// tagPlan returns the plan of struct type t, building it (and those of
// the message types it holds) if needed; nil if the encoder declines t.
// Called with tagMu held.
func tagPlan(t reflect.Type) *tagMessage {
	tagMake()
	if m, ok := tagPlans[t]; ok {
		return m
	}
	m := &tagMessage{unknown: -1}
	tagPlans[t] = m // recursive message types find it while it is built
	var oneofs []tagField
	// Only zestallwire's messages (plain structs ending in their
	// UnknownFields) carry the tags read here.
	ok := t.NumField() > 0 && t.Field(t.NumField()-1).Name == "UnknownFields" &&
		t.Field(t.NumField()-1).Type == reflect.TypeFor[[]byte]()
	for i := 0; i < t.NumField() && ok; i++ {
		sf := t.Field(i)
		switch {
		case sf.Name == "UnknownFields":
			m.unknown = i
		case !sf.IsExported():
			ok = false
		case sf.Tag.Get("protobuf_oneof") != "":
			if sf.Type.Kind() != reflect.Interface {
				ok = false
				break
			}
			oneofs = append(oneofs, tagField{index: i, oneof: true})
		default:
			f, good := tagFieldOf(sf)
			if !good {
				ok = false
				break
			}
			f.index = i
			m.fields = append(m.fields, f)
		}
	}
	if !ok {
		m.declined = true
		tagPlans[t] = nil
		return nil
	}
	sort.SliceStable(m.fields, func(i, j int) bool { return m.fields[i].num < m.fields[j].num })
	m.fields = append(m.fields, oneofs...)
	return m
}

// tagFieldOf reads the plan of one field from its struct tag.
func tagFieldOf(sf reflect.StructField) (tagField, bool) {
	tag := sf.Tag.Get("protobuf")
	if tag == "" || sf.Tag.Get("protobuf_key") != "" {
		return tagField{}, false // maps: not handled
	}
	parts := strings.Split(tag, ",")
	if len(parts) < 3 {
		return tagField{}, false
	}
	var f tagField
	switch parts[0] {
	case "varint":
		f.wire = tagVarint
	case "zigzag32":
		f.wire = tagZigzag32
	case "zigzag64":
		f.wire = tagZigzag64
	case "fixed32":
		f.wire = tagFixed32
	case "fixed64":
		f.wire = tagFixed64
	case "bytes":
		f.wire = tagBytes
	default:
		return tagField{}, false // groups
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n <= 0 {
		return tagField{}, false
	}
	f.num = fieldNumber(n)
	f.rep = parts[2] == "rep"
	for _, p := range parts[3:] {
		if p == "packed" {
			f.packed = true
		}
	}
	t := sf.Type
	switch {
	case f.rep:
		if t.Kind() != reflect.Slice {
			return tagField{}, false
		}
		t = t.Elem()
		if f.wire == tagBytes && t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			f.elem = reflect.Slice // repeated bytes
			return f, true
		}
	case t.Kind() == reflect.Ptr && t.Elem().Kind() != reflect.Struct:
		f.ptr = true // proto3 optional scalar
		t = t.Elem()
	}
	f.elem = t.Kind()
	switch {
	case f.wire == tagBytes && t.Kind() == reflect.Ptr && t.Elem().Kind() == reflect.Struct:
		f.msg = tagPlan(t.Elem())
		if f.msg == nil {
			return tagField{}, false
		}
	case f.wire == tagBytes:
		if t.Kind() != reflect.String && !(t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8) {
			return tagField{}, false
		}
	default:
		switch t.Kind() {
		case reflect.Bool, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		default:
			return tagField{}, false
		}
	}
	return f, true
}

// tagMake makes the plan maps at their first use. Called with tagMu held.
func tagMake() {
	if tagPlans == nil {
		tagPlans = map[reflect.Type]*tagMessage{}
		tagWrappers = map[reflect.Type]*tagField{}
	}
}

// tagWrapper returns the field of a oneof wrapper type (*Record_Header and
// the like); nil if the encoder declines it. Called with tagMu held.
func tagWrapper(t reflect.Type) *tagField {
	tagMake()
	if f, ok := tagWrappers[t]; ok {
		return f
	}
	var f *tagField
	if t.Kind() == reflect.Ptr && t.Elem().Kind() == reflect.Struct && t.Elem().NumField() == 1 {
		if g, ok := tagFieldOf(t.Elem().Field(0)); ok && !g.rep && !g.ptr {
			f = &g
		}
	}
	tagWrappers[t] = f
	return f
}

// append encodes the message v (a struct) at the end of b; false if it
// holds something the encoder declines (b is then to be discarded).
func (m *tagMessage) append(b []byte, v reflect.Value) ([]byte, bool) {
	if m.declined {
		return b, false
	}
	ok := true
	for i := range m.fields {
		f := &m.fields[i]
		fv := v.Field(f.index)
		if f.oneof {
			if fv.IsNil() {
				continue
			}
			w := fv.Elem()
			tagMu.Lock()
			wf := tagWrapper(w.Type())
			tagMu.Unlock()
			if wf == nil || w.IsNil() {
				return b, false
			}
			// A set member is written even when zero.
			b, ok = wf.appendOne(b, w.Elem().Field(0))
		} else {
			b, ok = f.appendField(b, fv)
		}
		if !ok {
			return b, false
		}
	}
	if m.unknown >= 0 {
		b = append(b, v.Field(m.unknown).Bytes()...)
	}
	return b, true
}

// appendField encodes field f of value fv, as proto.Marshal does with
// implicit presence: zero scalars, empty strings and bytes and empty
// lists are not written.
func (f *tagField) appendField(b []byte, fv reflect.Value) ([]byte, bool) {
	switch {
	case f.rep:
		n := fv.Len()
		if n == 0 {
			return b, true
		}
		if f.packed {
			b = appendTag(b, f.num, wireBytes)
			start := len(b)
			if b2, ok := appendPackedVarints(b, f, fv); ok {
				return insertLength(b2, start), true
			}
			for i := 0; i < n; i++ {
				b = f.appendValue(b, fv.Index(i))
			}
			return insertLength(b, start), true
		}
		ok := true
		for i := 0; i < n && ok; i++ {
			b, ok = f.appendOne(b, fv.Index(i))
		}
		return b, ok
	case f.ptr:
		if fv.IsNil() {
			return b, true
		}
		return f.appendOne(b, fv.Elem())
	case f.msg != nil:
		if fv.IsNil() {
			return b, true
		}
	case f.wire == tagBytes:
		if fv.Len() == 0 {
			return b, true
		}
	case f.elem == reflect.Float32 || f.elem == reflect.Float64:
		if math.Float64bits(fv.Float()) == 0 { // -0 is written
			return b, true
		}
	case fv.IsZero():
		return b, true
	}
	return f.appendOne(b, fv)
}

// appendPackedVarints appends the values of fv, a packed varint list of
// unsigned integers (StallRows' and Unattributed's columns), without
// reflection per value, which was most of a stall record's encoding; false
// for another list. A pointer in an interface is no allocation.
func appendPackedVarints(b []byte, f *tagField, fv reflect.Value) ([]byte, bool) {
	if f.wire != tagVarint || !fv.CanAddr() {
		return b, false
	}
	switch p := fv.Addr().Interface().(type) {
	case *[]uint64:
		for _, v := range *p {
			b = appendVarint(b, v)
		}
	case *[]uint32:
		for _, v := range *p {
			b = appendVarint(b, uint64(v))
		}
	default:
		return b, false
	}
	return b, true
}

// appendOne encodes one value of field f with its tag.
func (f *tagField) appendOne(b []byte, v reflect.Value) ([]byte, bool) {
	switch f.wire {
	case tagVarint, tagZigzag32, tagZigzag64:
		b = appendTag(b, f.num, wireVarint)
	case tagFixed32:
		b = appendTag(b, f.num, wireFixed32)
	case tagFixed64:
		b = appendTag(b, f.num, wireFixed64)
	case tagBytes:
		b = appendTag(b, f.num, wireBytes)
		if f.msg != nil {
			start := len(b)
			ok := true
			if !v.IsNil() {
				b, ok = f.msg.append(b, v.Elem())
			}
			return insertLength(b, start), ok
		}
		if v.Kind() == reflect.String {
			return appendString(b, v.String()), true
		}
		return appendBytes(b, v.Bytes()), true
	}
	return f.appendValue(b, v), true
}

// appendValue encodes one scalar value of field f, without a tag.
func (f *tagField) appendValue(b []byte, v reflect.Value) []byte {
	switch f.wire {
	case tagVarint:
		switch v.Kind() {
		case reflect.Bool:
			return appendVarint(b, encodeBool(v.Bool()))
		case reflect.Int32, reflect.Int64:
			return appendVarint(b, uint64(v.Int()))
		default:
			return appendVarint(b, v.Uint())
		}
	case tagZigzag32, tagZigzag64:
		return appendVarint(b, encodeZigZag(v.Int()))
	case tagFixed32:
		switch v.Kind() {
		case reflect.Float32:
			return appendFixed32(b, math.Float32bits(float32(v.Float())))
		case reflect.Int32:
			return appendFixed32(b, uint32(v.Int()))
		default:
			return appendFixed32(b, uint32(v.Uint()))
		}
	default: // tagFixed64
		switch v.Kind() {
		case reflect.Float64:
			return appendFixed64(b, math.Float64bits(v.Float()))
		case reflect.Int64:
			return appendFixed64(b, uint64(v.Int()))
		default:
			return appendFixed64(b, v.Uint())
		}
	}
}
