package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRecordCLIFixtures records the captures the CLI's golden tests read
// (cmd/zestall/testdata/*.zst) by running sample apps through the real
// loader on the simulated device. It runs only with
// ZESTALL_RECORD_FIXTURES=1 (all of them) or =<file> (that one, e.g.
// sycl.zst); then regenerate the goldens with
// `go test ./cmd/zestall -update`.
func TestRecordCLIFixtures(t *testing.T) {
	only := os.Getenv("ZESTALL_RECORD_FIXTURES")
	if only == "" {
		t.Skip("ZESTALL_RECORD_FIXTURES=1 not set: the checked-in fixtures are kept")
	}
	tr := buildTree(t)
	fixtures := []struct {
		file string
		app  string
		args []string
		env  map[string]string
	}{
		// Two threads, two modules with debug info, samples shared by
		// overlapping launches: the demo's run.
		{"multi.zst", "zestall-multi", []string{"2"}, map[string]string{
			"ZESIM_KERNEL_COST": "compute_poly=4000/3000,stream_triad=300", "ZESTALL_SAMPLING_PERIOD_NS": "10000"}},
		// Every launch alone: samples attributed to single launches.
		{"serialized.zst", "zestall-multi", []string{"2"}, map[string]string{
			"ZESTALL_SERIALIZE": "1", "ZESIM_KERNEL_COST": "*=20000/20000", "ZESTALL_SAMPLING_PERIOD_NS": "10000"}},
		// Collection stopped and started by the app (zestall_stop /
		// zestall_start): several windows.
		{"windows.zst", "zestall-window", []string{"api", "2", "4", "5"}, map[string]string{
			"ZESIM_KERNEL_COST": "*=20000/20000", "ZESTALL_SAMPLING_PERIOD_NS": "10000"}},
		// SYCL submissions through XPTI (test/xpti stand-ins): 2 threads,
		// 3 call sites each, nested tasks, launches outside tasks.
		{"sycl.zst", "zestall-sycl-app", []string{"2", "12", "truth.txt"}, map[string]string{
			"ZESIM_KERNEL_COST": "*=20000/20000", "ZESTALL_SAMPLING_PERIOD_NS": "10000", "SYCL_APP_SITES": "3",
			"XPTI_FRAMEWORK_DISPATCHER": filepath.Join(tr.build, "lib", "libxptifw_standin.so")}},
	}
	dst := filepath.Join(tr.root, "cmd", "zestall", "testdata")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		if only != "1" && only != f.file {
			continue
		}
		dir := t.TempDir()
		env := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst")}
		for k, v := range f.env {
			env[k] = v
		}
		if res := tr.run(t, dir, true, env, f.app, f.args...); res.code != 0 {
			t.Fatalf("%s: exit %d: %s", f.app, res.code, res.stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, "out.zst"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f.file), b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", filepath.Join(dst, f.file), len(b))
	}
}
