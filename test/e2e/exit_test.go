package e2e

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitFromThread: an application whose last act is exit() on a thread
// other than main while its other threads keep launching (issue 14). The
// loader's tracing layer itself crashes in such a process: its destructor
// frees its tracer state under the threads still calling through it
// (docs/level-zero-loader.md §10 "Hazards", P1; on this machine 2–10 runs
// of 30 end in SIGSEGV inside libze_tracing_layer.so.1 with no tracer at
// all). zestall keeps the application's launching threads parked while
// the process exits (cgo/layer.c). That protects a thread between two
// calls; a thread already inside a driver call when the layer is torn down
// is not (measured on main: 2 of 20 runs of 6 threads with mixed lists
// still crash in the layer, against 9 of 10 without zestall). So: every run
// under zestall that exits 0 has a complete output file; a run under
// zestall may end only by SIGSEGV (the loader's fault); and such runs may
// not be more frequent than without zestall in the same test (side by
// side) beyond chance: a one-sided Fisher exact test at p < 0.01 (with 10
// runs each, 6 crashes against none fail it). How often the loader crashes
// depends on the machine's load (1–9 of 10 without zestall, measured), so
// "strictly fewer" failed by chance when both were rare.
func TestExitFromThread(t *testing.T) {
	tr := buildTree(t)
	const runs = 10
	configs := []struct {
		name string
		args []string
	}{
		{"3 threads, immediate lists", []string{"3", "20000", "imm"}},
		{"6 threads, immediate and regular lists", []string{"6", "2000", "mixed"}},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			// Timing only (the sampling streamer changes nothing here
			// and would slow the runs); the sampling path's exit is
			// covered by TestExitStatusPropagation.
			base := map[string]string{"ZESIM_TIME_SCALE": "0", "ZET_ENABLE_METRICS": ""}
			var loaderCrashes, zestallCrashes []int
			for i := range runs {
				dir := t.TempDir()
				out := filepath.Join(dir, "out.zst")
				env := map[string]string{"ZESTALL_OUTPUT": out}
				for k, v := range base {
					env[k] = v
				}
				got := tr.runT(t, dir, true, env, "zestall-exit-thread", c.args...)
				without := tr.runT(t, dir, false, base, "zestall-exit-thread", c.args...)
				if without.code != 0 {
					loaderCrashes = append(loaderCrashes, without.code)
				}
				if got.code == 128+11 {
					zestallCrashes = append(zestallCrashes, got.code)
					continue
				}
				if got.code != 0 {
					t.Fatalf("run %d: exit status %d under zestall, want 0 (or the loader's SIGSEGV)\nstderr:\n%s", i, got.code, got.stderr)
				}
				if !strings.Contains(got.stdout, "exit-thread: exit(0) after") {
					t.Fatalf("run %d: the exiting thread's line is missing: %q", i, got.stdout)
				}
				s := summarize(readRecords(t, out))
				if s.header == nil || s.kernels == 0 || !s.final || s.launches == 0 {
					t.Fatalf("run %d: incomplete file: header %v, %d kernels, %d launches, final counters %v", i, s.header != nil, s.kernels, s.launches, s.final)
				}
			}
			if p := fisherGreater(len(zestallCrashes), len(loaderCrashes), runs); p < 0.01 {
				t.Errorf("%d of %d runs under zestall crashed (SIGSEGV), %d without zestall: zestall makes the loader's exit hazard worse (one-sided Fisher exact p = %.4f)", len(zestallCrashes), runs, len(loaderCrashes), p)
			}
			t.Logf("%d runs: under zestall %d ended in the loader's SIGSEGV, the others exit 0 with complete files; without zestall (tracing layer on) %d ended abnormally %s (the loader's hazard: docs/level-zero-loader.md §10 \"Hazards\", P1)", runs, len(zestallCrashes), len(loaderCrashes), fmtCodes(loaderCrashes))
		})
	}
}

func fmtCodes(codes []int) string {
	if len(codes) == 0 {
		return ""
	}
	return fmt.Sprintf("%v", codes)
}

// fisherGreater is the one-sided Fisher exact test's p-value that a
// events of n trials are that many or more by chance, against b of n,
// when both come from one rate: the hypergeometric tail P(X >= a) with
// a+b events among 2n trials, n of them the first kind.
func fisherGreater(a, b, n int) float64 {
	k := a + b
	choose := func(n, r int) float64 {
		if r < 0 || r > n {
			return 0
		}
		c := 1.0
		for i := 1; i <= r; i++ {
			c = c * float64(n-r+i) / float64(i)
		}
		return c
	}
	var p float64
	for x := a; x <= min(k, n); x++ {
		p += choose(n, x) * choose(n, k-x)
	}
	return p / choose(2*n, k)
}

// TestFisherGreater checks the test's statistic on hand-computed values.
func TestFisherGreater(t *testing.T) {
	for _, tt := range []struct {
		a, b, n int
		want    float64
	}{
		{0, 0, 10, 1},             // nothing happened: no evidence
		{1, 1, 10, 1 - 45.0/190},  // P(X >= 1) of 2 among 20, 10 each: 1 - C(10,0)C(10,2)/C(20,2)
		{6, 0, 10, 210.0 / 38760}, // C(10,6)/C(20,6)
		{5, 0, 10, 252.0 / 15504}, // C(10,5)/C(20,5)
		{10, 10, 10, 1},           // all crashed on both sides
	} {
		if got := fisherGreater(tt.a, tt.b, tt.n); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("fisherGreater(%d, %d, %d) = %v, want %v", tt.a, tt.b, tt.n, got, tt.want)
		}
	}
}
