package stream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// DefaultFrameSize is the default for [WriterOptions.FrameSize]: the
// Zstandard window (writerWindow), so a larger frame would compress no
// better, while a Writer holds two frames' buffers (one compressing, one
// filling) in the profiled process: 4 MiB frames cost it 6 MiB more live
// heap, twice that resident, for the same bytes per launch (13.98 B on the
// synthetic run). 256 KiB rather than 1 MiB: 14.18 bytes per launch on
// the synthetic run rather than 14.06 (2.2-2.5 MB for 10^6 launches of the
// launch benchmark either way), 1.5 MiB less live heap in the profiled
// process (BENCHMARKS.md, "Issue 14, session 12").
const DefaultFrameSize = 256 << 10

// writerWindow is the Zstandard window of the frames the Writer makes:
// 1 MiB compresses launch and stall records as well as 8 MiB did (13.56 B
// per launch, 4.9 B per stall row on the synthetic run) with 15 MiB less
// encoder history resident in the profiled process; a frame is at most
// DefaultFrameSize (plus one record) by default, and no window need be
// larger than the frame it compresses.
const writerWindow = 256 << 10

// frameSlack is what a frame's buffer holds beyond FrameSize: the frame
// is sealed when it reaches FrameSize, so its last launch records fit
// without growing the buffer (growing a 4 MiB buffer by copies cost the
// profiler more than encoding).
const frameSlack = 4 << 10

// ErrClosed is returned by a Writer used after Close.
var ErrClosed = errors.New("zestall stream: writer closed")

// WriterOptions configure a [Writer]. The zero value is ready to use.
type WriterOptions struct {
	// FrameSize is a soft limit, in uncompressed bytes, on one frame. When
	// the records pending since the last frame reach it, Write seals the
	// frame (the compressor compresses and writes it). Frames are thus at
	// most FrameSize plus one record. 0 means
	// DefaultFrameSize; values above 64 MiB are treated as 64 MiB.
	FrameSize int
	// Level is the Zstandard compression level, 1 (fastest) to 4 (best)
	// as in klauspost/compress/zstd's EncoderLevel. 0 means 1 (about
	// zstd -1): its tables are a quarter of level 2's, which a profiled
	// process pays for at start-up and in memory, and the records compress
	// nearly as well (synthetic run: 13.98 against 13.56 B per launch,
	// 4.89 against 4.91 B per stall row).
	Level int

	// AbsoluteLaunches makes the Writer keep Launch records in absolute
	// form (zestall.proto allows both). For tests and benchmarks only: it
	// shows what the compact form saves.
	AbsoluteLaunches bool
	// NoLaunchRuns makes the Writer write every Launch as a record of its
	// own in compact form, as revision 7 did, instead of LaunchRun
	// records. For tests and benchmarks only: it shows what runs save.
	NoLaunchRuns bool
	// LaunchFrames is how frames of launches only are compressed: as a
	// probe chooses (the zero value), always with the Zstandard encoder,
	// or always literals only. For tests and benchmarks only: it shows
	// what each costs.
	LaunchFrames LaunchFrames
}

// LaunchFrames is [WriterOptions.LaunchFrames].
type LaunchFrames int

const (
	LaunchFramesProbed   LaunchFrames = iota // as the last probe chose (litProbeEvery)
	LaunchFramesEncoder                      // with the Zstandard encoder
	LaunchFramesLiterals                     // literals only (litframe.go)
)

