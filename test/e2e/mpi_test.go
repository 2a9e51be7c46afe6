package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/test/groundtruth"
)

// TestMPIJob runs an MPI job under Debian's real launchers (Open MPI's
// mpirun and MPICH's Hydra mpiexec), 12 and 24 ranks oversubscribed on
// this machine's cores, with libzestall.so given to the ranks the way a
// user does (-x / -genv LD_PRELOAD). Every selected rank writes its own
// file, in a job-level directory, naming its global rank, local rank, job
// size and the variable they came from; every launch of every rank is
// recorded with the device times of that rank's ground truth; ranks
// outside ZESTALL_RANKS write nothing, ranks outside ZESTALL_SAMPLE_RANKS
// time kernels without sampling; the job's output and exit status are
// those of a run without zestall.
func TestMPIJob(t *testing.T) {
	tr := buildTree(t)
	tests := []struct {
		name, launcher, app, rankVar string
		np                           int
		ranks, sample                string
		selected, sampled            func(rank int) bool
	}{
		{"openmpi-12", "mpirun.openmpi", "zestall-mpi-openmpi", "OMPI_COMM_WORLD_RANK", 12, "", "", all, all},
		{"mpich-12", "mpiexec.mpich", "zestall-mpi-mpich", "PMI_RANK", 12, "", "", all, all},
		{"openmpi-24-chosen-ranks", "mpirun.openmpi", "zestall-mpi-openmpi", "OMPI_COMM_WORLD_RANK", 24, "0,12-23", "0,12",
			func(r int) bool { return r == 0 || r >= 12 }, func(r int) bool { return r == 0 || r == 12 }},
		{"mpich-24-chosen-ranks", "mpiexec.mpich", "zestall-mpi-mpich", "PMI_RANK", 24, "1-3", "2",
			func(r int) bool { return r >= 1 && r <= 3 }, func(r int) bool { return r == 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			launcher := mustHaveMPI(t, tr, tt.launcher, tt.app)
			dir := t.TempDir()
			env := map[string]string{
				"ZESTALL_OUTPUT":        filepath.Join(dir, "zestall.%j", "%r.%l.zst"),
				"ZESTALL_MPI_TRUTH_DIR": dir,
				"ZESTALL_QUIET":         "1",
				"ZESTALL_RANKS":         tt.ranks,
				"ZESTALL_SAMPLE_RANKS":  tt.sample,
				// Open MPI refuses to run as root without these (CI runs as root).
				"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
				// Whatever batch system the tests run under, the job id
				// is this one.
				"PBS_JOBID": "4242.test",
			}
			base := tr.run(t, dir, false, env, launcher, mpiArgs(tt.launcher, tt.np, "", tr.bin(tt.app))...)
			if base.code != 0 {
				t.Fatalf("without zestall: exit %d\n%s%s", base.code, base.stdout, base.stderr)
			}
			got := tr.run(t, dir, false, env, launcher, mpiArgs(tt.launcher, tt.np, tr.layer, tr.bin(tt.app))...)
			if got.code != 0 || got.stdout != base.stdout {
				t.Fatalf("with zestall: exit %d, stdout %q; without: %q\nstderr:\n%s", got.code, got.stdout, base.stdout, got.stderr)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "zestall.4242.test", "*.zst"))
			want := 0
			for r := 0; r < tt.np; r++ {
				if tt.selected(r) {
					want++
				}
			}
			if len(files) != want {
				t.Fatalf("%d files, want %d (ranks %q): %v\nstderr:\n%s", len(files), want, tt.ranks, files, got.stderr)
			}
			host, _ := os.Hostname()
			for r := 0; r < tt.np; r++ {
				path := filepath.Join(dir, "zestall.4242.test", fmt.Sprintf("%d.%d.zst", r, r)) // one host: local = global
				if _, err := os.Stat(path); err != nil {
					if tt.selected(r) {
						t.Errorf("rank %d: %v", r, err)
					}
					continue
				}
				if !tt.selected(r) {
					t.Errorf("rank %d is outside ZESTALL_RANKS=%s but wrote %s", r, tt.ranks, path)
					continue
				}
				recs := readRecords(t, path)
				h := recs[0].GetHeader()
				if h.GetMpiRank() != uint32(r) || h.GetLocalRank() != uint32(r) || h.GetJobSize() != uint32(tt.np) ||
					h.RankVariable != tt.rankVar || h.JobId != "4242.test" || h.HostName != host {
					t.Errorf("rank %d: header rank %d local %d size %d from %q, job %q, host %q", r,
						h.GetMpiRank(), h.GetLocalRank(), h.GetJobSize(), h.RankVariable, h.JobId, h.HostName)
				}
				for _, d := range h.Devices {
					if d.ParentId != 0 {
						continue
					}
					on := d.GetStallSampling().GetEnabled()
					if on != tt.sampled(r) {
						t.Errorf("rank %d device %d: stall sampling %v (%v), want %v", r, d.Id, on, d.GetStallSampling().GetOffReason(), tt.sampled(r))
					}
					if !on && d.GetStallSampling().GetOffReason() != pb.StallSamplingOff_STALL_SAMPLING_OFF_DISABLED {
						t.Errorf("rank %d device %d: off because %v, want DISABLED", r, d.Id, d.GetStallSampling().GetOffReason())
					}
				}
				truth, err := groundtruth.Read(filepath.Join(dir, fmt.Sprintf("truth.%d.jsonl", r)))
				if err != nil {
					t.Fatal(err)
				}
				if len(truth.Launches) != 2*(4+r) { // two kernels in the stream module, 4+rank times
					t.Errorf("rank %d: the device ran %d launches, want %d", r, len(truth.Launches), 2*(4+r))
				}
				checkLaunchTimes(t, recs, truth)
			}
		})
	}
}

func all(int) bool { return true }

// mpiArgs is the launcher's command line for np ranks of app, with layer
// preloaded in the ranks only (never in the launcher) when it is not "".
func mpiArgs(launcher string, np int, layer, app string) []string {
	n := fmt.Sprint(np)
	if launcher == "mpirun.openmpi" {
		args := []string{"--oversubscribe", "-np", n}
		if layer != "" {
			args = append(args, "-x", "LD_PRELOAD="+layer)
		}
		return append(args, app)
	}
	args := []string{"-n", n}
	if layer != "" {
		args = append(args, "-genv", "LD_PRELOAD", layer)
	}
	return append(args, app)
}

// mustHaveMPI returns the launcher's path, or ends the test: it fails
// when scripts/test.sh runs it (ZESTALL_BUILD_DIR set: setup.sh installs
// both MPI implementations), and skips with the reason otherwise.
func mustHaveMPI(t *testing.T, tr tree, launcher, app string) string {
	t.Helper()
	path, err := exec.LookPath(launcher)
	missing := ""
	if err != nil {
		missing = launcher + " not found (Debian packages openmpi-bin and mpich; scripts/setup.sh installs them)"
	} else if _, err := os.Stat(tr.bin(app)); err != nil {
		missing = app + " not built (its MPI compiler wrapper was missing when the build was configured: libopenmpi-dev, libmpich-dev)"
	}
	if missing == "" {
		return path
	}
	if os.Getenv("ZESTALL_BUILD_DIR") != "" {
		t.Fatal(missing)
	}
	t.Skip(missing)
	return ""
}

// bin is the path of a program of the build tree.
func (tr tree) bin(name string) string { return filepath.Join(tr.build, "bin", name) }
