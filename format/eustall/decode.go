package eustall

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// RecordSize is the size of one raw record in bytes (docs/eu-stall-sampling.md
// §3.1 "Size").
const RecordSize = 64

// DecodeError reports malformed input at a byte offset.
type DecodeError struct {
	Offset int64  // byte offset of the problem in the buffer given to the call
	Err    string // what is wrong
}

func (e DecodeError) Error() string {
	return fmt.Sprintf("eustall: decoding error at offset %#x: %s", e.Offset, e.Err)
}

// reader is a bounds-checked little-endian reader in the style of
// debug/dwarf's buf: the first failed read records one located DecodeError,
// and every later read is a no-op returning zero.
type reader struct {
	data []byte
	off  int
	err  error
}

func (r *reader) fail(at int, format string, args ...any) {
	if r.err == nil {
		r.err = DecodeError{Offset: int64(at), Err: fmt.Sprintf(format, args...)}
	}
	r.off = len(r.data)
}

func (r *reader) bytes(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.data)-r.off < n {
		r.fail(r.off, "%s: need %d bytes, have %d", what, n, len(r.data)-r.off)
		return nil
	}
	b := r.data[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

func (r *reader) u32(what string) uint32 {
	b := r.bytes(4, what)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

// Record is one decoded raw record.
type Record struct {
	// IP is the masked raw IP field, in 8-byte units (29 bits; 61 on Xe3p).
	// It is the value the driver reports as metric "IP".
	IP uint64
	// ByteAddrLow32 is ip<<3 truncated to 32 bits: the low 32 bits of the
	// sampled instruction's GPU virtual address (docs/eu-stall-sampling.md §8.2
	// "Canonical rule and worked example").
	ByteAddrLow32 uint32
	// Counters holds the counter metrics in the driver's metric order with
	// the IP metric left out: Counters[j] is the j-th non-IP metric of the
	// list the Decoder was built from. Entries past Decoder.NumCounters are
	// zero.
	Counters [MaxCounters]uint8
	// Subslice and Flags are the u16 words the i915-prelim kernel driver
	// writes at bytes 48 and 50; on xe they are whatever the hardware wrote.
	Subslice uint16
	Flags    uint16
	// Dropped is Flags&0x100 on Xe-HPC (the overflow-drop flag the driver
	// checks) and always false elsewhere.
	Dropped bool
}

// DropFlag is the i915-prelim overflow-drop bit of Record.Flags.
const DropFlag = 0x100

// Decoder decodes the records of one platform for one metric list. It holds
// no mutable state and may be used by several goroutines at once.
type Decoder struct {
	layout  Layout
	names   []string
	sources []int
	ipIndex int
	n       int                // number of counter metrics
	src     [MaxCounters]uint8 // raw counter index feeding counter metric j
	shift   uint               // CounterBit, < 64
}

// NewDecoder returns a decoder for platform p and the metric names the driver
// reported, in the driver's order (see [Layout.MetricSources]).
func NewDecoder(p Platform, metricNames []string) (*Decoder, error) {
	l, err := LayoutOf(p)
	if err != nil {
		return nil, err
	}
	return l.NewDecoder(metricNames)
}

// NewDecoder returns a decoder for this layout and the metric names the
// driver reported, in the driver's order.
func (l Layout) NewDecoder(metricNames []string) (*Decoder, error) {
	src, err := l.MetricSources(metricNames)
	if err != nil {
		return nil, err
	}
	if l.CounterBit == 0 || l.CounterBit >= 64 || len(l.Raw) > MaxCounters {
		return nil, fmt.Errorf("eustall: invalid layout for %v", l.Platform)
	}
	d := &Decoder{
		layout:  Layout{l.Platform, l.IPMask, l.CounterBit, slices.Clone(l.Raw), l.DropFlag},
		names:   slices.Clone(metricNames),
		sources: src,
		shift:   l.CounterBit,
	}
	for i, k := range src {
		if k == SourceIP {
			d.ipIndex = i
			continue
		}
		d.src[d.n] = uint8(k)
		d.n++
	}
	return d, nil
}

// Layout returns the decoder's layout.
func (d *Decoder) Layout() Layout {
	l := d.layout
	l.Raw = slices.Clone(l.Raw)
	return l
}

// MetricNames returns the metric list the decoder was built from.
func (d *Decoder) MetricNames() []string { return slices.Clone(d.names) }

// NumMetrics is the number of metrics, the IP included: the length of a
// report produced by Aggregate.
func (d *Decoder) NumMetrics() int { return len(d.names) }

// NumCounters is the number of counter metrics (NumMetrics - 1), the number
// of meaningful entries of Record.Counters.
func (d *Decoder) NumCounters() int { return d.n }

// IPIndex is the index of the "IP" metric in the metric list (0 for Intel's
// driver).
func (d *Decoder) IPIndex() int { return d.ipIndex }

// DecodeRecord decodes one record. It does not allocate.
func (d *Decoder) DecodeRecord(p *[RecordSize]byte, r *Record) {
	w0 := binary.LittleEndian.Uint64(p[0:8])
	w1 := binary.LittleEndian.Uint64(p[8:16])
	w2 := binary.LittleEndian.Uint64(p[16:24])
	ip := w0 & d.layout.IPMask
	r.IP = ip
	r.ByteAddrLow32 = uint32(ip << 3)
	// Two 64-bit windows starting at the counter bit hold raw counters 0..7
	// and 8..15; raw counter k is byte k of the 16-byte window.
	s := d.shift & 63
	var raw [16]byte
	binary.LittleEndian.PutUint64(raw[0:8], w0>>s|w1<<(64-s))
	binary.LittleEndian.PutUint64(raw[8:16], w1>>s|w2<<(64-s))
	r.Counters = [MaxCounters]uint8{}
	for j := 0; j < d.n && j < MaxCounters; j++ {
		r.Counters[j] = raw[d.src[j]&15]
	}
	r.Subslice = binary.LittleEndian.Uint16(p[48:50])
	r.Flags = binary.LittleEndian.Uint16(p[50:52])
	r.Dropped = d.layout.DropFlag && r.Flags&DropFlag != 0
}

// checkSize returns the number of whole records in buf and, if buf does not
// end on a record boundary, a DecodeError located at the partial record.
func checkSize(buf []byte, base int64) (int, error) {
	n := len(buf) / RecordSize
	if rem := len(buf) % RecordSize; rem != 0 {
		return n, DecodeError{Offset: base + int64(n*RecordSize), Err: fmt.Sprintf("partial record: %d bytes, want %d", rem, RecordSize)}
	}
	return n, nil
}

// Decode appends the records of buf, a concatenation of 64-byte records as
// returned for a FLAT device or a sub-device (no headers), to dst and returns
// the extended slice. It allocates only if dst lacks capacity. If buf does not
// end on a record boundary, the whole records are decoded and a DecodeError
// locates the partial one.
func (d *Decoder) Decode(dst []Record, buf []byte) ([]Record, error) {
	n, err := checkSize(buf, 0)
	dst = slices.Grow(dst, n)
	for i := 0; i < n; i++ {
		dst = append(dst, Record{})
		d.DecodeRecord((*[RecordSize]byte)(buf[i*RecordSize:]), &dst[len(dst)-1])
	}
	return dst, err
}

// DecodeFunc calls fn for each record of buf, in order, with the record's
// byte offset in buf. The Record is reused between calls: fn must copy what it
// keeps. DecodeFunc does not allocate. Errors are as for Decode.
func (d *Decoder) DecodeFunc(buf []byte, fn func(off int, r *Record)) error {
	n, err := checkSize(buf, 0)
	var r Record
	for i := 0; i < n; i++ {
		d.DecodeRecord((*[RecordSize]byte)(buf[i*RecordSize:]), &r)
		fn(i*RecordSize, &r)
	}
	return err
}

// COMPOSITE framing (docs/eu-stall-sampling.md §6.2 "Root device with
// sub-devices (COMPOSITE)").
const (
	CompositeMagic      = 0xFEEDBCBA
	CompositeHeaderSize = 16
)

// Chunk is the part of a COMPOSITE root-device read that belongs to one
// sub-device.
type Chunk struct {
	SetIndex uint32 // sub-device index from the header
	Offset   int64  // byte offset of Data (the first record) in the input
	Data     []byte // the records, a sub-slice of the input
}

// IsComposite reports whether buf starts with the COMPOSITE header magic.
// This is the test the driver's calculation applies (docs/eu-stall-sampling.md
// §7.2 "FLAT device or sub-device group").
func IsComposite(buf []byte) bool {
	return len(buf) >= 4 && binary.LittleEndian.Uint32(buf) == CompositeMagic
}

// SplitComposite splits data read from a root device with sub-devices into
// its per-sub-device chunks, in input order: each chunk is a 16-byte header
// {u32 magic 0xFEEDBCBA, u32 rawDataSize, u32 setIndex, u32 reserved}
// followed by rawDataSize bytes of records. A bad magic, a size that is not a
// multiple of 64 or runs past the end, or a truncated header yields a
// DecodeError located at the offending header field; the chunks before it
// are returned. Empty input yields no chunks and no error.
func SplitComposite(buf []byte) ([]Chunk, error) {
	r := reader{data: buf}
	var chunks []Chunk
	for r.err == nil && r.off < len(buf) {
		at := r.off
		magic := r.u32("chunk header magic")
		size := r.u32("chunk header rawDataSize")
		set := r.u32("chunk header setIndex")
		r.u32("chunk header reserved")
		if r.err != nil {
			break
		}
		if magic != CompositeMagic {
			r.fail(at, "chunk header magic %#08x, want %#08x", magic, uint32(CompositeMagic))
			break
		}
		if size%RecordSize != 0 {
			r.fail(at+4, "chunk rawDataSize %d is not a multiple of %d", size, RecordSize)
			break
		}
		if uint64(size) > uint64(len(buf)-r.off) {
			r.fail(at+4, "chunk rawDataSize %d runs past the end (%d bytes left)", size, len(buf)-r.off)
			break
		}
		off := r.off
		data := r.bytes(int(size), "chunk records")
		chunks = append(chunks, Chunk{SetIndex: set, Offset: int64(off), Data: data})
	}
	return chunks, r.err
}