// A Writer writes records to a zestall file. Write encodes into memory. A
// frame is sealed when it reaches FrameSize, when a Counters record ends
// it, and by Flush; a goroutine of the Writer's own compresses sealed
// frames and writes each to the underlying writer as soon as it is
// compressed, whole and in order, while the next frame fills (double
// buffering: Write waits only when a frame fills before the previous one
// is compressed). Flush seals the open frame and waits until everything is
// written; StartFlush seals it without waiting. A file stays readable up
// to its last written frame, so at least up to its last flush.
//
// That goroutine starts with the first frame of rawFrameMax bytes or
// more. Until then each frame, stored rather than compressed, is written
// by the call that seals it (Flush, StartFlush, or Write of a Counters
// record), which thus does the I/O: a short run's file (a header, a
// trailer) is written without a second goroutine and the wake-ups of
// handing it each frame (BENCHMARKS.md, "Issue 14, session 9"). With the
// default FrameSize, a record that fills a frame never writes.
//
// A Writer is not safe for concurrent use: its calls must not overlap (one
// goroutine at a time, as under a mutex), and the caller owns the records
// it is given. After an error from the underlying writer every
// method returns that error. Close ends the compressing goroutine.
type Writer struct {
	w         io.Writer
	frameSize int
	absolute  bool
	runs      bool // LaunchRun records (not NoLaunchRuns)

	buf     []byte // records of the open frame, length-delimited
	roomAt  int    // see setRoomAt; 0 until the first record
	records uint64 // records encoded so far
	// mixed: the open frame holds a record other than Launch and
	// LaunchRun records (compressed with the Zstandard encoder; a frame of
	// launches only is literals only, litframe.go).
	mixed  bool
	closed bool

	// The compressor (compress): frames go to it through jobs, one at a
	// time (unbuffered: one frame compressing, one filling), and their
	// buffers come back through spare. jobs is nil until it starts
	// (startCompressor): before, frames are written by the call that
	// seals them (sealWith).
	jobs  chan frameJob
	spare chan []byte
	done  chan struct{} // the compressor ended
	enc   *zstd.Encoder // the compressor's, made at its first frame of rawFrameMax bytes or more
	eopts []zstd.EOption
	// The compressor's state (whoever compresses: the compressor, or
	// the sealing call before it started): the frames' output buffer,
	// and whether the file prefix was written.
	out      []byte
	prefixed bool
	huff     huff0.Scratch // launch frames' literals (litframe.go)
	// The last probe's choice for frames of launches (compressed):
	// literals only (literals) or the encoder, for litLeft more frames.
	literals bool
	litLeft  int
	lfmode   LaunchFrames
	litMade  int        // literals-only frames made (tests)
	cmu      sync.Mutex // guards err and written, set by the compressor
	err      error
	// failed: err is set (checked per record without the mutex).
	failed atomic.Bool
	// Bytes handed to w successfully.
	written int64

	flushed chan struct{} // closed when the last StartFlush's frames are written

	// Compact Launch state of the open frame (see launchState).
	launches launchState
	// The open LaunchRun of the frame (run.go): its record is encoded
	// when the run ends, before any other record and when the frame is
	// sealed; its bytes count as the frame's until then (reserve).
	run     launchRun
	delta   int64  // storage for Launch.HostAppendDeltaNs while encoding
	scratch []byte // Counters records encoded for their size check

	// Module content already stored: content hash → module id.
	content map[string]uint64
}

// NewWriter returns a Writer that writes a zestall file to w. Nothing is
// written to w before the first Flush. opts may be nil.
func NewWriter(w io.Writer, opts *WriterOptions) (*Writer, error) {
	var o WriterOptions
	if opts != nil {
		o = *opts
	}
	if o.FrameSize <= 0 {
		o.FrameSize = DefaultFrameSize
	}
	o.FrameSize = min(o.FrameSize, 64<<20)
	level := zstd.SpeedFastest
	if o.Level != 0 {
		if o.Level < int(zstd.SpeedFastest) || o.Level > int(zstd.SpeedBestCompression) {
			return nil, fmt.Errorf("zestall stream: compression level %d out of range 1..4", o.Level)
		}
		level = zstd.EncoderLevel(o.Level)
	}
	eopts := []zstd.EOption{
		zstd.WithEncoderLevel(level),
		zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(writerWindow),
		zstd.WithEncoderCRC(true),
		// Tables and history are allocated as the data needs them, for
		// the same compressed bytes: a fresh level-2 encoder allocated
		// and cleared 1.6 MB before its first frame, a large part of a
		// short program's start-up and exit (BENCHMARKS.md, start-up).
		zstd.WithLowerEncoderMem(true),
	}
	if o.LaunchFrames < LaunchFramesProbed || o.LaunchFrames > LaunchFramesLiterals {
		return nil, fmt.Errorf("zestall stream: LaunchFrames %d out of range", o.LaunchFrames)
	}
	wr := &Writer{
		w:         w,
		lfmode:    o.LaunchFrames,
		eopts:     eopts,
		frameSize: o.FrameSize,
		absolute:  o.AbsoluteLaunches,
		runs:      !o.NoLaunchRuns,
		content:   make(map[string]uint64),
	}
	return wr, nil
}

