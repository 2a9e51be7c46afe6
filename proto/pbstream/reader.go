package pbstream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/pbconv"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
	zw "github.com/zestall/zestall/proto/zestallwire"
)

// A Reader reads the records of a zestall file in order. It decodes one
// frame at a time and hands out its records one by one; see the package
// documentation for what it checks and how much memory it uses.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	in input

	// Limits; the package constants unless a test lowers them.
	maxRecord   int
	maxFrame    int
	maxWindow   uint64
	maxBuffered int // frames up to this size are decompressed once, into buf

	dec  *zstd.Decoder
	comp []byte // the compressed frame being read, from frameOff

	// The current frame's content: all of it in buf (frames up to
	// maxBuffered bytes), or streamed from the decompressor through sr
	// (larger frames, after a first pass checked them).
	buf      []byte
	streamed bool
	sr       *bufio.Reader
	scratch  []byte // record bytes when streamed
	pos      int    // bytes of the frame consumed
	size     int    // decompressed size of the frame

	prefixDone bool
	frameIdx   int   // index of the current frame; -1 before the first
	frameOff   int64 // offset of the current frame in the file
	recIdx     int   // index of the next record in the current frame
	err        error // sticky

	// Compact Launch state of the current frame.
	launches stream.LaunchFrame
	launch   zw.Launch // the Launch being resolved
	// The LaunchRun being handed out, a Launch record per call of Next
	// (its record runIdx next); nil when none.
	run    *pb.LaunchRun
	runIdx int
}

// maxBufferedFrame is the largest decompressed frame a Reader holds in
// memory whole; the Writer's frames (DefaultFrameSize) fit. A larger frame
// is decompressed twice: once to check its size and checksum, once to hand
// out its records.
const maxBufferedFrame = 8 << 20

// NewReader returns a Reader that reads a zestall file from r. It reads
// from r in large chunks and may read past the end of the file's data when r
// holds more. A Reader holds no goroutines and no files: it needs no Close,
// and one abandoned before the end is simply garbage.
func NewReader(r io.Reader) *Reader {
	return &Reader{
		in:          input{r: bufio.NewReaderSize(r, 64<<10)},
		maxRecord:   stream.MaxRecordSize,
		maxFrame:    stream.MaxFrameSize,
		maxWindow:   stream.MaxWindowSize,
		maxBuffered: maxBufferedFrame,
		frameIdx:    -1,
	}
}

// ReadAll reads every record from r. On a damaged file it returns the
// records before the first damage together with the error; a clean end
// gives a nil error. It does not resume after damage: use [Reader.Next]
// for that.
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
// damaged record), then a [*stream.FormatError].
//
// When an intact frame follows the damage, that error has Resumed set and
// the next call of Next returns the records of that frame and after: a
// caller that wants everything intact keeps calling Next, and a caller
// that stops at the first error loses nothing it was given. The Reader
// finds the next intact frame by its Zstandard magic number and checks it
// whole (checksum included) before resuming. Otherwise (a truncated last
// frame, a file that is not a zestall file, an I/O error) the error is
// final and Next keeps returning it.
//
// Launch records are returned in absolute form. A record whose kind this
// package does not know (written by a newer zestall) is returned with a nil
// Kind and its fields kept as unknown fields; skip it.
func (r *Reader) Next() (*pb.Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	if !r.prefixDone {
		if err := r.readPrefix(); err != nil {
			return nil, r.stop(err)
		}
		r.prefixDone = true
	}
	for r.run == nil && r.pos == r.size {
		err := r.nextFrame()
		if err == nil {
			continue
		}
		fe, ok := err.(*stream.FormatError)
		if !ok {
			return nil, r.stop(err) // io.EOF or an I/O error
		}
		// The frame's own framing is not to be trusted: the next
		// intact frame may start anywhere after its first byte.
		r.resume(fe, true)
		if !fe.Resumed {
			return nil, r.stop(fe)
		}
		return nil, fe
	}
	var rec *pb.Record
	var err error
	if r.run != nil {
		rec, err = r.runRecord()
	} else {
		rec, err = r.record()
	}
	if err != nil {
		r.run = nil
		fe, ok := err.(*stream.FormatError)
		if !ok {
			return nil, r.stop(err)
		}
		// The frame itself was intact: the next frame starts where
		// its framing said it ends.
		r.pos, r.size = 0, 0
		r.resume(fe, false)
		if !fe.Resumed {
			return nil, r.stop(fe)
		}
		return nil, fe
	}
	return rec, nil
}

