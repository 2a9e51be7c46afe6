package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/test/buildtree"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// The fixtures testdata/*.zst are real captures: sample apps run through
// Debian's loader on the simulated device, with the kernels and DWARF of
// Debian's compiler (test/kernels). test/e2e's TestRecordCLIFixtures
// records them again (ZESTALL_RECORD_FIXTURES=1); then run
// `go test ./cmd/zestall -update`.

// igaHelper returns the zestall-iga helper of the build tree (brought up to
// date by test/buildtree), or skips with the precise reason IGA cannot run.
func igaHelper(t *testing.T) string {
	t.Helper()
	helper := buildtree.Get(t).Bin(helperName)
	out, err := exec.Command(helper, "--version").CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 3 {
		// IGA missing is an environment problem, not a failure: say which.
		t.Skipf("IGA cannot be loaded (scripts/setup.sh installs Debian's libigc1): %s", strings.TrimSpace(string(out)))
	}
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", helper, err, out)
	}
	return helper
}

// cliResult is one CLI run as a golden file holds it.
func cliResult(t *testing.T, args []string) string {
	t.Helper()
	var so, se bytes.Buffer
	code := run(args, &so, &se)
	tmp := regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/Test\w+/\d+`)
	norm := func(s string) string { return tmp.ReplaceAllString(s, "$$TMP") }
	return fmt.Sprintf("$ zestall %s\nexit %d\n--- stdout\n%s--- stderr\n%s", norm(strings.Join(args, " ")), code, norm(so.String()), norm(se.String()))
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/zestall -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (if intended: go test ./cmd/zestall -update)\n%s", path, diffLines(string(want), got))
	}
}

// diffLines shows the first differing lines.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, a, b)
		}
	}
	return "(equal lines)"
}

// readCapture reads every record of a complete file.
func readCapture(t testing.TB, path string) []*pb.Record {
	t.Helper()
	recs, err := pbstream.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// stripDebugInfo writes a copy of a capture whose modules carry no debug
// info, as a driver without zetModuleGetDebugInfo support produces.
func stripDebugInfo(t *testing.T, src string) string {
	t.Helper()
	recs := readCapture(t, src)
	dst := filepath.Join(t.TempDir(), "nodebug.zst")
	out, err := stream.CreateExclusive(dst)
	if err != nil {
		t.Fatal(err)
	}
	w, err := stream.NewWriter(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if m := r.GetModule(); m != nil {
			m.DebugInfo = nil
			m.MissingDetail = "zetModuleGetDebugInfo: ZE_RESULT_ERROR_UNSUPPORTED_FEATURE"
		}
		if err := pbstream.Write(w, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return dst
}

const (
	multi      = "testdata/multi.zst"
	serialized = "testdata/serialized.zst"
	windows    = "testdata/windows.zst"
	syclRun    = "testdata/sycl.zst" // SYCL tasks through XPTI (test/xpti stand-ins)
	sources    = "../../test/kernels"
)

// TestGoldenWithoutIGA: the views that need no disassembler, and every view
// when the helper is missing (offsets only, said once on stderr).
func TestGoldenWithoutIGA(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	tests := []struct {
		name string
		args []string
	}{
		{"dump_multi", []string{"dump", multi}},
		{"report_multi_nodisasm", []string{"report", "--no-disasm", multi}},
		{"report_windows_nodisasm", []string{"report", "--no-disasm", windows}},
		{"report_json_windows", []string{"report", "--json", "--no-disasm", windows}},
		{"report_json_merged", []string{"report", multi, serialized, "--no-disasm", "--json", "--top", "2"}},
		{"report_multi_nohelper", []string{"report", multi}},
		{"annotate_multi_nohelper", []string{"annotate", "--kernel", "stream_triad", "--source-dir", sources, multi}},
		{"annotate_multi_source_nodisasm", []string{"annotate", "--source", "--no-disasm", "--source-dir", sources, multi}},
		{"report_launches_kernel", []string{"report", "--launches", "--kernel", "compute_poly", multi}},
		{"report_launches_longest", []string{"report", serialized, "--launches", "--limit", "5"}},
		{"report_launches_json", []string{"report", "--launches", "--json", "--kernel", "compute_poly", serialized}},
		{"annotate_launch", []string{"annotate", "--launch", "22", "--source", "--no-disasm", "--source-dir", sources, serialized}},
		{"annotate_launch_missing", []string{"annotate", "--launch", "99999", serialized}},
		{"report_sycl_nodisasm", []string{"report", "--no-disasm", syclRun}},
		{"annotate_sycl_nodisasm", []string{"annotate", "--no-disasm", "--source-dir", sources, syclRun}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, cliResult(t, tt.args)) })
	}
}

// TestGoldenIGA: report and annotate with the real IGA's disassembly and
// the real compiler's DWARF lines.
func TestGoldenIGA(t *testing.T) {
	t.Setenv(helperEnv, igaHelper(t))
	nodebug := stripDebugInfo(t, multi)
	tests := []struct {
		name string
		args []string
	}{
		{"report_multi", []string{"report", multi}},
		{"report_serialized", []string{"report", "--top", "3", serialized}},
		{"report_windows", []string{"report", windows}},
		{"annotate_multi_asm", []string{"annotate", "--source-dir", sources, multi}},
		{"annotate_multi_source", []string{"annotate", "--source", "--source-dir", sources, multi}},
		{"annotate_nodebug", []string{"annotate", "--source", "--kernel", "stream_triad", nodebug}},
		{"report_merged_inputs", []string{"report", multi, serialized}},
		{"diff_multi_serialized_iga", []string{"diff", "--top", "3", multi, serialized}},
		{"annotate_launch_iga", []string{"annotate", "--launch", "22", "--source-dir", sources, serialized}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, cliResult(t, tt.args)) })
	}
	t.Run("iga_missing", func(t *testing.T) {
		t.Setenv("ZESTALL_IGA_LIBRARY", "/nonexistent/libiga64.so.1")
		checkGolden(t, "annotate_iga_missing", cliResult(t, []string{"annotate", "--kernel", "stream_triad", "--source-dir", sources, multi}))
	})
}

// TestGoldenPprof: the profile's contents, as pprof's own text form.
func TestGoldenPprof(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.pb.gz")
	checkGolden(t, "pprof_multi", pprofOf(t, multi, out).String())
	// Never overwrite: a second run fails and leaves the file.
	var so, se bytes.Buffer
	if code := run([]string{"pprof", multi, "-o", out}, &so, &se); code != 1 || !strings.Contains(se.String(), "exists") {
		t.Errorf("pprof over an existing file: exit %d, stderr %q", code, se.String())
	}
}

// TestGoldenTrace: the trace JSON, and that it is valid trace-event format.
func TestGoldenTrace(t *testing.T) {
	checkTraceGolden(t, "trace_serialized", serialized, filepath.Join(t.TempDir(), "t.json"))
}

// checkTraceGolden runs `zestall trace in -o out`, checks that the JSON is
// valid trace-event format and compares it, indented, with golden name.
func checkTraceGolden(t *testing.T, name, in, out string) {
	t.Helper()
	var so, se bytes.Buffer
	if code := run([]string{"trace", in, "-o", out}, &so, &se); code != 0 {
		t.Fatalf("trace %s: exit %d: %s", in, code, se.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	validateTraceEvents(t, b)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", " "); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, name, pretty.String())
}

// validateTraceEvents checks the JSON Object Format of the Trace Event
// Format (the one chrome://tracing and Perfetto load): a "traceEvents"
// array of objects, each with a one-character phase "ph", a name, numeric
// pid/tid; complete events ("X") with numeric ts and non-negative dur;
// metadata events ("M") naming processes or threads in args.name.
func validateTraceEvents(t *testing.T, b []byte) {
	t.Helper()
	var doc struct {
		TraceEvents     []map[string]json.RawMessage `json:"traceEvents"`
		DisplayTimeUnit string                       `json:"displayTimeUnit"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not a trace-event JSON object: %v", err)
	}
	if doc.DisplayTimeUnit != "ns" && doc.DisplayTimeUnit != "ms" {
		t.Errorf("displayTimeUnit %q: the format allows \"ms\" or \"ns\"", doc.DisplayTimeUnit)
	}
	num := func(e map[string]json.RawMessage, f string) (float64, bool) {
		var v float64
		raw, ok := e[f]
		return v, ok && json.Unmarshal(raw, &v) == nil
	}
	str := func(e map[string]json.RawMessage, f string) string {
		var s string
		json.Unmarshal(e[f], &s)
		return s
	}
	complete := 0
	flowStarts := map[float64]bool{}
	for i, e := range doc.TraceEvents {
		for _, f := range []string{"pid", "tid"} {
			if v, ok := num(e, f); !ok || v < 0 || v != float64(int64(v)) {
				t.Fatalf("event %d: %s is not a non-negative integer: %s", i, f, e[f])
			}
		}
		if str(e, "name") == "" {
			t.Fatalf("event %d has no name", i)
		}
		switch ph := str(e, "ph"); ph {
		case "X":
			complete++
			ts, ok1 := num(e, "ts")
			dur, ok2 := num(e, "dur")
			if !ok1 || !ok2 || ts < 0 || dur <= 0 {
				t.Fatalf("complete event %d: ts %s dur %s", i, e["ts"], e["dur"])
			}
		case "M":
			var args struct{ Name string }
			json.Unmarshal(e["args"], &args)
			if n := str(e, "name"); n != "process_name" && n != "thread_name" || args.Name == "" {
				t.Fatalf("metadata event %d: %s %s", i, e["name"], e["args"])
			}
		case "C":
			// Counter events: numeric ts, args of numbers.
			var args map[string]float64
			if _, ok := num(e, "ts"); !ok || json.Unmarshal(e["args"], &args) != nil || len(args) == 0 {
				t.Fatalf("counter event %d: ts %s args %s", i, e["ts"], e["args"])
			}
		case "s", "f": // flows from a SYCL task to its launches
			id, ok := num(e, "id")
			if ts, ok2 := num(e, "ts"); !ok || id <= 0 || !ok2 || ts < 0 {
				t.Fatalf("flow event %d: id %s ts %s", i, e["id"], e["ts"])
			}
			if ph == "s" {
				flowStarts[id] = true
			} else if !flowStarts[id] || str(e, "bp") != "e" {
				t.Fatalf("flow end %d (id %v): no start before it, or bp %q", i, id, str(e, "bp"))
			}
		default:
			t.Fatalf("event %d: phase %q not produced by zestall", i, ph)
		}
	}
	if complete == 0 {
		t.Fatal("no complete events")
	}
}

