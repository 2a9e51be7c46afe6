package stream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/proto"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// A Reader reads the records of a zestall file in order. It decodes one
// frame at a time and hands out its records one by one; see the package
// documentation for what it checks and how much memory it uses.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	r   *bufio.Reader
	off int64 // bytes consumed from r

	// Limits; the package constants unless a test lowers them.
	maxRecord int
	maxFrame  int
	maxWindow uint64

	dec   *zstd.Decoder
	comp  []byte       // the compressed frame being read
	out   bytes.Buffer // its decompressed content
	frame []byte       // remaining records of the current frame
	pos   int          // bytes of the current frame consumed

	prefixDone bool
	frameIdx   int   // index of the current frame; -1 before the first
	frameOff   int64 // offset of the current frame in the file
	recIdx     int   // index of the next record in the current frame
	err        error // sticky

	// Compact Launch state of the current frame.
	launches launchState
}

// NewReader returns a Reader that reads a zestall file from r. It reads
// from r in large chunks and may read past the end of the file's data when r
// holds more. A Reader holds no goroutines and no files: it needs no Close,
// and one abandoned before the end is simply garbage.
func NewReader(r io.Reader) *Reader {
	return &Reader{
		r:         bufio.NewReaderSize(r, 64<<10),
		maxRecord: MaxRecordSize,
		maxFrame:  MaxFrameSize,
		maxWindow: MaxWindowSize,
		frameIdx:  -1,
	}
}

// ReadAll reads every record from r. On a damaged file it returns the
// records before the damage together with the error; a clean end gives a
// nil error.
func ReadAll(r io.Reader) ([]*pb.Record, error) {
	rd := NewReader(r)
	var recs []*pb.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}

// ReadFile reads every record of the named file, as ReadAll does.
func ReadFile(name string) ([]*pb.Record, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f)
}

// Next returns the next record. At the clean end of the file it returns
// io.EOF. On a damaged file it first returns every record of the frames
// before the damaged one (and the records of the damaged frame before a
// damaged record), then a [*FormatError]; after any error it keeps
// returning the same error.
//
// Launch records are returned in absolute form. A record whose kind this
// package does not know (written by a newer zestall) is returned with a nil
// Kind and its fields kept as unknown fields; skip it.
func (r *Reader) Next() (*pb.Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	for len(r.frame) == r.pos {
		if err := r.nextFrame(); err != nil {
			r.err = err
			r.release()
			return nil, err
		}
	}
	rec, err := r.record()
	if err != nil {
		r.err = err
		r.release()
		return nil, err
	}
	return rec, nil
}

func (r *Reader) release() {
	if r.dec != nil {
		r.dec.Close()
		r.dec = nil
	}
	r.comp, r.frame = nil, nil
	r.out = bytes.Buffer{}
}

func (r *Reader) fail(kind error, cause error, format string, args ...any) *FormatError {
	return &FormatError{
		Offset: r.frameOff,
		Frame:  r.frameIdx,
		Record: -1,
		Msg:    fmt.Sprintf(format, args...),
		Kind:   kind,
		Cause:  cause,
	}
}

// readPrefix checks the 8-byte file prefix.
func (r *Reader) readPrefix() error {
	var p [PrefixSize]byte
	n, err := io.ReadFull(r.r, p[:])
	r.off += int64(n)
	if m := min(n, len(Magic)); string(p[:m]) != Magic[:m] {
		return r.fail(ErrCorrupt, nil, "not a zestall file (no %q prefix)", Magic)
	}
	switch {
	case err == io.EOF:
		return r.fail(ErrTruncated, nil, "empty file")
	case err == io.ErrUnexpectedEOF:
		return r.fail(ErrTruncated, nil, "file ends inside the %d-byte prefix", PrefixSize)
	case err != nil:
		return fmt.Errorf("zestall stream: reading the prefix: %w", err)
	}
	if p[len(Magic)] != Version {
		return r.fail(ErrVersion, nil, "framing version %d (this reader knows %d)", p[len(Magic)], Version)
	}
	return nil
}

