package stream

import (
	"bytes"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestWireHelpers: wire.go's encoding is protowire's.
func TestWireHelpers(t *testing.T) {
	var vals []uint64
	for s := 0; s < 64; s++ {
		vals = append(vals, 1<<s-1, 1<<s, 1<<s+1)
	}
	vals = append(vals, math.MaxUint64)
	for _, v := range vals {
		if got, want := appendVarint([]byte("x"), v), protowire.AppendVarint([]byte("x"), v); !bytes.Equal(got, want) {
			t.Errorf("appendVarint(%d) = %x, want %x", v, got, want)
		}
		if got, want := sizeVarint(v), protowire.SizeVarint(v); got != want {
			t.Errorf("sizeVarint(%d) = %d, want %d", v, got, want)
		}
		if got, want := appendFixed32(nil, uint32(v)), protowire.AppendFixed32(nil, uint32(v)); !bytes.Equal(got, want) {
			t.Errorf("appendFixed32(%d) = %x, want %x", v, got, want)
		}
		if got, want := appendFixed64(nil, v), protowire.AppendFixed64(nil, v); !bytes.Equal(got, want) {
			t.Errorf("appendFixed64(%d) = %x, want %x", v, got, want)
		}
		if got, want := encodeZigZag(int64(v)), protowire.EncodeZigZag(int64(v)); got != want {
			t.Errorf("encodeZigZag(%d) = %d, want %d", int64(v), got, want)
		}
		if got, want := decodeZigZag(v), protowire.DecodeZigZag(v); got != want {
			t.Errorf("decodeZigZag(%d) = %d, want %d", v, got, want)
		}
	}
	for _, num := range []fieldNumber{1, 15, 16, 2047, 2048, 1<<29 - 1} {
		for _, typ := range []wireType{wireVarint, wireFixed64, wireBytes, wireFixed32} {
			if got, want := appendTag(nil, num, typ), protowire.AppendTag(nil, protowire.Number(num), protowire.Type(typ)); !bytes.Equal(got, want) {
				t.Errorf("appendTag(%d, %d) = %x, want %x", num, typ, got, want)
			}
		}
	}
	for _, n := range []int{0, 1, 127, 128, 300, 1 << 20} {
		v := bytes.Repeat([]byte{7}, n)
		if got, want := appendBytes(nil, v), protowire.AppendBytes(nil, v); !bytes.Equal(got, want) {
			t.Errorf("appendBytes(%d bytes) differs", n)
		}
		if got, want := appendString(nil, string(v)), protowire.AppendString(nil, string(v)); !bytes.Equal(got, want) {
			t.Errorf("appendString(%d bytes) differs", n)
		}
		if got, want := sizeBytes(n), protowire.SizeBytes(n); got != want {
			t.Errorf("sizeBytes(%d) = %d, want %d", n, got, want)
		}
	}
	if encodeBool(true) != protowire.EncodeBool(true) || encodeBool(false) != protowire.EncodeBool(false) {
		t.Error("encodeBool")
	}
}
