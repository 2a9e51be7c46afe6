package stream

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestLiteralsFrame: frames of literals-only blocks (appendLiteralsFrame)
// decompress, with klauspost/compress's decoder checking their content
// size and checksum, to what they hold, whatever the size (around each
// literals header format's and the content size field's bounds, one
// block and several) and the content (Huffman-coded, raw, RLE), one
// Scratch reused across them as the Writer does.
func TestLiteralsFrame(t *testing.T) {
	tests := literalsCases()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var s huff0.Scratch
	for _, tc := range tests {
		frame := appendLiteralsFrame([]byte("prefix"), tc.src, &s)
		if string(frame[:6]) != "prefix" {
			t.Fatalf("%s: dst's bytes changed", tc.name)
		}
		frame = frame[6:]
		got, err := dec.DecodeAll(frame, nil)
		if err != nil || !bytes.Equal(got, tc.src) {
			t.Errorf("%s: decoded %d bytes (%v), want %d", tc.name, len(got), err, len(tc.src))
			continue
		}
		// A damaged checksum is noticed: it is there and checked.
		bad := bytes.Clone(frame)
		bad[len(bad)-1] ^= 1
		if _, err := dec.DecodeAll(bad, nil); err == nil {
			t.Errorf("%s: a wrong checksum went unnoticed", tc.name)
		}
		// The content size is declared: the decoder's memory limits
		// and the Reader's checks see it before decoding.
		var h zstd.Header
		if err := h.Decode(frame); err != nil || !h.HasFCS || h.FrameContentSize != uint64(len(tc.src)) || !h.HasCheckSum {
			t.Errorf("%s: header %+v (%v): want content size %d and a checksum", tc.name, h, err, len(tc.src))
		}
	}
}

// TestLiteralsFrameReferenceDecoder: the same frames read by the
// reference implementation, libzstd (through Debian's python3-zstandard,
// which scripts/setup.sh installs for scripts/zestall_read.py): a reader
// of zestall's files in any language uses it, so a frame
// klauspost/compress's decoder accepts and libzstd does not would be
// unreadable there. One Python process decodes every frame (each
// length-prefixed on stdin, answered length-prefixed on stdout).
func TestLiteralsFrameReferenceDecoder(t *testing.T) {
	const py = "/usr/bin/python3" // Debian's, with Debian's modules
	if out, err := exec.Command(py, "-c", "import zstandard").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import zstandard (Debian: python3-zstandard; scripts/setup.sh installs it): %v: %s",
			py, err, bytes.TrimSpace(out))
	}
	const script = `
import struct, sys, zstandard
d = zstandard.ZstdDecompressor()
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    h = inp.read(4)
    if not h:
        break
    frame = inp.read(struct.unpack("<I", h)[0])
    try:
        got = d.decompress(frame)
        out.write(struct.pack("<I", len(got)) + got)
    except zstandard.ZstdError as e:
        msg = str(e).encode()
        out.write(struct.pack("<I", 0xffffffff) + struct.pack("<I", len(msg)) + msg)
`
	tests := literalsCases()
	var in bytes.Buffer
	var s huff0.Scratch
	for _, tc := range tests {
		frame := appendLiteralsFrame(nil, tc.src, &s)
		in.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(frame))))
		in.Write(frame)
	}
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", py, err, stderr.Bytes())
	}
	for _, tc := range tests {
		if len(out) < 4 {
			t.Fatalf("%s: no answer from libzstd", tc.name)
		}
		n := binary.LittleEndian.Uint32(out)
		out = out[4:]
		if n == 0xffffffff {
			m := binary.LittleEndian.Uint32(out)
			t.Errorf("%s: libzstd: %s", tc.name, out[4:4+m])
			out = out[4+m:]
			continue
		}
		if got := out[:n]; !bytes.Equal(got, tc.src) {
			t.Errorf("%s: libzstd decoded %d bytes, want %d (equal: %v)", tc.name, n, len(tc.src), bytes.Equal(got, tc.src))
		}
		out = out[n:]
	}
}

// literalsCases: contents around each literals header format's and the
// content size field's bounds, one block and several, Huffman-coded, raw
// and RLE blocks.
func literalsCases() []struct {
	name string
	src  []byte
} {
	rng := rand.New(rand.NewPCG(14, 14))
	skewed := func(n int) []byte { // launch-like: mostly a few byte values
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(16) * rng.IntN(4))
		}
		return b
	}
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	same := func(n int) []byte { return bytes.Repeat([]byte{0x5a}, n) }
	tests := []struct {
		name string
		src  []byte
	}{
		{"1 byte", []byte{7}},
		{"31 bytes", skewed(31)},
		{"32 bytes skewed", skewed(32)},
		{"255 bytes", skewed(255)},
		{"256 bytes", skewed(256)},
		{"1023 bytes (one stream)", skewed(1023)},
		{"1024 bytes (four streams)", skewed(1024)},
		{"16383 bytes", skewed(16383)},
		{"16384 bytes (18-bit sizes)", skewed(16384)},
		{"65791 bytes (2-byte content size)", skewed(65791)},
		{"65792 bytes (4-byte content size)", skewed(65792)},
		{"one full block", skewed(litBlockMax)},
		{"a block and a byte", skewed(litBlockMax + 1)},
		{"frame of 260 KiB", skewed(260 << 10)},
		{"random (raw blocks)", random(200 << 10)},
		{"one value (RLE blocks)", same(litBlockMax + 5000)},
		{"mixed blocks", append(append(random(litBlockMax), skewed(litBlockMax)...), same(3000)...)},
	}
	return tests
}

