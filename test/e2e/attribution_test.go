package e2e

import (
	"cmp"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/zestall/zestall/collector/config"

	"github.com/zestall/zestall/proto/pbstream"
	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/test/groundtruth"
)

// TestLaunchAttribution (issue 4): per-launch attribution of EU stall
// samples measured against the device's ground truth, per launch pattern,
// on a device whose reads see every sample at once (the simulator's
// default) and on one that, like the xe kernel driver, shows a sample only
// after its next 5 ms write-pointer poll (ZESIM_EUSS_POLL_NS).
//
//   - Totals and kernel/offset attribution are exact in every case
//     (checkStalls).
//   - No sample is attributed to a launch it did not come from: per launch
//     and offset, LAUNCH rows never hold more than the launch produced, and
//     every sample of kernel K taken inside the window of a LAUNCH or SHARED
//     row of K came from a launch the row names.
//   - Where launches of one kernel leave the device idle for longer than
//     the visibility latency bound (ZESTALL_STALL_LATENCY, 20 ms) plus the
//     reader's reaction time, every sample is LAUNCH-attributed to its true
//     launch (per launch and offset, exactly the device's counts), also
//     while other kernels run concurrently on other engines.
//   - Overlapping launches of one kernel give SHARED rows.
//   - Back-to-back launches of one kernel (the next follows the host wait at
//     once) cannot be told apart without stalling the application: the
//     fraction reached is logged (README "Known limits").
//   - With a latency bound below the device's real latency, late samples
//     are misattributed, and the checks above catch it; those read after
//     their kernel was destroyed are Unattributed (counted, never lost:
//     stallsLate).
func TestLaunchAttribution(t *testing.T) {
	tr := buildTree(t)
	// 1.65 ms kernels sampled every 10 us; 100 ms host gaps (the 20 ms latency bound plus ample time for the reader).
	base := map[string]string{"ZET_ENABLE_METRICS": "1", "ZESTALL_SAMPLING_PERIOD_NS": "10000",
		"ZESIM_KERNEL_COST": "*=400000/50000"}
	const gap = "100000"
	instant := map[string]string{}
	polled := map[string]string{"ZESIM_EUSS_POLL_NS": "5000000"}
	long := map[string]string{"ZESIM_EUSS_POLL_NS": "5000000", "ZESIM_KERNEL_COST": "*=24000000/50000",
		"ZESTALL_SAMPLING_PERIOD_NS": "100000"}
	tooSmall := map[string]string{"ZESIM_EUSS_POLL_NS": "5000000", "ZESTALL_STALL_LATENCY": "0"}
	const maxAttempts = 3
	type want int
	const (
		measure   want = iota // log the fraction, no misattribution
		allLaunch             // every sample LAUNCH-attributed to its launch
		shared                // SHARED rows, no misattribution
		wrong                 // misattribution must be detected
	)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want want
	}{
		{"instant: back to back", instant, []string{"seq", "20"}, measure},
		{"instant: host gap", instant, []string{"seq", "10", gap}, allLaunch},
		{"instant: concurrent kernels, host gap", instant, []string{"concurrent", "10", gap}, allLaunch},
		{"instant: concurrent kernels, back to back", instant, []string{"concurrent", "20"}, measure},
		{"instant: overlapping launches", instant, []string{"overlap", "10", gap}, shared},
		{"polled: back to back", polled, []string{"seq", "20"}, measure},
		{"polled: back to back, 100 ms kernels", long, []string{"seq", "5"}, measure},
		{"polled: host gap", polled, []string{"seq", "10", gap}, allLaunch},
		{"polled: concurrent kernels, host gap", polled, []string{"concurrent", "10", gap}, allLaunch},
		{"polled: overlapping launches", polled, []string{"overlap", "10", gap}, shared},
		{"polled, latency bound 0: 3 ms gaps", tooSmall, []string{"seq", "20", "3000"}, wrong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := maps.Clone(base)
			maps.Copy(env, tt.env)
			latency := uint64(config.DefaultStallLatency)
			if v, ok := env["ZESTALL_STALL_LATENCY"]; ok {
				d, err := time.ParseDuration(v + map[bool]string{true: "s"}[v == "0"])
				if err != nil {
					t.Fatal(err)
				}
				latency = uint64(d)
			}
			var m attribution
			for attempt := 1; ; attempt++ {
				recs, truth := tr.runTruth(t, env, "zestall-attrib", tt.args...)
				expect := stallsExact
				if tt.want == wrong {
					expect = stallsLate
				}
				checkStalls(t, recs, truth, expect)
				m = measureAttribution(t, recs, truth, latency, tt.want == wrong)
				t.Logf("%s: LAUNCH %.2f%% (to the true launch %.2f%%), SHARED %.2f%%, KERNEL %.2f%% of %d sample counts; %d launches",
					tt.name, m.pct(m.launch), m.pct(m.exact), m.pct(m.shared), m.pct(m.kernel), m.total, m.launches)
				// Separating launches needs the reader to run inside each
				// gap. On an overloaded machine it may not (seen: no read
				// for ~100 ms at load average 11 on 2 vCPUs); then rows
				// are SHARED, never wrong (checked above), and the run is
				// tried again.
				// Likewise a misattribution needs launches the harvester
				// has timed before their late samples are read: on an
				// overloaded machine (seen under the race detector beside
				// other builds) every row of the latency-0 case was SHARED,
				// never wrong; tried again too.
				retry := (tt.want == allLaunch && m.exact != m.total) || (tt.want == wrong && m.wrong == 0)
				if !retry || attempt == maxAttempts || t.Failed() {
					break
				}
				t.Logf("attempt %d: the reader or harvester did not run inside every gap; again", attempt)
			}
			switch tt.want {
			case allLaunch:
				if m.exact != m.total && m.exact+m.starved == m.total {
					t.Skipf("the reader did not get to run in time: in the last of %d runs (all short of 100 %%) it completed no read between some launch's end + %v and the next launch (%s us later), silent for up to %v; those launches could only be SHARED (never wrong: checked). Seen on this 2-vCPU machine at load average 9-11",
						maxAttempts, time.Duration(latency), gap, m.silence)
				}
				if m.exact != m.total {
					t.Errorf("%d of %d sample counts LAUNCH-attributed to their true launch in each of %d runs; want all", m.exact, m.total, maxAttempts)
				}
			case shared:
				if m.shared == 0 {
					t.Errorf("overlapping launches of one kernel: no SHARED rows")
				}
			case wrong:
				if m.wrong == 0 {
					t.Errorf("no misattribution detected with a latency bound below the device's: the checks prove nothing")
				}
			}
		})
	}
}