// startCompressor starts the compressor goroutine (at the first frame of
// rawFrameMax bytes or more).
func (w *Writer) startCompressor() {
	w.jobs = make(chan frameJob)
	w.spare = make(chan []byte, 1)
	w.done = make(chan struct{})
	w.spare <- nil
	go w.compress()
}

// frameJob is one frame for the compressor: its records, and a Counters
// record that ends it, encoded by the compressor, which alone knows the
// bytes written before the frame. flushed, if not nil, is closed once
// the frame is in the file.
type frameJob struct {
	records  []byte
	counters *pb.Record
	flushed  chan struct{}
	launches bool // records holds Launch and LaunchRun records only
}

// compress is the compressor goroutine: it compresses and writes each
// sealed frame (compressFrame) and gives its buffer back.
func (w *Writer) compress() {
	defer close(w.done)
	for job := range w.jobs {
		w.spare <- w.compressFrame(job)
	}
}

// compressFrame compresses a sealed frame and writes it, with the file
// prefix before the first, as one write of whole frames (a file cut
// anywhere after it stays readable up to it); it returns the frame's
// buffer, emptied, for the next frame. It runs on the compressor, or on
// the sealing call before the compressor started (never both).
func (w *Writer) compressFrame(job frameJob) []byte {
	w.cmu.Lock()
	failed, written := w.err != nil, w.written
	w.cmu.Unlock()
	if failed {
		if job.flushed != nil {
			close(job.flushed)
		}
		return job.records[:0]
	}
	out := w.out[:0]
	defer func() { w.out = out }()
	if !w.prefixed {
		out = append(out, Magic...)
		out = append(out, Version)
		w.prefixed = true
	}
	b := job.records
	if job.counters != nil {
		c := job.counters.GetCounters()
		c.BytesWritten = uint64(written) + uint64(len(out))
		b = appendRecord(b, job.counters) // checked by Write
	}
	switch {
	case len(b) >= rawFrameMax:
		var err error
		if out, err = w.compressed(out, b, job.launches); err != nil {
			w.cmu.Lock()
			w.err = fmt.Errorf("zestall stream: %w", err)
			w.failed.Store(true)
			w.cmu.Unlock()
			if job.flushed != nil {
				close(job.flushed)
			}
			return b[:0]
		}
	case len(b) > 0:
		out = appendRawFrame(out, b)
	}
	if cap(b) > 4*w.frameSize {
		b = nil // do not keep a huge buffer for one huge record
	}
	var err error
	if len(out) > 0 {
		var n int
		n, err = w.w.Write(out)
		if err == nil && n < len(out) {
			err = io.ErrShortWrite
		}
		w.cmu.Lock()
		w.written += int64(n)
		if err != nil {
			// The file now ends inside a frame; anything written
			// after it would be unreadable, so stop here.
			w.err = fmt.Errorf("zestall stream: %w", err)
			w.failed.Store(true)
		}
		w.cmu.Unlock()
	}
	if cap(out) > 4*w.frameSize {
		out = nil
	}
	if job.flushed != nil {
		close(job.flushed)
	}
	return b[:0]
}

// litProbeEvery: in one frame of launches in litProbeEvery, the first
// litProbeSample bytes are compressed both ways, literals only
// (litframe.go) and with the Zstandard encoder, and that frame and the
// frames of launches until the next such probe are compressed the way it
// chose. A sample rather than the whole frame: the encoder on a whole
// frame was a sixth of the compressor's time on a 10^6-launch run (its
// first frame of launches is a probe). Literals only are chosen while
// they take at most 5/4 of the encoder's bytes (litTolerance): on a
// launch-bound loop, 2.47 against 2.14 bytes per launch for 8 ns
// rather than 26 of the compressor's time per launch; on the synthetic
// run, whose attributes and times vary, 25.6 against 14 bytes
// (docs/stream-writer.md §2 "Launch frames: literals only").
const (
	litProbeEvery  = 32
	litProbeSample = 64 << 10
	litTolerance   = 5 // quarters: literals while at most 5/4 of the encoder's bytes
)

