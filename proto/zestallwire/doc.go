// Package zestallwire holds the messages and enums of zestall.proto as
// plain Go types: what the code linked into libzestall.so (collector/...,
// and package proto/stream's Writer) builds and writes. Offline tools read
// files into package zestallpb's types instead (package proto/pbstream).
//
// The types mirror zestallpb's: the same names, field names, Go types and
// `protobuf` struct tags, oneofs as protoc-gen-go writes them (an
// interface field and one wrapper type per member), nil-safe getters and
// enum String methods, plus UnknownFields on every message. They carry no
// protobuf runtime: zestallpb's package initialisation (building the
// schema's descriptors and registering its types) and the protobuf
// reflection packages it pulls in were about half of libzestall.so's
// start-up and of its relocations (BENCHMARKS.md, start-up). Each message
// encodes itself (AppendWire, generated; its helpers in append.go) to the
// bytes proto.Marshal makes of its zestallpb twin, without reflection:
// proto/stream's reflective encoder by the struct tags (tagenc.go) built
// a plan per type at the first record of every process. proto/stream's
// tests hold every message type to proto.Marshal both ways (converting
// with package pbconv).
//
// The writer side imports this package as pb: its types are the schema's
// protobuf messages, in another Go form, and code that moved from
// zestallpb to them kept its text.
//
// zestall.wire.go is generated from zestall.proto, through zestallpb, by
// proto/internal/wiregen: do not edit it; run `go generate ./proto`.
// proto's TestWireUpToDate fails when it is stale.
package zestallwire