type attribution struct {
	total, launch, exact, shared, kernel uint64 // sample counts (summed counters)
	wrong                                uint64 // LAUNCH-attributed to another launch, plus rows naming the wrong launches
	// SHARED between launches that did not overlap, in windows spanning
	// the whole stretch from one's end + latency to the next one's start:
	// the reader completed no read there. silence: the longest such window.
	starved  uint64
	silence  time.Duration
	launches int
}

func (m attribution) pct(v uint64) float64 {
	if m.total == 0 {
		return 0
	}
	return 100 * float64(v) / float64(m.total)
}

// measureAttribution compares LAUNCH and SHARED rows with the truth and
// returns how much was attributed at each level and how much wrongly. Unless
// tolerate, it fails the test on any sample attributed to a launch it did
// not come from.
func measureAttribution(t *testing.T, recs []*pb.Record, truth *groundtruth.Truth, latency uint64, tolerate bool) attribution {
	report := t.Errorf
	if tolerate {
		report = t.Logf
	}
	t.Helper()
	kernelBase := map[uint64]uint64{} // zestall kernel id -> base
	ours := map[uint64]*pb.Launch{}
	for _, r := range recs {
		if k := r.GetKernel(); k != nil {
			kernelBase[k.Id] = k.BaseAddress
		}
		if l := r.GetLaunch(); l != nil {
			ours[l.Id] = l
		}
	}
	// zestall launch -> device launch: same code, start within 100 ns.
	toTruth := map[uint64]uint64{}
	for id, l := range ours {
		for _, g := range truth.Launches {
			if g.Base == kernelBase[l.KernelId] && absDiff(g.StartNs, l.DeviceStartNs) <= 100 {
				if _, dup := toTruth[id]; dup {
					t.Fatalf("zestall launch %d matches several device launches", id)
				}
				toTruth[id] = g.Launch
			}
		}
	}
	truthLaunch := map[uint64]groundtruth.Launch{}
	for _, g := range truth.Launches {
		truthLaunch[g.Launch] = g
	}
	truthBase := map[uint64]uint64{} // device kernel -> base
	for _, k := range truth.Kernels {
		truthBase[k.Kernel] = k.Base
	}
	type lo struct{ launch, off uint64 }
	want := map[lo]uint64{}
	byBase := map[uint64][]groundtruth.Sample{}
	var m attribution
	for _, s := range truth.Samples {
		if s.Dropped || s.Undelivered {
			continue
		}
		var sum uint64
		for _, c := range s.Counters {
			sum += c
		}
		want[lo{s.Launch, s.Offset}] += sum
		m.total += sum
		byBase[truthBase[s.Kernel]] = append(byBase[truthBase[s.Kernel]], s)
	}
	m.launches = len(truth.Launches)
	got := map[lo]uint64{}
	bad := 0
	for _, r := range recs {
		s := r.GetStallRows()
		if s == nil {
			continue
		}
		n := len(s.OffsetDeltas)
		var sum uint64
		off := uint64(0)
		offs := make([]uint64, n)
		sums := make([]uint64, n)
		for i, d := range s.OffsetDeltas {
			off += d
			offs[i] = off
			for j := 0; j < int(s.ColumnCount); j++ {
				sums[i] += s.Counters[j*n+i]
			}
			sum += sums[i]
		}
		var names []uint64 // device launches the row names
		switch s.Attribution {
		case pb.StallAttribution_STALL_ATTRIBUTION_KERNEL:
			m.kernel += sum
			continue
		case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH:
			m.launch += sum
			g, ok := toTruth[s.LaunchId]
			if !ok {
				t.Errorf("LAUNCH row names launch %d, which matches no device launch", s.LaunchId)
				continue
			}
			names = []uint64{g}
			for i := range offs {
				got[lo{g, offs[i]}] += sums[i]
			}
		default: // SHARED, or SHARED_RANGES (its candidates as ranges of ids)
			m.shared += sum
			cl := slices.Collect(pbstream.CandidateLaunches(s))
			if len(cl) < 2 {
				t.Errorf("%s row with candidates %v %v", s.Attribution, s.CandidateLaunchIds, s.CandidateLaunchIdRanges)
			}
			for _, id := range cl {
				names = append(names, toTruth[id])
			}
			// Launches that did not overlap are shared only when no read
			// completed between the first's end + latency and the
			// second's start: the window spans that whole stretch.
			cands := make([]groundtruth.Launch, 0, len(names))
			for _, g := range names {
				cands = append(cands, truthLaunch[g])
			}
			slices.SortFunc(cands, func(x, y groundtruth.Launch) int { return cmp.Compare(x.StartNs, y.StartNs) })
			starved := true
			for i := 0; i+1 < len(cands); i++ {
				a, b := cands[i], cands[i+1]
				if a.EndNs > b.StartNs || s.WindowStartHostNs >= a.EndNs+latency || s.WindowEndHostNs < b.StartNs {
					starved = false
				}
			}
			if starved {
				m.starved += sum
				m.silence = max(m.silence, time.Duration(s.WindowEndHostNs-s.WindowStartHostNs))
			}
		}
		// Every device sample of this kernel taken inside the window came
		// from a launch the row names.
		for _, ts := range byBase[kernelBase[s.KernelId]] {
			if ts.TimeNs > s.WindowStartHostNs && ts.TimeNs <= s.WindowEndHostNs && !slices.Contains(names, ts.Launch) {
				m.wrong++
				if bad++; bad <= 5 {
					report("%v row (window %d..%d ns) names device launches %v, but the device took a sample of launch %d in it at %d ns",
						s.Attribution, s.WindowStartHostNs, s.WindowEndHostNs, names, ts.Launch, ts.TimeNs)
				}
				break
			}
		}
	}
	for k, g := range got {
		if g > want[k] {
			m.wrong += g - want[k]
			if bad++; bad <= 10 {
				report("device launch %d offset %#x: %d sample counts LAUNCH-attributed, the launch produced %d", k.launch, k.off, g, want[k])
			}
		}
		m.exact += min(g, want[k])
	}
	return m
}

