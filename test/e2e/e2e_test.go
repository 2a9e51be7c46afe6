// Package e2e runs the sample applications through Debian's real
// Level-Zero loader and tracing layer on the simulated device, with and
// without libzestall.so, and checks zestall's output against the device's
// ground truth and the application's behaviour against a run without
// zestall.
//
// The tests run the build tree of test/buildtree ($ZESTALL_BUILD_DIR, else
// build/), which it brings up to date with the sources before the first
// test, so they never test a stale libzestall.so.
package e2e

import (
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zestall/zestall/proto/pbstream"

	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/test/buildtree"
	"github.com/zestall/zestall/test/groundtruth"
)

type tree struct {
	root, build string
	sim, layer  string
}

func buildTree(t *testing.T) tree {
	t.Helper()
	bt := buildtree.Get(t)
	return tree{root: bt.Root, build: bt.Build, sim: bt.Lib("libze_zestall_sim.so"), layer: bt.Lib("libzestall.so")}
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs a sample app through the real loader on the simulated driver,
// with libzestall.so preloaded or not; env entries override the base
// environment (see tree.command). It fails the test if the app hangs.
func (tr tree) run(t *testing.T, dir string, preload bool, env map[string]string, app string, args ...string) result {
	t.Helper()
	return tr.runT(t, dir, preload, env, app, args...)
}

// runTruth runs app with zestall preloaded and the device's ground truth
// on, fails the test unless the app exits 0, and returns zestall's records
// and the truth. env adds to (or overrides) the output settings.
func (tr tree) runTruth(t *testing.T, env map[string]string, app string, args ...string) ([]*pb.Record, *groundtruth.Truth) {
	t.Helper()
	dir := t.TempDir()
	gt := filepath.Join(dir, "truth.jsonl")
	all := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst"), "ZESIM_GROUND_TRUTH": gt}
	maps.Copy(all, env)
	res := tr.run(t, dir, true, all, app, args...)
	if res.code != 0 {
		t.Fatalf("%s %v: exit %d: %s", app, args, res.code, res.stderr)
	}
	truth, err := groundtruth.Read(gt)
	if err != nil {
		t.Fatal(err)
	}
	return readRecords(t, filepath.Join(dir, "out.zst")), truth
}

func readRecords(t *testing.T, path string) []*pb.Record {
	t.Helper()
	recs, err := pbstream.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return recs
}

func outputs(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.zst"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCapture: every module and kernel the app created is in the file with
// the names, base addresses and sizes the device used, kernels re-created
// at the same address are told apart, and every launch was seen.
func TestCapture(t *testing.T) {
	tr := buildTree(t)
	tests := []struct {
		app  string
		args []string
	}{
		{"zestall-simple", []string{"5"}},
		{"zestall-multi", []string{"4"}},
		{"zestall-churn", []string{"6"}},
	}
	for _, tt := range tests {
		t.Run(tt.app, func(t *testing.T) {
			dir := t.TempDir()
			gt := filepath.Join(dir, "truth.jsonl")
			env := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.%p.zst"), "ZESIM_GROUND_TRUTH": gt}
			base := tr.run(t, dir, false, map[string]string{"ZESIM_GROUND_TRUTH": ""}, tt.app, tt.args...)
			got := tr.run(t, dir, true, env, tt.app, tt.args...)
			if got.code != 0 || base.code != 0 {
				t.Fatalf("exit %d (without zestall %d); stderr:\n%s", got.code, base.code, got.stderr)
			}
			if got.stdout != base.stdout {
				t.Errorf("stdout changed by zestall:\n%s\nwant:\n%s", got.stdout, base.stdout)
			}
			files := outputs(t, dir)
			if len(files) != 1 {
				t.Fatalf("want 1 output file, got %v; stderr:\n%s", files, got.stderr)
			}
			truth, err := groundtruth.Read(gt)
			if err != nil {
				t.Fatal(err)
			}
			checkCapture(t, readRecords(t, files[0]), truth)
		})
	}
}

func checkCapture(t *testing.T, recs []*pb.Record, truth *groundtruth.Truth) {
	t.Helper()
	if len(recs) == 0 || recs[0].GetHeader() == nil {
		t.Fatalf("first record is not a header")
	}
	hdr := recs[0].GetHeader()
	if len(hdr.Devices) == 0 {
		t.Errorf("header lists no devices")
	}
	for _, d := range hdr.Devices {
		if d.Name != truth.Config["device_name"] || d.TimerFrequencyHz == 0 || d.KernelTimestampValidBits != 32 {
			t.Errorf("header device %+v does not match the simulated device %v", d, truth.Config)
		}
	}
	modules := map[uint64]*pb.Module{}
	var kernels []*pb.Kernel
	var final *pb.Counters
	for _, r := range recs {
		switch {
		case r.GetModule() != nil:
			m := r.GetModule()
			modules[m.Id] = m
			src := m
			if m.ContentModuleId != 0 {
				src = modules[m.ContentModuleId]
				if src == nil {
					t.Errorf("module %d refers to unknown content module %d", m.Id, m.ContentModuleId)
					continue
				}
			}
			if len(src.NativeBinary) == 0 {
				t.Errorf("module %d has no native binary (%s)", m.Id, m.MissingDetail)
			}
			if len(src.DebugInfo) == 0 {
				t.Errorf("module %d has no debug info (%s)", m.Id, m.MissingDetail)
			}
		case r.GetKernel() != nil:
			kernels = append(kernels, r.GetKernel())
		case r.GetCounters() != nil:
			final = r.GetCounters()
		}
	}
	// Every kernel ISA the device created (ground truth) must appear with
	// the same name, base and size; a kernel object per zeKernelCreate.
	type key struct {
		name string
		base uint64
	}
	wantSize := map[key]uint64{}
	for _, k := range truth.Kernels {
		if k.Event == "create" {
			wantSize[key{k.Name, k.Base}] = k.Size
		}
	}
	seenKey := map[key]bool{}
	ids := map[uint64]bool{}
	for _, k := range kernels {
		if ids[k.Id] {
			t.Errorf("kernel id %d used twice", k.Id)
		}
		ids[k.Id] = true
		kk := key{k.Name, k.BaseAddress}
		size, ok := wantSize[kk]
		if !ok {
			t.Errorf("kernel %q at %#x is not in the ground truth", k.Name, k.BaseAddress)
			continue
		}
		seenKey[kk] = true
		if k.IsaSize != size {
			t.Errorf("kernel %q: isa_size %d, device says %d", k.Name, k.IsaSize, size)
		}
		if modules[k.ModuleId] == nil {
			t.Errorf("kernel %q refers to unknown module %d", k.Name, k.ModuleId)
		}
	}
	// The device creates an ISA per kernel section at module creation; the
	// application creates kernel objects for some of them. Every kernel
	// that ran must have been recorded.
	for _, l := range truth.Launches {
		if kk := (key{l.Name, l.Base}); !seenKey[kk] {
			t.Errorf("device ran kernel %q at %#x (launch %d), zestall did not record it", kk.name, kk.base, l.Launch)
		}
	}
	if final == nil || !final.Final {
		t.Fatalf("no final counters record")
	}
	if final.LaunchesSeen < uint64(len(truth.Launches)) {
		// Regular lists executed several times run more launches than
		// appends; appends are what the layer counts today.
		t.Logf("launches seen %d, executed %d", final.LaunchesSeen, len(truth.Launches))
	}
	if final.LaunchesSeen == 0 {
		t.Errorf("no launches seen")
	}
	var names []string
	for kk := range seenKey {
		names = append(names, kk.name)
	}
	sort.Strings(names)
	t.Logf("%d kernel records, %d distinct (name, base): %v", len(kernels), len(seenKey), names)
}

// TestReusedAddresses: churn destroys and re-creates kernels at the same
// GPU address; each creation is its own kernel record with a lifetime.
func TestReusedAddresses(t *testing.T) {
	tr := buildTree(t)
	dir := t.TempDir()
	res := tr.run(t, dir, true, map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst")}, "zestall-churn", "4")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	recs := readRecords(t, filepath.Join(dir, "out.zst"))
	byBase := map[uint64][]uint64{}
	destroyed := map[uint64]bool{}
	for _, r := range recs {
		if k := r.GetKernel(); k != nil {
			byBase[k.BaseAddress] = append(byBase[k.BaseAddress], k.Id)
		}
		if d := r.GetKernelDestroyed(); d != nil {
			destroyed[d.Id] = true
		}
	}
	reused := 0
	for base, ids := range byBase {
		if len(ids) < 2 {
			continue
		}
		reused++
		for _, id := range ids[:len(ids)-1] {
			if !destroyed[id] {
				t.Errorf("kernel %d at %#x was replaced at the same address but has no KernelDestroyed", id, base)
			}
		}
	}
	if reused == 0 {
		t.Errorf("no base address was reused by churn; the test proves nothing")
	}
}

// TestFailureModes: zestall never changes what the application does and
// says once, on stderr, why it is not profiling.
func TestFailureModes(t *testing.T) {
	tr := buildTree(t)
	tests := []struct {
		name       string
		env        map[string]string
		setup      func(t *testing.T, dir string) // before the run
		wantStderr string                         // substring; "" = nothing from zestall
		wantOutput bool
		check      func(t *testing.T, dir string)
	}{
		{name: "no tracing layer", env: map[string]string{"ZE_ENABLE_TRACING_LAYER": ""},
			wantStderr: "ZE_ENABLE_TRACING_LAYER=1"},
		{name: "no driver", env: map[string]string{"ZE_ENABLE_ALT_DRIVERS": "/nonexistent/libze_nothing.so"},
			wantStderr: "zeInit failed"},
		{name: "existing output file",
			setup: func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, "out.zst"), []byte("keep me"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantStderr: "cannot create the output file",
			check: func(t *testing.T, dir string) {
				b, _ := os.ReadFile(filepath.Join(dir, "out.zst"))
				if string(b) != "keep me" {
					t.Errorf("existing output file was changed: %q", b)
				}
			}},
		{name: "symlink at output path",
			setup: func(t *testing.T, dir string) {
				target := filepath.Join(dir, "victim")
				if err := os.WriteFile(target, []byte("victim"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(dir, "out.zst")); err != nil {
					t.Fatal(err)
				}
			},
			wantStderr: "cannot create the output file",
			check: func(t *testing.T, dir string) {
				b, _ := os.ReadFile(filepath.Join(dir, "victim"))
				if string(b) != "victim" {
					t.Errorf("symlink target was written: %q", b)
				}
			}},
		{name: "unwritable directory",
			env:        map[string]string{"ZESTALL_OUTPUT": "/proc/zestall-cannot-write/out.zst"},
			wantStderr: "cannot create the output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst")}
			for k, v := range tt.env {
				env[k] = v
			}
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			base := tr.run(t, dir, false, env, "zestall-simple", "3")
			got := tr.run(t, dir, true, env, "zestall-simple", "3")
			if got.code != base.code || got.stdout != base.stdout {
				t.Errorf("zestall changed the application: exit %d vs %d, stdout %q vs %q", got.code, base.code, got.stdout, base.stdout)
			}
			var ours []string
			for _, l := range strings.Split(got.stderr, "\n") {
				if strings.HasPrefix(l, "zestall:") {
					ours = append(ours, l)
				}
			}
			if len(ours) != 1 || !strings.Contains(ours[0], tt.wantStderr) {
				t.Errorf("stderr lines from zestall %q; want exactly one containing %q", ours, tt.wantStderr)
			}
			if tt.check != nil {
				tt.check(t, dir)
			}
		})
	}
}

// TestLaunchTimes: every launch the device executed is recorded exactly
// once, with the device start and end times the device really had.
func TestLaunchTimes(t *testing.T) {
	tr := buildTree(t)
	tests := []struct {
		app  string
		args []string
		env  map[string]string
	}{
		{"zestall-simple", []string{"5"}, nil},
		{"zestall-multi", []string{"8"}, nil},
		{"zestall-churn", []string{"4"}, nil},
		{"zestall-multi", []string{"2"}, map[string]string{"ZESIM_TIMESTAMP_OFFSET": "4294960000"}}, // kernel timestamps wrap
		// a regular list replayed 30 times, synchronised each time
		{"zestall-simple", []string{"3", "30"}, nil},
		// the loader wraps every handle: extension calls need translation
		{"zestall-multi", []string{"3"}, map[string]string{"ZE_ENABLE_LOADER_INTERCEPT": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.app+strings.Join(tt.args, "_"), func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("environment %v", tt.env)
				}
			}()
			recs, truth := tr.runTruth(t, tt.env, tt.app, tt.args...)
			checkLaunchTimes(t, recs, truth)
		})
	}
}

