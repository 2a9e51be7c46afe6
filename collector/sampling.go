package collector

import (
	"github.com/zestall/zestall/collector/attribution"
	"github.com/zestall/zestall/collector/sampling"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// launchMarginNs bounds the error of a launch's device times converted to
// host ns (timestamp tick plus the host/device correlation's uncertainty).
const launchMarginNs = 10_000

// samplingAttributor is an attribution.Attributor as the stall reader sees it.
type samplingAttributor struct{ *attribution.Attributor }

// AddCounters takes the attributor's totals once per Counters record.
func (a samplingAttributor) AddCounters(c *pb.Counters) {
	t := a.Totals()
	t.AddTo(c)
}

// openStalls opens the stall reader over src on every root device (under
// s.mu, at start). s.stall is set when some streamer is open.
func (s *Session) openStalls(src sampling.Source) {
	var roots []sampling.Device
	entries := s.affinityEntries()
	for i, d := range s.devices {
		if d.Parent >= 0 {
			continue // sub-devices: sampled through their root (COMPOSITE)
		}
		roots = append(roots, sampling.Device{ID: uint32(i + 1), Handle: uint64(d.Handle), Name: d.Name,
			Platform: platformName(d.PCIDeviceID), AffinityEntry: entries[i]})
	}
	slack := uint64(s.cfg.StallLatency)
	r := sampling.Open(src, roots, sampling.Options{
		Sampling:     s.cfg.Sampling,
		PeriodNs:     s.cfg.SamplingPeriodNs,
		ReadInterval: s.cfg.StallReadInterval,
		Latency:      s.cfg.StallLatency,
		Now:          s.now,
		Emit:         s.emitBlocking,
		Stderr:       s.stderr,
		NewAttributor: func(device uint32, sub *uint32, columns int) sampling.Attributor {
			a := attribution.New(device, sub, columns)
			a.SetOptions(attribution.Options{SlackNs: slack, LaunchMarginNs: launchMarginNs})
			return samplingAttributor{a}
		},
	})
	s.sampler = r
	if r.Active() {
		s.stall = r
	}
}

// stallHeader fills the header's per-device sampling description.
func (s *Session) stallHeader(devs []*pb.Device) {
	if s.sampler != nil {
		s.sampler.Header(devs)
	}
}

// runStalls connects the reader to launch timing and starts it (under
// s.mu, at start, after the harvester).
func (s *Session) runStalls(st *sampling.Reader) {
	if h := s.harvest; h != nil {
		st.SetTiming(sampling.Timing{SettledBefore: h.SettledBefore, PendingBefore: h.PendingBefore})
	}
	go st.Run()
}
