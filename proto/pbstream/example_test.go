package pbstream_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
	zw "github.com/zestall/zestall/proto/zestallwire"
)

// Reading a zestall file record by record, keeping what a damaged file
// still holds.
func ExampleReader() {
	file := exampleFile() // e.g. os.Open("zestall.node7.4242.zst")

	rd := pbstream.NewReader(file)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, stream.ErrTruncated) {
			fmt.Println("file ends early (run killed?):", err)
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		switch k := rec.Kind.(type) {
		case *pb.Record_Header:
			fmt.Println("pid", k.Header.Pid, "on", k.Header.HostName)
		case *pb.Record_Launch:
			l := k.Launch
			fmt.Printf("launch %d of kernel %d: %d ns on the device\n",
				l.Id, l.KernelId, l.DeviceEndNs-l.DeviceStartNs)
		default:
			// Other kinds, and kinds newer than this program (Kind == nil).
		}
	}
	// Output:
	// pid 4242 on node7
	// launch 1 of kernel 7: 750 ns on the device
	// launch 2 of kernel 7: 800 ns on the device
}

// Reading everything intact from a damaged file: after an error with
// Resumed set, Next goes on with the next intact frame.
func ExampleFormatError_resumed() {
	file := damagedFile() // three frames, the second damaged

	rd := pbstream.NewReader(file)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		var fe *stream.FormatError
		if errors.As(err, &fe) && fe.Resumed {
			fmt.Printf("skipped %d damaged bytes at offset %d\n", fe.Skipped, fe.Offset)
			continue
		}
		if err != nil {
			log.Fatal(err) // final: nothing intact follows
		}
		if l := rec.GetLaunch(); l != nil {
			fmt.Println("launch", l.Id)
		}
	}
	// Output:
	// launch 1
	// skipped 29 damaged bytes at offset 34
	// launch 3
}

// damagedFile writes one launch per frame and damages the second frame.
func damagedFile() io.Reader {
	var buf bytes.Buffer
	w, _ := stream.NewWriter(&buf, nil)
	var ends []int
	for id := uint64(1); id <= 3; id++ {
		w.Write(&zw.Record{Kind: &zw.Record_Launch{Launch: &zw.Launch{Id: id, KernelId: 7, HostAppendNs: 1000 * id}}})
		w.Flush()
		ends = append(ends, buf.Len())
	}
	w.Close()
	b := buf.Bytes()
	b[(ends[0]+ends[1])/2] ^= 0xff
	return bytes.NewReader(b)
}

func exampleFile() io.Reader {
	var buf bytes.Buffer
	w, _ := stream.NewWriter(&buf, nil)
	w.Write(&zw.Record{Kind: &zw.Record_Header{Header: &zw.Header{FormatVersion: 1, Pid: 4242, HostName: "node7"}}})
	w.Write(&zw.Record{Kind: &zw.Record_Launch{Launch: &zw.Launch{
		Id: 1, KernelId: 7, HostAppendNs: 1000, DeviceStartNs: 1100, DeviceEndNs: 1850}}})
	w.Write(&zw.Record{Kind: &zw.Record_Launch{Launch: &zw.Launch{
		Id: 2, KernelId: 7, HostAppendNs: 1010, DeviceStartNs: 1900, DeviceEndNs: 2700}}})
	w.Close()
	return &buf
}