// TestLiteralsHeader holds literalsHeader to RFC 8878 section
// 3.1.1.3.1.1's layouts: type 2, the size format, then the regenerated
// and compressed sizes in 10, 14 or 18 bits each, little endian.
func TestLiteralsHeader(t *testing.T) {
	tests := []struct {
		regen, comp int
		single      bool
		format      uint64
		bits        uint
	}{
		{1000, 900, true, 0, 10},
		{1023, 1022, true, 0, 10},
		{1000, 900, false, 1, 10},
		{1024, 1000, false, 2, 14},
		{16383, 9000, false, 2, 14},
		{16384, 9000, false, 3, 18},
		{litBlockMax, litBlockMax - 1, false, 3, 18},
	}
	for _, tc := range tests {
		h := literalsHeader(nil, tc.regen, tc.comp, tc.single)
		if want := int(4+2*tc.bits+7) / 8; len(h) != want {
			t.Errorf("%+v: %d bytes, want %d", tc, len(h), want)
			continue
		}
		var v [8]byte
		copy(v[:], h)
		x := binary.LittleEndian.Uint64(v[:])
		mask := uint64(1)<<tc.bits - 1
		if x&3 != 2 || (x>>2)&3 != tc.format || (x>>4)&mask != uint64(tc.regen) || (x>>(4+tc.bits))&mask != uint64(tc.comp) {
			t.Errorf("%+v: header % x", tc, h)
		}
	}
}

// TestLaunchFramesProbed: the Writer compresses frames of launches
// literals only where the probe finds them no more than litTolerance/4
// of the encoder's bytes (a loop's LaunchRun columns), with the encoder
// where they are much larger (the same launches as Launch records, whose
// byte sequences repeat), and never a frame with other records; each
// LaunchFrames mode does as it says (NewWriter refuses other values).
// Every file reads back (the round trips of proto/pbstream check the
// records).
func TestLaunchFramesProbed(t *testing.T) {
	// A loop's launches (launchSets' "loop"), none repeating another's
	// times: a cycle of launchSets' would repeat whole frames' bytes.
	rng := rand.New(rand.NewPCG(14, 15))
	loop := launchSets()[0].ls[0]
	host := loop.HostAppendNs
	tests := []struct {
		name    string
		opts    WriterOptions
		other   bool // a Kernel record in every frame
		literal bool // want literals-only frames (all) or none
	}{
		{"loop, runs", WriterOptions{}, false, true},
		{"loop, records", WriterOptions{NoLaunchRuns: true}, false, false},
		{"loop, runs, other records", WriterOptions{}, true, false},
		{"loop, records, literals", WriterOptions{NoLaunchRuns: true, LaunchFrames: LaunchFramesLiterals}, false, true},
		{"loop, runs, encoder", WriterOptions{LaunchFrames: LaunchFramesEncoder}, false, false},
	}
	for _, bad := range []LaunchFrames{-1, LaunchFramesLiterals + 1} {
		if _, err := NewWriter(io.Discard, &WriterOptions{LaunchFrames: bad}); err == nil {
			t.Errorf("LaunchFrames %d accepted", bad)
		}
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, tc := range tests {
		var file bytes.Buffer
		w, err := NewWriter(&file, &tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		frames := 0
		for i := range 200_000 {
			l := loop
			host += 150 + rng.Uint64N(500)
			l.Id, l.HostAppendNs = uint64(i+1), host
			l.DeviceStartNs = host + 30 + rng.Uint64N(70)
			l.DeviceEndNs = l.DeviceStartNs + rng.Uint64N(3000)
			if tc.other && i%20_000 == 0 {
				if err := w.Write(&pb.Record{Kind: &pb.Record_Kernel{Kernel: &pb.Kernel{Id: uint64(i), Name: "k"}}}); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.WriteLaunch(&l); err != nil {
				t.Fatal(err)
			}
			if i%20_000 == 19_999 {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				frames++
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: frames}[tc.literal]; w.litMade < want || !tc.literal && w.litMade != 0 {
			t.Errorf("%s: %d literals-only frames of %d flushed, want %d", tc.name, w.litMade, frames, want)
		}
		if _, err := dec.DecodeAll(file.Bytes()[PrefixSize:], nil); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// FuzzLiteralsFrame: any content makes a frame that decompresses to it.
func FuzzLiteralsFrame(f *testing.F) {
	f.Add([]byte{1})
	f.Add(bytes.Repeat([]byte{0x80, 0x03, 0x81, 0x02}, 5000))
	f.Add(bytes.Repeat([]byte{9}, 2000))
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	defer dec.Close()
	var s huff0.Scratch
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) == 0 {
			return // the Writer makes no frame of nothing
		}
		got, err := dec.DecodeAll(appendLiteralsFrame(nil, src, &s), nil)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("%d bytes decoded to %d (%v)", len(src), len(got), err)
		}
	})
}
