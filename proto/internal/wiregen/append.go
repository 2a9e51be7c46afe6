package main

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// appendMethod writes the AppendWire method of message name (descriptor
// md, Go type t of zestallpb, oneof members' wrappers): the message's
// encoding as straight-line code, in proto.Marshal's order: the fields
// outside real oneofs by number, then the set member of each oneof in
// declaration order, then UnknownFields. proto/stream's TestTagEncoding
// holds it to proto.Marshal for every message type.
func (g *gen) appendMethod(md protoreflect.MessageDescriptor, t reflect.Type, name string, wrappers []any) error {
	type field struct {
		fd     protoreflect.FieldDescriptor
		goName string
	}
	plain, oneofs := splitFields(t)
	var fields []field
	for _, sf := range plain {
		fd, err := fieldOf(md, sf)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		fields = append(fields, field{fd, sf.Name})
	}
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].fd.Number() < fields[j].fd.Number() })
	g.p("// AppendWire appends the protobuf encoding of x to b: the bytes\n")
	g.p("// proto.Marshal makes of its zestallpb twin. Generated code, without\n")
	g.p("// reflection: the writer's first records need no encoding plan.\n")
	g.p("func (x *%s) AppendWire(b []byte) []byte {\n\tif x == nil {\n\t\treturn b\n\t}\n", name)
	for _, f := range fields {
		if err := g.appendField(f.fd, "x."+f.goName, false); err != nil {
			return fmt.Errorf("%s.%s: %v", name, f.goName, err)
		}
	}
	for _, sf := range oneofs {
		g.p("\tswitch o := x.%s.(type) {\n", sf.Name)
		for _, w := range wrappers {
			wt := reflect.TypeOf(w)
			if !wt.Implements(sf.Type) {
				continue
			}
			wt = wt.Elem()
			mf := wt.Field(0)
			fd, err := fieldOf(md, mf)
			if err != nil {
				return fmt.Errorf("%s: %v", wt.Name(), err)
			}
			g.p("\tcase *%s:\n", wt.Name())
			// A set member is written even when zero.
			if err := g.appendField(fd, "o."+mf.Name, true); err != nil {
				return fmt.Errorf("%s.%s: %v", wt.Name(), mf.Name, err)
			}
		}
		g.p("\t}\n")
	}
	g.p("\treturn append(b, x.UnknownFields...)\n}\n\n")
	return nil
}

// fieldOf is the field of md that struct field sf holds, by the number in
// its protobuf tag.
func fieldOf(md protoreflect.MessageDescriptor, sf reflect.StructField) (protoreflect.FieldDescriptor, error) {
	parts := strings.Split(sf.Tag.Get("protobuf"), ",")
	if len(parts) < 2 {
		return nil, fmt.Errorf("field %s: no protobuf tag", sf.Name)
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		return nil, fmt.Errorf("field %s: tag %q", sf.Name, sf.Tag.Get("protobuf"))
	}
	fd := md.Fields().ByNumber(protoreflect.FieldNumber(n))
	if fd == nil {
		return nil, fmt.Errorf("field %s: no field number %d in %s", sf.Name, n, md.FullName())
	}
	return fd, nil
}