// compressed appends b, the records of a frame of rawFrameMax bytes or
// more, to out as a compressed frame: literals only or with the Zstandard
// encoder, for a frame of launches only as the last probe chose
// (litProbeEvery), else with the encoder. The encoder is made when
// first needed: zstd.NewWriter builds the format's predefined tables,
// which a short program's stored frames never use (rawFrameMax).
func (w *Writer) compressed(out, b []byte, launches bool) ([]byte, error) {
	switch {
	case !launches:
	case w.lfmode == LaunchFramesLiterals:
		return w.literalsFrame(out, b), nil
	case w.lfmode == LaunchFramesEncoder:
		launches = false
	}
	if launches && w.litLeft > 0 && w.literals {
		w.litLeft--
		return w.literalsFrame(out, b), nil
	}
	if w.enc == nil {
		enc, err := zstd.NewWriter(nil, w.eopts...)
		if err != nil {
			return out, err
		}
		w.enc = enc
	}
	if !launches {
		return w.enc.EncodeAll(b, out), nil
	}
	if w.litLeft > 0 {
		w.litLeft--
		return w.enc.EncodeAll(b, out), nil
	}
	// A probe: the frame's first litProbeSample bytes both ways (after
	// out, then dropped), the frame the way they choose.
	w.litLeft = litProbeEvery - 1
	sample := b[:min(len(b), litProbeSample)]
	n := len(out)
	out = appendLiteralsFrame(out, sample, &w.huff)
	m := len(out)
	out = w.enc.EncodeAll(sample, out)
	lit, enc := m-n, len(out)-m
	out = out[:n]
	if w.literals = lit*4 <= enc*litTolerance; w.literals {
		return w.literalsFrame(out, b), nil
	}
	return w.enc.EncodeAll(b, out), nil
}

// literalsFrame appends b to out as a literals-only frame (litframe.go),
// counted in litMade.
func (w *Writer) literalsFrame(out, b []byte) []byte {
	w.litMade++
	return appendLiteralsFrame(out, b, &w.huff)
}

// failure is the error of the underlying writer, if any.
func (w *Writer) failure() error {
	if !w.failed.Load() {
		return nil
	}
	w.cmu.Lock()
	defer w.cmu.Unlock()
	return w.err
}

// Write encodes rec into the open frame. It does no I/O, does not keep rec
// (except a Counters record's lists, read when its frame is compressed:
// do not change them after Write), and leaves rec as it was given (it
// changes fields while encoding and restores them). Give Launch records
// in absolute form; Write returns an
// error for a Launch in compact form or a LaunchRun, for a record without a kind (or whose
// kind's message is nil) and for a record larger than MaxRecordSize, and
// writes nothing then.
func (w *Writer) Write(rec *pb.Record) error {
	if err := w.failure(); err != nil {
		return err
	}
	if w.closed {
		return ErrClosed
	}
	if k, ok := rec.GetKind().(*pb.Record_Launch); ok && k.Launch != nil {
		// The common record, checked without reflection.
		w.room()
		return w.writeLaunch(rec, k.Launch)
	}
	// SYCL records, as frequent (sycl.go), when they carry nothing
	// this writer does not know, in the record or in its message.
	switch k := rec.GetKind().(type) {
	case *pb.Record_SyclSpan:
		if k.SyclSpan != nil && len(k.SyclSpan.UnknownFields) == 0 && len(rec.UnknownFields) == 0 {
			w.room()
			w.startMixed()
			w.buf = appendSyclSpan(w.buf, k.SyclSpan)
			w.records++
			return nil
		}
	case *pb.Record_LaunchRun:
		// Its records are relative to the frame's Launch records,
		// which only the Writer knows.
		return errors.New("zestall stream: LaunchRun given; give Launch records in absolute form")
	case *pb.Record_SyclGraph:
		if k.SyclGraph != nil && len(k.SyclGraph.UnknownFields) == 0 && len(rec.UnknownFields) == 0 {
			w.room()
			w.startMixed()
			w.buf = appendSyclGraph(w.buf, k.SyclGraph)
			w.records++
			return nil
		}
	}
	if !hasKind(rec) {
		return errors.New("zestall stream: record has no kind")
	}
	w.room()
	switch k := rec.Kind.(type) {
	case *pb.Record_Launch:
		return w.writeLaunch(rec, k.Launch)
	case *pb.Record_Module:
		return w.writeModule(rec, k.Module)
	case *pb.Record_Counters:
		// It ends its frame: the compressor fills in bytes_written (the
		// frames before it may still be compressing) on a copy. The
		// copy shares its lists with k.Counters.
		c := new(pb.Counters)
		*c = *k.Counters
		c.RecordsWritten = w.records
		c.BytesWritten = 1 << 62 // the largest it can be, for the size check
		rc := &pb.Record{Kind: &pb.Record_Counters{Counters: c}, UnknownFields: rec.UnknownFields}
		size, err := w.recordSize(rc)
		if err != nil {
			return err
		}
		if size > MaxRecordSize {
			return fmt.Errorf("zestall stream: record of %d bytes exceeds the %d-byte limit", size, MaxRecordSize)
		}
		w.records++
		w.sealWith(rc, nil)
		return nil
	}
	return w.append(rec)
}

