package attribution_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/zestall/zestall/collector/attribution"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// baseC is where kernel 1's code copy 1 lies.
const baseC = 0x0000_8000_0003_0000

// untimedFlag marks a launch record without device times.
const untimedFlag = uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)

// perLaunch is what the stall reader did before batches: one call per
// launch of device, LaunchNeverTimed for a launch without times.
func perLaunch(a *attribution.Attributor, device uint32, ls []stream.Launch) {
	for _, l := range ls {
		if l.DeviceId != device {
			continue
		}
		code := attribution.CodeID(l.KernelId, l.CodeCopy)
		if l.Flags&untimedFlag != 0 {
			a.LaunchNeverTimed(l.Id, code, l.HostAppendNs)
		} else {
			a.LaunchTimed(l.Id, code, l.DeviceStartNs, l.DeviceEndNs)
		}
	}
}

// TestLaunchesMatchPerLaunch: a batch given to Launches leaves an
// attributor exactly as the same launches given one call each: the same
// rows for the windows that follow, the same totals (launches held,
// not held, untimed, of unknown kernels).
func TestLaunchesMatchPerLaunch(t *testing.T) {
	timed := func(id, kernel uint64, code uint32, start, end uint64) stream.Launch {
		return stream.Launch{Id: id, KernelId: kernel, CodeCopy: code, DeviceId: 1, HostAppendNs: start - 5, DeviceStartNs: start, DeviceEndNs: end}
	}
	untimed := func(id, kernel uint64, appendNs uint64) stream.Launch {
		return stream.Launch{Id: id, KernelId: kernel, DeviceId: 1, HostAppendNs: appendNs, Flags: untimedFlag}
	}
	other := func(l stream.Launch) stream.Launch { l.DeviceId = 2; return l }
	// many: n launches of kernel 1, 100 ns apart, the first from 100.
	many := func(n int) []stream.Launch {
		var ls []stream.Launch
		for i := range n {
			ls = append(ls, timed(uint64(i+1), 1, 0, uint64(100*(i+1)), uint64(100*(i+1)+50)))
		}
		return ls
	}
	tests := []struct {
		name    string
		opt     attribution.Options
		batches [][]stream.Launch
		// windows after the batches: [start, end] with a sample at
		// baseA+0x10 (kernel 1), baseB+0x20 (kernel 2), and kernel 1's
		// copy 1 (baseC+0x10).
		windows [][2]uint64
	}{
		{name: "one kernel", batches: [][]stream.Launch{many(5)}, windows: [][2]uint64{{90, 160}, {290, 360}, {100, 600}}},
		{name: "two kernels alternating", batches: [][]stream.Launch{{
			timed(1, 1, 0, 100, 150), timed(2, 2, 0, 110, 160), timed(3, 1, 0, 300, 350), timed(4, 2, 0, 310, 360),
		}}, windows: [][2]uint64{{90, 200}, {290, 400}}},
		{name: "code copies", batches: [][]stream.Launch{{
			timed(1, 1, 0, 100, 150), timed(2, 1, 1, 110, 160), timed(3, 1, 1, 300, 350),
		}}, windows: [][2]uint64{{90, 200}, {290, 400}}},
		{name: "untimed and unknown kernels", batches: [][]stream.Launch{{
			timed(1, 1, 0, 100, 150), untimed(2, 2, 120), timed(3, 9, 0, 130, 140), untimed(4, 9, 130), untimed(5, 2, 90),
		}}, windows: [][2]uint64{{90, 200}, {290, 400}}},
		{name: "other devices skipped", batches: [][]stream.Launch{{
			other(timed(7, 1, 0, 300, 350)), timed(1, 1, 0, 100, 150), other(untimed(8, 1, 50)), other(timed(9, 7, 0, 1, 2)),
		}}, windows: [][2]uint64{{90, 200}, {290, 400}}},
		{name: "several batches", batches: [][]stream.Launch{many(3), {timed(4, 2, 0, 400, 450)}, {}, many(2)}, windows: [][2]uint64{{90, 160}, {390, 460}}},
		{name: "store full within a batch", opt: attribution.Options{MaxLaunchesHeld: 1024},
			batches: [][]stream.Launch{many(3000)}, windows: [][2]uint64{{90, 160}, {200_000, 200_100}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got [2][]string
			var tot [2]attribution.Totals
			for i, batched := range []bool{false, true} {
				a := attribution.New(1, nil, 1)
				a.SetOptions(tc.opt)
				a.KernelCreated(1, baseA, 0x100, 0)
				a.KernelCreated(2, baseB, 0x100, 0)
				a.KernelCreated(attribution.CodeID(1, 1), baseC, 0x100, 0)
				for _, b := range tc.batches {
					if batched {
						a.Launches(1, b)
					} else {
						perLaunch(a, 1, b)
					}
				}
				var recs []*pb.Record
				for _, w := range tc.windows {
					a.AddWindow(w[0], w[1], []attribution.Sample{smp(baseA+0x10, 1), smp(baseB+0x20, 2), smp(baseC+0x10, 3)})
					recs = append(recs, a.Resolve(never, false)...)
				}
				recs = append(recs, a.Resolve(never, true)...)
				got[i], tot[i] = flatten(t, recs), a.Totals()
			}
			if !slices.Equal(got[0], got[1]) {
				t.Errorf("rows per launch:\n%q\nbatched:\n%q", got[0], got[1])
			}
			if !reflect.DeepEqual(tot[0], tot[1]) {
				t.Errorf("totals per launch %+v\nbatched %+v", tot[0], tot[1])
			}
			if tot[1].LaunchesTimed == 0 || len(got[1]) == 0 {
				t.Errorf("nothing fed: %+v, rows %q", tot[1], got[1])
			}
		})
	}
}

