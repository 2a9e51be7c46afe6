package pbstream

import (
	"bytes"
	"io"
	"testing"

	"github.com/zestall/zestall/proto/pbconv"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// The synthetic run of synth_test.go: 1e5 launches of 50 kernels, and stall
// rows for 50 kernels × 200 offsets × 10 counters. Besides time, each
// benchmark reports the compressed size per launch record or stall row
// (framing included), and launches or rows per second. A write includes
// creating the stream.Writer (its Zstandard encoder), once per file in real use.

func benchWrite(b *testing.B, recs []*pb.Record, every int, unit, units string, n float64) {
	var size int
	for b.Loop() {
		size = len(encode(b, recs, every, nil))
	}
	b.ReportMetric(float64(size)/n, "B/"+unit)
	b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), units+"/s")
}

func benchRead(b *testing.B, recs []*pb.Record, every int, unit, units string, n float64) {
	file := encode(b, recs, every, nil)
	for b.Loop() {
		rd := NewReader(bytes.NewReader(file))
		for {
			if _, err := rd.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(file))/n, "B/"+unit)
	b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), units+"/s")
}

func BenchmarkWriteLaunches(b *testing.B) {
	benchWrite(b, synthLaunchRecords(), synthLaunches/synthFlushes, "launch", "launches", synthLaunches)
}

func BenchmarkReadLaunches(b *testing.B) {
	benchRead(b, synthLaunchRecords(), synthLaunches/synthFlushes, "launch", "launches", synthLaunches)
}

func BenchmarkWriteStallRows(b *testing.B) {
	benchWrite(b, synthStallRecords(), 0, "row", "rows", synthKernels*synthOffsets)
}

func BenchmarkReadStallRows(b *testing.B) {
	benchRead(b, synthStallRecords(), 0, "row", "rows", synthKernels*synthOffsets)
}

// BenchmarkWriteLaunchValues is the profiler's path: one stream.Launch value per
// call to WriteLaunch, timed, on one command list, to io.Discard
// (compression runs on the stream.Writer's own goroutine; ns/op is the
// encoding goroutine's time when a core is free for it).
func BenchmarkWriteLaunchValues(b *testing.B) {
	w, _ := stream.NewWriter(io.Discard, nil)
	l := stream.Launch{Id: 1, KernelId: 3, DeviceId: 1, QueueId: 1, CommandListId: 1, Flags: 1, GroupCountX: 64, GroupSizeX: 128, HostAppendNs: 1e9}
	b.ReportAllocs()
	for b.Loop() {
		l.Id++
		l.HostAppendNs += 500
		l.DeviceStartNs = l.HostAppendNs + 1000
		l.DeviceEndNs = l.DeviceStartNs + 2000
		if err := w.WriteLaunch(&l); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWriteLaunchSynth is the profiler's path on the synthetic run's
// launches (values, compact form, one frame per 10^4 launches as the
// profiler's flushes make), to io.Discard. Besides the encoding
// goroutine's ns/op it reports the whole process's CPU per launch
// (encoding and the compressor's goroutine; cpu-ns/launch) and the
// compressed bytes per launch: what a stream.Writer costs the profiled process.
func BenchmarkWriteLaunchSynth(b *testing.B) {
	recs := synthLaunchRecords()
	ls := make([]stream.Launch, len(recs))
	for i, r := range recs {
		ls[i] = stream.LaunchOf(pbconv.LaunchToWire(r.GetLaunch()))
	}
	var cw countingWriter
	w, err := stream.NewWriter(&cw, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := processCPUNs()
	i := 0
	for b.Loop() {
		if err := w.WriteLaunch(&ls[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(ls) {
			i = 0
		}
		if i%(synthLaunches/synthFlushes) == 0 {
			if err := w.StartFlush(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(processCPUNs()-cpu0)/float64(b.N), "cpu-ns/launch")
	b.ReportMetric(float64(cw.n)/float64(b.N), "B/launch")
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