// recordSize is the encoded size of rec (without its length).
func (w *Writer) recordSize(rec *pb.Record) (int, error) {
	var ok bool
	if w.scratch, ok = tagAppend(w.scratch[:0], rec); !ok {
		return 0, errDeclined(rec)
	}
	return len(w.scratch), nil
}

// errDeclined is the error for a record the encoder (tagenc.go) does not
// encode: never one of the schema's types (TestTagEncoding), but a Writer
// does not panic in the profiled process.
func errDeclined(rec *pb.Record) error {
	return fmt.Errorf("zestall stream: cannot encode a record of kind %T", rec.GetKind())
}

// WriteLaunch writes one Launch record, given as a plain value in absolute
// form, as a Record of kind launch, without a pb.Launch or a Record to wrap
// it: the profiler's launches take this path. It does not keep l.
func (w *Writer) WriteLaunch(l *Launch) error {
	if err := w.failure(); err != nil {
		return err
	}
	if w.closed {
		return ErrClosed
	}
	return w.writeLaunchValue(l)
}

// WriteLaunches is WriteLaunch of each of ls in turn, up to the first
// error, which it returns: the profiler's batches of launches take this
// path, one call per batch.
func (w *Writer) WriteLaunches(ls []Launch) error {
	if w.closed {
		return ErrClosed
	}
	for i := range ls {
		if w.failed.Load() {
			return w.failure()
		}
		if err := w.writeLaunchValue(&ls[i]); err != nil {
			return err
		}
	}
	return nil
}

// writeLaunchValue is WriteLaunch after its checks.
func (w *Writer) writeLaunchValue(l *Launch) error {
	if len(w.buf)+w.run.reserve() >= w.roomAt {
		w.room()
	}
	timed := l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0
	if w.absolute || (!timed && (l.DeviceStartNs != 0 || l.DeviceEndNs != 0)) {
		return w.writeLaunch(nil, l.Proto()) // the reflective path (tests, or device times of an untimed launch)
	}
	w.appendLaunch(l, timed)
	return nil
}