// read appends exactly n bytes of input to r.comp.
func (r *Reader) read(n int, what string) error {
	if len(r.comp)+n > r.maxFrame {
		return r.fail(ErrCorrupt, nil, "compressed frame larger than %d bytes", r.maxFrame)
	}
	l := len(r.comp)
	if cap(r.comp)-l < n {
		r.comp = append(r.comp[:cap(r.comp)], make([]byte, l+n-cap(r.comp))...)
	}
	r.comp = r.comp[:l+n]
	m, err := io.ReadFull(r.r, r.comp[l:])
	r.off += int64(m)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.fail(ErrTruncated, nil, "file ends inside the frame's %s", what)
	}
	if err != nil {
		return fmt.Errorf("zestall stream: reading frame %d at byte offset %d: %w", r.frameIdx, r.frameOff, err)
	}
	return nil
}

// nextFrame reads the next Zstandard frame and decompresses it into
// r.frame. It returns io.EOF at a clean end of input.
func (r *Reader) nextFrame() error {
	if !r.prefixDone {
		r.frameOff = 0
		if err := r.readPrefix(); err != nil {
			return err
		}
		r.prefixDone = true
	}
	for {
		r.frameIdx++
		r.frameOff = r.off
		r.frame, r.pos, r.recIdx = nil, 0, 0
		r.launches.reset()
		r.comp = r.comp[:0]
		if _, err := r.r.Peek(1); err == io.EOF {
			return io.EOF
		}
		if err := r.read(4, "magic number"); err != nil {
			return err
		}
		magic := binary.LittleEndian.Uint32(r.comp)
		if magic&skippableMagicMask == skippableMagic {
			if err := r.read(4, "skippable frame size"); err != nil {
				return err
			}
			size := int64(binary.LittleEndian.Uint32(r.comp[4:]))
			m, err := io.CopyN(io.Discard, r.r, size)
			r.off += m
			if err == io.EOF {
				return r.fail(ErrTruncated, nil, "file ends inside a skippable frame")
			}
			if err != nil {
				return fmt.Errorf("zestall stream: reading frame %d at byte offset %d: %w", r.frameIdx, r.frameOff, err)
			}
			continue
		}
		if magic != zstdMagic {
			return r.fail(ErrCorrupt, nil, "bad frame magic number %#08x", magic)
		}
		if err := r.scanFrame(); err != nil {
			return err
		}
		return r.decodeFrame()
	}
}

// scanFrame reads the rest of a Zstandard frame after its magic number,
// using the frame's own header and block headers to find its end.
func (r *Reader) scanFrame() error {
	if err := r.read(1, "header"); err != nil {
		return err
	}
	fhd := r.comp[len(r.comp)-1]
	if fhd&0x08 != 0 {
		return r.fail(ErrCorrupt, nil, "reserved bit set in frame header")
	}
	single := fhd&0x20 != 0
	n := [4]int{0, 1, 2, 4}[fhd&3]  // dictionary id
	n += [4]int{0, 2, 4, 8}[fhd>>6] // content size
	if single {
		if fhd>>6 == 0 {
			n++ // 1-byte content size
		}
	} else {
		n++ // window descriptor
	}
	if err := r.read(n, "header"); err != nil {
		return err
	}
	for {
		if err := r.read(3, "block header"); err != nil {
			return err
		}
		b := r.comp[len(r.comp)-3:]
		bh := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		last, typ, size := bh&1 != 0, (bh>>1)&3, int(bh>>3)
		if size > maxBlockSize {
			return r.fail(ErrCorrupt, nil, "block of %d bytes (limit %d)", size, maxBlockSize)
		}
		switch typ {
		case 1: // RLE: one byte repeated size times
			size = 1
		case 3:
			return r.fail(ErrCorrupt, nil, "reserved block type")
		}
		if err := r.read(size, "block"); err != nil {
			return err
		}
		if last {
			break
		}
	}
	if fhd&0x04 != 0 {
		return r.read(4, "checksum")
	}
	return nil
}

