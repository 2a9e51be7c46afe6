package collector

import (
	"runtime"
	"time"

	"github.com/zestall/zestall/collector/config"
)

// procsCalm is how long the harvester must go without a backlog before
// the runtime goes back to its low P count: changing GOMAXPROCS stops the
// world (tens of µs), so an application that alternates bursts and pauses
// changes it at most about once a second.
const procsCalm = time.Second

// procs applies config.GoProcs from the harvester's goroutine, after every
// pass: High while the harvester has a backlog or stalls are sampled,
// Low after procsCalm without a backlog. The runtime keeps the P count it
// started with until a pass finds work (launches drained, a backlog, or
// stalls sampled): lowering it destroys a P, whose cached heap spans go
// back to the heap's central lists, and a fresh process pays a page fault
// for each list it touches first (43 of the 650 page faults of a trivial
// Level-Zero program, about 1 ms, with a stopped world; BENCHMARKS.md,
// "Issue 14, session 9"). A program that never launches a kernel never
// pays it; one that does pays it once, at its first launches.
type procs struct {
	policy config.GoProcs // zero: the user set GOMAXPROCS; never changed
	set    func(int) int  // runtime.GOMAXPROCS (tests replace it)
	cur    int
	calm   time.Time // since when the harvester has had no backlog (zero: it has one)
	passed bool      // a pass found work: before it the runtime has its own P count
}

// WithGoProcs makes the session apply p, the library's P-count policy, to
// the Go runtime from the harvester's first pass that finds work on. Until then the
// runtime keeps the P count it started with (one per CPU): setting it
// stops the world, which in the library's package initialisation took
// 1-2 ms of the application's first call into zestall, also in a process
// that never profiles (docs/level-zero-loader.md §8.4 "Start-up cost of
// `LD_PRELOAD`").
func WithGoProcs(p config.GoProcs) Option {
	return func(s *Session) {
		s.procs = procs{policy: p, set: runtime.GOMAXPROCS, cur: runtime.GOMAXPROCS(0)}
	}
}

// pass follows a harvester pass at now: backlog, the harvester goes on at
// once; sampling, EU stalls are sampled; busy, the pass drained something.
func (c *procs) pass(backlog, sampling, busy bool, now time.Time) {
	if c.policy.Low == 0 || c.policy.Low == c.policy.High {
		return
	}
	if !c.passed && !backlog && !sampling && !busy {
		return // nothing to do yet: the runtime keeps its own count
	}
	want := c.cur
	switch {
	case backlog || sampling:
		want, c.calm = c.policy.High, time.Time{}
	case c.cur == c.policy.Low:
	case !c.passed:
		want = c.policy.Low // the runtime's own count, until now
	case c.calm.IsZero():
		c.calm = now
	case now.Sub(c.calm) >= procsCalm:
		want = c.policy.Low
	}
	c.passed = true
	if want != c.cur {
		c.set(want)
		c.cur = want
	}
}