// appendLaunch encodes l, in absolute form, compact at the end of the open
// frame: in the open LaunchRun when its attributes repeat (and runs are
// on), else as a Launch record of its own. Its attributes are written
// once, into the state's next entry, compared there and kept there
// (launchAttrs); its command list is looked up once for both its start
// reference and its end.
func (w *Writer) appendLaunch(l *Launch, timed bool) {
	s := &w.launches
	list := -1
	var delay int64
	var dur uint64
	if timed {
		list = s.find(l.QueueId, l.CommandListId)
		ref := s.startRefAt(list, l.QueueId, l.CommandListId, l.HostAppendNs)
		delay, dur = int64(l.DeviceStartNs-ref), l.DeviceEndNs-l.DeviceStartNs
	}
	a := s.next()
	a.set(l)
	// Wrapping arithmetic: the reader's inverse is exact for all values.
	appendDelta, idDelta := int64(l.HostAppendNs-s.prevAppend), int64(l.Id-s.prevID-1)
	// The latest launch's attributes first, inline (a loop's launches
	// repeat them): launchAttrs.same written out, above the inliner's
	// budget as a function.
	p := &s.attrs[(s.head-1)&attrMask]
	d := (a[0] ^ p[0]) | (a[1] ^ p[1]) | (a[2] ^ p[2]) | (a[3] ^ p[3]) | (a[4] ^ p[4]) |
		(a[5] ^ p[5]) | (a[6] ^ p[6]) | (a[7] ^ p[7]) | (a[8] ^ p[8])
	repeat := uint32(1)
	if d != 0 || s.nattrs == 0 {
		repeat = s.repeatOf(a)
	}
	if repeat > 0 && w.runs {
		// Its attributes repeat: one more launch of the open run.
		w.run.add(appendDelta, idDelta, delay, dur, repeat, l.ExecutionIndex, l.SyclTaskId)
		if w.run.n == maxRun {
			w.endRun()
		}
	} else {
		w.endRun()
		w.buf = appendCompactLaunch(w.buf, l, appendDelta, idDelta, delay, dur, repeat)
	}
	w.records++
	s.push()
	s.prevID, s.prevAppend = l.Id, l.HostAppendNs
	if timed {
		s.setEndAt(list, l.QueueId, l.CommandListId, l.DeviceEndNs)
	}
}

// hasKind reports whether rec has a kind with a non-nil message.
func hasKind(rec *pb.Record) bool {
	if rec == nil || rec.Kind == nil {
		return false
	}
	// The member's wrapper (a pointer to a struct) holds the message in
	// its one field.
	v := reflect.ValueOf(rec.Kind)
	if v.Kind() != reflect.Ptr || v.IsNil() || v.Elem().Kind() != reflect.Struct || v.Elem().NumField() != 1 {
		return false
	}
	f := v.Elem().Field(0)
	return f.Kind() != reflect.Ptr || !f.IsNil()
}

func (w *Writer) writeLaunch(rec *pb.Record, l *pb.Launch) error {
	if l.HostAppendDeltaNs != nil || l.RepeatOf != 0 {
		return errors.New("zestall stream: Launch given in compact form; give absolute times and attributes")
	}
	timed := l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0
	absolute := w.absolute || (!timed && (l.DeviceStartNs != 0 || l.DeviceEndNs != 0))
	if rec == nil {
		rec = &pb.Record{Kind: &pb.Record_Launch{Launch: l}}
	}
	if absolute {
		// Absolute form, for tests, or because the compact form
		// cannot carry device times of a launch flagged as having none.
		if err := w.append(rec); err != nil {
			return err
		}
		a := attrsOfProto(l)
		w.launches.update(l.Id, l.HostAppendNs, l.QueueId, l.CommandListId, l.DeviceEndNs, timed, &a)
		return nil
	}
	id, app, start, end := l.Id, l.HostAppendNs, l.DeviceStartNs, l.DeviceEndNs
	if len(rec.UnknownFields) == 0 && len(l.UnknownFields) == 0 {
		// Encoded without reflection.
		v := launchOf(l)
		w.appendLaunch(&v, timed)
		return nil
	}
	// Wrapping arithmetic: the reader's inverse is exact for all values.
	w.delta = int64(app - w.launches.prevAppend)
	l.HostAppendDeltaNs = &w.delta
	l.IdDelta = int64(id - w.launches.prevID - 1)
	l.Id, l.HostAppendNs, l.DeviceStartNs, l.DeviceEndNs = 0, 0, 0, 0
	if timed {
		l.DeviceStartDelayNs = int64(start - w.launches.startRef(l.QueueId, l.CommandListId, app))
		l.DeviceDurationNs = end - start
	}
	err := w.append(rec)
	l.Id, l.HostAppendNs, l.DeviceStartNs, l.DeviceEndNs = id, app, start, end
	l.HostAppendDeltaNs, l.IdDelta, l.DeviceStartDelayNs, l.DeviceDurationNs = nil, 0, 0, 0
	if err == nil {
		a := attrsOfProto(l)
		w.launches.update(id, app, l.QueueId, l.CommandListId, end, timed, &a)
	}
	return err
}

