package stream

import (
	"encoding/binary"
	"math/bits"
)

// rawFrameMax: a frame of fewer record bytes is stored, not compressed:
// a Zstandard frame of one raw block (RFC 8878 section 3.1.1.2), with its
// content size and checksum like every other frame. Every Zstandard
// decoder reads it. Compressing it would save a few hundred bytes, and
// a short program's whole file is such frames (a header, a trailer):
// the encoder's first use (its 256 KiB match table and block buffers,
// allocated and first touched) was a large part of the time zestall adds
// to a short program's exit (BENCHMARKS.md, start-up).
const rawFrameMax = 4 << 10

// appendRawFrame appends a Zstandard frame holding src (at most
// rawFrameMax bytes, at least 1) in one raw block to dst.
func appendRawFrame(dst, src []byte) []byte {
	n := len(src)
	dst = binary.LittleEndian.AppendUint32(dst, zstdMagic)
	// Frame header descriptor: single segment (the window is the
	// content), a content checksum, no dictionary; the content size in
	// one byte below 256, else in two (less 256).
	if n < 256 {
		dst = append(dst, 0x20|0x04, byte(n))
	} else {
		dst = append(dst, 0x40|0x20|0x04, byte(n-256), byte((n-256)>>8))
	}
	bh := uint32(n)<<3 | 0<<1 | 1 // size, raw, last block
	dst = append(dst, byte(bh), byte(bh>>8), byte(bh>>16))
	dst = append(dst, src...)
	// The checksum: the low 32 bits of the content's XXH64 (seed 0).
	return binary.LittleEndian.AppendUint32(dst, uint32(xxh64(src)))
}

// XXH64 (seed 0), the hash of Zstandard's content checksum (RFC 8878
// section 3.1.1, xxHash's specification).
const (
	xxPrime1 uint64 = 11400714785074694791
	xxPrime2 uint64 = 14029467366897019727
	xxPrime3 uint64 = 1609587929392839161
	xxPrime4 uint64 = 9650029242287828579
	xxPrime5 uint64 = 2870177450012600261
)

func xxRound(acc, in uint64) uint64 {
	return bits.RotateLeft64(acc+in*xxPrime2, 31) * xxPrime1
}

func xxMerge(acc, v uint64) uint64 {
	return (acc^xxRound(0, v))*xxPrime1 + xxPrime4
}

func xxh64(b []byte) uint64 {
	n := uint64(len(b))
	var h uint64
	if len(b) >= 32 {
		p1, p2 := xxPrime1, xxPrime2 // wrapping arithmetic, not constant
		v1, v2, v3, v4 := p1+p2, p2, uint64(0), -p1
		for ; len(b) >= 32; b = b[32:] {
			v1 = xxRound(v1, binary.LittleEndian.Uint64(b))
			v2 = xxRound(v2, binary.LittleEndian.Uint64(b[8:]))
			v3 = xxRound(v3, binary.LittleEndian.Uint64(b[16:]))
			v4 = xxRound(v4, binary.LittleEndian.Uint64(b[24:]))
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = xxMerge(h, v1)
		h = xxMerge(h, v2)
		h = xxMerge(h, v3)
		h = xxMerge(h, v4)
	} else {
		h = xxPrime5
	}
	h += n
	for ; len(b) >= 8; b = b[8:] {
		h ^= xxRound(0, binary.LittleEndian.Uint64(b))
		h = bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * xxPrime1
		h = bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * xxPrime5
		h = bits.RotateLeft64(h, 11) * xxPrime1
	}
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}