// stop makes err sticky and releases the buffers.
func (r *Reader) stop(err error) error {
	r.err = err
	if r.dec != nil {
		r.dec.Close()
		r.dec = nil
	}
	r.comp, r.buf, r.scratch, r.sr = nil, nil, nil, nil
	r.in.back = nil
	r.pos, r.size = 0, 0
	return err
}

// resume looks for the next intact frame after the damage fe and loads
// it; it sets fe.Resumed and fe.Skipped when it finds one. search: look
// for it from the second byte of the damaged frame on; otherwise first try
// the bytes right after the damaged frame.
func (r *Reader) resume(fe *stream.FormatError, search bool) {
	for {
		if search {
			if len(r.comp) > 1 {
				r.in.unread(r.comp[1:], r.frameOff+1)
			}
			if r.in.skipToMagic() != nil {
				return // nothing intact after the damage, or an I/O error: final
			}
		}
		search = true
		err := r.nextFrame()
		if err == nil {
			fe.Resumed = true
			fe.Skipped = r.frameOff - fe.Offset
			if fe.Kind == stream.ErrTruncated {
				// Not the end of the file after all: the frame's
				// framing ran over the frames after it.
				fe.Kind = stream.ErrCorrupt
			}
			return
		}
		if _, ok := err.(*stream.FormatError); !ok {
			return // the end of the file, or an I/O error: final
		}
	}
}

func (r *Reader) fail(kind error, cause error, format string, args ...any) *stream.FormatError {
	return &stream.FormatError{
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
	var p [stream.PrefixSize]byte
	n, err := r.in.readFull(p[:])
	if m := min(n, len(stream.Magic)); string(p[:m]) != stream.Magic[:m] {
		return r.fail(stream.ErrCorrupt, nil, "not a zestall file (no %q prefix)", stream.Magic)
	}
	switch {
	case err == io.EOF:
		return r.fail(stream.ErrTruncated, nil, "empty file")
	case err == io.ErrUnexpectedEOF:
		return r.fail(stream.ErrTruncated, nil, "file ends inside the %d-byte prefix", stream.PrefixSize)
	case err != nil:
		return fmt.Errorf("zestall stream: reading the prefix: %w", err)
	}
	if v := p[len(stream.Magic)]; v < stream.OldestVersion || v > stream.Version {
		return r.fail(stream.ErrVersion, nil, "framing version %d (this reader knows %d to %d)", v, stream.OldestVersion, stream.Version)
	}
	return nil
}

// read appends exactly n bytes of input to r.comp.
func (r *Reader) read(n int, what string) error {
	if len(r.comp)+n > r.maxFrame {
		return r.fail(stream.ErrCorrupt, nil, "compressed frame larger than %d bytes", r.maxFrame)
	}
	l := len(r.comp)
	r.comp = slices.Grow(r.comp, n)[:l+n]
	m, err := r.in.readFull(r.comp[l:])
	r.comp = r.comp[:l+m] // only what was read: resume searches it
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.fail(stream.ErrTruncated, nil, "file ends inside the frame's %s", what)
	}
	if err != nil {
		return fmt.Errorf("zestall stream: reading frame %d at byte offset %d: %w", r.frameIdx, r.frameOff, err)
	}
	return nil
}

