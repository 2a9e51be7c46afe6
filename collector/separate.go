package collector

import (
	"fmt"
	"time"

	"github.com/zestall/zestall/collector/attribution"
	"github.com/zestall/zestall/collector/config"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// CopySource is the launch path's side of launch separation by copies
// (ZESTALL_SEPARATE_LAUNCHES=copies, collector/attribution "Launch
// separation by copies"), implemented over C by package cgo: it makes the
// module copies, the kernels in them at their first use, and substitutes
// them at each launch.
type CopySource interface {
	// Configure turns substitution on with copies made per eligible
	// module at its create (0: off) and a ring that may grow to
	// maxCopies; a code is free again reuseNs after its last launch
	// ended; all copies together take at most memLimit bytes of ISA.
	Configure(copies, maxCopies int, reuseNs, memLimit uint64)
	// Ran tells the ring that a launch of kernel kernelID ran code
	// `code`, appended at appendNs and ended at endNs (host ns; the
	// harvester's goroutine). immediate: appended to an immediate list.
	Ran(kernelID uint64, code uint32, appendNs, endNs uint64, immediate bool)
	// Stop ends the ring's growth at exit; false when a copy in the
	// making did not finish within timeout.
	Stop(timeout time.Duration) bool
	Counters() CopyCounters
}

// CopyCounters are the copy source's counts.
type CopyCounters struct {
	OnCopies    uint64 // launches that ran on a copy
	EarlyReuses uint64 // launches that found every code of their kernel busy
	// Fallbacks kept the original kernel: a copy could not be given the
	// kernel's state or its kernel could not be created.
	Fallbacks      uint64
	CopiesMade     uint64 // module copies made, at create and grown
	CopyISABytes   uint64 // their ISA bytes
	KernelsMade    uint64 // kernels created in copies at their first use
	KernelCreateNs uint64 // application-thread time those took
	GrowFailed     uint64 // copies the ring's growth failed to make
}

// Copies installs the copy source (at activation, before the start).
func (s *Session) Copies(src CopySource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.copySrc = src
}

// CodeCopies is how many copies package cgo makes of an eligible module
// created now: 0 while the mode is off or stall sampling is off.
func (s *Session) CodeCopies() int { return int(s.codeCopies.Load()) }

// CopyEligibility decides whether a module may be copied (package cgo
// asks before making copies).
func (s *Session) CopyEligibility(native []byte) attribution.Eligibility {
	return attribution.CopyEligibility(native)
}

// startCopies turns the mode on when it was asked for and stall samples
// are read (under s.mu, at start, after the stall reader was opened).
func (s *Session) startCopies(hdr *pb.Header) {
	if !s.cfg.SeparateLaunches || s.copySrc == nil {
		return
	}
	if s.stall == nil {
		fmt.Fprintln(s.stderr, "zestall: ZESTALL_SEPARATE_LAUNCHES=copies needs EU stall sampling, which is off: launches are not separated.")
		return
	}
	n, most := s.cfg.CodeCopies, s.cfg.CodeCopies
	if s.cfg.CodeCopiesAuto {
		most = config.MaxCodeCopies
		hdr.CodeCopiesMax = uint32(most)
	}
	s.copySrc.Configure(n, most, uint64(reuseInterval(s.cfg)), s.cfg.CopyMemoryLimit)
	hdr.CodeCopyMemoryLimit = s.cfg.CopyMemoryLimit
	s.codeCopies.Store(int32(n))
	hdr.LaunchSeparation = pb.LaunchSeparation_LAUNCH_SEPARATION_COPIES
	hdr.CodeCopiesPerModule = uint32(n)
}

// reuseInterval is how long after a launch's end its code may not run
// another launch: a read window runs from the start of the read before
// to the end of the read that delivered the samples, and holds samples
// taken up to ZESTALL_STALL_LATENCY before it began (collector/attribution),
// so a later launch's first samples can share a window with samples
// taken latency + one read interval + the read's own duration earlier.
// A second read interval covers that duration and a reader woken late;
// a reader late by more leaves rows SHARED, never wrong.
func reuseInterval(c config.Config) time.Duration {
	return c.StallLatency + 2*c.StallReadInterval
}

// onLaunches is what the harvester calls with every batch of launch
// records (timing.Harvester.OnLaunches): the stall reader's f, then the
// ring learns when each launch's code is free; so every launch reaches
// the attributors before its code may run another launch.
func (s *Session) onLaunches(f func([]stream.Launch)) func([]stream.Launch) {
	src := s.copySrc
	if src == nil || s.codeCopies.Load() == 0 {
		return f
	}
	return func(ls []stream.Launch) {
		f(ls)
		for i := range ls {
			l := &ls[i]
			if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0 {
				src.Ran(l.KernelId, l.CodeCopy, l.HostAppendNs, l.DeviceEndNs, l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_IMMEDIATE) != 0)
			}
		}
	}
}

