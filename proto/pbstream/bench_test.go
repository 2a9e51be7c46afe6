package pbstream

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

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
	cpu := writeLaunchLoop(b, w, ls, synthLaunches/synthFlushes)
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/launch")
	b.ReportMetric(float64(cw.n)/float64(b.N), "B/launch")
}

// writeLaunchLoop writes ls to w in a loop for b.N launches, flushing
// every flushEvery launches of ls, closes w and returns the process CPU
// it took, in ns.
func writeLaunchLoop(b *testing.B, w *stream.Writer, ls []stream.Launch, flushEvery int) int64 {
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
		if i%flushEvery == 0 {
			if err := w.StartFlush(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return processCPUNs() - cpu0
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// benchRunLaunches returns the launches BenchmarkWriteLaunchRun writes: those
// of the zestall file named by ZESTALL_BENCH_RUN (a real run's, e.g. of
// zestall-bench-launch), or, without it, launches shaped like
// zestall-bench-launch's at full rate on the simulated device: one kernel
// on one immediate command list, appended every 150-650 ns, starting
// 30-100 ns after the append, of no duration (ZESIM_TIME_SCALE=0).
func benchRunLaunches(b testing.TB) (ls []stream.Launch, from string) {
	if name := os.Getenv("ZESTALL_BENCH_RUN"); name != "" {
		recs, err := ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if l := r.GetLaunch(); l != nil {
				ls = append(ls, stream.LaunchOf(pbconv.LaunchToWire(l)))
			}
		}
		if len(ls) == 0 {
			b.Fatalf("ZESTALL_BENCH_RUN=%s holds no Launch records", name)
		}
		return ls, name
	}
	rng := rand.New(rand.NewPCG(5, 6))
	host := uint64(70_564_223_326_767)
	ls = make([]stream.Launch, 200_000)
	for i := range ls {
		host += 150 + rng.Uint64N(500)
		start := host + 30 + rng.Uint64N(70)
		ls[i] = stream.Launch{Id: uint64(i + 1), KernelId: 1, DeviceId: 1, CommandListId: 1,
			Flags:       uint32(pb.LaunchFlag_LAUNCH_FLAG_TIMESTAMP_SWAPPED | pb.LaunchFlag_LAUNCH_FLAG_IMMEDIATE),
			GroupCountX: 1, GroupCountY: 1, GroupCountZ: 1, GroupSizeX: 1, GroupSizeY: 1, GroupSizeZ: 1,
			HostAppendNs: host, DeviceStartNs: start, DeviceEndNs: start}
	}
	return ls, "bench-like"
}

// BenchmarkWriteLaunchRun is the profiler's path on the launches of a run
// (benchRunLaunches), a flush every 10^5 launches, to a file, with
// LaunchRun records (runs) and without (records: revision 7's Launch
// records), frames of launches compressed as the Writer chooses, or
// always with the Zstandard encoder (-encoder), or always literals only
// (-literals). Besides the encoding goroutine's ns/op it reports the whole
// process's CPU per launch (encoding and the compressor; cpu-ns/launch),
// the compressed bytes per launch (B/launch) and the records' bytes
// before compression (raw-B/launch). Every launch is read back from the
// file.
func BenchmarkWriteLaunchRun(b *testing.B) {
	ls, from := benchRunLaunches(b)
	b.Logf("%d launches from %s", len(ls), from)
	for _, c := range []struct {
		name string
		opts *stream.WriterOptions
	}{
		{"runs", nil},
		{"runs-encoder", &stream.WriterOptions{LaunchFrames: stream.LaunchFramesEncoder}},
		{"runs-literals", &stream.WriterOptions{LaunchFrames: stream.LaunchFramesLiterals}},
		{"records", &stream.WriterOptions{NoLaunchRuns: true}},
		{"records-encoder", &stream.WriterOptions{NoLaunchRuns: true, LaunchFrames: stream.LaunchFramesEncoder}},
	} {
		b.Run(c.name, func(b *testing.B) { benchWriteLaunches(b, ls, c.opts) })
	}
}

func benchWriteLaunches(b *testing.B, ls []stream.Launch, opts *stream.WriterOptions) {
	f, err := os.Create(filepath.Join(b.TempDir(), "run.zst"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, err := stream.NewWriter(f, opts)
	if err != nil {
		b.Fatal(err)
	}
	cpu := writeLaunchLoop(b, w, ls, 100_000)
	b.StopTimer()
	file, err := os.ReadFile(f.Name())
	if err != nil {
		b.Fatal(err)
	}
	// Read back: every launch, in order, as written (the benchmark
	// measures what it wrote).
	rd := NewReader(bytes.NewReader(file))
	n := 0
	for {
		r, err := rd.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
		l := r.GetLaunch()
		if l == nil {
			b.Fatalf("record %d: %v, want a launch", n, r)
		}
		if got := stream.LaunchOf(pbconv.LaunchToWire(l)); got != ls[n%len(ls)] {
			b.Fatalf("launch %d read back as %+v, want %+v", n, got, ls[n%len(ls)])
		}
		n++
	}
	if n != b.N {
		b.Fatalf("%d launches read back, %d written", n, b.N)
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/launch")
	b.ReportMetric(float64(len(file))/float64(b.N), "B/launch")
	dec, err := zstd.NewReader(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(file[len(stream.Magic)+1:], nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(raw))/float64(b.N), "raw-B/launch")
}
