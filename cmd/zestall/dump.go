package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

func cmdDump(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	withBytes := fs.Bool("bytes", false, "include binary fields (base64) instead of their sizes")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall dump [--bytes] FILE

Prints every record of FILE as one JSON object per line. Each object has a
"type" field naming the record kind ("header", "module", "kernel",
"launch", "stall_rows", "counters", ...) and the record's fields under
their .proto names; integers are JSON numbers; times are host ns. Binary
fields (native_binary, debug_info, ...) are replaced by "<name>_size"
unless --bytes is given. A damaged file prints every intact record (reading
goes on after a damaged stretch at the next intact frame), then what was
lost on stderr (exit status 1); so does a file with no record. FILE "-" is
standard input. Memory holds one record at a time.`)
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		if err == flag.ErrHelp {
			return errHelp
		}
		return usageError{err.Error()}
	}
	if len(files) != 1 {
		fs.Usage()
		return usageError{"dump takes exactly one FILE"}
	}
	enc := json.NewEncoder(stdout)
	in, err := readInput(files[0], nil, 0, func(rec *pb.Record) error {
		obj := recordJSON(rec, *withBytes)
		if obj == nil {
			return nil
		}
		return enc.Encode(obj)
	})
	if err != nil {
		return err
	}
	return in.err()
}

// recordJSON converts a record to a JSON object with a "type" field.
func recordJSON(rec *pb.Record, withBytes bool) map[string]any {
	m := rec.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("kind")
	fd := m.WhichOneof(od)
	if fd == nil {
		return nil // a record kind this reader does not know
	}
	obj := messageJSON(m.Get(fd).Message(), withBytes)
	obj["type"] = string(fd.Name())
	return obj
}

func messageJSON(m protoreflect.Message, withBytes bool) map[string]any {
	obj := map[string]any{}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(fd.Name())
		switch {
		case fd.IsList():
			l := v.List()
			if fd.Kind() == protoreflect.BytesKind && !withBytes {
				obj[name+"_count"] = l.Len()
				return true
			}
			arr := make([]any, l.Len())
			for i := range arr {
				arr[i] = scalarJSON(fd, l.Get(i), withBytes)
			}
			obj[name] = arr
		case fd.IsMap():
			mm := map[string]any{}
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				mm[k.String()] = scalarJSON(fd.MapValue(), mv, withBytes)
				return true
			})
			obj[name] = mm
		case fd.Kind() == protoreflect.BytesKind && !withBytes:
			obj[name+"_size"] = len(v.Bytes())
		default:
			obj[name] = scalarJSON(fd, v, withBytes)
		}
		return true
	})
	return obj
}

func scalarJSON(fd protoreflect.FieldDescriptor, v protoreflect.Value, withBytes bool) any {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return messageJSON(v.Message(), withBytes)
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return int32(v.Enum())
	default:
		return v.Interface() // bool, ints, floats, string, []byte (base64)
	}
}
