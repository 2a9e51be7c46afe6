package pbstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// readResuming reads like a caller that wants everything intact: it goes
// on after every error with Resumed set. It returns the records, the
// resumed errors and the final error (nil at a clean end).
func readResuming(t *testing.T, rd *Reader) (recs []*pb.Record, resumed []*stream.FormatError, final error) {
	t.Helper()
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs, resumed, nil
		}
		var fe *stream.FormatError
		if errors.As(err, &fe) && fe.Resumed {
			resumed = append(resumed, fe)
			continue
		}
		if err != nil {
			if rec != nil {
				t.Fatal("record returned with an error")
			}
			return recs, resumed, err
		}
		recs = append(recs, rec)
	}
}

// frameGroups is a five-frame file: every kind of record, spread so that
// each frame holds several.
func frameGroups() [][]*pb.Record {
	kinds := allKinds()
	launches := awkwardLaunches()
	return [][]*pb.Record{kinds[:3], launches[:5], kinds[3:6], launches[5:], kinds[6:]}
}

// withoutGroup returns the records of every group but skip, as read back.
func withoutGroup(all []*pb.Record, groups [][]*pb.Record, skip int) []*pb.Record {
	var out []*pb.Record
	i := 0
	for g, grp := range groups {
		if g != skip {
			out = append(out, all[i:i+len(grp)]...)
		}
		i += len(grp)
	}
	return out
}

// TestResync damages one frame of a five-frame file in the ways damage
// happens (a flipped byte in compressed data, a destroyed magic number, a
// block header that runs over the frames after it, bytes lost in the
// middle, garbage inserted between frames, a damaged record in an intact
// frame): reading goes on at the next intact frame, every record of the
// other frames comes back, and the one error says where and how much was
// skipped.
func TestResync(t *testing.T) {
	groups := frameGroups()
	file, ends := frameFile(t, groups)
	all, err := ReadAll(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	start := func(k int) int {
		if k == 0 {
			return stream.PrefixSize
		}
		return ends[k-1]
	}
	const k = 2 // the damaged frame
	s, e := start(k), ends[k]
	tests := []struct {
		name    string
		damage  func(b []byte) []byte
		skipped int // bytes from the damaged frame to the next intact one
	}{
		{"flipped byte", func(b []byte) []byte { b[(s+e)/2] ^= 0x40; return b }, e - s},
		{"magic destroyed", func(b []byte) []byte { copy(b[s:], "JUNK"); return b }, e - s},
		{"block runs over later frames", func(b []byte) []byte {
			// The first block header: after magic, descriptor, window
			// descriptor (or single segment), dictionary id, content
			// size (RFC 8878 section 3.1.1.1).
			fhd := b[s+4]
			h := s + 5 + [4]int{0, 1, 2, 4}[fhd&3] + [4]int{0, 2, 4, 8}[fhd>>6]
			if fhd&0x20 == 0 || fhd>>6 == 0 {
				h++
			}
			bh := uint32(128<<10)<<3 | 0<<1 // raw block, 128 KiB, not last
			b[h], b[h+1], b[h+2] = byte(bh), byte(bh>>8), byte(bh>>16)
			return b
		}, e - s},
		{"bytes lost", func(b []byte) []byte { return append(b[:s+10:s+10], b[s+30:]...) }, e - s - 20},
		{"garbage between frames", func(b []byte) []byte {
			junk := append([]byte("garbage\x28\xb5\x2f\xfdmore"), 0)
			return append(b[:s:s], append(junk, b[s:]...)...)
		}, len("garbage\x28\xb5\x2f\xfdmore") + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := tt.damage(append([]byte(nil), file...))
			recs, resumed, final := readResuming(t, NewReader(bytes.NewReader(bad)))
			if final != nil {
				t.Fatalf("final error %v", final)
			}
			want := withoutGroup(all, groups, k)
			if tt.name == "garbage between frames" {
				want = all
			}
			equalRecords(t, recs, want)
			if len(resumed) != 1 {
				t.Fatalf("%d resumed errors, want 1: %v", len(resumed), resumed)
			}
			fe := resumed[0]
			if fe.Offset != int64(s) || fe.Skipped != int64(tt.skipped) || !errors.Is(fe, stream.ErrCorrupt) {
				t.Errorf("error %v: offset %d skipped %d, want offset %d skipped %d, stream.ErrCorrupt", fe, fe.Offset, fe.Skipped, s, tt.skipped)
			}
			t.Log(fe)
		})
	}

	// A damaged record in an intact frame: the rest of that frame is
	// lost, the next frame follows.
	t.Run("damaged record", func(t *testing.T) {
		bad := []*pb.Record{header(), {Kind: &pb.Record_StallRows{StallRows: &pb.StallRows{
			ColumnCount: 3, OffsetDeltas: []uint64{0, 16}, Counters: []uint64{1, 2, 3, 4, 5}}}}, kernel(&pb.Kernel{Id: 9})}
		good := allKinds()
		file, ends := frameFile(t, [][]*pb.Record{bad, good})
		recs, resumed, final := readResuming(t, NewReader(bytes.NewReader(file)))
		clearBytesWritten(recs)
		if final != nil || len(resumed) != 1 || resumed[0].Record != 1 || resumed[0].Skipped != int64(ends[0]-stream.PrefixSize) {
			t.Fatalf("final %v, resumed %v", final, resumed)
		}
		equalRecords(t, recs, append([]*pb.Record{header()}, expectedAfter(good, len(bad))...))
	})
}

