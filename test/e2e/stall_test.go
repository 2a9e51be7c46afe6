package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/zestall/zestall/proto/pbstream"
	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/test/groundtruth"
)

// TestStallSampling: every EU stall sample the simulated device produced
// and delivered is in zestall's output, at the right kernel and
// instruction offset (sums per offset equal the device's, exactly), and
// samples attributed to one launch came from that launch.
func TestStallSampling(t *testing.T) {
	tr := buildTree(t)
	tests := []struct {
		name string
		app  string
		args []string
		env  map[string]string
	}{
		{"pvc", "zestall-multi", []string{"2"}, nil},
		{"pvc long kernels", "zestall-simple", []string{"20"}, map[string]string{"ZESIM_KERNEL_COST": "stream_triad=200000/20000,stream_copy=100000"}},
		{"xe2", "zestall-multi", []string{"2"}, map[string]string{"ZESIM_MODEL": "xe2"}},
		{"pvc composite", "zestall-simple", []string{"10"}, map[string]string{"ZE_FLAT_DEVICE_HIERARCHY": "COMPOSITE", "ZESIM_KERNEL_COST": "stream_triad=100000/20000"}},
		{"churn: addresses reused", "zestall-churn", []string{"6"}, map[string]string{"ZESIM_KERNEL_COST": "*=100000/20000"}},
		// Exact mode: every launch alone, a read after each.
		{"serialized", "zestall-multi", []string{"2"}, map[string]string{"ZESTALL_SERIALIZE": "1", "ZESIM_KERNEL_COST": "*=20000/20000"}},
		// The shortest period and rare reads: the per-Xe-core buffers
		// (8192 records) overflow during the 100 ms kernel.
		{"overflow", "zestall-simple", []string{"1"}, map[string]string{
			"ZESIM_KERNEL_COST": "stream_triad=1/100000000", "ZESTALL_SAMPLING_PERIOD_NS": "1000", "ZESTALL_STALL_READ_INTERVAL": "1s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"ZET_ENABLE_METRICS": "1", "ZESTALL_SAMPLING_PERIOD_NS": "10000"}
			maps.Copy(env, tt.env)
			recs, truth := tr.runTruth(t, env, tt.app, tt.args...)
			expect := stallsExact
			if tt.name == "overflow" {
				expect = stallsDropped
			}
			checkStalls(t, recs, truth, expect)
			if tt.env["ZESTALL_SERIALIZE"] == "1" {
				checkSerialized(t, recs)
			}
		})
	}
}

type kernelSpan struct {
	base, size uint64
}

// stallExpectation says what checkStalls may accept from a run.
type stallExpectation int

const (
	// stallsExact: every delivered sample counted at its kernel and
	// offset, nothing unattributed, nothing dropped by the device.
	stallsExact stallExpectation = iota
	// stallsDropped: as stallsExact, and the device must have dropped
	// records (the overflow case) and zestall must have counted it.
	stallsDropped
	// stallsLate: the run told zestall a visibility latency below the
	// device's (ZESTALL_STALL_LATENCY=0 against 5 ms polls). A sample read
	// after its kernel was destroyed then lies, as far as zestall can
	// know, after the kernel's lifetime and is Unattributed; none may be
	// lost or counted at an offset that did not produce it: kernel rows
	// plus Unattributed equal what the device delivered, and no offset
	// holds more than the device produced there.
	stallsLate
)

