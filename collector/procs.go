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
// Low after procsCalm without a backlog.
type procs struct {
	policy config.GoProcs // zero: the user set GOMAXPROCS; never changed
	set    func(int) int  // runtime.GOMAXPROCS (tests replace it)
	cur    int
	calm   time.Time // since when the harvester has had no backlog (zero: it has one)
}

// WithGoProcs makes the session apply p, the library's P-count policy, to
// the Go runtime; the runtime has p.Low Ps now (layer's init set it).
func WithGoProcs(p config.GoProcs) Option {
	return func(s *Session) { s.procs = procs{policy: p, set: runtime.GOMAXPROCS, cur: p.Low} }
}

// pass follows a harvester pass at now: backlog, the harvester goes on at
// once; sampling, EU stalls are sampled.
func (c *procs) pass(backlog, sampling bool, now time.Time) {
	if c.policy.Low == 0 || c.policy.Low == c.policy.High {
		return
	}
	want := c.cur
	switch {
	case backlog || sampling:
		want, c.calm = c.policy.High, time.Time{}
	case c.cur == c.policy.Low:
	case c.calm.IsZero():
		c.calm = now
	case now.Sub(c.calm) >= procsCalm:
		want = c.policy.Low
	}
	if want != c.cur {
		c.set(want)
		c.cur = want
	}
}