// TestMerge: merging keeps every record, makes ids unique and keeps where
// each record came from; the merged file reads as the inputs read together;
// merge never overwrites.
func TestMerge(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	dir := t.TempDir()
	out := filepath.Join(dir, "merged.zst")
	var so, se bytes.Buffer
	if code := run([]string{"merge", multi, serialized, "-o", out}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if code := run([]string{"merge", multi, "-o", out}, &so, &se); code != 1 || !strings.Contains(se.String(), "exists") {
		t.Errorf("merge over an existing file: exit %d, stderr %q", code, se.String())
	}
	a, b, m := readCapture(t, multi), readCapture(t, serialized), readCapture(t, out)
	// Header, 2 MergeSource, records without header/counters, 1 Counters.
	body := func(rs []*pb.Record) (n int) {
		for _, r := range rs {
			if r.GetHeader() == nil && r.GetCounters() == nil {
				n++
			}
		}
		return n
	}
	if want := 1 + 2 + body(a) + body(b) + 1; len(m) != want {
		t.Errorf("merged file has %d records, want %d", len(m), want)
	}
	seen := map[string]bool{}
	var src uint32
	for _, r := range m {
		var key string
		switch k := r.Kind.(type) {
		case *pb.Record_MergeSource:
			src = k.MergeSource.Index
			if k.MergeSource.Header == nil || k.MergeSource.Counters == nil || !k.MergeSource.Counters.Final || k.MergeSource.RecordsRead == 0 {
				t.Errorf("source %d incomplete: %v", src, k.MergeSource)
			}
		case *pb.Record_Launch:
			key = fmt.Sprint("launch ", k.Launch.Id)
		case *pb.Record_Kernel:
			key = fmt.Sprint("kernel ", k.Kernel.Id)
		case *pb.Record_Module:
			key = fmt.Sprint("module ", k.Module.Id)
		}
		if key != "" {
			if seen[key] {
				t.Errorf("%s appears twice", key)
			}
			seen[key] = true
		}
	}
	if h := m[0].GetHeader(); h == nil || len(h.Devices) != len(a[0].GetHeader().Devices)+len(b[0].GetHeader().Devices) {
		t.Errorf("merged header devices: %v", m[0])
	}
	c := m[len(m)-1].GetCounters()
	if c == nil || c.LaunchesSeen != a[len(a)-1].GetCounters().LaunchesSeen+b[len(b)-1].GetCounters().LaunchesSeen || !c.Final {
		t.Errorf("summed counters: %v", c)
	}
	checkGolden(t, "dump_merged", cliResult(t, []string{"dump", out}))

	// A merged file merged again with a third run: the inner sources
	// are kept, renumbered after the outer inputs, and their offsets
	// lead from the original ids to the final ones.
	nested := filepath.Join(dir, "nested.zst")
	if code := run([]string{"merge", windows, out, "-o", nested}, &so, &se); code != 0 {
		t.Fatalf("nested merge: exit %d: %s", code, se.String())
	}
	var srcs []*pb.MergeSource
	owner := map[uint64]uint32{} // final launch id -> source index
	var cur uint32
	for _, r := range readCapture(t, nested) {
		if ms := r.GetMergeSource(); ms != nil {
			srcs = append(srcs, ms)
			cur = ms.Index
		}
		if l := r.GetLaunch(); l != nil {
			owner[l.Id] = cur
		}
	}
	if len(srcs) != 4 || srcs[0].Index != 1 || srcs[1].Index != 2 || srcs[2].Index != 3 || srcs[3].Index != 4 {
		t.Fatalf("nested sources: %v", srcs)
	}
	for i, in := range map[int][]*pb.Record{2: a, 3: b} {
		src := srcs[i]
		for _, r := range in {
			if l := r.GetLaunch(); l != nil && owner[l.Id+src.LaunchIdOffset] != src.Index {
				t.Fatalf("launch %d of %s: final id %d belongs to source %d, want %d", l.Id, src.Path, l.Id+src.LaunchIdOffset, owner[l.Id+src.LaunchIdOffset], src.Index)
			}
		}
	}
	// The report of the merged file equals the report of the inputs
	// given together (merged in memory the same way), but for the
	// input names.
	merged := cliResult(t, []string{"report", "--no-disasm", out})
	together := cliResult(t, []string{"report", "--no-disasm", multi, serialized})
	strip := func(s string) string {
		_, body, _ := strings.Cut(s, "\n")
		return body
	}
	if strip(merged) != strip(together) {
		t.Errorf("report of the merged file differs from the report of its inputs:\n%s", diffLines(strip(together), strip(merged)))
	}
}

// TestTruncatedInputs: every command given a truncated file prints what is
// complete, names the damage and exits 1; merge keeps the damage in the
// provenance.
func TestTruncatedInputs(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	b, err := os.ReadFile(multi)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.zst")
	if err := os.WriteFile(cut, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"dump", cut}, {"report", cut}, {"annotate", cut}, {"report", cut, multi},
		{"pprof", cut, "-o", filepath.Join(dir, "p.pb.gz")}, {"trace", cut, "-o", filepath.Join(dir, "t.json")},
		{"merge", cut, multi, "-o", filepath.Join(dir, "m.zst")},
	} {
		var so, se bytes.Buffer
		code := run(args, &so, &se)
		if code != 1 || !strings.Contains(se.String(), "cut.zst") {
			t.Errorf("zestall %v: exit %d, stderr %q", args, code, se.String())
		}
		if args[0] != "pprof" && args[0] != "trace" && args[0] != "merge" && so.Len() == 0 {
			t.Errorf("zestall %v printed nothing", args)
		}
	}
	var so, se bytes.Buffer
	if code := run([]string{"report", filepath.Join(dir, "m.zst")}, &so, &se); code != 0 || !strings.Contains(so.String(), "DAMAGED") {
		t.Errorf("report of a merge with a damaged input: exit %d\n%s", code, so.String())
	}
}