func checkStalls(t *testing.T, recs []*pb.Record, truth *groundtruth.Truth, expect stallExpectation) {
	t.Helper()
	hdr := recs[0].GetHeader()
	on := false
	for _, d := range hdr.GetDevices() {
		if d.GetStallSampling().GetEnabled() {
			on = true
			if d.StallSampling.SamplingPeriodNs == 0 || len(d.StallSampling.Metrics) < 10 {
				t.Errorf("device %d: sampling set-up incomplete: %+v", d.Id, d.StallSampling)
			}
		}
	}
	if !on {
		t.Fatalf("sampling is off on every device: %+v", hdr.GetDevices())
	}
	kernels := map[uint64]kernelSpan{}
	type key struct{ base, off uint64 }
	got := map[key]uint64{}
	var gotTotal, unattributed uint64
	var final *pb.Counters
	var launchRows []*pb.StallRows
	for _, r := range recs {
		switch {
		case r.GetKernel() != nil:
			k := r.GetKernel()
			kernels[k.Id] = kernelSpan{k.BaseAddress, k.IsaSize}
		case r.GetStallRows() != nil:
			s := r.GetStallRows()
			offs, sums := rowSums(t, s)
			for i, off := range offs {
				got[key{kernels[s.KernelId].base, off}] += sums[i]
				gotTotal += sums[i]
			}
			if s.Attribution == pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH {
				launchRows = append(launchRows, s)
			}
		case r.GetUnattributed() != nil:
			u := r.GetUnattributed()
			for _, c := range u.Counters {
				unattributed += c
			}
		case r.GetCounters() != nil:
			final = r.GetCounters()
		}
	}
	want := map[key]uint64{}
	var wantTotal, dropped uint64
	for _, s := range truth.Samples {
		var sum uint64
		for _, c := range s.Counters {
			sum += c
		}
		if s.Dropped {
			dropped++
			continue
		}
		if s.Undelivered {
			continue
		}
		base := uint64(0)
		for _, k := range truth.Kernels {
			if k.Kernel == s.Kernel {
				base = k.Base
				break
			}
		}
		want[key{base, s.Offset}] += sum
		wantTotal += sum
	}
	if wantTotal == 0 {
		t.Fatalf("the device produced no samples: the test proves nothing")
	}
	wantDrops := expect == stallsDropped
	late := expect == stallsLate
	if unattributed != 0 && !late {
		t.Errorf("%d sample counts unattributed; every sample lies in a kernel", unattributed)
	}
	if late {
		if gotTotal+unattributed != wantTotal {
			t.Errorf("sample counts: zestall %d in kernels + %d unattributed, device delivered %d (dropped %d records)", gotTotal, unattributed, wantTotal, dropped)
		}
	} else if gotTotal != wantTotal {
		t.Errorf("sample counts: zestall %d, device delivered %d (dropped %d records)", gotTotal, wantTotal, dropped)
	}
	bad := 0
	for k, w := range want {
		if (got[k] > w || got[k] != w && !late) && bad < 10 {
			bad++
			t.Errorf("kernel %#x offset %#x: zestall %d, device %d", k.base, k.off, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok && bad < 10 {
			bad++
			t.Errorf("kernel %#x offset %#x: zestall %d, device none", k.base, k.off, g)
		}
	}
	if final == nil || final.StallRecordsRead == 0 {
		t.Errorf("trailer counters lack stall totals: %v", final)
	}
	if dropped > 0 && final.StallDropWarnings == 0 {
		t.Errorf("the device dropped %d records but zestall counted no drop", dropped)
	}
	if dropped == 0 && final.StallDropWarnings != 0 {
		t.Errorf("zestall counted %d drop warnings, the device dropped nothing", final.StallDropWarnings)
	}
	if wantDrops && dropped == 0 {
		t.Errorf("the device dropped nothing: the overflow case proves nothing")
	}
	checkLaunchAttribution(t, recs, truth, launchRows)
	t.Logf("%d sample counts at %d offsets; %d rows attributed to one launch; %d records dropped by the device", gotTotal, len(got), len(launchRows), dropped)
}

// checkLaunchAttribution: samples the device produced well inside a read
// window of a row attributed to launch L came from L.
func checkLaunchAttribution(t *testing.T, recs []*pb.Record, truth *groundtruth.Truth, rows []*pb.StallRows) {
	t.Helper()
	checkLaunchAttributionExcept(t, recs, truth, rows, nil)
}

// checkLaunchAttributionExcept is checkLaunchAttribution tolerating
// samples of the device launches for which except returns true (a
// documented limit of the run's mode).
func checkLaunchAttributionExcept(t *testing.T, recs []*pb.Record, truth *groundtruth.Truth, rows []*pb.StallRows, except func(groundtruth.Launch) bool) {
	t.Helper()
	// zestall launch id -> device launch id, by kernel code and start time.
	base := map[uint64]uint64{}
	ours := map[uint64]*pb.Launch{}
	for _, r := range recs {
		if k := r.GetKernel(); k != nil {
			base[k.Id] = k.BaseAddress
		}
		if l := r.GetLaunch(); l != nil {
			ours[l.Id] = l
		}
	}
	toTruth := map[uint64]map[uint64]bool{}
	for id, l := range ours {
		for _, g := range truth.Launches {
			if g.Base == base[l.KernelId] && absDiff(g.StartNs, l.DeviceStartNs) <= 100 {
				if toTruth[id] == nil {
					toTruth[id] = map[uint64]bool{}
				}
				toTruth[id][g.Launch] = true
			}
		}
	}
	const margin = 50_000 // ns away from the window's edges
	checked := 0
	for _, row := range rows {
		lo, hi := row.WindowStartHostNs+margin, row.WindowEndHostNs
		if hi < margin || lo >= hi-margin {
			continue
		}
		hi -= margin
		for _, s := range truth.Samples {
			if s.Dropped || s.TimeNs <= lo || s.TimeNs >= hi {
				continue
			}
			var b uint64
			for _, k := range truth.Kernels {
				if k.Kernel == s.Kernel {
					b = k.Base
					break
				}
			}
			if b != base[row.KernelId] {
				continue
			}
			checked++
			if !toTruth[row.LaunchId][s.Launch] {
				l := ours[row.LaunchId]
				var g groundtruth.Launch
				for _, x := range truth.Launches {
					if x.Launch == s.Launch {
						g = x
					}
				}
				if except != nil && except(g) {
					continue
				}
				t.Errorf("row attributed to launch %d (kernel %d, %d..%d ns), window %d..%d, holds a sample at %d ns of device launch %d (%s at %#x, %d..%d ns)",
					row.LaunchId, l.GetKernelId(), l.GetDeviceStartNs(), l.GetDeviceEndNs(), row.WindowStartHostNs, row.WindowEndHostNs,
					s.TimeNs, s.Launch, g.Name, g.Base, g.StartNs, g.EndNs)
				return
			}
		}
	}
	t.Logf("%d samples checked against their launch", checked)
}

// TestSamplingOff: without metrics (ZET_ENABLE_METRICS unset) or on a GPU
// without the EuStallSampling group (DG2), zestall says once why and what
// to set, records the reason in the header, and keeps timing kernels.
func TestSamplingOff(t *testing.T) {
	tr := buildTree(t)
	tests := []struct {
		name   string
		env    map[string]string
		notice string
		reason pb.StallSamplingOff
	}{
		{"metrics not enabled", map[string]string{"ZET_ENABLE_METRICS": ""}, "ZET_ENABLE_METRICS=1", pb.StallSamplingOff_STALL_SAMPLING_OFF_METRICS_NOT_ENABLED},
		{"dg2 has no group", map[string]string{"ZESIM_MODEL": "dg2"}, "no EuStallSampling metric group", pb.StallSamplingOff_STALL_SAMPLING_OFF_NO_GROUP},
		{"permission denied", map[string]string{"ZESIM_METRICS_PERMISSION": "denied"}, "paranoid", pb.StallSamplingOff_STALL_SAMPLING_OFF_NO_GROUP},
		{"disabled by configuration", map[string]string{"ZESTALL_SAMPLING": "0"}, "", pb.StallSamplingOff_STALL_SAMPLING_OFF_DISABLED},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst")}
			for k, v := range tt.env {
				env[k] = v
			}
			res := tr.run(t, dir, true, env, "zestall-simple", "3")
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			var notices []string
			for _, l := range zestallLines(res.stderr) {
				if strings.Contains(l, "stall sampling is off") {
					notices = append(notices, l)
				}
			}
			switch {
			case tt.notice == "" && len(notices) != 0:
				t.Errorf("notices %q; want none", notices)
			case tt.notice != "" && (len(notices) != 1 || !strings.Contains(notices[0], tt.notice)):
				t.Errorf("notices %q; want exactly one naming %q", notices, tt.notice)
			}
			recs := readRecords(t, filepath.Join(dir, "out.zst"))
			for _, d := range recs[0].GetHeader().GetDevices() {
				if d.ParentId != 0 {
					continue
				}
				if ss := d.GetStallSampling(); ss.GetEnabled() || ss.GetOffReason() != tt.reason {
					t.Errorf("device %d: sampling %+v, want off with %v", d.Id, ss, tt.reason)
				}
			}
			timed := 0
			for _, r := range recs {
				if r.GetStallRows() != nil {
					t.Errorf("stall rows written while sampling is off")
				}
				if l := r.GetLaunch(); l != nil && l.DeviceEndNs > 0 {
					timed++
				}
			}
			if timed == 0 {
				t.Errorf("no timed launches: timing must continue")
			}
		})
	}
}