// CopyKernelCreated registers the code of kernel id in copy `code` at
// base with the stall reader (package cgo, on an application thread, at
// the kernel's first launch on that copy: before the launch is appended,
// so before any of its samples).
func (s *Session) CopyKernelCreated(id uint64, code uint32, base uint64) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	kc, ok := s.kernCopies[id]
	if !ok || s.stall == nil || code == 0 || code > 64 {
		return
	}
	s.stall.KernelCreated(attribution.CodeID(id, code), base, kc.size, now)
	kc.codes |= 1 << (code - 1)
	s.kernCopies[id] = kc
}

// kernelCopies is what the session knows of a separated kernel: its ISA
// size and the copies (bit code-1) registered with the stall reader.
type kernelCopies struct {
	size  uint64
	codes uint64
}

// copyCounters adds the copy source's counters to c and returns them.
func (s *Session) copyCounters(c *pb.Counters) CopyCounters {
	if s.copySrc == nil || s.codeCopies.Load() == 0 {
		return CopyCounters{}
	}
	cc := s.copySrc.Counters()
	c.LaunchesOnCopies, c.CodeCopyEarlyReuses = cc.OnCopies, cc.EarlyReuses
	c.CodeCopiesMade, c.CodeCopyIsaBytes = cc.CopiesMade, cc.CopyISABytes
	return cc
}

// stopCopies ends the ring's growth at exit, adds the final counters to
// c and says on stderr what the file does not carry: launches that kept
// the application's kernel, copies that could not be made.
func (s *Session) stopCopies(c *pb.Counters) {
	if s.copySrc == nil || s.codeCopies.Load() == 0 {
		return
	}
	if !s.copySrc.Stop(2 * time.Second) {
		fmt.Fprintln(s.stderr, "zestall: launch separation: a module copy in the making did not finish within 2 s at exit.")
	}
	cc := s.copyCounters(c)
	if !s.cfg.Quiet {
		each := 0.0
		if cc.KernelsMade > 0 {
			each = float64(cc.KernelCreateNs) / float64(cc.KernelsMade) / 1e3
		}
		fmt.Fprintf(s.stderr, "zestall: launch separation: %d launches on copies, %d found every code busy; %d module copies made (%d bytes of ISA); %d kernels created in copies at their first launch, %.1f µs each on the application's thread.\n",
			cc.OnCopies, cc.EarlyReuses, cc.CopiesMade, cc.CopyISABytes, cc.KernelsMade, each)
	}
	if cc.Fallbacks > 0 {
		fmt.Fprintf(s.stderr, "zestall: launch separation: %d launches ran the application's own kernel: a copy could not be given the kernel's state (a setter failed on it) or its kernel could not be created; they are separated by read windows only.\n", cc.Fallbacks)
	}
	if cc.GrowFailed > 0 {
		fmt.Fprintf(s.stderr, "zestall: launch separation: %d module copies could not be made when a ring grew; those modules kept the copies they had.\n", cc.GrowFailed)
	}
}
