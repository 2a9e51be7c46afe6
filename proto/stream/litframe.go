package stream

import (
	"encoding/binary"

	"github.com/klauspost/compress/huff0"
)

// A frame of launch records only is compressed without match finding: as
// Zstandard blocks whose literals section holds the whole block,
// Huffman-coded, and whose sequences section is empty (RFC 8878 section
// 3.1.1.3, "Compressed Blocks": Number_of_Sequences 0). Every Zstandard
// decoder reads them. On the launches of a launch-bound run the match
// finder of klauspost/compress's fastest level cost two thirds of the
// compressor's time for a fifth of its savings: 26 ns and 2.14 bytes per
// launch against 8 ns and 2.47 bytes with Huffman coding alone
// (docs/stream-writer.md §2 "Launch frames: literals only").

// litBlockMax is the largest block: Block_Maximum_Size (RFC 8878 section
// 3.1.1.2.4), 128 KiB, the window the frame header declares.
const litBlockMax = 128 << 10

// litWindowDescriptor is the frame's Window_Descriptor (RFC 8878 section
// 3.1.1.1.2): exponent 7, mantissa 0, a window of 1<<(10+7) bytes, no
// less than a block (Block_Maximum_Size is the smaller of the window and
// 128 KiB) and as small as that allows: literals refer to nothing before
// them.
const litWindowDescriptor = 7 << 3

// appendLiteralsFrame appends to dst a Zstandard frame holding src (at
// least 1 byte) in blocks of at most litBlockMax bytes of Huffman-coded
// literals (raw or RLE where Huffman coding does not pay), with its
// content size and a content checksum like the Writer's other frames. s
// is reused from frame to frame; no block refers to another's table.
func appendLiteralsFrame(dst, src []byte, s *huff0.Scratch) []byte {
	n := len(src)
	dst = binary.LittleEndian.AppendUint32(dst, zstdMagic)
	// Frame_Header_Descriptor: a content checksum (bit 2), not single
	// segment (a Window_Descriptor follows), the content size in 2 bytes
	// (less 256) or 4.
	if n >= 256 && n-256 < 1<<16 {
		dst = append(dst, 1<<6|0x04, litWindowDescriptor, byte(n-256), byte((n-256)>>8))
	} else {
		dst = append(dst, 2<<6|0x04, litWindowDescriptor)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	}
	for b := src; len(b) > 0; {
		blk := b[:min(len(b), litBlockMax)]
		b = b[len(blk):]
		dst = appendLiteralsBlock(dst, blk, len(b) == 0, s)
	}
	// The checksum: the low 32 bits of the content's XXH64 (seed 0).
	return binary.LittleEndian.AppendUint32(dst, uint32(xxh64(src)))
}

// Block_Type (RFC 8878 section 3.1.1.2.2) and Literals_Block_Type
// (section 3.1.1.3.1.1).
const (
	blockRaw        = 0
	blockRLE        = 1
	blockCompressed = 2

	literalsCompressed = 2
)

// appendBlockHeader appends a Block_Header: last block, type, size.
func appendBlockHeader(dst []byte, last bool, typ, size int) []byte {
	h := uint32(size)<<3 | uint32(typ)<<1
	if last {
		h |= 1
	}
	return append(dst, byte(h), byte(h>>8), byte(h>>16))
}

// appendLiteralsBlock appends blk (1 to litBlockMax bytes) as one block:
// compressed literals and no sequences, or raw (or RLE) when Huffman
// coding would not make it smaller, as klauspost/compress's encoder
// decides for the literals of its blocks.
func appendLiteralsBlock(dst, blk []byte, last bool, s *huff0.Scratch) []byte {
	// No table reuse: a block's table describes its own bytes (a reused
	// table would have to be the previous compressed block's in the
	// frame, and saves some 50 bytes of 128 KiB).
	s.Reuse = huff0.ReusePolicyNone
	var out []byte
	err := huff0.ErrIncompressible
	single := len(blk) < 1024 // Size_Format 00 (one stream) has sizes of 10 bits
	switch {
	case len(blk) < 32:
	case single:
		out, _, err = huff0.Compress1X(blk, s)
	default:
		out, _, err = huff0.Compress4X(blk, s)
	}
	if err == nil {
		var h [5]byte
		lh := literalsHeader(h[:0], len(blk), len(out), single)
		if size := len(lh) + len(out) + 1; size < len(blk) {
			dst = appendBlockHeader(dst, last, blockCompressed, size)
			dst = append(dst, lh...)
			dst = append(dst, out...)
			return append(dst, 0) // Number_of_Sequences: 0
		}
	}
	if err == huff0.ErrUseRLE {
		dst = appendBlockHeader(dst, last, blockRLE, len(blk))
		return append(dst, blk[0])
	}
	dst = appendBlockHeader(dst, last, blockRaw, len(blk))
	return append(dst, blk...)
}

// literalsHeader appends the Literals_Section_Header (RFC 8878 section
// 3.1.1.3.1.1) of compressed literals, Huffman tree description
// included in their size: one stream and sizes of 10 bits (Size_Format
// 00), or four streams and sizes of 10, 14 or 18 bits (01, 10, 11).
func literalsHeader(dst []byte, regenerated, compressed int, single bool) []byte {
	h := uint64(literalsCompressed) | uint64(regenerated)<<4
	big := max(regenerated, compressed)
	switch {
	case big < 1<<10:
		if !single {
			h |= 1 << 2
		}
		h |= uint64(compressed) << 14
		return append(dst, byte(h), byte(h>>8), byte(h>>16))
	case big < 1<<14:
		h |= 2<<2 | uint64(compressed)<<18
		return append(dst, byte(h), byte(h>>8), byte(h>>16), byte(h>>24))
	default:
		h |= 3<<2 | uint64(compressed)<<22
		return append(dst, byte(h), byte(h>>8), byte(h>>16), byte(h>>24), byte(h>>32))
	}
}
