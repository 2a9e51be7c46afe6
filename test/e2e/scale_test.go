package e2e

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zestall/zestall/collector/timing"
	"github.com/zestall/zestall/proto/pbconv"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// scaleRun is one run of zestall-bench-launch under zestall.
type scaleRun struct {
	recs     []*pb.Record
	counters *pb.Counters
	maxRSSKB int64
	cpuNs    int64 // user + system CPU of the whole process
	wallNs   int64 // the application's launch phase (first thread start to last join)
	stderr   string
	stdout   string // the application's JSON line
}

// runBenchLaunch runs zestall-bench-launch with perThread launches on each
// of threads threads (imm or regular lists) at full rate, kernels taking no
// device time (ZESIM_TIME_SCALE=0), zestall preloaded with timing and stall
// sampling; truth, when not "", receives the device's ground truth.
// more: further arguments of zestall-bench-launch (rate, waves).
func runBenchLaunch(t *testing.T, tr tree, perThread, threads int, mode, truth string, extra map[string]string, more ...string) scaleRun {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "out.zst")
	env := map[string]string{"ZESTALL_OUTPUT": out, "ZESIM_TIME_SCALE": "0", "ZESTALL_QUIET": "1"}
	maps.Copy(env, extra)
	if truth != "" {
		env["ZESIM_GROUND_TRUTH"] = truth
	}
	ctx, cancel := context.WithTimeout(context.Background(), appTimeout)
	defer cancel()
	// Through zestall-bench-rusage: the child's ru_maxrss from this test's
	// own wait4 would include this (large) test process's image.
	usage := filepath.Join(dir, "rusage")
	args := append([]string{usage, filepath.Join(tr.build, "bin", "zestall-bench-launch"),
		strconv.Itoa(perThread), strconv.Itoa(threads), mode}, more...)
	cmd := tr.command(ctx, dir, true, env, "zestall-bench-rusage", args...)
	var se, so strings.Builder
	cmd.Stderr, cmd.Stdout = &se, &so
	if err := cmd.Run(); err != nil {
		t.Fatalf("zestall-bench-launch %d %d %s: %v\nstderr:\n%s", perThread, threads, mode, err, se.String())
	}
	r := scaleRun{recs: readRecords(t, out), stderr: se.String(), stdout: so.String()}
	if b, err := os.ReadFile(usage); err != nil {
		t.Fatal(err)
	} else if f := strings.Fields(string(b)); len(f) < 1 {
		t.Fatalf("%s: %q", usage, b)
	} else if r.maxRSSKB, err = strconv.ParseInt(f[0], 10, 64); err != nil {
		t.Fatalf("%s: %v", usage, err)
	} else if len(f) >= 3 {
		u, _ := strconv.ParseInt(f[1], 10, 64)
		sy, _ := strconv.ParseInt(f[2], 10, 64)
		r.cpuNs = (u + sy) * 1000
	}
	if _, rest, ok := strings.Cut(so.String(), `"total_wall_ns":`); ok {
		r.wallNs, _ = strconv.ParseInt(strings.TrimRight(strings.TrimSpace(rest), "}"), 10, 64)
	}
	for _, rec := range r.recs {
		if c := rec.GetCounters(); c != nil {
			r.counters = c
		}
	}
	if r.counters == nil || !r.counters.Final {
		t.Fatalf("no final counters in the output\nstderr:\n%s", r.stderr)
	}
	return r
}

// lostLaunches is what the final counters give as launches lost before
// the harvester: passed untouched on a full ring.
func lostLaunches(c *pb.Counters) (launches, otherSlots uint64) {
	for _, l := range c.Lost {
		switch l.What {
		case timing.LossLaunchesRingFull:
			launches += l.Count
		case timing.LossSlotsRingFull:
			otherSlots += l.Count
		}
	}
	return launches, otherSlots
}