func (w *Writer) writeModule(rec *pb.Record, m *pb.Module) error {
	if m.ContentModuleId != 0 || len(m.ContentHash) == 0 {
		return w.append(rec)
	}
	if first, ok := w.content[string(m.ContentHash)]; ok && first != m.Id {
		native, debug := m.NativeBinary, m.DebugInfo
		m.ContentModuleId, m.NativeBinary, m.DebugInfo = first, nil, nil
		err := w.append(rec)
		m.ContentModuleId, m.NativeBinary, m.DebugInfo = 0, native, debug
		return err
	}
	if err := w.append(rec); err != nil {
		return err
	}
	if len(m.NativeBinary) > 0 || len(m.DebugInfo) > 0 {
		w.content[string(m.ContentHash)] = m.Id
	}
	return nil
}

// endRun ends the open LaunchRun, if any: its record goes at the end of
// the open frame (room has reserved its bytes).
func (w *Writer) endRun() {
	switch r := &w.run; r.n {
	case 0:
	case 1:
		// A Launch record of its own is smaller than a run of one:
		// where attributes repeat only now and then (the synthetic
		// run), runs of one made 14.14 bytes per launch, 14.06 so,
		// against 14.04 without runs (TestSizeTargets).
		l := Launch{ExecutionIndex: r.executionIndex[0], SyclTaskId: r.syclTask[0]}
		w.buf = appendCompactLaunch(w.buf, &l, decodeZigZag(r.appendDelta[0]), decodeZigZag(r.idDelta[0]),
			decodeZigZag(r.startDelay[0]), r.duration[0], r.repeat[0])
		r.n = 0
	default:
		w.buf = appendRun(w.buf, r)
	}
}

// startMixed ends the open run before a record other than a launch, which
// the frame then holds (mixed).
func (w *Writer) startMixed() {
	w.endRun()
	w.mixed = true
}

// append encodes rec, length-delimited, at the end of the open frame.
func (w *Writer) append(rec *pb.Record) error {
	w.startMixed()
	n := len(w.buf)
	b, ok := appendTagged(w.buf, rec)
	if !ok {
		return errDeclined(rec)
	}
	if size, _ := binary.Uvarint(b[n:]); size > MaxRecordSize {
		w.buf = b[:n]
		return fmt.Errorf("zestall stream: record of %d bytes exceeds the %d-byte limit", size, MaxRecordSize)
	}
	w.buf = b
	w.records++
	return nil
}

// appendRecord encodes rec, length-delimited, at the end of b (the
// compressor's Counters records: Write encoded them once, to check their
// size, so the encoder does not decline them).
func appendRecord(b []byte, rec *pb.Record) []byte {
	b, _ = appendTagged(b, rec)
	return b
}

// firstFrameBuffer is the capacity a frame buffer starts with. A Writer's
// two buffers take their full size, FrameSize plus slack, when a frame
// first outgrows it, once (they go round between the Writer and its
// compressor and keep their capacity): a short run, whose whole file is a
// header and a trailer, never holds 2 MiB of buffers, which pushed the Go
// heap of a trivial program past the runtime's first collection at 4 MiB,
// a collection it paid for at start-up and exit (BENCHMARKS.md, start-up).
const firstFrameBuffer = 64 << 10