// TestLaunchesRandom plays the random scenarios with their timed
// launches given one call each and in batches, uncapped and with caps
// far below what they hold (the store fills and is pruned within
// batches): the records and totals are the same.
func TestLaunchesRandom(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		sc := newScenario(seed, 300)
		for _, limit := range []int{0, 1, 3, 10} {
			var recs [2][]string
			var tot [2]attribution.Totals
			for i, batched := range []bool{false, true} {
				a := attribution.New(1, nil, 3)
				a.SetOptions(attribution.Options{SlackNs: sc.slack, KernelFlushNs: 1000, MaxLaunchesHeld: limit})
				stall, _ := sc.playFed(a, 1, batched)
				recs[i], tot[i] = flatten(t, stall), a.Totals()
			}
			what := fmt.Sprintf("seed %d cap %d", seed, limit)
			if !slices.Equal(recs[0], recs[1]) {
				t.Fatalf("%s: rows differ:\nper launch %q\nbatched %q", what, recs[0], recs[1])
			}
			if !reflect.DeepEqual(tot[0], tot[1]) {
				t.Fatalf("%s: totals per launch %+v\nbatched %+v", what, tot[0], tot[1])
			}
		}
	}
}

// TestLaunchForgottenKernel: a timed launch that finds the store full
// and whose kernel the prune that makes room forgets (destroyed before
// every window still to come) is not held: chained to a kernel no
// longer known, it was never freed.
func TestLaunchForgottenKernel(t *testing.T) {
	for _, batched := range []bool{false, true} {
		t.Run(fmt.Sprint("batched=", batched), func(t *testing.T) {
			a := attribution.New(1, nil, 1)
			a.SetOptions(attribution.Options{MaxLaunchesHeld: 1024})
			a.KernelCreated(1, baseA, 0x100, 0)
			a.KernelCreated(2, baseB, 0x100, 0)
			a.KernelDestroyed(1, 100)
			ls := many2(1024, 2) // fills the store
			// A late launch of the destroyed kernel, after a read that
			// moved the horizon past its destroy (and every launch held).
			late := stream.Launch{Id: 5000, KernelId: 1, DeviceId: 1, DeviceStartNs: 50, DeviceEndNs: 90}
			if batched {
				a.Launches(1, ls)
				a.NoSamplesUntil(1_000_000)
				a.Launches(1, []stream.Launch{late})
			} else {
				perLaunch(a, 1, ls)
				a.NoSamplesUntil(1_000_000)
				perLaunch(a, 1, []stream.Launch{late})
			}
			if tot := a.Totals(); tot.LaunchesHeld != 0 || tot.KernelsHeld != 1 || tot.LaunchesTimed != 1025 {
				t.Errorf("%d launches and %d kernels held after %d launches, want 0 and 1", tot.LaunchesHeld, tot.KernelsHeld, tot.LaunchesTimed)
			}
		})
	}
}

// many2 is n launches of kernel k, 10 ns apart, all ended by 100 n.
func many2(n int, k uint64) []stream.Launch {
	var ls []stream.Launch
	for i := range n {
		ls = append(ls, stream.Launch{Id: uint64(i + 1), KernelId: k, DeviceId: 1, DeviceStartNs: uint64(10 * i), DeviceEndNs: uint64(10*i + 5)})
	}
	return ls
}

// TestLaunchesAllocs: a batch allocates nothing once the store has grown.
func TestLaunchesAllocs(t *testing.T) {
	a := attribution.New(1, nil, 1)
	a.SetOptions(attribution.Options{MaxLaunchesHeld: 4096})
	a.KernelCreated(1, baseA, 0x100, 0)
	a.KernelCreated(2, baseB, 0x100, 0)
	ls := make([]stream.Launch, 1024)
	id := uint64(0)
	next := func() {
		for i := range ls {
			id++
			ls[i] = stream.Launch{Id: id, KernelId: 1 + id%2, DeviceId: 1, DeviceStartNs: 100 * id, DeviceEndNs: 100*id + 50}
			if id%7 == 0 {
				ls[i].Flags = untimedFlag
			}
		}
		a.Launches(1, ls)
	}
	for range 5 {
		next() // grown to the cap, then past it
	}
	if n := testing.AllocsPerRun(20, next); n != 0 {
		t.Errorf("%v allocations per batch past the cap", n)
	}
}

// BenchmarkLaunches compares a batch of LaunchBatch (1024) launch records
// of one kernel given to Launches with the same launches given one call
// each (ns/op is per batch; the store prunes as the windows move on).
func BenchmarkLaunches(b *testing.B) {
	for _, batched := range []bool{false, true} {
		b.Run(fmt.Sprint("batched=", batched), func(b *testing.B) {
			a := attribution.New(1, nil, 1)
			a.KernelCreated(1, baseA, 0x100, 0)
			ls := make([]stream.Launch, 1024)
			for i := range ls {
				ls[i] = stream.Launch{KernelId: 1, DeviceId: 1}
			}
			id := uint64(0)
			for b.Loop() {
				for i := range ls {
					id++
					l := &ls[i]
					l.Id, l.DeviceStartNs, l.DeviceEndNs = id, 100*id, 100*id+50
				}
				if batched {
					a.Launches(1, ls)
				} else {
					perLaunch(a, 1, ls)
				}
				a.NoSamplesUntil(100 * id)
			}
		})
	}
}