// checkSerialized: in exact mode every launch ran alone and every sample
// is attributed to exactly one launch — except that the kernels inside one
// execution of a regular command list still run back to back, so a kernel
// appended twice to one list shares its samples between those two
// launches (and only those).
func checkSerialized(t *testing.T, recs []*pb.Record) {
	t.Helper()
	launches := map[uint64]*pb.Launch{}
	var rows, shared int
	for _, r := range recs {
		if l := r.GetLaunch(); l != nil {
			launches[l.Id] = l
			if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_SERIALIZED) == 0 {
				t.Errorf("launch %d not marked serialized", l.Id)
			}
		}
	}
	for _, r := range recs {
		s := r.GetStallRows()
		if s == nil {
			continue
		}
		switch s.Attribution {
		case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH:
			rows++
		case pb.StallAttribution_STALL_ATTRIBUTION_SHARED, pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES:
			shared++
			cl := slices.Collect(pbstream.CandidateLaunches(s))
			first := launches[cl[0]]
			for _, id := range cl {
				l := launches[id]
				if l == nil || first == nil || l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_IMMEDIATE) != 0 ||
					l.CommandListId != first.CommandListId || l.ExecutionIndex != first.ExecutionIndex {
					t.Errorf("serialized: samples shared by launches %v, not all of one regular-list execution", cl)
					break
				}
			}
		default:
			t.Errorf("serialized: a row attributed to the kernel only (kernel %d)", s.KernelId)
		}
	}
	if rows == 0 {
		t.Errorf("serialized: no row attributed to one launch")
	}
	if c := recs[len(recs)-1].GetCounters(); c != nil {
		for _, l := range c.Lost {
			t.Errorf("lost in serialized mode: %v", l)
		}
	}
}