// TestAttributionCap (issue 14): stall attribution holds at most 65536
// timed launches per device (collector/attribution, "Memory"). With the
// latency bound at its maximum (1 s) every launch of a 1 s stretch could
// still receive samples, so 100000 back-to-back launches of one kernel
// overflow the cap: launches past it are counted not held, the rows they
// could belong to stay at kernel level (counted), and nothing is
// misattributed or lost: totals and kernel/offset attribution are exact
// against the device's ground truth, and per launch and
// offset no LAUNCH row holds more than the device's launch produced
// (back-to-back launches mostly give SHARED rows; measureAttribution's
// checks are quadratic in launches, too slow here). Samples every 1 ms
// keep the ground truth small.
func TestAttributionCap(t *testing.T) {
	tr := buildTree(t)
	const n = 100_000
	truthPath := filepath.Join(t.TempDir(), "truth.jsonl")
	r := runBenchLaunch(t, tr, n, 1, "imm", truthPath, map[string]string{"ZESIM_TIME_SCALE": "1",
		"ZET_ENABLE_METRICS": "1", "ZESTALL_STALL_LATENCY": "1s", "ZESTALL_SAMPLING_PERIOD_NS": "1000000"})
	truth, err := groundtruth.Read(truthPath)
	if err != nil {
		t.Fatal(err)
	}
	c := r.counters
	if c == nil || !c.Final || c.LaunchesSeen != n || c.LaunchesTimed != n || len(c.Lost) != 0 {
		t.Fatalf("counters %v: want every launch seen and timed, nothing lost", c)
	}
	t.Logf("%d launches not held, %d of %d attributed rows degraded, %d unattributed", c.StallLaunchesNotHeld, c.StallRowsDegraded, c.StallRowsAttributed, c.StallRowsUnattributed)
	if c.StallLaunchesNotHeld == 0 || c.StallRowsDegraded == 0 {
		t.Errorf("the cap was not reached (%d launches not held, %d rows degraded): the test tests nothing", c.StallLaunchesNotHeld, c.StallRowsDegraded)
	}
	if c.StallRowsDegraded > c.StallRowsAttributed {
		t.Errorf("%d rows degraded of %d attributed", c.StallRowsDegraded, c.StallRowsAttributed)
	}
	// Totals and kernel/offset attribution exact (checkStalls' first
	// part; its per-launch part is quadratic in launches).
	truthBase := map[uint64]uint64{}
	for _, k := range truth.Kernels {
		truthBase[k.Kernel] = k.Base
	}
	type bo struct{ base, off uint64 }
	wantBO, gotBO := map[bo]uint64{}, map[bo]uint64{}
	for _, s := range truth.Samples {
		if s.Dropped || s.Undelivered {
			continue
		}
		for _, v := range s.Counters {
			wantBO[bo{truthBase[s.Kernel], s.Offset}] += v
		}
	}
	if len(wantBO) == 0 {
		t.Fatal("the device produced no samples: the test proves nothing")
	}
	bases := map[uint64]uint64{}
	for _, rec := range r.recs {
		if k := rec.GetKernel(); k != nil {
			bases[k.Id] = k.BaseAddress
		}
		if s := rec.GetStallRows(); s != nil {
			offs, sums := rowSums(t, s)
			for i, off := range offs {
				gotBO[bo{bases[s.KernelId], off}] += sums[i]
			}
		}
		if u := rec.GetUnattributed(); u != nil {
			t.Errorf("unattributed samples: %v", u)
		}
	}
	if !maps.Equal(gotBO, wantBO) {
		t.Errorf("samples per kernel and offset: zestall %v, device %v", gotBO, wantBO)
	}

	// zestall launch -> device launch: same code, start within 100 ns.
	byBase := map[uint64][]groundtruth.Launch{}
	for _, g := range truth.Launches {
		byBase[g.Base] = append(byBase[g.Base], g)
	}
	for _, ls := range byBase {
		slices.SortFunc(ls, func(x, y groundtruth.Launch) int { return cmp.Compare(x.StartNs, y.StartNs) })
	}
	kernelBase := map[uint64]uint64{}
	toTruth := map[uint64]uint64{}
	for _, rec := range r.recs {
		if k := rec.GetKernel(); k != nil {
			kernelBase[k.Id] = k.BaseAddress
		}
		if l := rec.GetLaunch(); l != nil {
			ls := byBase[kernelBase[l.KernelId]]
			i, _ := slices.BinarySearchFunc(ls, max(l.DeviceStartNs, 100)-100, func(g groundtruth.Launch, t uint64) int { return cmp.Compare(g.StartNs, t) })
			if i < len(ls) && absDiff(ls[i].StartNs, l.DeviceStartNs) <= 100 {
				toTruth[l.Id] = ls[i].Launch
			}
		}
	}
	type lo struct{ launch, off uint64 }
	want := map[lo]uint64{}
	for _, s := range truth.Samples {
		if s.Dropped || s.Undelivered {
			continue
		}
		for _, v := range s.Counters {
			want[lo{s.Launch, s.Offset}] += v
		}
	}
	got := map[lo]uint64{}
	var launchRows, sharedRows, kernelRows int
	for _, rec := range r.recs {
		s := rec.GetStallRows()
		if s == nil {
			continue
		}
		switch s.Attribution {
		case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH:
			launchRows++
			g, ok := toTruth[s.LaunchId]
			if !ok {
				t.Fatalf("LAUNCH row names launch %d, which matches no device launch", s.LaunchId)
			}
			offs, sums := rowSums(t, s)
			for i, off := range offs {
				got[lo{g, off}] += sums[i]
			}
		case pb.StallAttribution_STALL_ATTRIBUTION_SHARED, pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES:
			sharedRows++
		default:
			kernelRows++
		}
	}
	for k, v := range got {
		if v > want[k] {
			t.Errorf("launch %d offset %#x: %d samples attributed, the device's launch produced %d", k.launch, k.off, v, want[k])
		}
	}
	t.Logf("records: %d LAUNCH, %d SHARED, %d KERNEL", launchRows, sharedRows, kernelRows)
}