// expectedAfter is expected() for records written after n others.
func expectedAfter(recs []*pb.Record, n int) []*pb.Record {
	out := cloneAll(recs)
	for i, r := range out {
		if c := r.GetCounters(); c != nil {
			c.RecordsWritten = uint64(n + i)
			c.BytesWritten = 0
		}
	}
	return out
}

// TestTruncationEveryBoundary cuts the five-frame file inside every frame
// and at every frame boundary, reading as a resuming caller does: a cut at
// a boundary reads cleanly; a cut inside a frame gives the records of the
// frames before it and one final stream.ErrTruncated at that frame's offset,
// never a resumption.
func TestTruncationEveryBoundary(t *testing.T) {
	groups := frameGroups()
	file, ends := frameFile(t, groups)
	all, _ := ReadAll(bytes.NewReader(file))
	for cut := stream.PrefixSize; cut <= len(file); cut++ {
		nrec, frameStart := 0, stream.PrefixSize
		for i, end := range ends {
			if end <= cut {
				nrec += len(groups[i])
				frameStart = end
			}
		}
		recs, resumed, final := readResuming(t, NewReader(bytes.NewReader(file[:cut])))
		equalRecords(t, recs, all[:nrec])
		if len(resumed) != 0 {
			t.Fatalf("cut at %d: resumed after %v", cut, resumed)
		}
		if cut == frameStart {
			if final != nil {
				t.Fatalf("cut at boundary %d: %v", cut, final)
			}
			continue
		}
		var fe *stream.FormatError
		if !errors.As(final, &fe) || !errors.Is(final, stream.ErrTruncated) || fe.Offset != int64(frameStart) {
			t.Fatalf("cut at %d: %v, want stream.ErrTruncated at %d", cut, final, frameStart)
		}
	}
}

// TestBitFlipsResuming flips every bit of the five-frame file and reads as
// a resuming caller: never a panic, only records that were written, in
// order, and every record of the frames the flip did not touch.
func TestBitFlipsResuming(t *testing.T) {
	groups := frameGroups()
	file, ends := frameFile(t, groups)
	all, _ := ReadAll(bytes.NewReader(file))
	frameOf := func(i int) int {
		for k, e := range ends {
			if i < e {
				return k
			}
		}
		return len(ends)
	}
	bad := make([]byte, len(file))
	for i := range file {
		for bit := 0; bit < 8; bit++ {
			copy(bad, file)
			bad[i] ^= 1 << bit
			recs, _, final := readResuming(t, NewReader(bytes.NewReader(bad)))
			if i < stream.PrefixSize {
				if final == nil && len(recs) != len(all) || final != nil && len(recs) != 0 {
					t.Fatalf("flip %d.%d in the prefix: %d records, %v", i, bit, len(recs), final)
				}
				continue
			}
			// Every returned record was written, in order.
			j := 0
			for _, r := range recs {
				for j < len(all) && !proto.Equal(r, all[j]) {
					j++
				}
				if j == len(all) {
					t.Fatalf("flip %d.%d: a record that was not written, or out of order: %v", i, bit, r)
				}
				j++
			}
			if len(recs) == len(all) {
				continue // the flip changed nothing that is read
			}
			want := withoutGroup(all, groups, frameOf(i))
			if len(recs) < len(want) {
				t.Fatalf("flip %d.%d (frame %d): %d records, want at least the %d of the other frames (final %v)", i, bit, frameOf(i), len(recs), len(want), final)
			}
		}
	}
}

