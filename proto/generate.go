// Package proto holds the zestall output format: zestall.proto, the schema
// and public contract; zestallpb, the Go code protoc-gen-go generates from
// it; zestallwire, the same messages as plain Go types for the writer side
// (libzestall.so links no protobuf runtime), and pbconv, conversions
// between the two, both generated from zestallpb by internal/wiregen;
// stream, the framing and the Writer; and pbstream, the Reader. See
// README.md.
//
// Regenerate zestallpb, zestallwire and pbconv after editing zestall.proto
// with
//
//	go generate ./proto
//
// which needs protoc (Debian: protobuf-compiler) and protoc-gen-go of the
// version in go.mod in PATH (go install google.golang.org/protobuf/cmd/protoc-gen-go,
// run inside this module). TestGeneratedUpToDate and TestWireUpToDate fail
// when the checked-in code differs from what the schema generates.
package proto

//go:generate protoc --proto_path=. --go_out=. --go_opt=module=github.com/zestall/zestall/proto zestall.proto
//go:generate go run ./internal/wiregen -o zestallwire/zestall.wire.go -conv pbconv/convert.go
