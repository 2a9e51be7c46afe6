package e2e

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestKernelChurnHandleReuse: threads create, launch and destroy kernels
// (and modules) at once, and the driver gives one thread's freed handle
// to another thread's new kernel or module while the first thread is
// still inside zeKernelDestroy or zeModuleDestroy. zestall forgets a
// destroyed object in the destroy prologue, while its handle still names
// it; forgotten in the epilogue, the new object's entries went instead
// (docs/level-zero-loader.md §10 "Hazards", P17): its launches had no
// kernel, or a kernel record ended before them, and its kernel or module
// never ended.
//
// zestall-kernel-churn (3 threads × 3000 kernels, a new module every 4)
// encodes which kernel each launch ran in its group count (x: 1 + the
// kernel's index in the app's names line, y: 1 + the thread), so every
// launch is checked against the kernel record it names: seen, timed, the
// right name, inside the kernel's lifetime, the kernel's module known and
// alive; every kernel and module ends exactly once.
//
// The race is made to happen, not hoped for: glibc's per-thread caches
// are off (GLIBC_TUNABLES), so a freed handle goes to whichever thread
// allocates next, and the simulated driver sleeps 20 µs after freeing the
// object in zeKernelDestroy and zeModuleDestroy (ZESIM_DESTROY_PAUSE_NS,
// a driver thread preempted right after the free), so the other threads
// create kernels at the freed address before the destroy returns to the
// tracing layer's epilogues. The app counts those reuses (2,500–4,500
// kernels and 28–144 modules per run, 2 vCPUs shared with other jobs); the
// test fails if no kernel or no module handle was reused during another
// thread's destroy (it would have proved nothing about it). With both
// destroy callbacks registered as epilogues again (before commit abd58db)
// it failed on every run (14 of 14), and with either one alone too (3 of
// 3 kernel, 4 of 4 module). The run takes about 1.5 s.
func TestKernelChurnHandleReuse(t *testing.T) {
	tr := buildTree(t)
	const iterations, threads, moduleEvery = 3000, 3, 4
	dir := t.TempDir()
	out := filepath.Join(dir, "out.zst")
	res := tr.run(t, dir, true, map[string]string{
		"ZESTALL_OUTPUT": out, "ZESIM_TIME_SCALE": "0", "ZESTALL_QUIET": "1",
		"GLIBC_TUNABLES":         "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1",
		"ZESIM_DESTROY_PAUSE_NS": "20000",
	}, "zestall-kernel-churn", strconv.Itoa(iterations), strconv.Itoa(threads), strconv.Itoa(moduleEvery))
	if res.code != 0 {
		t.Fatalf("zestall-kernel-churn: exit %d\nstderr:\n%s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "names ") {
		t.Fatalf("zestall-kernel-churn output:\n%s", res.stdout)
	}
	names := strings.Fields(lines[0])[1:]
	var nThreads, nIter, nLaunches, nKernels, nModules, kCross, kDuring, mCross, mDuring int64
	if _, err := fmt.Sscanf(lines[1], "kernel-churn threads %d iterations %d launches %d kernels %d modules %d "+
		"kernel_reuse_cross %d kernel_reuse_during_destroy %d module_reuse_cross %d module_reuse_during_destroy %d",
		&nThreads, &nIter, &nLaunches, &nKernels, &nModules, &kCross, &kDuring, &mCross, &mDuring); err != nil {
		t.Fatalf("zestall-kernel-churn output %q: %v", lines[1], err)
	}
	t.Logf("handles reused across threads: kernels %d (%d during the other thread's zeKernelDestroy), modules %d (%d during zeModuleDestroy)",
		kCross, kDuring, mCross, mDuring)

	type life struct {
		from, until uint64
		ended       int
	}
	kernels := map[uint64]*pb.Kernel{}
	kernelLife := map[uint64]*life{}
	moduleLife := map[uint64]*life{}
	var launches []*pb.Launch
	var c *pb.Counters
	for _, rec := range readRecords(t, out) {
		switch {
		case rec.GetModule() != nil:
			m := rec.GetModule()
			moduleLife[m.Id] = &life{from: m.CreatedHostNs, until: ^uint64(0)}
		case rec.GetModuleDestroyed() != nil:
			d := rec.GetModuleDestroyed()
			if l := moduleLife[d.Id]; l == nil {
				t.Errorf("ModuleDestroyed of unknown module %d", d.Id)
			} else {
				l.ended++
				l.until = d.HostNs
			}
		case rec.GetKernel() != nil:
			k := rec.GetKernel()
			kernels[k.Id] = k
			kernelLife[k.Id] = &life{from: k.ValidFromHostNs, until: ^uint64(0)}
		case rec.GetKernelDestroyed() != nil:
			d := rec.GetKernelDestroyed()
			if l := kernelLife[d.Id]; l == nil {
				t.Errorf("KernelDestroyed of unknown kernel %d", d.Id)
			} else {
				l.ended++
				l.until = d.ValidUntilHostNs
			}
		case rec.GetLaunch() != nil:
			launches = append(launches, rec.GetLaunch())
		case rec.GetCounters() != nil:
			c = rec.GetCounters()
		}
	}
	if c == nil || !c.Final {
		t.Fatalf("no final counters in the output\nstderr:\n%s", res.stderr)
	}
	want := uint64(iterations * threads)
	if uint64(nLaunches) != want || uint64(len(launches)) != want || c.LaunchesSeen != want || c.LaunchesTimed != want {
		t.Errorf("launches: the application made %d (want %d), the file has %d, zestall saw %d, timed %d",
			nLaunches, want, len(launches), c.LaunchesSeen, c.LaunchesTimed)
	}
	for _, l := range c.Lost {
		t.Errorf("lost: %d %s", l.Count, l.What)
	}
	if int64(len(kernels)) != nKernels || int64(len(moduleLife)) != nModules {
		t.Errorf("the application made %d kernels and %d modules, the file has %d and %d", nKernels, nModules, len(kernels), len(moduleLife))
	}
	// At most 10 errors of each kind are shown, then how many in all.
	shown := map[string]int{}
	report := func(kind, format string, args ...any) {
		if shown[kind]++; shown[kind] <= 10 {
			t.Errorf(format, args...)
		}
	}
	for id, l := range kernelLife {
		if l.ended != 1 {
			report("kernel end", "kernel %d (%s) ended %d times, want once", id, kernels[id].Name, l.ended)
		}
		k := kernels[id]
		if m := moduleLife[k.ModuleId]; m == nil {
			report("kernel module", "kernel %d (%s) belongs to unknown module %d", id, k.Name, k.ModuleId)
		} else if l.from < m.from || l.from > m.until {
			report("kernel module", "kernel %d (%s) was created at %d, outside its module %d's life [%d, %d]", id, k.Name, l.from, k.ModuleId, m.from, m.until)
		}
	}
	for id, l := range moduleLife {
		if l.ended != 1 {
			report("module end", "module %d ended %d times, want once", id, l.ended)
		}
	}
	perThread := make([]int, threads)
	for _, l := range launches {
		var why string
		k := kernels[l.KernelId]
		name := int(l.GroupCountX) - 1
		switch {
		case k == nil:
			why = "no kernel record"
		case name < 0 || name >= len(names) || int(l.GroupCountY) < 1 || int(l.GroupCountY) > threads:
			why = "group count not the application's"
		case k.Name != names[name]:
			why = fmt.Sprintf("kernel %q, the application launched %q", k.Name, names[name])
		case l.GroupSizeX != 64:
			why = fmt.Sprintf("group size %d, the application set 64", l.GroupSizeX)
		case l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 || l.DeviceEndNs == 0:
			why = "no device times"
		case l.HostAppendNs < kernelLife[l.KernelId].from || l.HostAppendNs >= kernelLife[l.KernelId].until:
			why = fmt.Sprintf("appended at %d, outside its kernel's life [%d, %d)", l.HostAppendNs,
				kernelLife[l.KernelId].from, kernelLife[l.KernelId].until)
		}
		if why != "" {
			report("launch", "launch %d (kernel id %d, groups %d×%d×%d): %s", l.Id, l.KernelId, l.GroupCountX, l.GroupCountY, l.GroupCountZ, why)
			continue
		}
		perThread[l.GroupCountY-1]++
	}
	for _, kind := range slices.Sorted(maps.Keys(shown)) {
		if shown[kind] > 10 {
			t.Errorf("... %d errors of kind %q in all (%d kernels, %d modules, %d launches)", shown[kind], kind, len(kernels), len(moduleLife), len(launches))
		}
	}
	for i, n := range perThread {
		if n != iterations {
			t.Errorf("thread %d: %d launches attributed right, want %d", i, n, iterations)
		}
	}
	if kDuring == 0 || mDuring == 0 {
		t.Errorf("handles reused during another thread's destroy: %d kernels (%d across threads at all), %d modules (%d): "+
			"with none of either, the test proved nothing about it", kDuring, kCross, mDuring, mCross)
	}
}