// room seals the open frame when it is full (the open LaunchRun's
// reserve counted) and makes room for the next record: at least
// frameSlack free bytes beyond that reserve (a launch record, or the
// run's record, fits without growing the buffer in append). A buffer of firstFrameBuffer that fills
// is replaced by one of its full size at once, never grown by copies after
// that: growing by doubling copied 4 MB at the start of every long run,
// into memory the process touched for the first time, and left 2 MB of
// buffers behind; the page faults cost the profiler ~20 ns per launch of
// a 10^6-launch run (BENCHMARKS.md, "Issue 14, session 9", encode).
func (w *Writer) room() {
	if len(w.buf)+w.run.reserve() >= w.frameSize {
		w.seal()
	}
	if c, full := cap(w.buf), w.frameSize+frameSlack; c < full && len(w.buf)+w.run.reserve()+frameSlack > c {
		n := full
		if c == 0 {
			n = min(firstFrameBuffer, full)
		}
		w.buf = append(make([]byte, 0, n), w.buf...)
	}
	w.setRoomAt()
}

// setRoomAt sets roomAt for the open frame's buffer: the frame's bytes
// (the open run's reserve counted) at which room has something to do,
// sealing the frame (FrameSize) or growing a buffer not yet of its full
// size (less than frameSlack free). Below it room does nothing: a launch
// checks that inline (writeLaunchValue).
func (w *Writer) setRoomAt() {
	w.roomAt = w.frameSize
	if c := cap(w.buf); c < w.frameSize+frameSlack {
		w.roomAt = min(w.roomAt, c-frameSlack+1)
	}
}

// seal hands the open frame, if any, to the compressor.
func (w *Writer) seal() {
	if len(w.buf) > 0 || w.run.n > 0 {
		w.sealWith(nil, nil)
	}
}

// sealWith hands the open frame, ended by counters (if not nil), to the
// compressor, which closes flushed (if not nil) once it is written, and
// opens the next frame in the buffer the compressor gave back. It waits
// while the previous frame is compressing.
func (w *Writer) sealWith(counters *pb.Record, flushed chan struct{}) {
	w.endRun()
	w.launches.reset()
	job := frameJob{records: w.buf, counters: counters, flushed: flushed, launches: !w.mixed}
	w.mixed = false
	defer w.setRoomAt() // a buffer of another capacity
	if w.jobs == nil {
		if len(w.buf) < rawFrameMax {
			w.buf = w.compressFrame(job) // a stored frame, written here
			return
		}
		w.startCompressor()
	}
	w.jobs <- job
	w.buf = <-w.spare
}

// Flush ends the open frame and waits until every frame is written to the
// underlying writer. The first Flush also writes the file prefix, even
// when no record is pending, so a flushed file is always a valid (maybe
// empty) zestall file.
func (w *Writer) Flush() error {
	if err := w.StartFlush(); err != nil {
		return err
	}
	return w.awaitFlush()
}

// StartFlush is Flush without the wait: the frames reach the underlying
// writer in the compressor's time (one frame's compression at most);
// Flush and Close wait for them, an error shows in the next call.
func (w *Writer) StartFlush() error {
	if err := w.failure(); err != nil {
		return err
	}
	if w.closed {
		return ErrClosed
	}
	w.flushed = make(chan struct{})
	w.sealWith(nil, w.flushed)
	return nil
}

// awaitFlush waits for the last StartFlush's frames.
func (w *Writer) awaitFlush() error {
	if w.flushed != nil {
		<-w.flushed
		w.flushed = nil
	}
	return w.failure()
}

// Close flushes and ends the compressor. It does not close the
// underlying writer. Close is idempotent.
func (w *Writer) Close() error {
	if w.closed {
		return w.failure()
	}
	err := w.Flush()
	w.closed = true
	if w.jobs != nil {
		close(w.jobs)
		<-w.done
	}
	if w.enc != nil {
		w.enc.Close()
	}
	w.buf, w.roomAt = nil, 0
	return err
}

// FrameRoom is how many more uncompressed bytes the open frame takes before
// the next record seals it (0 when that record will). A caller that must
// not wait for the compressor (sealing a frame waits while the previous
// one is compressing and written) writes only what fits.
func (w *Writer) FrameRoom() int {
	return max(0, w.frameSize-len(w.buf)-w.run.reserve())
}

// Written returns the number of bytes written to the underlying writer so
// far and the number of records given to Write so far.
func (w *Writer) Written() (bytes int64, records uint64) {
	w.cmu.Lock()
	defer w.cmu.Unlock()
	return w.written, w.records
}