func checkLaunchTimes(t *testing.T, recs []*pb.Record, truth *groundtruth.Truth) {
	t.Helper()
	base := map[uint64]uint64{} // kernel id -> base address
	var launches []*pb.Launch
	var final *pb.Counters
	for _, r := range recs {
		switch {
		case r.GetKernel() != nil:
			base[r.GetKernel().Id] = r.GetKernel().BaseAddress
		case r.GetLaunch() != nil:
			launches = append(launches, r.GetLaunch())
		case r.GetCounters() != nil:
			final = r.GetCounters()
		}
	}
	if final == nil || !final.Final {
		t.Fatal("no final counters")
	}
	if len(launches) != len(truth.Launches) || final.LaunchesSeen != uint64(len(truth.Launches)) {
		t.Errorf("%d launch records (counters say %d), device executed %d", len(launches), final.LaunchesSeen, len(truth.Launches))
	}
	// Match each record to a device launch of the same kernel code that
	// started at the same time (one device tick is 26 ns at 38.4 MHz).
	const tol = 100
	used := make([]bool, len(truth.Launches))
	for _, l := range launches {
		if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 {
			t.Errorf("launch %d has no timestamp: %v", l.Id, l.NoTimestampReason)
			continue
		}
		found := false
		for i, g := range truth.Launches {
			if used[i] || g.Base != base[l.KernelId] {
				continue
			}
			if absDiff(g.StartNs, l.DeviceStartNs) <= tol && absDiff(g.EndNs, l.DeviceEndNs) <= tol {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("launch %d (kernel %d at %#x, %d..%d ns) matches no device launch", l.Id, l.KernelId, base[l.KernelId], l.DeviceStartNs, l.DeviceEndNs)
		}
		if l.DeviceStartNs < l.HostAppendNs {
			t.Errorf("launch %d starts before its append", l.Id)
		}
	}
}

func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}
