package collector

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/zestall/zestall/ze"
)

// ringFillTimestamps is a launch path with the ring controls
// (ringSource) whose rings fill whenever the harvester sleeps: every
// arming is answered by a wake-up at once.
type ringFillTimestamps struct {
	idleTimestamps
	fills chan struct{}
	arms  atomic.Int64
	slots atomic.Uint32
}

func (r *ringFillTimestamps) SetRingSlots(n uint32)      { r.slots.Store(n) }
func (r *ringFillTimestamps) RingFills() <-chan struct{} { return r.fills }
func (r *ringFillTimestamps) ArmRingFill() {
	r.arms.Add(1)
	select {
	case r.fills <- struct{}{}:
	default:
	}
}

// TestRingFillWakesHarvester: the session hands ZESTALL_RING_SLOTS to the
// launch path before collection starts, and the harvester arms a wake-up
// before each sleep and ends the sleep when it comes. An idle harvester
// sleeps pollIdle (16 ms) a pass, so passes on its timer alone take at
// least (passes - 1) × 16 ms: 100 passes here must take less, with every
// one woken (a bound on what the timer allows, not on the machine's
// speed: woken passes are goroutine switches apart).
func TestRingFillWakesHarvester(t *testing.T) {
	s, _, _ := testSession(t, map[string]string{"ZESTALL_RING_SLOTS": "4096"})
	s.Devices(testDevices)
	src := &ringFillTimestamps{fills: make(chan struct{}, 1)}
	s.Timestamps(src)
	s.Status(StateActive, ze.Success)
	defer s.Shutdown()
	if got := src.slots.Load(); got != 4096 {
		t.Errorf("ring slots given to the launch path: %d, want 4096 (ZESTALL_RING_SLOTS)", got)
	}
	const passes = 100
	start := time.Now()
	a0 := src.arms.Load()
	for src.arms.Load() < a0+passes && time.Since(start) < 10*time.Second {
		time.Sleep(time.Millisecond)
	}
	took := time.Since(start)
	if n := src.arms.Load() - a0; n < passes || took >= (passes-1)*pollIdle {
		t.Errorf("%d passes in %v: woken passes must outrun the idle timer (%d passes of %v)", n, took, passes, pollIdle)
	}
}
