// Package zestallpb holds the Go types generated from proto/zestall.proto,
// the zestall output format. Read the .proto file for the meaning and units
// of every field; use package github.com/zestall/zestall/proto/pbstream to
// read files as these types (and to write them, through proto/stream's
// Writer, as zestall merge does). libzestall.so does not link this package:
// its writer uses the plain mirrors in proto/zestallwire.
//
// zestall.pb.go is generated: do not edit it; see proto/README.md.
package zestallpb
