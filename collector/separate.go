package collector

import (
	"fmt"

	"github.com/zestall/zestall/collector/attribution"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// CopySource is the launch path's side of launch separation by copies
// (ZESTALL_SEPARATE_LAUNCHES=copies, collector/attribution "Launch
// separation by copies"), implemented over C by package cgo: it makes the
// module and kernel copies and substitutes them at each launch.
type CopySource interface {
	// Configure turns substitution on with copies per eligible module
	// (0: off); a code given out again within reuseNs counts as an early
	// reuse.
	Configure(copies int, reuseNs uint64)
	// Counters: launches that ran on a copy, early reuses, and launches
	// that kept the original because the copy's state could not be
	// mirrored.
	Counters() (onCopies, earlyReuses, fallbacks uint64)
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
	n := s.cfg.CodeCopies
	s.copySrc.Configure(n, uint64(s.cfg.StallLatency+s.cfg.StallReadInterval))
	s.codeCopies.Store(int32(n))
	hdr.LaunchSeparation = pb.LaunchSeparation_LAUNCH_SEPARATION_COPIES
	hdr.CodeCopiesPerModule = uint32(n)
}

// copyCounters adds the copy source's counters to c and returns the
// launches that kept the original kernel because a copy could not be
// given its state. Those are not lost (their records say code_copy 0);
// they are only separated by read windows.
func (s *Session) copyCounters(c *pb.Counters) (fallbacks uint64) {
	if s.copySrc == nil || s.codeCopies.Load() == 0 {
		return 0
	}
	var on, early uint64
	on, early, fallbacks = s.copySrc.Counters()
	c.LaunchesOnCopies, c.CodeCopyEarlyReuses = on, early
	return fallbacks
}
