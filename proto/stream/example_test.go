package stream_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// Writing: the profiler's writer goroutine does this.
func ExampleWriter() {
	var buf bytes.Buffer // e.g. stream.CreateExclusive(path)
	w, err := stream.NewWriter(&buf, nil)
	if err != nil {
		log.Fatal(err)
	}
	w.Write(&pb.Record{Kind: &pb.Record_Header{Header: &pb.Header{FormatVersion: 1, Pid: 4242}}})
	w.Write(&pb.Record{Kind: &pb.Record_Launch{Launch: &pb.Launch{
		Id: 1, KernelId: 7, HostAppendNs: 1000, DeviceStartNs: 1100, DeviceEndNs: 1850}}})
	if err := w.Flush(); err != nil { // at least every second, and at exit
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	recs, err := pbstream.ReadAll(&buf)
	fmt.Println(len(recs), err)
	// Output:
	// 2 <nil>
}