// TestPprof: the CLI turns a real run into a pprof profile that `go tool
// pprof` reads, with kernels, stall reasons and the compiler's source lines.
// compileDir returns the directory of the source files a pprof profile
// names (all test kernels were compiled in one directory), failing the
// test when the profile names none or several.
func compileDir(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, fn := range p.Function {
		if fn.Filename != "" {
			dirs[filepath.Dir(fn.Filename)] = true
		}
	}
	if len(dirs) != 1 {
		t.Fatalf("%s: want the sources of one directory, got %v", path, dirs)
	}
	for d := range dirs {
		return d
	}
	return ""
}

func TestPprof(t *testing.T) {
	tr := buildTree(t)
	dir := t.TempDir()
	env := map[string]string{
		"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst"), "ZESTALL_SAMPLING_PERIOD_NS": "10000",
		"ZESIM_KERNEL_COST": "compute_poly=4000/3000,stream_triad=300",
	}
	if res := tr.run(t, dir, true, env, "zestall-multi", "2"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	prof := filepath.Join(dir, "stalls.pb.gz")
	cli := exec.Command(filepath.Join(tr.build, "bin", "zestall"), "pprof", filepath.Join(dir, "out.zst"), "-o", prof)
	if out, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("zestall pprof: %v\n%s", err, out)
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	// The DWARF names the directory ocloc compiled the kernels in
	// (test/kernels/README.md), not this clone: -list finds the sources
	// with -source_path after -trim_path removes that directory, as a user
	// whose sources moved does.
	sources := "-source_path=" + filepath.Join(tr.root, "test", "kernels")
	trim := "-trim_path=" + compileDir(t, prof)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-top", "-lines"}, []string{"Type: samples", "compute_poly", "compute.cl:", "stream_triad", "stream.cl:"}},
		{[]string{"-top", "-sample_index=SendStall"}, []string{"Type: SendStall", "stream_triad"}},
		{[]string{"-raw"}, []string{"PeriodType: eu-stall-sampling nanoseconds", "device"}},
		// One row per instruction: the GPU address of each sampled
		// instruction of both kernels (bases 0x800000010000 and
		// 0x800000012000 on the simulated PVC) with its source line.
		{[]string{"-top", "-addresses"}, []string{"stream_triad", "stream.cl:", "compute_poly", "compute.cl:"}},
		// -list: the source of each kernel with the samples per line,
		// from the compiler's DWARF.
		{[]string{"-list=stream_triad", sources, trim},
			[]string{"ROUTINE ======================== stream_triad", "a[i] = b[i] + scalar * c[i];"}},
		{[]string{"-list=compute_poly", sources, trim},
			[]string{"ROUTINE ======================== compute_poly", "y = y * 0.999f + sin(x) * cos(y);"}},
	} {
		out, err := exec.Command(gobin, append([]string{"tool", "pprof"}, append(tc.args, prof)...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %v: %v\n%s", tc.args, err, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("go tool pprof %v lacks %q:\n%s", tc.args, w, out)
			}
		}
		if tc.args[len(tc.args)-1] == "-addresses" {
			// Several instructions (8-byte aligned GPU addresses) of
			// each kernel, each with its kernel and source line.
			addrs := map[string]map[string]bool{}
			for _, m := range addressRow.FindAllStringSubmatch(string(out), -1) {
				if addrs[m[2]] == nil {
					addrs[m[2]] = map[string]bool{}
				}
				addrs[m[2]][m[1]] = true
			}
			for _, k := range []string{"stream_triad", "compute_poly"} {
				if len(addrs[k]) < 2 {
					t.Errorf("-top -addresses: %d instruction addresses of %s:\n%s", len(addrs[k]), k, out)
				}
			}
		}
		if strings.HasPrefix(tc.args[0], "-list") && !listHasSamples(string(out)) {
			t.Errorf("go tool pprof %v: no source line with samples:\n%s", tc.args, out)
		}
	}
}