// nextFrame reads the next Zstandard frame and makes its content the
// current frame. It returns io.EOF at a clean end of input.
func (r *Reader) nextFrame() error {
	for {
		r.frameIdx++
		r.frameOff = r.in.off
		r.pos, r.size, r.recIdx, r.streamed = 0, 0, 0, false
		r.run = nil
		r.launches.Reset()
		r.comp = r.comp[:0]
		if eof, err := r.in.atEOF(); eof {
			return io.EOF
		} else if err != nil {
			return fmt.Errorf("zestall stream: reading frame %d at byte offset %d: %w", r.frameIdx, r.frameOff, err)
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
			m, err := r.in.discard(size)
			if err == io.EOF || err == nil && m < size {
				return r.fail(stream.ErrTruncated, nil, "file ends inside a skippable frame")
			}
			if err != nil {
				return fmt.Errorf("zestall stream: reading frame %d at byte offset %d: %w", r.frameIdx, r.frameOff, err)
			}
			continue
		}
		if magic != zstdMagic {
			return r.fail(stream.ErrCorrupt, nil, "bad frame magic number %#08x", magic)
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
		return r.fail(stream.ErrCorrupt, nil, "reserved bit set in frame header")
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
			return r.fail(stream.ErrCorrupt, nil, "block of %d bytes (limit %d)", size, maxBlockSize)
		}
		switch typ {
		case 1: // RLE: one byte repeated size times
			size = 1
		case 3:
			return r.fail(stream.ErrCorrupt, nil, "reserved block type")
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

// decodeFrame decompresses r.comp: into r.buf when it fits maxBuffered,
// else checks it in a first pass and streams it in a second. The size
// limits are enforced while decompressing: the content is never held
// beyond maxBuffered bytes, and decompressing stops one byte past
// maxFrame.
func (r *Reader) decodeFrame() error {
	if r.dec == nil {
		dec, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(max(r.maxWindow, zstd.MinWindowSize)),
			zstd.WithDecoderMaxMemory(uint64(r.maxFrame)),
		)
		if err != nil {
			return r.fail(stream.ErrCorrupt, err, "creating the decompressor")
		}
		r.dec = dec
	}
	if err := r.dec.Reset(bytes.NewReader(r.comp)); err != nil {
		return r.fail(stream.ErrCorrupt, err, "decompressing")
	}
	var err error
	r.buf, err = readAtMost(r.dec, r.buf[:0], min(r.maxBuffered, r.maxFrame)+1)
	if err != nil {
		return r.fail(stream.ErrCorrupt, err, "decompressing")
	}
	if len(r.buf) <= r.maxBuffered && len(r.buf) <= r.maxFrame {
		r.size = len(r.buf)
		return nil
	}
	// Too large to hold: check the whole frame (its size, its checksum)
	// without keeping its content, then decompress it again for its
	// records, so that none is handed out from a frame that fails.
	n, err := io.Copy(io.Discard, io.LimitReader(r.dec, int64(r.maxFrame-len(r.buf))+1))
	if err != nil {
		return r.fail(stream.ErrCorrupt, err, "decompressing")
	}
	total := int64(len(r.buf)) + n
	if total > int64(r.maxFrame) {
		return r.fail(stream.ErrCorrupt, nil, "frame decompresses to more than %d bytes", r.maxFrame)
	}
	if err := r.dec.Reset(bytes.NewReader(r.comp)); err != nil {
		return r.fail(stream.ErrCorrupt, err, "decompressing")
	}
	if r.sr == nil {
		r.sr = bufio.NewReaderSize(r.dec, 64<<10)
	} else {
		r.sr.Reset(r.dec)
	}
	r.streamed, r.size = true, int(total)
	return nil
}

// readAtMost appends to buf what r yields until its end or until buf holds
// limit bytes, growing buf only as content arrives.
func readAtMost(r io.Reader, buf []byte, limit int) ([]byte, error) {
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(max(cap(buf), 64<<10), limit-len(buf)))
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// uvarint reads a record length of the current frame.
func (r *Reader) uvarint() (uint64, bool) {
	if !r.streamed {
		v, n := binary.Uvarint(r.buf[r.pos:r.size])
		if n <= 0 {
			return 0, false
		}
		r.pos += n
		return v, true
	}
	var x uint64
	for i, s := 0, uint(0); i < binary.MaxVarintLen64 && r.pos < r.size; i, s = i+1, s+7 {
		b, err := r.sr.ReadByte()
		if err != nil {
			return 0, false
		}
		r.pos++
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, false
			}
			return x | uint64(b)<<s, true
		}
		x |= uint64(b&0x7f) << s
	}
	return 0, false
}

