package zestallwire

import "math"

// The helpers of the generated AppendWire methods (zestall.wire.go):
// protobuf's wire format (varints, tags, fixed-width values, lengths
// before length-delimited values), as proto.Marshal writes it.

// Wire types (protobuf encoding).
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendTag(b []byte, num uint64, wire uint64) []byte {
	return appendVarint(b, num<<3|wire)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendFixed32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func appendFixed64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24),
		byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

func zigzag32(v int32) uint64 { return uint64(uint32(v<<1) ^ uint32(v>>31)) }

func zigzag64(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func float32Bits(v float32) uint32 { return math.Float32bits(v) }

func float64Bits(v float64) uint64 { return math.Float64bits(v) }

// closeLength puts the length of b[start:], a length-delimited value just
// appended, as a varint before it.
func closeLength(b []byte, start int) []byte {
	n := len(b) - start
	k := 1
	for v := n; v >= 0x80; v >>= 7 {
		k++
	}
	b = append(b, make([]byte, k)...)
	copy(b[start+k:], b[start:start+n])
	appendVarint(b[start:start], uint64(n))
	return b
}
