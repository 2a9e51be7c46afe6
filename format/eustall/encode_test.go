package eustall

import (
	"encoding/binary"
	"math/bits"
)

// This file holds test-only helpers: an encoder (the inverse of
// DecodeRecord, written bit by bit from the bit tables of
// docs/eu-stall-sampling.md §3.2 "Bit layout" so that it
// shares no code with the decoder) and a reference decoder that follows Intel's
// algorithm literally (docs/eu-stall-sampling.md §3.4 "Decoding rule": the u16
// at byte (B>>3)+k, shifted right
// by B&7, masked with 0xff).

// setBits writes the low n bits of v at bit position pos of the little-endian
// record p.
func setBits(p *[RecordSize]byte, pos, n uint, v uint64) {
	for i := uint(0); i < n; i++ {
		bit := pos + i
		if v>>i&1 != 0 {
			p[bit/8] |= 1 << (bit % 8)
		} else {
			p[bit/8] &^= 1 << (bit % 8)
		}
	}
}

// encodeRecord builds a record of layout l with the given IP field, raw
// counters (raw order, len(l.Raw)), and i915-prelim subslice/flags.
func encodeRecord(l Layout, ip uint64, raw []uint8, subslice, flags uint16) [RecordSize]byte {
	var p [RecordSize]byte
	setBits(&p, 0, uint(bits.Len64(l.IPMask)), ip)
	for k, v := range raw {
		setBits(&p, l.CounterBit+8*uint(k), 8, uint64(v))
	}
	binary.LittleEndian.PutUint16(p[48:], subslice)
	binary.LittleEndian.PutUint16(p[50:], flags)
	return p
}

// intelDecode decodes like Intel's driver: it returns the masked IP and the
// raw counters in raw order.
func intelDecode(l Layout, p []byte) (uint64, []uint8) {
	ip := binary.LittleEndian.Uint64(p) & l.IPMask
	b := l.CounterBit
	raw := make([]uint8, len(l.Raw))
	for k := range raw {
		raw[k] = uint8(binary.LittleEndian.Uint16(p[int(b>>3)+k:]) >> (b & 7) & 0xff)
	}
	return ip, raw
}