// recordBytes returns the next n bytes of the current frame; n is at most
// what the frame has left. The bytes are valid until the next call.
func (r *Reader) recordBytes(n int) ([]byte, error) {
	if !r.streamed {
		b := r.buf[r.pos : r.pos+n]
		r.pos += n
		return b, nil
	}
	var b []byte
	if n <= 1<<20 {
		if cap(r.scratch) < n {
			r.scratch = make([]byte, n, max(n, 64<<10))
		}
		b = r.scratch[:n]
	} else {
		b = make([]byte, n) // not kept: a large record is rare
	}
	if _, err := io.ReadFull(r.sr, b); err != nil {
		return nil, err
	}
	r.pos += n
	return b, nil
}

// record decodes the next record of the current frame.
func (r *Reader) record() (*pb.Record, error) {
	bad := func(cause error, format string, args ...any) error {
		e := r.fail(stream.ErrCorrupt, cause, format, args...)
		e.Record = r.recIdx
		return e
	}
	at := r.pos
	size, ok := r.uvarint()
	if !ok {
		return nil, bad(nil, "bad record length at frame byte %d", at)
	}
	if size > uint64(r.maxRecord) {
		return nil, bad(nil, "record of %d bytes (limit %d)", size, r.maxRecord)
	}
	if size > uint64(r.size-r.pos) {
		return nil, bad(nil, "record of %d bytes runs past the end of the frame", size)
	}
	data, err := r.recordBytes(int(size))
	if err != nil {
		return nil, bad(err, "decompressing")
	}
	rec := new(pb.Record)
	if err := proto.Unmarshal(data, rec); err != nil {
		return nil, bad(err, "bad record")
	}
	if k, ok := rec.Kind.(*pb.Record_LaunchRun); ok {
		if err := checkRun(k.LaunchRun); err != nil {
			return nil, bad(nil, "%s", err)
		}
		r.run, r.runIdx = k.LaunchRun, 0
		return r.runRecord()
	}
	if err := r.resolve(rec); err != nil {
		return nil, bad(nil, "%s", err)
	}
	r.recIdx++
	return rec, nil
}

// runRecord returns the next Launch record of the LaunchRun being handed
// out (zestall.proto, LaunchRun), resolved.
func (r *Reader) runRecord() (*pb.Record, error) {
	run, i := r.run, r.runIdx
	d := run.HostAppendDeltaNs[i]
	l := &pb.Launch{
		HostAppendDeltaNs:  &d,
		IdDelta:            column(run.IdDelta, i, 0),
		DeviceStartDelayNs: column(run.DeviceStartDelayNs, i, 0),
		DeviceDurationNs:   column(run.DeviceDurationNs, i, 0),
		RepeatOf:           column(run.RepeatOf, i, 1),
		ExecutionIndex:     column(run.ExecutionIndex, i, 0),
		SyclTaskId:         column(run.SyclTaskId, i, 0),
	}
	if r.runIdx++; r.runIdx == len(run.HostAppendDeltaNs) {
		r.run = nil
	}
	rec := &pb.Record{Kind: &pb.Record_Launch{Launch: l}}
	if err := r.resolve(rec); err != nil {
		e := r.fail(stream.ErrCorrupt, nil, "LaunchRun record %d: %s", i, err)
		e.Record = r.recIdx
		return nil, e
	}
	r.recIdx++
	return rec, nil
}

