// Package proto holds the zestall output format: zestall.proto, the schema
// and public contract; zestallpb, the Go code generated from it; and stream,
// the framing with its writer and reader. See README.md.
//
// Regenerate zestallpb after editing zestall.proto with
//
//	go generate ./proto
//
// which needs protoc (Debian: protobuf-compiler) and protoc-gen-go of the
// version in go.mod in PATH (go install google.golang.org/protobuf/cmd/protoc-gen-go,
// run inside this module). TestGeneratedUpToDate fails when the checked-in
// code differs from what the schema generates.
package proto

//go:generate protoc --proto_path=. --go_out=. --go_opt=module=github.com/zestall/zestall/proto zestall.proto
//go:generate go run ./internal/wiregen -o zestallwire/zestall.wire.go -conv pbstream/convert.go