// TestHelp: every command has --help (exit 0) and rejects bad usage with
// exit 2.
func TestHelp(t *testing.T) {
	for _, cmd := range []string{"dump", "report", "annotate", "pprof", "trace", "merge", "diff", "html"} {
		var so, se bytes.Buffer
		if code := run([]string{cmd, "--help"}, &so, &se); code != 0 || !strings.Contains(se.String(), "usage: zestall "+cmd) {
			t.Errorf("%s --help: exit %d, stderr %q", cmd, code, se.String())
		}
		so.Reset()
		se.Reset()
		if code := run([]string{cmd, "--bogus-flag"}, &so, &se); code != 2 {
			t.Errorf("%s --bogus-flag: exit %d, want 2", cmd, code)
		}
		if code := run([]string{cmd}, &so, &se); code != 2 {
			t.Errorf("%s without arguments: exit %d, want 2", cmd, code)
		}
	}
}

// TestGoldenSycl: SYCL names and call sites in the pprof host frames and
// the trace's host spans and flows.
func TestGoldenSycl(t *testing.T) {
	dir := t.TempDir()
	checkGolden(t, "pprof_sycl", pprofOf(t, syclRun, filepath.Join(dir, "p.pb.gz")).String())
	checkTraceGolden(t, "trace_sycl", syclRun, filepath.Join(dir, "t.json"))
}