// column is a LaunchRun column's value for record i: an empty column
// stands for the field's default in every record (zestall.proto,
// LaunchRun; checkRun made sure any other column has a value per record).
func column[T any](col []T, i int, empty T) T {
	if len(col) == 0 {
		return empty
	}
	return col[i]
}

// checkRun checks the shape of a LaunchRun: at least one record, and
// every list of as many values as host_append_delta_ns or none; repeat_of
// never 0.
func checkRun(run *pb.LaunchRun) error {
	n := len(run.HostAppendDeltaNs)
	if n == 0 {
		return errors.New("LaunchRun of no Launch records")
	}
	for _, c := range []struct {
		name string
		len  int
	}{
		{"id_delta", len(run.IdDelta)}, {"device_start_delay_ns", len(run.DeviceStartDelayNs)},
		{"device_duration_ns", len(run.DeviceDurationNs)}, {"repeat_of", len(run.RepeatOf)},
		{"execution_index", len(run.ExecutionIndex)}, {"sycl_task_id", len(run.SyclTaskId)},
	} {
		if c.len != 0 && c.len != n {
			return fmt.Errorf("LaunchRun of %d Launch records with %d values of %s", n, c.len, c.name)
		}
	}
	for i, v := range run.RepeatOf {
		if v == 0 {
			return fmt.Errorf("LaunchRun record %d: repeat_of 0", i)
		}
	}
	return nil
}

// resolve checks column shapes and turns a compact Launch into absolute
// form.
func (r *Reader) resolve(rec *pb.Record) error {
	switch k := rec.Kind.(type) {
	case *pb.Record_Launch:
		// Resolved as a zestallwire.Launch, in place (a file holds
		// millions of launches).
		pbconv.CopyLaunchToWire(&r.launch, k.Launch)
		if err := r.launches.Resolve(&r.launch); err != nil {
			return err
		}
		pbconv.CopyLaunchFromWire(k.Launch, &r.launch)
	case *pb.Record_StallRows:
		s := k.StallRows
		if err := checkRanges(s.CandidateLaunchIdRanges); err != nil {
			return err
		}
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

// checkRanges checks StallRows.candidate_launch_id_ranges: pairs (first,
// last) with first <= last, ascending and disjoint.
func checkRanges(r []uint64) error {
	if len(r)%2 != 0 {
		return fmt.Errorf("StallRows with %d candidate_launch_id_ranges values: not pairs", len(r))
	}
	for i := 0; i < len(r); i += 2 {
		if r[i] > r[i+1] {
			return fmt.Errorf("StallRows candidate range %d: first %d after last %d", i/2, r[i], r[i+1])
		}
		if i > 0 && r[i] <= r[i-1] {
			return fmt.Errorf("StallRows candidate range %d starts at %d, not after the previous range's last %d", i/2, r[i], r[i-1])
		}
	}
	return nil
}

// CandidateLaunches calls yield with the id of every launch that shares
// the samples of s (STALL_ATTRIBUTION_SHARED: candidate_launch_ids;
// STALL_ATTRIBUTION_SHARED_RANGES: every id of candidate_launch_id_ranges),
// ascending, until yield returns false. A record the Reader returned has
// well-formed ranges; others are read as far as they are pairs.
func CandidateLaunches(s *pb.StallRows) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for _, id := range s.GetCandidateLaunchIds() {
			if !yield(id) {
				return
			}
		}
		r := s.GetCandidateLaunchIdRanges()
		for i := 0; i+1 < len(r); i += 2 {
			for id := r[i]; ; id++ {
				if !yield(id) {
					return
				}
				if id >= r[i+1] {
					break
				}
			}
		}
	}
}

// CandidateCount is how many launches share the samples of s (the length
// of CandidateLaunches).
func CandidateCount(s *pb.StallRows) uint64 {
	n := uint64(len(s.GetCandidateLaunchIds()))
	r := s.GetCandidateLaunchIdRanges()
	for i := 0; i+1 < len(r); i += 2 {
		if r[i+1] >= r[i] {
			n += r[i+1] - r[i] + 1
		}
	}
	return n
}
