package collector

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// output is the output file's writer and the queues that feed it. Two
// goroutines write, one at a time, under mu: the writer goroutine
// (writeLoop), woken by the queues' producers (wakeWriter) and by its
// flush ticker, and the harvester's goroutine, which encodes its own
// launch records (writeDirect) once the writer is ready. A harvester pass
// that hands its records to another goroutine wakes that goroutine, on a
// 2-P runtime often another thread (a futex wake and two context
// switches, about as much CPU as the pass's records at 10^5 launches/s:
// BENCHMARKS.md, issue 14); encoded where they were made, a steady run's
// records wake nothing until a frame is full (the Writer's compressor) or
// a flush is due.
//
// Queued records are taken from their queues only under mu, so whoever
// writes first writes every record queued before in the queues' order:
// application threads' records (in: modules, kernels) before the launches
// queued after them.
type output struct {
	mu     sync.Mutex
	w      *stream.Writer // nil: no file (failed)
	f      *os.File
	failed bool // no file, or a write failed: records are taken and dropped
	first  bool // the first record (the header) is still to come
	// ready: the writer goroutine made the file (or failed to) and wrote
	// what was queued before: the harvester may write itself.
	ready bool
	// closed: the writer goroutine ended; nothing more is written.
	closed bool
	// final: the trailer went through bulk: no running Counters record
	// may follow it.
	final bool
	// steps counts the writer goroutine's turns (tests: the harvester's
	// passes must not wake it).
	steps int
	// The queues, nil once seen closed.
	in, bulk <-chan *pb.Record
	launches <-chan []stream.Launch
	syclq    <-chan []*pb.Record
}

// wakeWriter tells the writer goroutine that a queue has something (never
// blocks: one pending wake-up covers everything queued before it is
// taken, since the writer empties the queues after taking it).
func (s *Session) wakeWriter() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// bulkPerWake bounds the bulk records (stall rows) one wake-up of the
// writer writes before it lets the harvester in (and wakes itself again).
const bulkPerWake = 4096

// writeLoop owns the output file: it makes it, writes what the queues
// hold when woken, and flushes at least every FlushInterval, each flush
// with the running Counters, so a killed run stays readable and has its
// totals. Records from application threads (in: modules, kernels) go
// before those of zestall's goroutines (launches, bulk: stall rows, SYCL)
// that were queued after them. Launches queued before a bulk record go
// before it (the trailer comes last). The loop ends when all queues are
// closed.
func (s *Session) writeLoop() {
	defer close(s.done)
	defer s.guard("the output writer")
	o := &s.wr
	defer func() {
		// Also after a panic: the harvester goes back to the queues,
		// which count what cannot be written as lost.
		o.mu.Lock()
		o.closed = true
		o.mu.Unlock()
	}()
	f, w := s.openOutput()
	if w == nil {
		// Without a file every record is taken and dropped, so that
		// nothing waits for this loop.
		s.outputFailed()
	}
	tick := time.NewTicker(s.cfg.FlushInterval)
	defer tick.Stop()
	// step writes what is queued (and the running Counters and a flush
	// when ticked); true when every queue is closed and the file is
	// closed. mu is released even if it panics (the harvester must not
	// hang).
	step := func(ticked bool) bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.steps++
		if !o.ready {
			o.f, o.w, o.failed, o.first = f, w, w == nil, true
		}
		return s.stepLocked(ticked)
	}
	if step(false) { // the header and what came with it
		return
	}
	for {
		ticked := false
		select {
		case <-s.wake:
		case <-tick.C:
			ticked = true
		}
		if step(ticked) {
			return
		}
	}
}

// stepLocked writes what is queued (and the running Counters and a flush
// when ticked), under wr.mu once the writer is ready; true when every
// queue is closed and the file is closed.
func (s *Session) stepLocked(ticked bool) bool {
	o := &s.wr
	s.drainQueues()
	o.ready = true
	if ticked {
		// bulk is done once the final trailer went through it (not
		// when its close is seen: a tick can come between): a running
		// Counters record after that would make a non-final one the
		// file's last (seen in TestMPINode and TestWriterLaunches).
		// Nor before the header (o.first): the writer starts before
		// the header is queued (startLocked), and a flush interval can
		// be shorter than the header's making.
		if !o.failed && !o.final && !o.first {
			s.write(&pb.Record{Kind: &pb.Record_Counters{Counters: s.runningCounters()}})
		}
		s.startFlush()
	}
	if o.in != nil || o.bulk != nil || o.launches != nil || o.syclq != nil {
		return false
	}
	if o.w != nil {
		s.flush()
		if err := o.w.Close(); err != nil && !o.failed {
			fmt.Fprintf(s.stderr, "zestall: closing %s failed: %v\n", s.path, err)
		}
		o.f.Close()
	}
	return true
}

