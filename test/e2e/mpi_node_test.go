package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/test/groundtruth"
)

// TestMPINode runs 12 ranks under Debian's real launchers on a simulated
// Aurora node (ZESIM_CARDS=6: 12 PVC tiles, FLAT), each rank bound to a
// tile by ZE_AFFINITY_MASK from its local rank through a wrapper script, as
// on Aurora (docs/mpi.md §4). All ranks share one simulated machine
// (ZESIM_MACHINE), so one EU stall stream per tile holds across them and
// a stream samples every process on its tile.
//
//   - "bound": every rank has its own tile: every rank samples, its file
//     says rank, host and tile (Device.affinity_entry), nothing is flagged
//     possibly foreign, and the driver could say who else used the tile.
//
//   - "pair": local ranks 10 and 11 are both bound to tile 10. Exactly one
//     of them samples; the other says one line naming the tile and what to
//     do, and keeps timing every launch. Both run the same module at the
//     same addresses, so the sampler's stream sees the other's kernels at
//     its own kernels' IPs: its file flags those rows possibly foreign.
//
//   - "two-per-tile-24": 24 ranks, two per tile: 12 sample, 12 say why not.
//
// In all, the job's output and exit status are those of a run without
// zestall, and every launch of every rank is recorded with its device
// times.
func TestMPINode(t *testing.T) {
	tr := buildTree(t)
	for _, launcher := range []struct{ name, cmd, app string }{
		{"openmpi", "mpirun.openmpi", "zestall-mpi-openmpi"},
		{"mpich", "mpiexec.mpich", "zestall-mpi-mpich"},
	} {
		for _, sc := range []struct {
			name string
			np   int
			tile func(local int) int
		}{
			{"bound", 12, func(l int) int { return l }},
			{"pair", 12, func(l int) int { return min(l, 10) }},
			{"two-per-tile-24", 24, func(l int) int { return l % 12 }},
		} {
			t.Run(launcher.name+"-"+sc.name, func(t *testing.T) {
				path := mustHaveMPI(t, tr, launcher.cmd, launcher.app)
				np := sc.np
				dir := t.TempDir()
				ranksOn := map[int]int{} // tile -> ranks bound to it
				for l := 0; l < np; l++ {
					ranksOn[sc.tile(l)]++
				}
				// The Aurora wrapper: the rank's tile from its local rank.
				var cases strings.Builder
				for l := 0; l < np; l++ {
					fmt.Fprintf(&cases, "%d) export ZE_AFFINITY_MASK=%d ;;\n", l, sc.tile(l))
				}
				bind := filepath.Join(dir, "bind.sh")
				script := "#!/bin/sh\nl=${OMPI_COMM_WORLD_LOCAL_RANK:-$MPI_LOCALRANKID}\ncase \"$l\" in\n" + cases.String() + "esac\nexec \"$@\"\n"
				if err := os.WriteFile(bind, []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
				env := map[string]string{
					"ZESTALL_OUTPUT":        filepath.Join(dir, "zestall.%j", "%h.%r.zst"),
					"ZESTALL_MPI_TRUTH_DIR": dir,
					"ZESIM_CARDS":           "6",
					"ZESIM_MACHINE":         filepath.Join(dir, "machine"),
					// Sysman on core device handles: who else uses a tile.
					"ZES_ENABLE_SYSMAN": "1",
					// Kernels long enough to be sampled (2 x 32768 items x 20 ns).
					"ZESIM_KERNEL_COST":      "*=20000",
					"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
					"PBS_JOBID": "77.node",
				}
				args := func(layer string) []string {
					return append(mpiArgs(launcher.cmd, np, layer, bind), tr.bin(launcher.app))
				}
				base := tr.run(t, dir, false, env, path, args("")...)
				if base.code != 0 {
					t.Fatalf("without zestall: exit %d\n%s%s", base.code, base.stdout, base.stderr)
				}
				got := tr.run(t, dir, false, env, path, args(tr.layer)...)
				if got.code != 0 || got.stdout != base.stdout {
					t.Fatalf("with zestall: exit %d, stdout %q; without: %q\nstderr:\n%s", got.code, got.stdout, base.stdout, got.stderr)
				}
				busyLines := 0
				for _, l := range zestallLines(got.stderr) {
					if strings.Contains(l, "held by another process") {
						busyLines++
						if !strings.Contains(l, "ZE_AFFINITY_MASK entry ") || !strings.Contains(l, "ZESTALL_SAMPLE_RANKS") {
							t.Errorf("the busy line does not name the tile and what to do: %s", l)
						}
					}
				}
				host, _ := os.Hostname()
				sampled := map[int]bool{}
				for r := 0; r < np; r++ {
					file := filepath.Join(dir, "zestall.77.node", fmt.Sprintf("%s.%d.zst", host, r))
					recs := readRecords(t, file)
					h := recs[0].GetHeader()
					tile := strconv.Itoa(sc.tile(r)) // one host: local rank = global rank
					if h.GetMpiRank() != uint32(r) || h.GetLocalRank() != uint32(r) || h.HostName != host || h.ZeAffinityMask != tile {
						t.Errorf("rank %d: header rank %d local %d host %q mask %q", r, h.GetMpiRank(), h.GetLocalRank(), h.HostName, h.ZeAffinityMask)
					}
					var roots []*pb.Device
					for _, d := range h.Devices {
						if d.ParentId == 0 {
							roots = append(roots, d)
						}
					}
					if len(roots) != 1 || roots[0].AffinityEntry != tile {
						t.Fatalf("rank %d: root devices %v, want one with affinity entry %s", r, roots, tile)
					}
					truth, err := groundtruth.Read(filepath.Join(dir, fmt.Sprintf("truth.%d.jsonl", r)))
					if err != nil {
						t.Fatal(err)
					}
					if len(truth.Devices) != 1 || truth.Devices[0].NodeTile != sc.tile(r) {
						t.Errorf("rank %d: the device ran on %+v, want node tile %d", r, truth.Devices, sc.tile(r))
					}
					if len(truth.Launches) != 2*(4+r) {
						t.Errorf("rank %d: the device ran %d launches, want %d", r, len(truth.Launches), 2*(4+r))
					}
					c := lastCounters(recs)
					if !c.GetFinal() {
						t.Fatalf("rank %d: %s has no final counters (the rank did not finish its file)\nstderr:\n%s", r, file, got.stderr)
					}
					checkLaunchTimes(t, recs, truth)
					ss := roots[0].GetStallSampling()
					if ss.GetEnabled() {
						sampled[r] = true
						if c.GetStallRowsAttributed() == 0 {
							t.Errorf("rank %d sampled its tile but attributed no row", r)
						}
						if !h.OtherProcessesKnown {
							t.Errorf("rank %d: the driver could not say which processes use its tile", r)
						}
					} else if ss.GetOffReason() != pb.StallSamplingOff_STALL_SAMPLING_OFF_OPEN_FAILED {
						t.Errorf("rank %d: sampling off because %v", r, ss.GetOffReason())
					}
					foreignTruth := 0
					for _, s := range truth.Samples {
						if s.Foreign && !s.Dropped && !s.Undelivered {
							foreignTruth++
						}
					}
					shared := ranksOn[sc.tile(r)] > 1
					switch {
					case !shared && (c.GetStallRowsPossiblyForeign() != 0 || foreignTruth != 0):
						t.Errorf("rank %d alone on its tile: %d rows flagged possibly foreign, %d foreign samples in its truth", r, c.GetStallRowsPossiblyForeign(), foreignTruth)
					case shared && sampled[r] && foreignTruth > 0 && c.GetStallRowsPossiblyForeign() == 0:
						t.Errorf("rank %d sampled %d samples of the other rank on its tile, but flagged no row possibly foreign", r, foreignTruth)
					}
					if shared && sampled[r] && c.GetStallRowsPossiblyForeign() > 0 {
						if out, _, code := tr.report(t, file); code != 0 || !strings.Contains(out, "POSSIBLY FOREIGN: ") {
							t.Errorf("rank %d: zestall report (exit %d) does not say its rows may be foreign:\n%s", r, code, out)
						}
					}
					if shared && sampled[r] {
						t.Logf("rank %d sampled tile %d: %d delivered samples of the other rank in its truth, %d of %d attributed rows flagged possibly foreign",
							r, sc.tile(r), foreignTruth, c.GetStallRowsPossiblyForeign(), c.GetStallRowsAttributed())
					}
				}
				// Exactly one sampler per tile, whoever opened first.
				perTile := map[int]int{}
				for r := range sampled {
					perTile[sc.tile(r)]++
				}
				for tile := range ranksOn {
					if perTile[tile] != 1 {
						t.Errorf("tile %d (%d ranks): %d ranks sampled it, want exactly one", tile, ranksOn[tile], perTile[tile])
					}
				}
				wantSampled, wantBusy := len(ranksOn), np-len(ranksOn)
				if len(sampled) != wantSampled || busyLines != wantBusy {
					t.Errorf("%d ranks sampled (want %d), %d busy lines (want %d)\nstderr:\n%s", len(sampled), wantSampled, busyLines, wantBusy, got.stderr)
				}
			})
		}
	}
}

// lastCounters returns the file's last Counters record.
func lastCounters(recs []*pb.Record) *pb.Counters {
	var c *pb.Counters
	for _, r := range recs {
		if k := r.GetCounters(); k != nil {
			c = k
		}
	}
	return c
}

// TestDriverInternalSamples: copies and fills on a compute engine run as
// the driver's built-in kernels (ZESIM_BUILTIN_KERNELS=1), sampled at
// addresses no module of the application covers. zestall keeps every one
// of them unattributed (none is given to an application kernel), names
// their cause driver-internal (no other process used the device, as the
// driver says), and says so in the report.
func TestDriverInternalSamples(t *testing.T) {
	tr := buildTree(t)
	// 300 executions of a list of 4 copies of 16 KiB; every modelled
	// duration x20, so that each copy (23 us) spans a few sampling periods.
	recs, truth := tr.runTruth(t, map[string]string{"ZESIM_BUILTIN_KERNELS": "1", "ZESIM_TIME_SCALE": "20",
		"ZESTALL_SAMPLING_PERIOD_NS": "10000", "ZES_ENABLE_SYSMAN": "1"}, "zestall-simple", "3", "300")
	builtin := map[uint64]bool{}
	for _, k := range truth.Kernels {
		if k.Module == 0 {
			builtin[k.Kernel] = true
		}
	}
	want := map[uint64]bool{} // byte addresses (low 32 bits) of delivered built-in samples
	for _, s := range truth.Samples {
		if builtin[s.Kernel] && !s.Dropped && !s.Undelivered {
			want[(s.IP<<3)&0xffffffff] = true
		}
	}
	if len(want) == 0 {
		t.Fatalf("the device sampled no built-in kernel (%d samples, %d built-in kernels)", len(truth.Samples), len(builtin))
	}
	got := map[uint64]bool{}
	for _, r := range recs {
		u := r.GetUnattributed()
		if u == nil {
			continue
		}
		if u.Cause != pb.UnattributedCause_UNATTRIBUTED_CAUSE_DRIVER_INTERNAL || len(u.OtherPids) != 0 {
			t.Errorf("unattributed window %d-%d: cause %v, other pids %v", u.WindowStartHostNs, u.WindowEndHostNs, u.Cause, u.OtherPids)
		}
		var a uint64
		for _, d := range u.AddressDeltas {
			a += d
			got[a&0xffffffff] = true
		}
	}
	for a := range want {
		if !got[a] {
			t.Errorf("built-in kernel address %#x sampled and delivered, not in an Unattributed record", a)
		}
	}
	h := recs[0].GetHeader()
	c := lastCounters(recs)
	if !h.OtherProcessesKnown || c.GetStallRowsUnattributed() == 0 || c.GetStallRowsUnattributedOtherProcess() != 0 || c.GetStallRowsPossiblyForeign() != 0 {
		t.Errorf("header other_processes_known %v; counters: %d unattributed rows, %d of another process, %d possibly foreign",
			h.OtherProcessesKnown, c.GetStallRowsUnattributed(), c.GetStallRowsUnattributedOtherProcess(), c.GetStallRowsPossiblyForeign())
	}
}