// addressRow is a -top -addresses row: an instruction's GPU address
// (8-byte aligned), its kernel, its source file and line.
var addressRow = regexp.MustCompile(`(?m)\s(0000800000[0-9a-f]{5}[08]) (\w+) \S+\.cl:\d+$`)

// listHasSamples reports whether a pprof -list listing has a source line
// ("  flat  cum  N: text") with a non-zero flat count.
func listHasSamples(out string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] != "." && strings.HasSuffix(f[2], ":") {
			if _, err := fmt.Sscanf(f[0], "%d", new(int)); err == nil {
				return true
			}
		}
	}
	return false
}

// TestTrace: the trace-event JSON is valid and holds every timed launch as
// a complete event with the fields the format requires.
func TestTrace(t *testing.T) {
	tr := buildTree(t)
	dir := t.TempDir()
	env := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst"), "ZESTALL_SERIALIZE": "1",
		"ZESTALL_SAMPLING_PERIOD_NS": "10000", "ZESIM_KERNEL_COST": "*=20000/20000"}
	if res := tr.run(t, dir, true, env, "zestall-multi", "2"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out := filepath.Join(dir, "trace.json")
	cli := exec.Command(filepath.Join(tr.build, "bin", "zestall"), "trace", filepath.Join(dir, "out.zst"), "-o", out)
	if b, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("zestall trace: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	timed := 0
	for _, r := range readRecords(t, filepath.Join(dir, "out.zst")) {
		if l := r.GetLaunch(); l != nil && l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0 {
			timed++
		}
	}
	complete, withStalls := 0, 0
	for _, e := range doc.TraceEvents {
		ph, _ := e["ph"].(string)
		switch ph {
		case "X":
			complete++
			for _, f := range []string{"name", "ts", "dur", "pid", "tid"} {
				if _, ok := e[f]; !ok {
					t.Fatalf("complete event without %q: %v", f, e)
				}
			}
			if d, _ := e["dur"].(float64); d <= 0 {
				t.Errorf("event with duration %v: %v", e["dur"], e)
			}
			if a, _ := e["args"].(map[string]any); a != nil && a["stall_samples"] != nil {
				withStalls++
			}
		case "M":
		default:
			t.Errorf("unexpected phase %q", ph)
		}
	}
	if complete != timed || complete == 0 {
		t.Errorf("%d complete events, %d timed launches", complete, timed)
	}
	if withStalls == 0 {
		t.Errorf("no launch carries its stall samples (exact mode attributes every sample to one launch)")
	}
}

// TestPythonConsumer: scripts/zestall_read.py, written from zestall.proto
// alone, reads a real run exactly as the Go reader does.
func TestPythonConsumer(t *testing.T) {
	tr := buildTree(t)
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skipf("%s missing: scripts/setup.sh installs Debian's python3", py)
	}
	dir := t.TempDir()
	env := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst"), "ZESTALL_SAMPLING_PERIOD_NS": "10000"}
	if res := tr.run(t, dir, true, env, "zestall-multi", "2"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	out, err := exec.Command(py, filepath.Join(tr.root, "scripts", "zestall_read.py"), filepath.Join(dir, "out.zst")).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("zestall_read.py: %v\n%s", err, stderr)
	}
	got := map[uint64][2]uint64{}
	stalls := map[uint64]uint64{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		if id, ok := m["launch"].(float64); ok {
			got[uint64(id)] = [2]uint64{uint64(m["device_start_ns"].(float64)), uint64(m["device_end_ns"].(float64))}
		} else {
			stalls[uint64(m["kernel_id"].(float64))] = uint64(m["stall_samples"].(float64))
		}
	}
	want := map[uint64]uint64{}
	n := 0
	for _, r := range readRecords(t, filepath.Join(dir, "out.zst")) {
		if l := r.GetLaunch(); l != nil {
			n++
			g, ok := got[l.Id]
			// JSON numbers are doubles: compare within their precision.
			if !ok || absDiff(g[0], l.DeviceStartNs) > 1024 || absDiff(g[1], l.DeviceEndNs) > 1024 {
				t.Errorf("launch %d: python %v, Go %d..%d", l.Id, g, l.DeviceStartNs, l.DeviceEndNs)
			}
		}
		if s := r.GetStallRows(); s != nil {
			for _, c := range s.Counters {
				want[s.KernelId] += c
			}
		}
	}
	if n == 0 || len(got) != n {
		t.Errorf("python read %d launches, Go %d", len(got), n)
	}
	for k, w := range want {
		if stalls[k] != w {
			t.Errorf("kernel %d: python %d stall samples, Go %d", k, stalls[k], w)
		}
	}
	// A merged file (with MergeSource records) reads too: the run
	// merged with a copy of itself (zestall refuses the same file twice)
	// has every launch twice, under new ids.
	merged := filepath.Join(dir, "merged.zst")
	data, err := os.ReadFile(filepath.Join(dir, "out.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "copy.zst"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(filepath.Join(tr.build, "bin", "zestall"), "merge", filepath.Join(dir, "out.zst"), filepath.Join(dir, "copy.zst"), "-o", merged).CombinedOutput(); err != nil {
		t.Fatalf("zestall merge: %v\n%s", err, b)
	}
	out, err = exec.Command(py, filepath.Join(tr.root, "scripts", "zestall_read.py"), merged).Output()
	if err != nil {
		t.Fatalf("zestall_read.py on a merged file: %v", err)
	}
	if got := strings.Count(string(out), `"launch"`); got != 2*n {
		t.Errorf("python read %d launches from the merged file, want %d", got, 2*n)
	}
}

// TestSimulatorSeed: the simulated device's sample profile is a function of
// ZESIM_SEED: the same seed puts the hot spots at the same instructions,
// another seed elsewhere.
func TestSimulatorSeed(t *testing.T) {
	tr := buildTree(t)
	hot := func(seed string) map[string]bool {
		_, truth := tr.runTruth(t, map[string]string{"ZESIM_SEED": seed, "ZESIM_KERNEL_COST": "*=200000/20000"}, "zestall-simple", "3")
		per := map[uint64]map[uint64]int{}
		total := map[uint64]int{}
		for _, s := range truth.Samples {
			if per[s.Kernel] == nil {
				per[s.Kernel] = map[uint64]int{}
			}
			per[s.Kernel][s.Offset]++
			total[s.Kernel]++
		}
		set := map[string]bool{}
		for k, offs := range per {
			for off, n := range offs {
				if n*10 >= total[k] { // the hot spots: >= 10 % of the kernel's samples
					set[fmt.Sprintf("%d+%#x", k, off)] = true
				}
			}
		}
		if len(set) == 0 {
			t.Fatalf("seed %s: no samples", seed)
		}
		return set
	}
	a, b, c := hot("1"), hot("1"), hot("7")
	if !maps.Equal(a, b) {
		t.Errorf("same seed, different hot spots: %v vs %v", a, b)
	}
	if maps.Equal(a, c) {
		t.Errorf("seeds 1 and 7 give the same hot spots %v", a)
	}
}