// launchBytesMax bounds a Launch record's encoded size (compact or
// absolute; its fields are varints and fixed64s): what a batch may take of
// the open frame.
const launchBytesMax = 256

// writeDirect writes a batch of the harvester's launch records on the
// harvester's goroutine, after what application threads queued before
// (their kernels) and the batches queued before the writer was ready. It
// returns false, writing nothing, when it would wait: while the writer
// goroutine holds the writer (it may be waiting for the compressor, which
// may be waiting for the file system), when the batch could fill the open
// frame (sealing it waits for the compressor), while the writer is not
// ready (the file is being made) or after it ended: the batch then goes
// through the queue, whose spare batches let the harvester go on draining
// the application's rings meanwhile, as before it wrote itself.
func (s *Session) writeDirect(ls []stream.Launch) bool {
	o := &s.wr
	if !o.mu.TryLock() {
		return false
	}
	defer o.mu.Unlock()
	if !o.ready || o.closed {
		return false
	}
	if o.w != nil && !o.failed && o.w.FrameRoom() < len(ls)*launchBytesMax {
		return false
	}
	s.appFirst()
	s.launchesFirst()
	s.writeLaunches(ls, false)
	return true
}

// drainQueues writes everything queued, in order (under wr.mu): the
// application's records, launch batches, SYCL batches, then bulk records,
// each after the application's and launch records queued before it.
func (s *Session) drainQueues() {
	o := &s.wr
	s.appFirst()
	s.launchesFirst()
	s.syclFirst()
	for n := 0; o.bulk != nil; n++ {
		if n == bulkPerWake {
			s.wakeWriter() // the rest after the harvester had its turn
			return
		}
		select {
		case r, ok := <-o.bulk:
			if !ok {
				o.bulk = nil
				return
			}
			s.appFirst()
			s.launchesFirst()
			s.syclFirst()
			s.write(r)
			if r.GetCounters().GetFinal() {
				// The trailer is the last record.
				o.bulk, o.final = nil, true
			}
		default:
			return
		}
	}
}

// writeFailed turns output off after a write error (said once).
func (s *Session) writeFailed(err error) {
	s.wr.failed = true
	fmt.Fprintf(s.stderr, "zestall: writing %s failed: %v; output stops here.\n", s.path, err)
}

// write appends one record (under wr.mu).
func (s *Session) write(r *pb.Record) {
	if s.wr.failed {
		return
	}
	if err := s.wr.w.Write(r); err != nil {
		s.writeFailed(err)
	}
}

// flush seals the open frame and waits until it is in the file.
func (s *Session) flush() {
	if s.wr.failed {
		return
	}
	if err := s.wr.w.Flush(); err != nil {
		s.writeFailed(err)
	}
}

// startFlush seals the open frame without waiting: the Writer's
// compressor writes it while records go on being appended.
func (s *Session) startFlush() {
	if s.wr.failed {
		return
	}
	if err := s.wr.w.StartFlush(); err != nil {
		s.writeFailed(err)
	}
}

// appFirst writes what application threads queued so far (under wr.mu).
func (s *Session) appFirst() {
	o := &s.wr
	for o.in != nil {
		select {
		case r, ok := <-o.in:
			if !ok {
				o.in = nil
				return
			}
			if r == flushMarker {
				s.flush()
				continue
			}
			s.write(r)
			if o.first {
				// The header reaches the file at once: a run killed
				// before the first tick still leaves a readable file.
				o.first = false
				s.flush()
			}
		default:
			return
		}
	}
}

// launchesFirst writes the launch batches queued so far (under wr.mu).
func (s *Session) launchesFirst() {
	o := &s.wr
	for o.launches != nil {
		select {
		case ls, ok := <-o.launches:
			if !ok {
				o.launches = nil
				return
			}
			s.appFirst()
			s.writeLaunches(ls, true)
		default:
			return
		}
	}
}

// syclFirst writes the SYCL batches queued so far (sycl.go), like bulk
// records (under wr.mu).
func (s *Session) syclFirst() {
	o := &s.wr
	for o.syclq != nil {
		select {
		case rs, ok := <-o.syclq:
			if !ok {
				o.syclq = nil
				return
			}
			s.appFirst()
			s.launchesFirst()
			for _, r := range rs {
				s.write(r)
			}
		default:
			return
		}
	}
}

// writeLaunches writes a batch of launch records (under wr.mu); a batch
// that came through the queue goes back to the harvester (back).
func (s *Session) writeLaunches(ls []stream.Launch, back bool) {
	// One call per batch: the Writer's checks once, not per launch
	// (docs/stream-writer.md §3 "Encoding a launch").
	if !s.wr.failed {
		if err := s.wr.w.WriteLaunches(ls); err != nil {
			s.writeFailed(err)
		}
	}
	if back {
		select {
		case s.launchFree <- ls[:0]:
		default:
		}
	}
}
