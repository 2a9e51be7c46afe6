package stream

import (
	"slices"
)

// The frequent records (Launch in compact form, SyclSpan, SyclGraph) are
// encoded by hand, to the bytes proto.Marshal makes (fields in number
// order, zero values omitted, optional fields present when set), with the
// helpers below: a record is written in place at the end of the frame's
// buffer, into a window of fixed size, so that each byte is one store
// without a capacity check (appendVarint, called per field,
// was the largest part of encoding a launch).

// recordWindow is the room a hand-encoded record may take, header
// (recordHeader) included: 256, so that a byte indexes it without a bounds
// check. A Launch in compact form takes at most 242 (21 varint fields, 8
// of them with two-byte tags, all of 10 bytes), a SyclSpan 113;
// TestRecordWindow holds them to it.
const recordWindow = 256

// recordHeader is what startRecord reserves before the message's fields:
// the record's length, the Record field's tag and the message's length,
// one byte each while the message takes at most recordShort bytes (nearly
// always: a profiler's launch takes 15 to 40).
const (
	recordHeader = 3
	recordShort  = 125 // 1 + 1 + 125 = 127, the largest one-byte varint
)

// fieldWriter writes the fields of one hand-encoded record into the window
// at the end of a buffer (see startRecord).
type fieldWriter struct {
	a *[recordWindow]byte
	n uint8 // bytes written to a, header included
}

// varintTag is the wire tag of varint field num, as fieldWriter.put takes
// it: its one or two bytes (num < 2048), little endian, and their number
// times 1<<16. A constant for a constant num.
func varintTag(num fieldNumber) uint32 {
	t := uint32(num) << 3 // wireVarint is 0
	if t < 0x80 {
		return t | 1<<16
	}
	return t&0x7f | 0x80 | (t>>7)<<8 | 2<<16
}

// startRecord makes room at the end of b for a Record whose field num (a
// message, num < 16) is written next with a fieldWriter, and reserves the
// record's header.
func startRecord(b []byte, num fieldNumber) ([]byte, fieldWriter) {
	if cap(b)-len(b) < recordWindow {
		b = slices.Grow(b, recordWindow)
	}
	f := fieldWriter{a: (*[recordWindow]byte)(b[len(b) : len(b)+recordWindow]), n: recordHeader}
	f.a[1] = byte(encodeTag(num, wireBytes))
	return b, f
}

// varint writes field tag (see varintTag) with value v, or nothing when v
// is 0 (proto3 omits zero values).
func (f *fieldWriter) varint(tag uint32, v uint64) {
	if v != 0 {
		f.put(tag, v)
	}
}

// put writes field tag (see varintTag) with value v, also when v is 0 (an
// optional field that is set).
func (f *fieldWriter) put(tag uint32, v uint64) {
	i := f.n
	f.a[i] = byte(tag)
	f.a[i+1] = byte(tag >> 8) // overwritten after a one-byte tag
	i += uint8(tag >> 16)
	for v >= 0x80 {
		f.a[i] = byte(v) | 0x80
		v >>= 7
		i++
	}
	f.a[i] = byte(v)
	f.n = i + 1
}

// endRecord fills in the header of the record f wrote at the end of b and
// returns b with the record.
func endRecord(b []byte, f *fieldWriter) []byte {
	n := len(b)
	size := int(f.n) - recordHeader
	if size <= recordShort {
		f.a[0], f.a[2] = byte(size+2), byte(size)
		return b[:n+int(f.n)]
	}
	// Longer lengths: move the fields after them (rare: huge values).
	var hdr [2*10 + 1]byte // two varints of at most 10 bytes, one tag byte
	h := appendVarint(hdr[:0], uint64(1+sizeBytes(size)))
	h = append(h, f.a[1])
	h = appendVarint(h, uint64(size))
	b = b[:n+int(f.n)]
	for range len(h) - recordHeader {
		b = append(b, 0)
	}
	copy(b[n+len(h):], b[n+recordHeader:n+recordHeader+size])
	copy(b[n:], h)
	return b
}
