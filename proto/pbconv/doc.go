// Package pbconv converts records between their two Go forms: package
// zestallpb's (protoc-gen-go's, with protobuf's runtime: what offline
// tools read) and package zestallwire's (plain types: what libzestall.so
// writes). For every message type X of zestall.proto, XToWire and
// XFromWire copy a message to a new one, CopyXToWire and CopyXFromWire
// into an existing one; lists, bytes and the values of optional fields are
// shared, not copied.
//
// Users: package pbstream (its Reader resolves compact Launch records with
// proto/stream's LaunchFrame; Write gives zestallpb records to a
// stream.Writer) and the tests that hold the Writer's encoding to
// proto.Marshal.
//
// convert.go is generated with zestallwire by proto/internal/wiregen: do
// not edit it; run `go generate ./proto`.
package pbconv
