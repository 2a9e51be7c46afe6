package stream

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
// n launches, as the varints' values (sint64 zigzag-encoded).
type launchRun struct {
	n                                int
	appendDelta, idDelta, startDelay [maxRun]uint64
	duration, syclTask               [maxRun]uint64
	repeat, executionIndex           [maxRun]uint32
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
	r.appendDelta[i] = encodeZigZag(appendDelta)
	r.idDelta[i] = encodeZigZag(idDelta)
	r.startDelay[i] = encodeZigZag(startDelay)
	r.duration[i] = duration
	r.repeat[i] = repeat
	r.executionIndex[i] = executionIndex
	r.syclTask[i] = syclTask
	r.n++
}

// runColumn is one column of a LaunchRun as encodeRun writes it.
type runColumn struct {
	num  fieldNumber
	size int // bytes of its values; 0: left out
}

// sizeVarints is the size of vs as packed varints.
func sizeVarints(vs []uint64) int {
	size := 0
	for _, v := range vs {
		size += sizeVarint(v)
	}
	return size
}

// sizeColumn is the size of vs as packed varints, 0 when every value is
// dflt (the column is then left out: zestall.proto says what that means).
func sizeColumn(vs []uint64, dflt uint64) int {
	size, other := 0, false
	for _, v := range vs {
		size += sizeVarint(v)
		other = other || v != dflt
	}
	if !other {
		return 0
	}
	return size
}

func sizeColumn32(vs []uint32, dflt uint32) int {
	size, other := 0, false
	for _, v := range vs {
		size += sizeVarint(uint64(v))
		other = other || v != dflt
	}
	if !other {
		return 0
	}
	return size
}

// appendRun appends the run's LaunchRun record, length-delimited, to b,
// and empties the run: the bytes proto.Marshal makes of that Record
// (fields in number order, packed, empty lists left out; TestLaunchRun
// holds it to proto.Unmarshal).
func appendRun(b []byte, r *launchRun) []byte {
	n := r.n
	cols := [7]runColumn{
		{1, sizeVarints(r.appendDelta[:n])}, // never left out: it gives n
		{2, sizeColumn(r.idDelta[:n], 0)},
		{3, sizeColumn(r.startDelay[:n], 0)},
		{4, sizeColumn(r.duration[:n], 0)},
		{5, sizeColumn32(r.repeat[:n], 1)},
		{6, sizeColumn32(r.executionIndex[:n], 0)},
		{7, sizeColumn(r.syclTask[:n], 0)},
	}
	msg := 0
	for _, c := range cols {
		if c.size > 0 {
			msg += 1 + sizeVarint(uint64(c.size)) + c.size
		}
	}
	b = appendVarint(b, uint64(2+sizeVarint(uint64(msg))+msg))
	b = append(b, byte(encodeTag(16, wireBytes))|0x80, byte(encodeTag(16, wireBytes)>>7)) // Record.launch_run = 16
	b = appendVarint(b, uint64(msg))
	for _, c := range cols {
		if c.size == 0 {
			continue
		}
		b = append(b, byte(encodeTag(c.num, wireBytes)))
		b = appendVarint(b, uint64(c.size))
		switch c.num {
		case 1:
			b = appendVarints(b, r.appendDelta[:n])
		case 2:
			b = appendVarints(b, r.idDelta[:n])
		case 3:
			b = appendVarints(b, r.startDelay[:n])
		case 4:
			b = appendVarints(b, r.duration[:n])
		case 5:
			b = appendVarints32(b, r.repeat[:n])
		case 6:
			b = appendVarints32(b, r.executionIndex[:n])
		case 7:
			b = appendVarints(b, r.syclTask[:n])
		}
	}
	r.n = 0
	return b
}

func appendVarints(b []byte, vs []uint64) []byte {
	for _, v := range vs {
		b = appendVarint(b, v)
	}
	return b
}

func appendVarints32(b []byte, vs []uint32) []byte {
	for _, v := range vs {
		b = appendVarint(b, uint64(v))
	}
	return b
}
