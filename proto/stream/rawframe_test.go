package stream

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestRawFrame: the stored frames of small frames' records are Zstandard
// frames every decoder reads, with the checksum the encoder computes
// (XXH64 held to klauspost/compress's, at every length around the
// algorithm's 32-, 8- and 4-byte steps and the content size's 256).
func TestRawFrame(t *testing.T) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < rawFrameMax; n++ {
		if n > 300 && n%97 != 0 && n != rawFrameMax-1 {
			continue
		}
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.IntN(256))
		}
		frame := appendRawFrame([]byte("x"), src)[1:]
		ref := enc.EncodeAll(src, nil)
		if got, want := binary.LittleEndian.Uint32(frame[len(frame)-4:]), binary.LittleEndian.Uint32(ref[len(ref)-4:]); got != want {
			t.Fatalf("%d bytes: checksum %#x, want %#x", n, got, want)
		}
		out, err := dec.DecodeAll(frame, nil)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(out, src) {
			t.Fatalf("%d bytes: decoded differently", n)
		}
		// A changed byte of the content is caught by the checksum.
		frame[len(frame)-5] ^= 1
		if _, err := dec.DecodeAll(frame, nil); err == nil {
			t.Fatalf("%d bytes: a flipped bit decoded without error", n)
		}
	}
}