// appendField writes the code that appends field fd, held in Go
// expression e. always: written even when zero (a oneof member).
func (g *gen) appendField(fd protoreflect.FieldDescriptor, e string, always bool) error {
	if fd.IsMap() {
		return fmt.Errorf("map fields are not handled")
	}
	num := uint64(fd.Number())
	k := fd.Kind()
	switch {
	case fd.IsList() && fd.IsPacked():
		val, _, err := scalarAppend(k, "v")
		if err != nil {
			return err
		}
		g.p("\tif len(%s) > 0 {\n\t\tb = appendTag(b, %d, wireBytes)\n\t\ts := len(b)\n", e, num)
		g.p("\t\tfor _, v := range %s {\n\t\t\tb = %s\n\t\t}\n\t\tb = closeLength(b, s)\n\t}\n", e, val)
	case fd.IsList():
		g.p("\tfor _, v := range %s {\n", e)
		if err := g.appendOne(k, num, "v", "\t\t"); err != nil {
			return err
		}
		g.p("\t}\n")
	case k == protoreflect.MessageKind || k == protoreflect.GroupKind:
		if k == protoreflect.GroupKind {
			return fmt.Errorf("groups are not handled")
		}
		if always {
			g.p("\t{\n")
		} else {
			g.p("\tif %s != nil {\n", e)
		}
		if err := g.appendOne(k, num, e, "\t\t"); err != nil {
			return err
		}
		g.p("\t}\n")
	case fd.HasPresence() && !always:
		// proto3 optional: a pointer, written when set, even to zero.
		g.p("\tif %s != nil {\n", e)
		if err := g.appendOne(k, num, "*"+e, "\t\t"); err != nil {
			return err
		}
		g.p("\t}\n")
	default:
		_, nonzero, err := scalarAppend(k, e)
		if err != nil {
			return err
		}
		if always {
			g.p("\t{\n")
		} else {
			g.p("\tif %s {\n", nonzero)
		}
		if err := g.appendOne(k, num, e, "\t\t"); err != nil {
			return err
		}
		g.p("\t}\n")
	}
	return nil
}

// appendOne writes the code that appends one value v of kind k with its
// tag.
func (g *gen) appendOne(k protoreflect.Kind, num uint64, v, indent string) error {
	switch k {
	case protoreflect.MessageKind:
		g.p("%sb = appendTag(b, %d, wireBytes)\n%ss := len(b)\n%sb = %s.AppendWire(b)\n%sb = closeLength(b, s)\n",
			indent, num, indent, indent, v, indent)
		return nil
	case protoreflect.StringKind, protoreflect.BytesKind:
		g.p("%sb = appendTag(b, %d, wireBytes)\n%sb = appendVarint(b, uint64(len(%s)))\n%sb = append(b, %s...)\n",
			indent, num, indent, v, indent, v)
		return nil
	}
	val, _, err := scalarAppend(k, v)
	if err != nil {
		return err
	}
	g.p("%sb = appendTag(b, %d, %s)\n%sb = %s\n", indent, num, wireOf(k), indent, val)
	return nil
}

// wireOf is the wire type constant (of the helpers in zestallwire) of a
// scalar kind.
func wireOf(k protoreflect.Kind) string {
	switch k {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return "wireFixed32"
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return "wireFixed64"
	}
	return "wireVarint"
}

// scalarAppend is the expression appending scalar v of kind k (without
// its tag) to b, and the condition that v is not zero (implicit presence:
// only then is it written; a float or double is written unless its bits
// are 0, so -0 is, as proto.Marshal does).
func scalarAppend(k protoreflect.Kind, v string) (val, nonzero string, err error) {
	switch k {
	case protoreflect.BoolKind:
		return fmt.Sprintf("appendBool(b, %s)", v), v, nil
	case protoreflect.EnumKind, protoreflect.Int32Kind:
		return fmt.Sprintf("appendVarint(b, uint64(int64(%s)))", v), v + " != 0", nil
	case protoreflect.Int64Kind, protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return fmt.Sprintf("appendVarint(b, uint64(%s))", v), v + " != 0", nil
	case protoreflect.Sint32Kind:
		return fmt.Sprintf("appendVarint(b, zigzag32(%s))", v), v + " != 0", nil
	case protoreflect.Sint64Kind:
		return fmt.Sprintf("appendVarint(b, zigzag64(%s))", v), v + " != 0", nil
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return fmt.Sprintf("appendFixed32(b, uint32(%s))", v), v + " != 0", nil
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return fmt.Sprintf("appendFixed64(b, uint64(%s))", v), v + " != 0", nil
	case protoreflect.FloatKind:
		return fmt.Sprintf("appendFixed32(b, float32Bits(%s))", v), fmt.Sprintf("float32Bits(%s) != 0", v), nil
	case protoreflect.DoubleKind:
		return fmt.Sprintf("appendFixed64(b, float64Bits(%s))", v), fmt.Sprintf("float64Bits(%s) != 0", v), nil
	case protoreflect.StringKind, protoreflect.BytesKind:
		return "", fmt.Sprintf("len(%s) > 0", v), nil
	}
	return "", "", fmt.Errorf("kind %v is not handled", k)
}