// TestLaunchRate (issue 14): 10^6 launches on 4 threads at full rate,
// immediate and regular lists. With the default ZESTALL_RING_FULL=wait
// nothing is lost, whatever the machine: every launch the application made
// is seen and timed. With =drop, a launch that finds its ring full passes
// untouched; every launch made is then in exactly one counter (seen, or
// lost for a named reason), and the exit line names the loss even with
// ZESTALL_QUIET=1 (whether a machine keeps up without waiting is what
// scripts/bench measures). In both, every launch record appears once and
// every timed record has the device's own times (the ground truth, matched
// by kernel and start). The "slow reads" cases make each of the
// harvester's event queries cost 1 µs of CPU (ZESIM_EVENT_READ_NS: event
// memory in the device, read across PCIe, as on the Data Center GPU Max;
// test/sim/README.md): with host reads (ZESTALL_TIMESTAMP_READS=host) the
// harvester is then the loop's limit, and still nothing is lost; by
// default immediate lists' times are copied on the device, and the
// harvester makes one query per batch. The "device-bound" case gives each
// kernel 1 µs on the device, so launches complete while later ones are
// appended and only completed ones are copied.
func TestLaunchRate(t *testing.T) {
	tr := buildTree(t)
	const threads, perThread = 4, 250_000
	for _, tc := range []struct {
		mode, ringFull, readNS, reads string
		deviceBound                   bool
	}{
		{"imm", "wait", "", "", false}, {"regular", "wait", "", "", false},
		{"imm", "drop", "", "", false}, {"regular", "drop", "", "", false},
		{"imm", "wait", "", "host", false},
		{"imm", "wait", "1000", "", false}, {"regular", "wait", "1000", "", false}, {"imm", "wait", "1000", "host", false},
		{"imm", "wait", "", "", true},
	} {
		mode := tc.mode
		name := mode + "/" + tc.ringFull
		if tc.readNS != "" {
			name += "/slow reads"
		}
		if tc.reads != "" {
			name += "/" + tc.reads + " reads"
		}
		if tc.deviceBound {
			name += "/device-bound"
		}
		t.Run(name, func(t *testing.T) {
			truth := filepath.Join(t.TempDir(), "truth.jsonl")
			env := map[string]string{}
			if tc.ringFull == "drop" {
				env["ZESTALL_RING_FULL"] = "drop"
			}
			if tc.readNS != "" {
				env["ZESIM_EVENT_READ_NS"] = tc.readNS
			}
			if tc.reads != "" {
				env["ZESTALL_TIMESTAMP_READS"] = tc.reads
			}
			if tc.deviceBound {
				// 1 µs per kernel on each thread's engine: the device, not
				// the host, sets the pace, and launches complete while
				// later ones are appended (copies of completed launches
				// only: docs/level-zero-loader.md §8.8).
				env["ZESIM_TIME_SCALE"], env["ZESIM_KERNEL_COST"] = "1", "*=0/1000"
			}
			r := runBenchLaunch(t, tr, perThread, threads, mode, truth, env)
			c := r.counters
			// Immediate lists' events are read by device-side copies
			// unless ZESTALL_TIMESTAMP_READS=host; regular lists' by
			// neither path (Counters, revision 10).
			byCopy, byHost := c.LaunchesTimedByCopy, c.LaunchesTimedByHostQuery
			t.Logf("%s: %d launches timed by device-side copies, %d by host queries", mode, byCopy, byHost)
			switch {
			case mode != "imm":
				if byCopy+byHost != 0 {
					t.Errorf("regular lists: %d launches timed by copies, %d by host queries; want neither", byCopy, byHost)
				}
			case tc.reads == "host":
				if byCopy != 0 || byHost != c.LaunchesTimed {
					t.Errorf("ZESTALL_TIMESTAMP_READS=host: %d of %d timed launches by host queries, %d by copies", byHost, c.LaunchesTimed, byCopy)
				}
			default:
				if byHost != 0 || byCopy != c.LaunchesTimed {
					t.Errorf("%d of %d timed launches by device-side copies, %d by host queries: want all copied", byCopy, c.LaunchesTimed, byHost)
				}
			}
			made := uint64(threads * perThread)
			lost, slots := lostLaunches(c)
			var untimed uint64
			for _, rc := range c.LaunchesWithoutTimestamp {
				untimed += rc.Count
			}
			t.Logf("%s: %d launches made, %d seen (%d timed, %d without times), %d lost (ring full), %d other slots lost; %d launches waited %d ms in all; max RSS %d MiB",
				mode, made, c.LaunchesSeen, c.LaunchesTimed, untimed, lost, slots, c.LaunchesWaited, c.LaunchWaitNs/1e6, r.maxRSSKB>>10)
			if tc.ringFull == "wait" {
				if lost != 0 || slots != 0 || c.LaunchesTimed != made {
					t.Errorf("ZESTALL_RING_FULL=wait: %d launches and %d other slots lost, %d of %d timed: nothing may be lost, every launch timed", lost, slots, c.LaunchesTimed, made)
				}
			} else if c.LaunchesWaited != 0 {
				t.Errorf("ZESTALL_RING_FULL=drop: %d launches waited", c.LaunchesWaited)
			}
			// What bounds a lossy run, said precisely: the application's
			// rate against what zestall's harvester took from the rings
			// meanwhile, and the process's CPU per launch made.
			if r.wallNs > 0 {
				secs := float64(r.wallNs) / 1e9
				t.Logf("%s: the application launched at %.0f/s (%d threads, %.2f s); zestall took %.0f/s off the rings; whole-process CPU %.0f ns per launch made. "+
					"A launch is lost only when its thread's ring is full and the rings' budget lets it grow no more: the harvester, one goroutine, did not drain it as fast as the application filled it (BENCHMARKS.md, what bounds the rate)",
					mode, float64(made)/secs, threads, secs, float64(c.LaunchesSeen)/secs, float64(r.cpuNs)/float64(made))
			}
			if c.LaunchesSeen+lost != made {
				t.Errorf("seen %d + lost %d = %d, the application made %d: every launch must be in exactly one counter",
					c.LaunchesSeen, lost, c.LaunchesSeen+lost, made)
			}
			if c.LaunchesTimed+untimed != c.LaunchesSeen {
				t.Errorf("timed %d + without times %d != seen %d", c.LaunchesTimed, untimed, c.LaunchesSeen)
			}
			if loss := timing.LossSummary(pbconv.CountersToWire(c)); loss != "" && !strings.Contains(r.stderr, "WARNING: LOST") {
				t.Errorf("%s lost (%s) but its exit line (ZESTALL_QUIET=1) does not say so:\n%s", mode, loss, r.stderr)
			}

			// Each record once, and the timed ones with the device's times.
			base := map[uint64]uint64{}
			ids := map[uint64]bool{}
			var got []span
			var records, timed uint64
			for _, rec := range r.recs {
				switch {
				case rec.GetKernel() != nil:
					base[rec.GetKernel().Id] = rec.GetKernel().BaseAddress
				case rec.GetLaunch() != nil:
					l := rec.GetLaunch()
					records++
					if ids[l.Id] {
						t.Fatalf("launch id %d written twice", l.Id)
					}
					ids[l.Id] = true
					if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0 {
						timed++
						got = append(got, span{base[l.KernelId], l.DeviceStartNs, l.DeviceEndNs})
					}
				}
			}
			if records != c.LaunchesSeen || timed != c.LaunchesTimed {
				t.Errorf("%d launch records (%d timed); counters say %d seen, %d timed", records, timed, c.LaunchesSeen, c.LaunchesTimed)
			}
			want := readTruthLaunches(t, truth)
			if uint64(len(want)) != made {
				t.Errorf("the device ran %d launches, the application made %d", len(want), made)
			}
			// Match sorted by (kernel, start): one device tick is 26 ns.
			const tol = 100
			bySpan := func(a, b span) int {
				return cmp.Or(cmp.Compare(a.base, b.base), cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
			}
			slices.SortFunc(got, bySpan)
			slices.SortFunc(want, bySpan)
			matched, j := 0, 0
			var bad []span
			for _, g := range got {
				for j < len(want) && (want[j].base < g.base || want[j].base == g.base && want[j].start+tol < g.start) {
					j++
				}
				if j < len(want) && want[j].base == g.base && absDiff(want[j].start, g.start) <= tol && absDiff(want[j].end, g.end) <= tol {
					matched++
					j++
				} else if len(bad) < 5 {
					bad = append(bad, g)
				}
			}
			if matched != len(got) {
				t.Errorf("%d of %d timed launches match no device launch (first: %v)", len(got)-matched, len(got), bad)
			}
		})
	}
}

// span is a launch's kernel (base address) and device times.
type span struct{ base, start, end uint64 }

// readTruthLaunches reads the kernel base and device times of the launch
// lines of a ground-truth file. 10^6 lines: the three numbers are picked
// out of each line directly (json.Unmarshal of every line, under the race
// detector, takes most of a minute); lines whose fields are missing fail.
func readTruthLaunches(t *testing.T, path string) []span {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	field := func(line []byte, key string) (uint64, bool) {
		i := bytes.Index(line, []byte(`"`+key+`":`))
		if i < 0 {
			return 0, false
		}
		rest := line[i+len(key)+3:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		v, err := strconv.ParseUint(string(rest[:j]), 10, 64)
		return v, err == nil
	}
	var out []span
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"type":"launch"`)) {
			continue
		}
		b, ok1 := field(line, "base")
		s, ok2 := field(line, "start_ns")
		e, ok3 := field(line, "end_ns")
		if !ok1 || !ok2 || !ok3 {
			t.Fatalf("%s: a launch line without base, start_ns or end_ns: %s", path, line)
		}
		out = append(out, span{b, s, e})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMemoryFlat (issue 14): resident memory does not grow with run
// length: 4·10^6 launches hold no more than 10^6 plus a bound (4 threads
// at full rate, immediate lists), timing only.
// Both runs are longer than the time zestall's bounded storage takes to
// reach its size when zestall falls behind: the rings (up to their budget) and
// event pools fill (until the harvester's storage was made fixed-size and
// reused, its and the writer's batches also grew to the largest backlog
// they met). At full rate on 2 vCPUs that takes several
// 10^5 launches (measured, timing only: 95, 102, 113 and 115 MiB at
// 2.5·10^5, 10^6, 2·10^6 and 4·10^6 launches), so comparing 2.5·10^5 with
// 10^6, as this test did, measured that warm-up (15–20 MiB, depending on
// how far behind the harvester fell), not growth with run length. The
// event pools still grow to the largest backlog the harvester meets (at
// most a ring's worth of launches per thread), which a longer run on a
// loaded machine can make larger (measured under the race detector in a
// fresh CI run, before the batches were fixed: 100 -> 117 MiB from 10^6 to
// 4·10^6 launches; with them fixed, 84 -> 82 MiB on a loaded machine).
// The bound is 16 MiB: it fails any retention of 6 bytes per launch over
// the 3·10^6 more launches, where the growth before issue 14 was about
// 117 MiB per 10^6 launches, and with sampling on the attribution window
// held every launch of kernels too short to be sampled (726 MiB at 10^7
// launches).
func TestMemoryFlat(t *testing.T) {
	tr := buildTree(t)
	for _, c := range []struct {
		name string
		env  map[string]string
	}{
		{"timing only", map[string]string{"ZESTALL_SAMPLING": "0"}},
		// With stall sampling on, zestall's Go heap now stays flat (16 MB
		// live at 10^6 launches: the attribution window moves on without
		// samples, collector TestNoSamplesLetsLaunchesGo), but the
		// simulated device keeps every kernel run an open streamer may
		// still sample, and at full rate on a loaded machine its reader
		// lags: 101 -> 132 MiB from 2.5e5 to 1e6 launches, all of it
		// outside Go (BENCHMARKS.md). Added when the simulator bounds it.
	} {
		t.Run(c.name, func(t *testing.T) {
			small := runBenchLaunch(t, tr, 250_000, 4, "imm", "", c.env)
			large := runBenchLaunch(t, tr, 1_000_000, 4, "imm", "", c.env)
			growth := large.maxRSSKB - small.maxRSSKB
			t.Logf("max RSS: %d MiB at 1e6 launches (%d seen), %d MiB at 4e6 (%d seen)",
				small.maxRSSKB>>10, small.counters.LaunchesSeen, large.maxRSSKB>>10, large.counters.LaunchesSeen)
			if growth > 16<<10 {
				t.Errorf("resident memory grew by %d MiB from 1e6 to 4e6 launches (bound 16 MiB)", growth>>10)
			}
		})
	}
}

// benchRSSAlone is the max RSS (KiB) of zestall-bench-launch without
// zestall, the same arguments and the simulated driver: what the
// application itself takes.
func benchRSSAlone(t *testing.T, tr tree, perThread, threads int, mode string) int64 {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), appTimeout)
	defer cancel()
	usage := filepath.Join(dir, "rusage")
	cmd := tr.command(ctx, dir, false, map[string]string{"ZESIM_TIME_SCALE": "0"}, "zestall-bench-rusage", usage,
		filepath.Join(tr.build, "bin", "zestall-bench-launch"), strconv.Itoa(perThread), strconv.Itoa(threads), mode)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zestall-bench-launch %d %d %s without zestall: %v\n%s", perThread, threads, mode, err, out)
	}
	b, err := os.ReadFile(usage)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		t.Fatalf("%s: %q", usage, b)
	}
	kb, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", usage, err)
	}
	return kb
}

// TestBurstAfterIdle (issue 14, limit (a)): a thread that launches in
// bursts after idle periods (bench_launch's burst mode: 10 bursts, 150 ms
// idle before each) meets a harvester asleep for up to 16 ms (pollIdle);
// at the full rate of one thread (1.4·10^6 launches/s unloaded) a burst
// fills its ring (15360 launches of 16384 slots, and 3072 of 4096 with
// ZESTALL_RING_SLOTS=4096) before that sleep ends. The launch path wakes
// the harvester when the ring is half full (cgo/launch_rings.c, "Waking
// the harvester"), so a launch waits only when the harvester does not get
// the CPU while the other half fills (5.5 ms, and 1.1 ms with 4096
// slots, unloaded; longer on a loaded machine, where the application is
// slowed too). Every launch is seen and timed, nothing lost; and with the
// default rings fewer launches wait than there are bursts: without the
// wake-up, each burst that outran the harvester's sleep waited
// (BENCHMARKS.md "Issue 14, session 10"). The bound is on counts, not
// times: a launch that waits is one per harvester pause, and the
// machine's pauses of 30–80 ms (limit (b)) are rarer than one per burst
// of 21 ms; on a machine so loaded that the application launches slower
// than the ring fills within a sleep, nothing waits either way. With
// 4096 slots the harvester has 1.1 ms to respond, which a loaded machine
// does not grant (16 launches waited in 10 bursts at load 12 on 2 vCPUs):
// there the waits are logged, not bounded.
func TestBurstAfterIdle(t *testing.T) {
	tr := buildTree(t)
	const bursts = 10
	for _, tc := range []struct {
		slots       string
		burst, idle int
		boundWaits  bool
	}{
		{"", 30000, 150, true}, {"4096", 8000, 150, false},
	} {
		name := "default"
		if tc.slots != "" {
			name = "slots=" + tc.slots
		}
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"ZESTALL_SAMPLING": "0"}
			if tc.slots != "" {
				env["ZESTALL_RING_SLOTS"] = tc.slots
			}
			r := runBenchLaunch(t, tr, bursts*tc.burst, 1, "imm", "", env, "0", "1", strconv.Itoa(tc.burst), strconv.Itoa(tc.idle))
			c := r.counters
			made := uint64(bursts * tc.burst)
			lost, slots := lostLaunches(c)
			t.Logf("%d bursts of %d after %d ms idle: %d launches seen, %d timed, %d lost, %d other slots lost; %d launches waited %.1f ms in all; %s",
				bursts, tc.burst, tc.idle, c.LaunchesSeen, c.LaunchesTimed, lost, slots, c.LaunchesWaited, float64(c.LaunchWaitNs)/1e6, strings.TrimSpace(r.stdout))
			if c.LaunchesSeen != made || c.LaunchesTimed != made || lost != 0 || slots != 0 {
				t.Errorf("%d of %d launches seen, %d timed, %d launches and %d other slots lost: every launch must be seen and timed", c.LaunchesSeen, made, c.LaunchesTimed, lost, slots)
			}
			if tc.boundWaits && c.LaunchesWaited >= bursts {
				t.Errorf("%d launches waited in %d bursts: the harvester was not woken when the ring filled", c.LaunchesWaited, bursts)
			}
		})
	}
}

// TestRingSlotsSetting: ZESTALL_RING_SLOTS reaches the launch path, and
// an invalid value is said once on stderr with the setting and its
// default while the application runs on, fully profiled: 1024 (no ring
// grows) at a full rate of 2 threads, and a word. The header records the
// value in effect either way.
func TestRingSlotsSetting(t *testing.T) {
	tr := buildTree(t)
	const threads, perThread = 2, 50_000
	for _, tc := range []struct {
		value, want string
		fromEnv     bool
	}{
		{"1024", "1024", true}, {"lots", "16384", false},
	} {
		t.Run(tc.value, func(t *testing.T) {
			r := runBenchLaunch(t, tr, perThread, threads, "imm", "", map[string]string{"ZESTALL_SAMPLING": "0", "ZESTALL_RING_SLOTS": tc.value})
			said := strings.Count(r.stderr, "ZESTALL_RING_SLOTS")
			if tc.fromEnv && said != 0 || !tc.fromEnv && (said != 1 || !strings.Contains(r.stderr, `ZESTALL_RING_SLOTS="lots"`) || !strings.Contains(r.stderr, "default 16384")) {
				t.Errorf("ZESTALL_RING_SLOTS=%s: stderr %q; want the setting and its default said once when invalid, nothing otherwise", tc.value, r.stderr)
			}
			var entry *pb.ConfigEntry
			for _, e := range r.recs[0].GetHeader().GetConfig() {
				if e.Key == "ZESTALL_RING_SLOTS" {
					entry = e
				}
			}
			if entry == nil || entry.Value != tc.want || entry.FromEnvironment != tc.fromEnv {
				t.Errorf("ZESTALL_RING_SLOTS=%s: header entry %v, want %s from environment %v", tc.value, entry, tc.want, tc.fromEnv)
			}
			c := r.counters
			made := uint64(threads * perThread)
			lost, slots := lostLaunches(c)
			t.Logf("ZESTALL_RING_SLOTS=%s: %d launches seen, %d timed; %d launches waited %.1f ms in all", tc.value, c.LaunchesSeen, c.LaunchesTimed, c.LaunchesWaited, float64(c.LaunchWaitNs)/1e6)
			if c.LaunchesSeen != made || c.LaunchesTimed != made || lost != 0 || slots != 0 {
				t.Errorf("%d of %d launches seen, %d timed, %d launches and %d other slots lost: every launch must be seen and timed", c.LaunchesSeen, made, c.LaunchesTimed, lost, slots)
			}
		})
	}
}

// TestMemoryFullRate (issue 14): the resident memory zestall adds to an
// application launching as fast as it can on 4 threads (immediate lists,
// 10^6 launches, ZESTALL_RING_FULL=wait) stays within a bound, and every
// launch is seen and timed. At full rate zestall falls behind on this
// machine; what it holds then is bounded by design: the rings' growth
// budget (cgo/launch_rings.c, "Ring capacity": at most 4 x 1024 + 15360
// slots, and as many of zestall's events in flight, about 1 KB each in
// Intel's driver and the simulated one), beyond which launches wait. Before the budget
// every ring grew to 32768 slots. Measured (BENCHMARKS.md "Issue 14,
// session 9", medians of 3, loaded 2-vCPU machine): timing only +87.5 ->
// +25.7 MiB; with stall sampling +105 -> +35 MiB. Session 10 bounded what
// stall attribution keeps of past launches (at most 65536 per device,
// outside the Go heap, with the stall reader's buffer: collector/attribution,
// "Memory"): with sampling +34.4 -> +30.8 MiB (median of 3; 29.3-32 MiB in
// 4 runs and this test). The bounds: the 32 MiB for timing only;
// 38 MiB with sampling: 6 MiB over the most measured, for the spread of
// max RSS between runs on the loaded machine (±2 MiB within 3 runs, 2 MiB
// between the benchmark's runs and this test's); it fails any return to
// rings or event pools that grow with the threads, or an attribution
// window on the Go heap that grows with the reader's delay.
//
// 4 threads recording regular lists of 4096 launches, with sampling (the
// case that missed 32 MiB until session 12: each thread's list holds its
// 4096 launches and events, and the previous list's until the harvester
// has read it): session 12 measured 34.5 -> 27.5 MiB added (BENCHMARKS.md,
// "Issue 14, session 12": median of 5, 26.3-30.1 MiB in its runs, 27 in
// this test); the bound, 36 MiB, is 6 MiB over the most measured for the
// same spread: it fails the old code's worst runs (38 MiB) and a return
// of the rings' or pools' growth with the threads.
//
// Session 15 gave the simulator's events the host memory Intel's driver
// allocates for one (about 1 KB: test/sim/README.md, "An event's host
// memory"; it was 336 bytes), which every event zestall holds in flight
// costs: the same code measured 31-39 MiB added timing only, 38-41 MiB
// with sampling and 47-53 MiB with regular lists (4 runs each of this
// test; BENCHMARKS.md, "Issue 14, session 15"). The bounds stay 6 MiB
// over the most measured, for the same purpose; the 32 MiB is
// missed at 4 threads (ZESTALL_RING_SLOTS=8192 halves the rings' budget:
// 30-31 MiB with sampling on immediate lists, more launches waiting).
//
// Session 16 read immediate lists' times by device-side copies: the same
// test measured 35-38 MiB timing only, 41-44 MiB with sampling and 47-53
// MiB with regular lists (3 runs; the simulated device's copy runs on the
// harvester's thread, which then drains the rings more slowly and leaves
// more events in flight: BENCHMARKS.md, "Issue 14, session 16"). The
// sampling bound moves to 6 MiB over its most measured, 50 MiB.
//
// Session 17 (the simulator's recorded commands hold no event
// references, shared stall rows as ranges, fewer streamer reads): 52, 54,
// 57 and 59 MiB with regular lists (3 runs alone and one in fresh-ci),
// 33-37 timing only, 42-43 with sampling. The whole process's peak with
// regular lists spreads over 9 MiB between runs of the same build
// (66-75 MiB, 10^6 to 4·10^6 launches, BENCHMARKS.md "Issue 14, session
// 17"), with no growth with run length: that bound moves to 6 MiB over
// its most measured, 65 MiB.
func TestMemoryFullRate(t *testing.T) {
	tr := buildTree(t)
	const threads, perThread = 4, 250_000
	alone := map[string]int64{}
	for _, c := range []struct {
		name    string
		mode    string
		env     map[string]string
		boundKB int64
	}{
		{"timing only", "imm", map[string]string{"ZESTALL_SAMPLING": "0"}, 45 << 10},
		{"with sampling", "imm", nil, 50 << 10},
		{"regular lists with sampling", "regular", nil, 65 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := alone[c.mode]; !ok {
				alone[c.mode] = benchRSSAlone(t, tr, perThread, threads, c.mode)
			}
			r := runBenchLaunch(t, tr, perThread, threads, c.mode, "", c.env)
			cn := r.counters
			made := uint64(threads * perThread)
			lost, slots := lostLaunches(cn)
			added := r.maxRSSKB - alone[c.mode]
			t.Logf("max RSS %d MiB, %d MiB without zestall: %d MiB added (bound %d); %d of %d launches seen, %d timed; %d launches waited %d ms in all",
				r.maxRSSKB>>10, alone[c.mode]>>10, added>>10, c.boundKB>>10, cn.LaunchesSeen, made, cn.LaunchesTimed, cn.LaunchesWaited, cn.LaunchWaitNs/1e6)
			if cn.LaunchesSeen != made || cn.LaunchesTimed != made || lost != 0 || slots != 0 {
				t.Errorf("%d of %d launches seen, %d timed, %d launches and %d other slots lost: with ZESTALL_RING_FULL=wait every launch must be seen and timed",
					cn.LaunchesSeen, made, cn.LaunchesTimed, lost, slots)
			}
			if added > c.boundKB {
				t.Errorf("zestall added %d MiB of resident memory at full rate on %d threads, %s lists (bound %d MiB)", added>>10, threads, c.mode, c.boundKB>>10)
			}
		})
	}
}

// TestThreadChurn: an application that makes new launching threads again
// and again (no thread pool) does not grow by a ring per thread it ever
// made: a thread's ring (4 MiB of address space) and cached events pass to
// the next thread that launches once their thread exited. 600 waves of 2
// threads, 100 launches each: every launch seen and timed, and the
// process's address space after the first wave and at the end differ by
// less than 1 GiB. A ring per exited thread would be 1198 × 4 MiB ≈ 4.7
// GiB (measured before the rings were reused: 2.4 GB over 300 waves).
// What does grow is malloc's per-thread arenas (64 MiB reservations, a
// few with 2 threads at a time) and the Go heap: 75–140 MiB measured.
func TestThreadChurn(t *testing.T) {
	tr := buildTree(t)
	const waves, threads, perThread = 600, 2, 100
	r := runBenchLaunch(t, tr, perThread, threads, "imm", "", map[string]string{"ZESTALL_SAMPLING": "0"}, "0", strconv.Itoa(waves))
	var out struct {
		Waves         int   `json:"waves"`
		VMKBFirstWave int64 `json:"vm_kb_first_wave"`
		VMKBEnd       int64 `json:"vm_kb_end"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &out); err != nil || out.Waves != waves || out.VMKBFirstWave == 0 {
		t.Fatalf("application output %q: %v", r.stdout, err)
	}
	c := r.counters
	if made := uint64(waves * threads * perThread); c.LaunchesSeen != made || c.LaunchesTimed != made {
		t.Errorf("%d launches made, %d seen, %d timed", made, c.LaunchesSeen, c.LaunchesTimed)
	}
	growth := out.VMKBEnd - out.VMKBFirstWave
	t.Logf("VmSize %d MiB after the first wave, %d MiB after %d; max RSS %d MiB", out.VMKBFirstWave>>10, out.VMKBEnd>>10, waves, r.maxRSSKB>>10)
	if growth > 1<<20 {
		t.Errorf("the address space grew by %d MiB over %d waves of %d threads: rings of exited threads are not reused", growth>>10, waves, threads)
	}
}

// TestListChurnMemoryFlat: an application that records a fresh regular
// list per step and destroys it (zestall-list-churn: 30,000 lists of 16
// launches, each executed twice, 8 alive at a time) keeps every launch,
// timed, and its resident memory flat: zestall's record of each list
// (its events, its snapshot copies) goes with the list, and the list's
// handle, reused by the driver for a later list, is never mistaken for
// it (a record freed after the driver freed the handle was once the
// record of the next list made at that address: launches were lost and
// the process crashed). VmRSS after half of the rounds and at the end
// differ by at most 16 MiB (the bound of TestMemoryFlat; zestall's event
// pools and Go heap settle at the peak of the rate's bursts, which varies
// between runs: 52–71 MiB at the end, 2 vCPUs shared with other agents).
func TestListChurnMemoryFlat(t *testing.T) {
	tr := buildTree(t)
	const rounds, launches, execs = 30_000, 16, 2
	dir := t.TempDir()
	out := filepath.Join(dir, "out.zst")
	res := tr.run(t, dir, true, map[string]string{"ZESTALL_OUTPUT": out, "ZESIM_TIME_SCALE": "0", "ZESTALL_QUIET": "1"},
		"zestall-list-churn", strconv.Itoa(rounds), strconv.Itoa(launches), strconv.Itoa(execs), "8")
	if res.code != 0 {
		t.Fatalf("zestall-list-churn: exit %d\nstderr:\n%s", res.code, res.stderr)
	}
	var early, end, n int64
	line := strings.TrimSpace(res.stdout)
	if _, err := fmt.Sscanf(line[strings.Index(line, "launches"):], "launches %d rss_kb_early %d rss_kb_end %d", &n, &early, &end); err != nil {
		t.Fatalf("zestall-list-churn output %q: %v", line, err)
	}
	var c *pb.Counters
	for _, rec := range readRecords(t, out) {
		if cc := rec.GetCounters(); cc != nil {
			c = cc
		}
	}
	if c == nil || !c.Final {
		t.Fatalf("no final counters in the output\nstderr:\n%s", res.stderr)
	}
	want := uint64(rounds * launches * execs)
	if uint64(n) != want || c.LaunchesSeen != want || c.LaunchesTimed != want {
		t.Errorf("launches: the application made %d (want %d), zestall saw %d, timed %d", n, want, c.LaunchesSeen, c.LaunchesTimed)
	}
	t.Logf("VmRSS %d MiB after %d lists, %d MiB after %d", early>>10, rounds/2, end>>10, rounds)
	if end-early > 16<<10 {
		t.Errorf("resident memory grew by %d MiB from %d to %d lists made and destroyed (bound 16 MiB)", (end-early)>>10, rounds/2, rounds)
	}
}
