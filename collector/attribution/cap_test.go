package attribution_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zestall/zestall/collector/attribution"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestAttributorLaunchCap: past MaxLaunchesHeld a timed launch is not
// held; the windows it could overlap fall to kernel level (counted), the
// windows of launches held are decided as before, and every sample is
// still given to its kernel.
func TestAttributorLaunchCap(t *testing.T) {
	const limit = 1024 // the store's first size: no growth on the way
	tests := []struct {
		name         string
		start, end   uint64 // the window
		want         string // its row, flattened
		wantDegraded uint64
	}{
		{"held launch", 10_000, 10_050, "L k1 l100 w10000-10050 +0x10 [1 2]", 0},
		{"two held launches", 10_000, 10_150, "S k1 [100 101] w10000-10150 +0x10 [1 2]", 0},
		{"a launch not held", 200_000, 200_050, "K k1 w0-0 +0x10 [1 2]", 1},
		{"held and not held", 103_000, 103_500, "K k1 w0-0 +0x10 [1 2]", 1},
		{"after every launch", 9_000_000, 9_000_050, "K k1 w0-0 +0x10 [1 2]", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := attribution.New(1, nil, 2)
			a.SetOptions(attribution.Options{MaxLaunchesHeld: limit})
			a.KernelCreated(1, baseA, 0x100, 0)
			// Launch i runs [100 i, 100 i + 50]: launches 1..1024 are
			// held, 1025..4000 (102500 to 400050) are not.
			const n = 4000
			for i := uint64(1); i <= n; i++ {
				a.LaunchTimed(i, 1, 100*i, 100*i+50)
			}
			tot := a.Totals()
			if tot.LaunchesHeld != limit || tot.LaunchesNotHeld != n-limit {
				t.Fatalf("held %d, not held %d; want %d and %d", tot.LaunchesHeld, tot.LaunchesNotHeld, limit, n-limit)
			}
			a.AddWindow(tc.start, tc.end, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			recs := a.Resolve(never, true)
			if got := flatten(t, recs); !slices.Equal(got, []string{tc.want}) {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
			tot = a.Totals()
			if tot.DegradedRows != tc.wantDegraded {
				t.Errorf("%d rows degraded, want %d", tot.DegradedRows, tc.wantDegraded)
			}
			checkTotals(t, tot, recs)
			var c pb.Counters
			tot.AddTo(&c)
			if c.StallLaunchesNotHeld != n-limit || c.StallRowsDegraded != tc.wantDegraded {
				t.Errorf("counters: %d launches not held, %d rows degraded", c.StallLaunchesNotHeld, c.StallRowsDegraded)
			}
		})
	}
}

// TestAttributorLaunchCapRecovers: once reads pass the launches not held,
// their span is forgotten and launches are held and decided again.
func TestAttributorLaunchCapRecovers(t *testing.T) {
	a := attribution.New(1, nil, 1)
	a.SetOptions(attribution.Options{MaxLaunchesHeld: 1024, SlackNs: 100})
	a.KernelCreated(1, baseA, 0x100, 0)
	id := uint64(0)
	for ; id < 3000; id++ {
		a.LaunchTimed(id+1, 1, 100*id, 100*id+50)
	}
	// A read that found nothing after every launch so far: all may go.
	a.NoSamplesUntil(1_000_000)
	a.Resolve(never, false)
	a.LaunchTimed(5000, 1, 2_000_000, 2_000_050)
	a.AddWindow(1_000_000, 2_000_100, []attribution.Sample{smp(baseA, 3)})
	if got, want := flatten(t, a.Resolve(never, true)), "L k1 l5000 w1000000-2000100 +0x0 [3]"; !slices.Equal(got, []string{want}) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if tot := a.Totals(); tot.LaunchesNotHeld != 3000-1024 || tot.DegradedRows != 0 || tot.LaunchesHeld > 1 {
		t.Errorf("totals: %d not held, %d degraded, %d held", tot.LaunchesNotHeld, tot.DegradedRows, tot.LaunchesHeld)
	}
}

// TestAttributorLaunchCapRandom plays the random scenarios with caps far
// below what they hold: rows decided per launch are exactly the uncapped
// ones (never a wrong launch), the others are kernel rows, every sample
// keeps its kernel and offset, and the degradation is counted.
func TestAttributorLaunchCapRandom(t *testing.T) {
	var notHeld, degraded uint64
	for seed := uint64(1); seed <= 20; seed++ {
		sc := newScenario(seed, 300)
		want := sc.expect(t)
		u := attribution.New(1, nil, 3)
		u.SetOptions(attribution.Options{SlackNs: sc.slack, KernelFlushNs: 1000})
		sc.play(u, 1)
		base := u.Totals()
		for _, limit := range []int{1, 3, 10} {
			a := attribution.New(1, nil, 3)
			a.SetOptions(attribution.Options{SlackNs: sc.slack, KernelFlushNs: 1000, MaxLaunchesHeld: limit})
			recs, _ := sc.play(a, 1)
			got := flatten(t, recs)
			what := fmt.Sprintf("seed %d cap %d", seed, limit)
			for _, g := range got {
				if g[0] != 'K' {
					if _, ok := slices.BinarySearch(want, g); !ok {
						t.Fatalf("%s: row %q is not the uncapped run's", what, g)
					}
				}
			}
			if g, w := perOffset(t, got), perOffset(t, want); !slices.Equal(g, w) {
				diffLines(t, what+": sums per kernel offset", g, w)
			}
			tot := a.Totals()
			checkTotals(t, tot, recs)
			sc.checkInputSums(t, what, tot)
			if tot.DegradedRows > tot.KernelRows {
				t.Fatalf("%s: %d rows degraded of %d kernel rows", what, tot.DegradedRows, tot.KernelRows)
			}
			// Rows at kernel level beyond the uncapped run's are counted.
			if tot.KernelRows > base.KernelRows+tot.DegradedRows {
				t.Fatalf("%s: %d kernel rows, uncapped %d, %d counted degraded", what, tot.KernelRows, base.KernelRows, tot.DegradedRows)
			}
			notHeld += tot.LaunchesNotHeld
			degraded += tot.DegradedRows
			if tot.LaunchesHeld > uint64(max(limit, 1024)) {
				t.Fatalf("%s: %d launches held", what, tot.LaunchesHeld)
			}
		}
	}
	t.Logf("%d launches not held, %d rows degraded", notHeld, degraded)
	if notHeld == 0 || degraded == 0 {
		t.Errorf("the caps degraded nothing (%d launches not held, %d rows): the test tests nothing", notHeld, degraded)
	}
}

// perOffset sums flattened rows per (kernel, offset), whatever their
// attribution and window: what a cap must keep.
func perOffset(t *testing.T, lines []string) []string {
	t.Helper()
	sums := map[string][]uint64{}
	for _, l := range lines {
		if l[0] == 'U' {
			sums[l] = nil
			continue
		}
		f := strings.Fields(l)
		// "X kN ... +off [a b c]": the kernel is field 1, the offset the
		// field starting with '+', the counters the bracketed tail.
		var off string
		for _, x := range f {
			if strings.HasPrefix(x, "+") {
				off = x
			}
		}
		key := f[1] + " " + off
		var cs []uint64
		tail := l[strings.LastIndex(l, "[")+1 : len(l)-1]
		for _, x := range strings.Fields(tail) {
			var v uint64
			fmt.Sscan(x, &v)
			cs = append(cs, v)
		}
		if s := sums[key]; s != nil {
			for j := range cs {
				s[j] += cs[j]
			}
		} else {
			sums[key] = cs
		}
	}
	var out []string
	for k, v := range sums {
		out = append(out, fmt.Sprintf("%s %v", k, v))
	}
	slices.Sort(out)
	return out
}

// TestLaunchTimedAllocs: holding a launch allocates nothing once the store
// has grown (no heap object per launch).
func TestLaunchTimedAllocs(t *testing.T) {
	a := attribution.New(1, nil, 1)
	a.SetOptions(attribution.Options{MaxLaunchesHeld: 4096})
	a.KernelCreated(1, baseA, 0x100, 0)
	id := uint64(0)
	next := func() {
		id++
		a.LaunchTimed(id, 1, 100*id, 100*id+50)
	}
	for range 5000 {
		next() // grown to the cap, then past it
	}
	if n := testing.AllocsPerRun(1000, next); n != 0 {
		t.Errorf("%v allocations per launch past the cap", n)
	}
	a.NoSamplesUntil(never - 1)
	a.Resolve(never, false) // everything may go
	if n := testing.AllocsPerRun(1000, next); n != 0 {
		t.Errorf("%v allocations per launch held", n)
	}
}
