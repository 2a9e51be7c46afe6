package pbstream

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"

	"github.com/zestall/zestall/proto/stream"
)

// runFrames returns the uncompressed frames the Writer makes of the
// launches of a run (benchRunLaunches): the records, length-delimited, cut
// into frames as the Writer cuts them (at stream.DefaultFrameSize), and
// the number of launches they hold.
func runFrames(b testing.TB) (frames [][]byte, launches int) {
	ls, from := benchRunLaunches(b)
	b.Logf("%d launches from %s", len(ls), from)
	var file bytes.Buffer
	w, err := stream.NewWriter(&file, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range ls {
		if err := w.WriteLaunch(&ls[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer dec.Close()
	content, err := dec.DecodeAll(file.Bytes()[stream.PrefixSize:], nil)
	if err != nil {
		b.Fatal(err)
	}
	// Cut at record boundaries, each frame at most DefaultFrameSize.
	start, at := 0, 0
	for at < len(content) {
		n, k := binary.Uvarint(content[at:])
		if k <= 0 {
			b.Fatal("bad record length")
		}
		next := at + k + int(n)
		if next-start > stream.DefaultFrameSize && at > start {
			frames = append(frames, content[start:at])
			start = at
		}
		at = next
	}
	frames = append(frames, content[start:])
	return frames, len(ls)
}

// BenchmarkCompressOptions compresses the Writer's frames of a run
// (runFrames; ZESTALL_BENCH_RUN names a real run's file) with each
// Zstandard encoder configuration measured for the writer's choice
// (docs/stream-writer.md §1.1 "Encoder options measured"), one EncodeAll
// per frame as the Writer's compressor does: ns/launch is the
// compressing goroutine's time per launch, B/launch the compressed bytes
// per launch. "huff0-only" is the Huffman coding of the literals alone,
// in blocks of 128 KiB without match finding: what the Writer's
// literals-only frames of launches hold (litframe.go), without their
// few bytes of headers.
func BenchmarkCompressOptions(b *testing.B) {
	frames, launches := runFrames(b)
	raw := 0
	for _, f := range frames {
		raw += len(f)
	}
	b.Logf("%d frames, %.3f raw bytes per launch", len(frames), float64(raw)/float64(launches))
	type opts = []zstd.EOption
	base := func(more ...zstd.EOption) opts {
		return append(opts{zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true), zstd.WithLowerEncoderMem(true)}, more...)
	}
	for _, c := range []struct {
		name string
		o    opts
	}{
		// The Writer's until session 14: level 1, 256 KiB window, so
		// 64 KiB blocks (the level's, set after the window).
		{"fastest-w256k-b64k", base(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(256<<10))},
		// The window set after the level: blocks of 128 KiB.
		{"fastest-w256k-b128k", base(zstd.WithWindowSize(256<<10), zstd.WithEncoderLevel(zstd.SpeedFastest))},
		{"fastest-w32k-b32k", base(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(32<<10))},
		{"fastest-w256k-nocrc", append(base(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(256<<10)), zstd.WithEncoderCRC(false))},
		{"fastest-w256k-allLit", base(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(256<<10), zstd.WithAllLitEntropyCompression(true))},
		{"fastest-w256k-noEntropy", base(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(256<<10), zstd.WithNoEntropyCompression(true))},
		{"fastest-highmem", opts{zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true), zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(256 << 10)}},
		{"default-w256k", base(zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithWindowSize(256<<10))},
	} {
		b.Run(c.name, func(b *testing.B) {
			enc, err := zstd.NewWriter(nil, c.o...)
			if err != nil {
				b.Fatal(err)
			}
			defer enc.Close()
			var out []byte
			size := 0
			for b.Loop() {
				size = 0
				for _, f := range frames {
					out = enc.EncodeAll(f, out[:0])
					size += len(out)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(launches), "ns/launch")
			b.ReportMetric(float64(size)/float64(launches), "B/launch")
			// Read back: the configuration makes frames every reader reads.
			dec, err := zstd.NewReader(nil)
			if err != nil {
				b.Fatal(err)
			}
			defer dec.Close()
			for _, f := range frames[:1] {
				got, err := dec.DecodeAll(enc.EncodeAll(f, nil), nil)
				if err != nil || !bytes.Equal(got, f) {
					b.Fatalf("frame reads back wrong (%v)", err)
				}
			}
		})
	}
	b.Run("huff0-only", func(b *testing.B) {
		var s huff0.Scratch
		size := 0
		for b.Loop() {
			size = 0
			for _, f := range frames {
				for len(f) > 0 {
					blk := f[:min(len(f), 128<<10)]
					f = f[len(blk):]
					out, _, err := huff0.Compress4X(blk, &s)
					if err != nil {
						size += len(blk)
						continue
					}
					size += len(out)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(launches), "ns/launch")
		b.ReportMetric(float64(size)/float64(launches), "B/launch")
	})
}
