package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// TestLaunchTableAddsUp: the per-launch table of a kernel holds every
// launch of it, and the samples attributed to single launches add up to
// the report's single-launch total of that kernel; the longest-N table
// keeps exactly the N longest launches.
func TestLaunchTableAddsUp(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	for _, file := range []string{multi, serialized, windows} {
		var rep struct {
			StallSamples struct {
				SingleLaunch uint64 `json:"single_launch"`
			} `json:"stall_samples"`
			Kernels []struct {
				Name            string
				Launches        int
				LaunchesUntimed int    `json:"launches_untimed"`
				MaxNs           uint64 `json:"max_ns"`
			}
		}
		decode(t, []string{"report", "--json", "--no-disasm", file}, &rep)
		var own uint64
		var maxNs uint64
		total := 0
		for _, k := range rep.Kernels {
			var ls jsonLaunches
			decode(t, []string{"report", "--launches", "--json", "--kernel", k.Name, file}, &ls)
			if len(ls.Launches) != k.Launches+k.LaunchesUntimed || ls.Matched != len(ls.Launches) {
				t.Errorf("%s %s: %d launches in the table (matched %d), report says %d+%d", file, k.Name, len(ls.Launches), ls.Matched, k.Launches, k.LaunchesUntimed)
			}
			total += len(ls.Launches)
			for _, l := range ls.Launches {
				own += l.Samples
				if l.Kernel != k.Name {
					t.Errorf("%s: launch %d of %s in the table of %s", file, l.ID, l.Kernel, k.Name)
				}
			}
			maxNs = max(maxNs, k.MaxNs)
		}
		if own != rep.StallSamples.SingleLaunch {
			t.Errorf("%s: per-launch samples add up to %d, report's single_launch is %d", file, own, rep.StallSamples.SingleLaunch)
		}
		var top jsonLaunches
		decode(t, []string{"report", "--launches", "--json", "--limit", "3", file}, &top)
		if len(top.Launches) != min(3, total) || top.Matched != total {
			t.Errorf("%s: --limit 3 kept %d of %d", file, len(top.Launches), top.Matched)
		}
		if len(top.Launches) > 0 && *top.Launches[0].DeviceNs != maxNs {
			t.Errorf("%s: longest launch %d ns, report's max %d", file, *top.Launches[0].DeviceNs, maxNs)
		}
	}
}

func decode(t *testing.T, args []string, v any) {
	t.Helper()
	var so, se bytes.Buffer
	if code := run(args, &so, &se); code != 0 {
		t.Fatalf("zestall %v: exit %d: %s", args, code, se.String())
	}
	if err := json.Unmarshal(so.Bytes(), v); err != nil {
		t.Fatalf("zestall %v: %v", args, err)
	}
}

// TestLaunchSelectionBounded: over a synthetic capture of 50,000 launches,
// the longest-N selection holds N launches (its memory does not grow with
// the run) and they are the N longest; the per-kernel selection holds
// exactly that kernel's launches.
func TestLaunchSelectionBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "synth.zst")
	writeSyntheticCapture(t, path, 50_000)
	var durs []uint64
	perKernel := 0
	for _, r := range readCapture(t, path) {
		if l := r.GetLaunch(); l != nil {
			durs = append(durs, l.DeviceEndNs-l.DeviceStartNs)
			if l.KernelId == 7 {
				perKernel++
			}
		}
	}
	slices.Sort(durs)
	m := newRunModel()
	m.launchSel = newLaunchSelection("", 5)
	if _, err := m.load([]string{path}, nil); err != nil {
		t.Fatal(err)
	}
	if len(m.launchSel.byID) != 5 || len(m.launchSel.top) != 5 || m.launchSel.seen != len(durs) {
		t.Fatalf("kept %d/%d of %d", len(m.launchSel.byID), len(m.launchSel.top), m.launchSel.seen)
	}
	for i, l := range m.launchSel.launches() {
		if want := durs[len(durs)-1-i]; l.durationNs() != want {
			t.Errorf("longest #%d: %d ns, want %d", i, l.durationNs(), want)
		}
	}
	m = newRunModel()
	m.launchSel = newLaunchSelection("kernel_07", 0)
	if _, err := m.load([]string{path}, nil); err != nil {
		t.Fatal(err)
	}
	if len(m.launchSel.all) != perKernel || perKernel == 0 {
		t.Errorf("kernel_07: kept %d, the file has %d", len(m.launchSel.all), perKernel)
	}
}
