package stream

import (
	"slices"
	"unsafe"
)

// The LaunchRun record (zestall.proto, revision 8): consecutive Launch
// records in compact form that repeat earlier attributes, stored by
// column. The Writer keeps the open run's values in launchRun and encodes
// the record when the run ends: at maxRun launches, before any other
// record, and when the frame is sealed.

// maxRun is the most Launch records a LaunchRun holds: the record is a
// few KiB at most, and the run's values (launchRun) 24 KiB.
const maxRun = 512

// runLaunchMax bounds the bytes one launch takes in a LaunchRun (the
// widest varint of each column: five of 64 bits, two of 32), and
// runHeaderMax those of the record's framing (record length, Record tag,
// message length, and per column a tag and a length).
const (
	runLaunchMax = 5*10 + 2*5
	runHeaderMax = 3 + 2 + 3 + 7*(1+3)
)

// launchRun is the open LaunchRun of the frame: the columns of its first
// n launches, as the varints' values (sint64 zigzag-encoded), and which
// columns hold more than their empty meaning (bits 1<<field number).
type launchRun struct {
	n                                int
	appendDelta, idDelta, startDelay [maxRun]uint64
	duration, syclTask               [maxRun]uint64
	repeat, executionIndex           [maxRun]uint32
	used                             uint32
}

// reserve is the most bytes the open run's record takes once encoded: the
// Writer counts them as the frame's (room, FrameRoom), so that ending the
// run never grows a frame's buffer.
func (r *launchRun) reserve() int {
	if r.n == 0 {
		return 0
	}
	return r.n*runLaunchMax + runHeaderMax
}

// add appends one launch of the compact form to the run: the values of
// a Launch record with these fields and no others (repeat > 0).
func (r *launchRun) add(appendDelta, idDelta, startDelay int64, duration uint64, repeat, executionIndex uint32, syclTask uint64) {
	i := r.n & (maxRun - 1) // r.n < maxRun: the Writer ends a full run
	id, start := encodeZigZag(idDelta), encodeZigZag(startDelay)
	r.appendDelta[i] = encodeZigZag(appendDelta)
	r.idDelta[i] = id
	r.startDelay[i] = start
	r.duration[i] = duration
	r.repeat[i] = repeat
	r.executionIndex[i] = executionIndex
	r.syclTask[i] = syclTask
	// Without branches: a column is used when a value is not its empty
	// meaning (0; repeat_of: 1).
	r.used |= 1<<1 | bit(id != 0)<<2 | bit(start != 0)<<3 | bit(duration != 0)<<4 | bit(repeat != 1)<<5 |
		bit(executionIndex != 0)<<6 | bit(syclTask != 0)<<7
	r.n++
}

// bit is b as 0 or 1.
func bit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// runPrefix is the room appendRun leaves for the record's length, the
// Record tag and the message's length before the message.
const runPrefix = 3 + 2 + 3

// appendRun appends the run's LaunchRun record, length-delimited, to b,
// and empties the run: the bytes proto.Marshal makes of that Record
// (fields in number order, packed, lists of only their empty meaning left
// out; TestLaunchRunEncoding holds it to proto.Marshal). The columns are written in one pass each, their
// lengths after them (a column of fewer than 128 bytes is moved back by
// the byte its length did not need), then the record's header, the
// message moved back to it.
func appendRun(b []byte, r *launchRun) []byte {
	n := r.n
	b = slices.Grow(b, r.reserve()) // the Writer's buffer has room (room)
	start := len(b)
	b = b[:start+runPrefix]
	for num := fieldNumber(1); num <= 7; num++ {
		if r.used&(1<<num) == 0 {
			continue
		}
		b = append(b, byte(encodeTag(num, wireBytes)), 0, 0) // the length: 2 bytes at most (maxRun*10 < 1<<14)
		at := len(b) - 2
		switch num {
		case 1:
			b = appendVarints(b, r.appendDelta[:n])
		case 2:
			b = appendVarints(b, r.idDelta[:n])
		case 3:
			b = appendVarints(b, r.startDelay[:n])
		case 4:
			b = appendVarints(b, r.duration[:n])
		case 5:
			b = appendVarints(b, r.repeat[:n])
		case 6:
			b = appendVarints(b, r.executionIndex[:n])
		case 7:
			b = appendVarints(b, r.syclTask[:n])
		}
		size := len(b) - at - 2
		if size < 0x80 {
			b[at] = byte(size)
			copy(b[at+1:], b[at+2:])
			b = b[:len(b)-1]
		} else {
			b[at], b[at+1] = byte(size)|0x80, byte(size>>7)
		}
	}
	msg := len(b) - start - runPrefix
	var hdr [runPrefix]byte
	h := appendVarint(hdr[:0], uint64(2+sizeVarint(uint64(msg))+msg))
	h = append(h, byte(encodeTag(16, wireBytes))|0x80, byte(encodeTag(16, wireBytes)>>7)) // Record.launch_run = 16
	h = appendVarint(h, uint64(msg))
	copy(b[start:], h)
	if gap := runPrefix - len(h); gap > 0 {
		copy(b[start+len(h):], b[start+runPrefix:])
		b = b[:len(b)-gap]
	}
	r.n, r.used = 0, 0
	return b
}

// appendVarints appends vs as varints. b has room for them (appendRun):
// stores by index, without append's check of the capacity per byte.
// Values below 1<<14 (a run's time deltas nearly always: launches tens
// of ns to µs apart) take one or two bytes without a branch on which:
// the loop per byte mispredicted on columns of values on both sides of
// 0x80 (appendRun was a quarter of BenchmarkAppendLaunch/loop/runs).
func appendVarints[T uint32 | uint64](b []byte, vs []T) []byte {
	i := len(b)
	b = b[:i+(int(unsafe.Sizeof(T(0)))*8+6)/7*len(vs)] // the widest varint of a T: 5 or 10 bytes
	for _, v := range vs {
		if v < 1<<14 {
			// Two bytes written, the second kept only when the
			// first has the continuation bit (b has 5 bytes or more
			// per value left).
			long := bit(v >= 0x80)
			b[i] = byte(v) | byte(long<<7)
			b[i+1] = byte(v >> 7)
			i += 1 + int(long)
			continue
		}
		for v >= 0x80 {
			b[i] = byte(v) | 0x80
			v >>= 7
			i++
		}
		b[i] = byte(v)
		i++
	}
	return b[:i]
}
