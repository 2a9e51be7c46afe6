package e2e

import (
	"fmt"
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
// zestall may end only by SIGSEGV (the loader's fault), and such runs must
// be rarer than without zestall in the same test (side by side), so that
// zestall provably makes the hazard no worse.
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
			if len(zestallCrashes) > 0 && len(zestallCrashes) >= len(loaderCrashes) {
				t.Errorf("%d of %d runs under zestall crashed (SIGSEGV), %d without zestall: zestall makes the loader's exit hazard no better", len(zestallCrashes), runs, len(loaderCrashes))
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