// TestMergeSycl: merging renumbers SYCL locations, tasks and nodes, so
// the same capture merged twice has twice the call sites and every launch
// still names its own input's location and task.
func TestMergeSycl(t *testing.T) {
	dir := t.TempDir()
	out, again := filepath.Join(dir, "m.zst"), filepath.Join(dir, "again.zst")
	b, err := os.ReadFile(syclRun)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(again, b, 0o644); err != nil { // the same run under another name
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	if code := run([]string{"merge", "-o", out, syclRun, again}, &so, &se); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, se.String())
	}
	count := func(path string) (locs, tasks, tagged int, bad string) {
		recs, err := pbstream.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		seenLoc, seenTask := map[uint32]bool{}, map[uint64]bool{}
		for _, r := range recs {
			switch k := r.Kind.(type) {
			case *pb.Record_SyclLocation:
				if seenLoc[k.SyclLocation.Id] {
					bad = fmt.Sprintf("location id %d twice", k.SyclLocation.Id)
				}
				seenLoc[k.SyclLocation.Id] = true
				locs++
			case *pb.Record_SyclSpan:
				if k.SyclSpan.Id != 0 {
					if seenTask[k.SyclSpan.Id] {
						bad = fmt.Sprintf("task id %d twice", k.SyclSpan.Id)
					}
					seenTask[k.SyclSpan.Id] = true
					tasks++
				}
			case *pb.Record_Launch:
				if l := k.Launch; l.SyclLocationId != 0 {
					tagged++
					if !seenLoc[l.SyclLocationId] {
						bad = fmt.Sprintf("launch %d names location %d before it", l.Id, l.SyclLocationId)
					}
				}
			}
		}
		return
	}
	l1, t1, g1, bad := count(syclRun)
	if bad != "" || l1 == 0 || t1 == 0 || g1 == 0 {
		t.Fatalf("the capture: %d locations, %d tasks, %d tagged launches; %s", l1, t1, g1, bad)
	}
	l2, t2, g2, bad := count(out)
	if bad != "" || l2 != 2*l1 || t2 != 2*t1 || g2 != 2*g1 {
		t.Errorf("merged twice: %d locations, %d tasks, %d tagged launches (want %d, %d, %d); %s", l2, t2, g2, 2*l1, 2*t1, 2*g1, bad)
	}
}

// pprofOf runs `zestall pprof in -o out` and parses what it wrote.
func pprofOf(t *testing.T, in, out string) *profile.Profile {
	t.Helper()
	var so, se bytes.Buffer
	if code := run([]string{"pprof", in, "-o", out}, &so, &se); code != 0 {
		t.Fatalf("pprof %s: exit %d: %s", in, code, se.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
