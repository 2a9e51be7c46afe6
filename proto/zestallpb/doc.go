// Package zestallpb holds the Go types generated from proto/zestall.proto,
// the zestall output format. Read the .proto file for the meaning and units
// of every field; use package github.com/zestall/zestall/proto/stream to
// read and write files.
//
// zestall.pb.go is generated: do not edit it; see proto/README.md.
package zestallpb
