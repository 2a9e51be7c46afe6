package stream

import (
	"encoding/binary"
	"math/bits"
)

// The pieces of protobuf's wire encoding the Writer's encoders use
// (tagenc.go, varint.go, launch.go). Not package protowire: it imports
// protobuf's internal/detrand, whose package initialisation opens and
// reads the executable (the profiled application, in libzestall.so) to
// seed its randomness. TestWireHelpers holds these to protowire.

// fieldNumber is a protobuf field number.
type fieldNumber int32

// wireType is a protobuf wire type.
type wireType uint8

const (
	wireVarint  wireType = 0
	wireFixed64 wireType = 1
	wireBytes   wireType = 2
	wireFixed32 wireType = 5
)

// encodeTag is the tag of field num with wire type typ.
func encodeTag(num fieldNumber, typ wireType) uint64 {
	return uint64(num)<<3 | uint64(typ)
}

// appendTag appends the tag of field num with wire type typ.
func appendTag(b []byte, num fieldNumber, typ wireType) []byte {
	return binary.AppendUvarint(b, encodeTag(num, typ))
}

// appendVarint appends v as a varint (base 128, little endian).
func appendVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// sizeVarint is the size of v as a varint.
func sizeVarint(v uint64) int { return int(9*uint32(bits.Len64(v))+64) / 64 }

// appendFixed32 and appendFixed64 append v, little endian.
func appendFixed32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func appendFixed64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// appendBytes appends v with its length, as a bytes or string field's value.
func appendBytes(b []byte, v []byte) []byte {
	return append(appendVarint(b, uint64(len(v))), v...)
}

// appendString is appendBytes for a string.
func appendString(b []byte, v string) []byte {
	return append(appendVarint(b, uint64(len(v))), v...)
}

// sizeBytes is the size of a bytes field's value of n bytes, length
// included.
func sizeBytes(n int) int { return sizeVarint(uint64(n)) + n }

// encodeZigZag maps a signed value to an unsigned one, small magnitudes
// to small values (sint32, sint64).
func encodeZigZag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// encodeBool is b as a varint's value.
func encodeBool(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// decodeZigZag is the inverse of encodeZigZag.
func decodeZigZag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }
