package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// rankCopy writes a copy of a real capture as the file of one MPI rank.
func rankCopy(t *testing.T, dir, src string, rank, local uint32) string {
	t.Helper()
	path := rewriteCapture(t, src, fmt.Sprintf("rank%04d.zst", rank), func(r *pb.Record) {
		if h := r.GetHeader(); h != nil {
			h.MpiRank, h.LocalRank = &rank, &local
			h.HostName = fmt.Sprintf("node%d", rank/12)
		}
	})
	if dir == "" {
		return path
	}
	dst := filepath.Join(dir, filepath.Base(path))
	if err := os.Rename(path, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// groundDeviceNs sums the device times of a file's timed launches, read
// record by record (not through the model).
func groundDeviceNs(t *testing.T, path string) (ns uint64, launches int) {
	for _, r := range readCapture(t, path) {
		if l := r.GetLaunch(); l != nil {
			launches++
			if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0 && l.DeviceEndNs >= l.DeviceStartNs {
				ns += l.DeviceEndNs - l.DeviceStartNs
			}
		}
	}
	return ns, launches
}

// TestRanks: the cross-rank view of three ranks' files (real captures,
// given out of rank order): a golden, per-rank figures and the imbalance
// equal what each file's own launch records imply, and a merged file of
// them shows the same.
func TestRanks(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	files := []string{rankCopy(t, "", windows, 2, 2), rankCopy(t, "", serialized, 0, 0), rankCopy(t, "", multi, 1, 1)}
	checkGolden(t, "report_ranks", cliResult(t, append([]string{"report", "--no-disasm"}, files...)))

	var rep jsonReport
	decode(t, append([]string{"report", "--json", "--no-disasm"}, files...), &rep)
	if len(rep.Ranks) != 3 || rep.Imbalance == nil {
		t.Fatalf("ranks: %+v imbalance %v", rep.Ranks, rep.Imbalance)
	}
	var sum, mx, mn uint64
	mn = ^uint64(0)
	slowest := ""
	for i, r := range rep.Ranks {
		if r.Rank == nil || *r.Rank != uint32(i) {
			t.Errorf("row %d: rank %v", i, r.Rank)
			continue
		}
		want := map[uint32]string{0: serialized, 1: multi, 2: windows}[*r.Rank]
		ns, n := groundDeviceNs(t, want)
		if r.DeviceNs != ns || r.Launches != n {
			t.Errorf("rank %d: %d ns over %d launches, its file holds %d ns over %d", *r.Rank, r.DeviceNs, r.Launches, ns, n)
		}
		sum += ns
		if ns > mx {
			mx, slowest = ns, fmt.Sprintf("rank %d", i)
		}
		mn = min(mn, ns)
	}
	im := rep.Imbalance
	if im.MaxNs != mx || im.MinNs != mn || im.Slowest != slowest || im.MeanNs != float64(sum)/3 {
		t.Errorf("imbalance %+v; files imply max %d (%s) min %d mean %f", im, mx, slowest, mn, float64(sum)/3)
	}

	merged := filepath.Join(t.TempDir(), "all.zst")
	decode(t, []string{"report", "--json", "--no-disasm", mergeFiles(t, merged, files)}, &rep)
	a, _ := json.Marshal(rep.Ranks)
	var direct jsonReport
	decode(t, append([]string{"report", "--json", "--no-disasm"}, files...), &direct)
	b, _ := json.Marshal(direct.Ranks)
	if string(a) != string(b) {
		t.Errorf("ranks of the merged file differ from the files':\n%s\n%s", a, b)
	}
}

func mergeFiles(t *testing.T, out string, files []string) string {
	t.Helper()
	var so, se = new(bytesBuffer), new(bytesBuffer)
	if code := run(append([]string{"merge", "-o", out}, files...), so, se); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, se.String())
	}
	return out
}

// TestManyRanks: report and merge over many small rank files (64 here;
// ZESTALL_SCALE_RANKS=1000 to measure) show every rank once, sum to the
// inputs, and keep the table bounded (--ranks). The heap in use after the
// report is printed: it grows with the number of files (a header and
// counters each), not with their records.
func TestManyRanks(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	n := 64
	if s := os.Getenv("ZESTALL_SCALE_RANKS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 2 {
			t.Fatalf("ZESTALL_SCALE_RANKS=%q", s)
		}
	}
	dir := t.TempDir()
	var files []string
	srcs := []string{multi, serialized, windows}
	var want uint64
	for i := 0; i < n; i++ {
		f := rankCopy(t, dir, srcs[i%3], uint32(i), uint32(i%12))
		files = append(files, f)
		ns, _ := groundDeviceNs(t, srcs[i%3])
		want += ns
	}
	if out := os.Getenv("ZESTALL_WRITE_RANKS"); out != "" {
		for _, f := range files {
			b, _ := os.ReadFile(f)
			os.WriteFile(filepath.Join(out, filepath.Base(f)), b, 0o644)
		}
	}
	start := time.Now()
	var rep jsonReport
	decode(t, append([]string{"report", "--json", "--no-disasm"}, files...), &rep)
	took := time.Since(start)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("report --json over %d rank files: %v; heap in use after: %d KiB", n, took, ms.HeapInuse>>10)
	if len(rep.Ranks) != n {
		t.Fatalf("%d ranks in the report, want %d", len(rep.Ranks), n)
	}
	var got uint64
	for i, r := range rep.Ranks {
		if r.Rank == nil || *r.Rank != uint32(i) {
			t.Fatalf("row %d: rank %v", i, r.Rank)
		}
		got += r.DeviceNs
	}
	if got != want {
		t.Errorf("ranks' device time sums to %d, the files to %d", got, want)
	}
	text := cliResult(t, append([]string{"report", "--no-disasm", "--ranks", "5"}, files...))
	if !contains(text, fmt.Sprintf("%d more in report --json", n-5)) {
		t.Errorf("the table is not bounded by --ranks:\n%s", text[:min(len(text), 3000)])
	}
}

type bytesBuffer = bytes.Buffer

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestTraceRanks: the trace of several ranks puts each rank's devices on
// their own process tracks, named by rank and the device id of the rank's
// own file.
func TestTraceRanks(t *testing.T) {
	files := []string{rankCopy(t, "", serialized, 0, 0), rankCopy(t, "", multi, 1, 1)}
	out := filepath.Join(t.TempDir(), "t.json")
	var so, se bytes.Buffer
	if code := run(append([]string{"trace", "-o", out}, files...), &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	b, _ := os.ReadFile(out)
	var doc struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	names := map[uint32]string{}
	used := map[uint32]bool{}
	for _, e := range doc.TraceEvents {
		if e.Name == "process_name" {
			names[e.Pid], _ = e.Args["name"].(string)
		}
		if e.Ph == "X" {
			used[e.Pid] = true
		}
	}
	want := map[uint32]string{1: "rank 0 device 1: ", 3: "rank 1 device 1: "}
	for pid, prefix := range want {
		if !used[pid] || !strings.HasPrefix(names[pid], prefix) {
			t.Errorf("process %d: %q (launches: %v), want %q…", pid, names[pid], used[pid], prefix)
		}
	}
}