// decodeFrame decompresses r.comp into r.frame.
func (r *Reader) decodeFrame() error {
	if r.dec == nil {
		dec, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(max(r.maxWindow, zstd.MinWindowSize)),
			zstd.WithDecoderMaxMemory(uint64(r.maxFrame)),
		)
		if err != nil {
			return r.fail(ErrCorrupt, err, "creating the decompressor")
		}
		r.dec = dec
	}
	if err := r.dec.Reset(bytes.NewReader(r.comp)); err != nil {
		return r.fail(ErrCorrupt, err, "decompressing")
	}
	r.out.Reset()
	_, err := r.out.ReadFrom(io.LimitReader(r.dec, int64(r.maxFrame)+1))
	if err != nil {
		return r.fail(ErrCorrupt, err, "decompressing")
	}
	if r.out.Len() > r.maxFrame {
		return r.fail(ErrCorrupt, nil, "frame decompresses to more than %d bytes", r.maxFrame)
	}
	r.frame = r.out.Bytes()
	return nil
}

// record decodes the next record of the current frame.
func (r *Reader) record() (*pb.Record, error) {
	bad := func(cause error, format string, args ...any) error {
		e := r.fail(ErrCorrupt, cause, format, args...)
		e.Record = r.recIdx
		return e
	}
	size, n := binary.Uvarint(r.frame[r.pos:])
	if n <= 0 {
		return nil, bad(nil, "bad record length at frame byte %d", r.pos)
	}
	r.pos += n
	if size > uint64(r.maxRecord) {
		return nil, bad(nil, "record of %d bytes (limit %d)", size, r.maxRecord)
	}
	if size > uint64(len(r.frame)-r.pos) {
		return nil, bad(nil, "record of %d bytes runs past the end of the frame", size)
	}
	data := r.frame[r.pos : r.pos+int(size)]
	r.pos += int(size)
	rec := new(pb.Record)
	if err := proto.Unmarshal(data, rec); err != nil {
		return nil, bad(err, "bad record")
	}
	if err := r.resolve(rec); err != nil {
		return nil, bad(nil, "%s", err)
	}
	r.recIdx++
	return rec, nil
}

// resolve checks column shapes and turns a compact Launch into absolute
// form.
func (r *Reader) resolve(rec *pb.Record) error {
	switch k := rec.Kind.(type) {
	case *pb.Record_Launch:
		l := k.Launch
		timed := l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0
		if l.HostAppendDeltaNs != nil {
			l.Id = r.launches.prevID + 1 + uint64(l.IdDelta)
			l.HostAppendNs = r.launches.prevAppend + uint64(*l.HostAppendDeltaNs)
			if timed {
				l.DeviceStartNs = r.launches.startRef(l, l.HostAppendNs) + uint64(l.DeviceStartDelayNs)
				l.DeviceEndNs = l.DeviceStartNs + l.DeviceDurationNs
			} else {
				l.DeviceStartNs, l.DeviceEndNs = 0, 0
			}
			l.HostAppendDeltaNs, l.IdDelta, l.DeviceStartDelayNs, l.DeviceDurationNs = nil, 0, 0, 0
		}
		r.launches.update(l, timed)
	case *pb.Record_StallRows:
		s := k.StallRows
		return checkColumns("StallRows", s.ColumnCount, len(s.OffsetDeltas), len(s.Counters))
	case *pb.Record_Unattributed:
		u := k.Unattributed
		return checkColumns("Unattributed", u.ColumnCount, len(u.AddressDeltas), len(u.Counters))
	}
	return nil
}

func checkColumns(what string, cols uint32, rows, counters int) error {
	if uint64(cols)*uint64(rows) != uint64(counters) {
		return fmt.Errorf("%s with %d rows and %d columns has %d counters", what, rows, cols, counters)
	}
	return nil
}

// DeltaEncode appends to dst the delta encoding of vals, as StallRows and
// Unattributed store offsets and addresses: the first value, then each
// value minus the one before. vals should ascend.
func DeltaEncode(dst, vals []uint64) []uint64 {
	var prev uint64
	for _, v := range vals {
		dst = append(dst, v-prev)
		prev = v
	}
	return dst
}

// DeltaDecode appends to dst the values whose delta encoding is deltas.
func DeltaDecode(dst, deltas []uint64) []uint64 {
	var v uint64
	for _, d := range deltas {
		v += d
		dst = append(dst, v)
	}
	return dst
}