// bomb returns a file with one frame of n RLE blocks of 128 KiB zeros: 4
// bytes of input per 128 KiB of output, the cheapest decompression bomb.
func bomb(n int) []byte {
	b := []byte(stream.Magic + "\x01")
	b = binary.LittleEndian.AppendUint32(b, zstdMagic)
	b = append(b, 0x00, 0x38) // no content size, no checksum; window 128 KiB
	for i := 0; i < n; i++ {
		bh := uint32(maxBlockSize)<<3 | 1<<1
		if i == n-1 {
			bh |= 1
		}
		b = append(b, byte(bh), byte(bh>>8), byte(bh>>16), 0)
	}
	return b
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestDecompressionBomb: a 33 KB file whose one frame decompresses to
// 1 GiB is refused after decompressing one byte past stream.MaxFrameSize, and
// reading it allocates about the buffered-frame limit, not the frame.
func TestDecompressionBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 512 MiB")
	}
	file := bomb(8400)
	t.Logf("bomb: %d bytes, decompresses to %d MiB", len(file), 8400*maxBlockSize>>20)
	var err error
	n := allocated(func() { _, err = ReadAll(bytes.NewReader(file)) })
	if !errors.Is(err, stream.ErrCorrupt) {
		t.Fatalf("err = %v, want stream.ErrCorrupt", err)
	}
	t.Logf("allocated %d MiB: %v", n>>20, err)
	// The slack covers the decoder's own buffers (and the race
	// detector's, under which CI runs it: 25 MiB measured there).
	if limit := uint64(maxBufferedFrame + 32<<20); n > limit {
		t.Errorf("reading the bomb allocated %d MiB, limit %d MiB", n>>20, limit>>20)
	}
}

// TestLargeFrameStreamed: a frame larger than the buffered limit is read
// in two passes; it gives the same records, and a damaged one gives none
// of its records (the first pass checks it whole).
func TestLargeFrameStreamed(t *testing.T) {
	// One frame: a Counters record ends its frame, allKinds ends with one.
	recs := append(synthLaunchRecords()[:2000], allKinds()...)
	file := encode(t, recs, 0, nil)
	want, err := ReadAll(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(bytes.NewReader(file))
	rd.maxBuffered = 4 << 10
	got, resumed, final := readResuming(t, rd)
	if final != nil || len(resumed) != 0 {
		t.Fatal(final, resumed)
	}
	equalRecords(t, got, want)
	if !rd.streamed && rd.err == nil {
		t.Error("the frame was not streamed")
	}

	// Damage the frame's last bytes (its checksum): nothing comes out.
	bad := append([]byte(nil), file...)
	bad[len(bad)-2] ^= 1
	rd = NewReader(bytes.NewReader(bad))
	rd.maxBuffered = 4 << 10
	got, _, final = readResuming(t, rd)
	if len(got) != 0 || !errors.Is(final, stream.ErrCorrupt) {
		t.Fatalf("damaged large frame: %d records, %v", len(got), final)
	}

	// A record that claims more than the frame holds is refused
	// before anything is allocated for it.
	var content []byte
	content = binary.AppendUvarint(content, 200<<20)
	content = append(content, make([]byte, 64<<10)...)
	rd = NewReader(bytes.NewReader(encodeRawFrame(t, content)))
	rd.maxBuffered = 4 << 10
	n := allocated(func() { _, err = rd.Next() })
	if !errors.Is(err, stream.ErrCorrupt) || n > 8<<20 {
		t.Fatalf("record past the frame: %v, allocated %d bytes", err, n)
	}
}
