package e2e

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// The XPTI tests run the SYCL-runtime stand-in (test/xpti/sycl_app.c) with
// the stand-in dispatcher and compare every Launch with what the app says
// it submitted on which thread (docs/xpti.md §12.3 "Graceful behaviour to
// test" and the test matrix of §12.2).

const (
	syclThreads     = 8
	syclSubmissions = 200
)

// syclLaunch is one line of the app's truth file: what one kernel launch
// was submitted with.
type syclLaunch struct {
	tid               uint32
	sycl, file        string // "-" outside any task
	line, column      uint32
	levelZeroKernel   string
	tagged            bool
	scheduled         bool // the scheduler path: task on the scheduler's thread
	locationKey, name string
}

func readSyclTruth(t *testing.T, path string) []syclLaunch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []syclLaunch
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 7 {
			t.Fatalf("truth line %q", sc.Text())
		}
		tid, _ := strconv.ParseUint(fs[0], 10, 32)
		line, _ := strconv.ParseUint(fs[3], 10, 32)
		col, _ := strconv.ParseUint(fs[4], 10, 32)
		l := syclLaunch{tid: uint32(tid), sycl: fs[1], file: fs[2], line: uint32(line), column: uint32(col),
			levelZeroKernel: fs[5], tagged: fs[1] != "-", scheduled: fs[6] == "sched"}
		l.locationKey = fmt.Sprintf("%s:%d:%d", l.file, l.line, l.column)
		l.name = "main::" + l.sycl // the stand-in names kernels in main()
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type syclRun struct {
	res   result
	recs  []*pb.Record
	truth []syclLaunch
}

func (tr tree) runSycl(t *testing.T, preload bool, env map[string]string) syclRun {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst"), "ZESTALL_QUIET": "1"}
	for k, v := range env {
		all[k] = strings.ReplaceAll(v, "$DIR", dir)
	}
	truth := filepath.Join(dir, "truth.txt")
	res := tr.run(t, dir, preload, all, "zestall-sycl-app", strconv.Itoa(syclThreads), strconv.Itoa(syclSubmissions), truth)
	if res.code != 0 {
		t.Fatalf("zestall-sycl-app: exit %d: %s", res.code, res.stderr)
	}
	r := syclRun{res: res, truth: readSyclTruth(t, truth)}
	if preload {
		r.recs = readRecords(t, filepath.Join(dir, "out.zst"))
	}
	return r
}

// checkSyclTags: every launch made inside a task carries exactly that
// task's kernel name, file, line and column, and a task that ran on the
// thread that appended it, around the append; launches outside tasks carry
// nothing; nothing is lost.
func checkSyclTags(t *testing.T, r syclRun, wantTags, wantQueue bool) {
	t.Helper()
	kernels := map[uint64]string{}
	locs := map[uint32]*pb.SyclLocation{}
	tasks := map[uint64]*pb.SyclSpan{}
	var launches []*pb.Launch
	var nodes, edges, waits, barriers int
	var counters *pb.Counters
	for _, rec := range r.recs {
		switch k := rec.Kind.(type) {
		case *pb.Record_Kernel:
			kernels[k.Kernel.Id] = k.Kernel.Name
		case *pb.Record_Launch:
			if k.Launch.SyclLocationId != 0 && locs[k.Launch.SyclLocationId] == nil {
				t.Errorf("launch %d names location %d before its SyclLocation record", k.Launch.Id, k.Launch.SyclLocationId)
			}
			launches = append(launches, k.Launch)
		case *pb.Record_SyclLocation:
			if locs[k.SyclLocation.Id] != nil {
				t.Errorf("location %d written twice", k.SyclLocation.Id)
			}
			locs[k.SyclLocation.Id] = k.SyclLocation
		case *pb.Record_SyclSpan:
			switch k.SyclSpan.Kind {
			case pb.SyclSpanKind_SYCL_SPAN_KIND_TASK:
				tasks[k.SyclSpan.Id] = k.SyclSpan
			case pb.SyclSpanKind_SYCL_SPAN_KIND_WAIT:
				waits++
			case pb.SyclSpanKind_SYCL_SPAN_KIND_BARRIER:
				barriers++
			}
		case *pb.Record_SyclGraph:
			if k.SyclGraph.Kind == pb.SyclGraphKind_SYCL_GRAPH_KIND_NODE {
				nodes++
			} else {
				edges++
			}
		case *pb.Record_Counters:
			counters = k.Counters
		}
	}
	if len(launches) != len(r.truth) {
		t.Fatalf("%d launches in the file, the app made %d", len(launches), len(r.truth))
	}
	if counters == nil || !counters.Final {
		t.Fatal("no final Counters record")
	}
	if counters.SyclRecordsLost != 0 {
		t.Errorf("sycl_records_lost = %d", counters.SyclRecordsLost)
	}
	byLoc := map[string]syclLaunch{}
	var untaggedWant, taggedWant []string
	for _, l := range r.truth {
		if l.tagged {
			if _, dup := byLoc[l.locationKey]; dup {
				t.Fatalf("the app reused location %s", l.locationKey)
			}
			byLoc[l.locationKey] = l
			taggedWant = append(taggedWant, l.levelZeroKernel)
		} else {
			untaggedWant = append(untaggedWant, l.levelZeroKernel)
		}
	}
	if !wantTags {
		for _, l := range launches {
			if l.SyclLocationId != 0 || l.SyclTaskId != 0 {
				t.Fatalf("launch %d tagged (location %d, task %d) without XPTI", l.Id, l.SyclLocationId, l.SyclTaskId)
			}
		}
		if len(locs)+len(tasks)+nodes+edges != 0 {
			t.Errorf("SYCL records without XPTI: %d locations, %d tasks, %d nodes, %d edges", len(locs), len(tasks), nodes, edges)
		}
		return
	}
	seen := map[string]bool{}
	var untaggedGot []string
	for _, l := range launches {
		kname := kernels[l.KernelId]
		if l.SyclTaskId == 0 {
			if l.SyclLocationId != 0 {
				t.Errorf("launch %d: location %d without a task", l.Id, l.SyclLocationId)
			}
			untaggedGot = append(untaggedGot, kname)
			continue
		}
		loc := locs[l.SyclLocationId]
		if loc == nil {
			t.Fatalf("launch %d: unknown location %d", l.Id, l.SyclLocationId)
		}
		key := fmt.Sprintf("%s:%d:%d", loc.File, loc.Line, loc.Column)
		want, ok := byLoc[key]
		if !ok {
			t.Fatalf("launch %d tagged with %s, which the app never submitted a launch with", l.Id, key)
		}
		if seen[key] {
			t.Fatalf("two launches tagged %s", key)
		}
		seen[key] = true
		if loc.KernelName != want.name || kname != want.levelZeroKernel {
			t.Errorf("launch %d at %s: SYCL kernel %q, Level-Zero kernel %q; submitted %q with %q",
				l.Id, key, loc.KernelName, kname, want.name, want.levelZeroKernel)
		}
		task := tasks[l.SyclTaskId]
		if task == nil {
			t.Fatalf("launch %d: no SyclSpan for task %d", l.Id, l.SyclTaskId)
		}
		if task.ThreadId != want.tid {
			t.Errorf("launch %d at %s: task on thread %d, appended on thread %d", l.Id, key, task.ThreadId, want.tid)
		}
		if task.LocationId != l.SyclLocationId {
			t.Errorf("launch %d: task location %d, launch location %d", l.Id, task.LocationId, l.SyclLocationId)
		}
		if l.HostAppendNs < task.BeginNs || l.HostAppendNs > task.EndNs {
			t.Errorf("launch %d appended at %d, outside its task [%d, %d]", l.Id, l.HostAppendNs, task.BeginNs, task.EndNs)
		}
		// The queue id is stashed around the submission's notifications
		// on the submitting thread; a task run by the scheduler thread
		// may have none.
		if !want.scheduled && wantQueue != (task.QueueId != nil) {
			t.Errorf("task %d: queue id %v, want one: %v", task.Id, task.QueueId, wantQueue)
		}
		if task.NodeId == 0 || task.Instance == 0 {
			t.Errorf("task %d: node %d, instance %d", task.Id, task.NodeId, task.Instance)
		}
	}
	if len(seen) != len(byLoc) {
		t.Errorf("%d of %d submitted launches tagged", len(seen), len(byLoc))
	}
	slices.Sort(untaggedGot)
	slices.Sort(untaggedWant)
	if !slices.Equal(untaggedGot, untaggedWant) {
		t.Errorf("untagged launches %d, the app made %d outside tasks", len(untaggedGot), len(untaggedWant))
	}
	if len(tasks) != len(taggedWant) || counters.SyclTasks != uint64(len(taggedWant)) {
		t.Errorf("%d task spans (counter %d), the app submitted %d", len(tasks), counters.SyclTasks, len(taggedWant))
	}
	if nodes != len(taggedWant) || edges != len(taggedWant)-syclThreads {
		t.Errorf("graph: %d nodes, %d edges; want %d, %d", nodes, edges, len(taggedWant), len(taggedWant)-syclThreads)
	}
	if w := syclThreads * (syclSubmissions / 50); waits != w {
		t.Errorf("%d wait spans, want %d", waits, w)
	}
	if b := syclThreads * (syclSubmissions / 25); barriers != b {
		t.Errorf("%d barrier spans, want %d", barriers, b)
	}
}

func syclSetup(t *testing.T, recs []*pb.Record) *pb.SyclSetup {
	t.Helper()
	if len(recs) == 0 {
		t.Fatal("empty file")
	}
	h := recs[0].GetHeader()
	if h == nil || h.Sycl == nil {
		t.Fatal("no Header.sycl")
	}
	return h.Sycl
}

func TestSyclTagging(t *testing.T) {
	tr := buildTree(t)
	lib := func(n string) string { return filepath.Join(tr.build, "lib", n) }
	disp := lib("libxptifw_standin.so")
	base := tr.runSycl(t, false, nil) // the app alone: what its output must stay
	tests := []struct {
		name       string
		env        map[string]string
		setup      func(t *testing.T, dir string) // before the run ($DIR)
		tags       bool
		queue      bool
		state      pb.SyclXptiState
		streams    []string
		other      uint64 // task_begin notifications the other subscriber must count
		wantStderr string
	}{
		{name: "preload only", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": disp},
			tags: true, queue: true, state: pb.SyclXptiState_SYCL_XPTI_STATE_ENABLED, streams: []string{"sycl"}},
		{name: "listed too, same path", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": disp, "XPTI_TRACE_ENABLE": "1", "XPTI_SUBSCRIBERS": tr.layer},
			tags: true, queue: true, state: pb.SyclXptiState_SYCL_XPTI_STATE_LISTED, streams: []string{"sycl"}},
		{name: "listed through a symlink", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": disp, "XPTI_SUBSCRIBERS": "$DIR/link.so"},
			setup: func(t *testing.T, dir string) { symlink(t, tr.layer, filepath.Join(dir, "link.so")) },
			tags:  true, queue: true, state: pb.SyclXptiState_SYCL_XPTI_STATE_LISTED, streams: []string{"sycl"}},
		{name: "default dispatcher name", env: map[string]string{"LD_LIBRARY_PATH": "$DIR"},
			setup: func(t *testing.T, dir string) { symlink(t, disp, filepath.Join(dir, "libxptifw.so")) },
			tags:  true, queue: true, state: pb.SyclXptiState_SYCL_XPTI_STATE_ENABLED, streams: []string{"sycl"}},
		{name: "other subscriber on sycl.debug (routing trap)", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": disp,
			"XPTI_SUBSCRIBERS": lib("libxpti_other_subscriber.so"), "OTHER_SUBSCRIBER_OUT": "$DIR/other.txt"},
			tags: true, queue: true, state: pb.SyclXptiState_SYCL_XPTI_STATE_APPENDED, streams: []string{"sycl", "sycl.debug"},
			other: syclThreads * (syclSubmissions + syclSubmissions/10)},
		{name: "other subscriber on sycl", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": disp,
			"XPTI_SUBSCRIBERS": lib("libxpti_other_subscriber.so"), "OTHER_SUBSCRIBER_STREAMS": "sycl", "OTHER_SUBSCRIBER_OUT": "$DIR/other.txt"},
			tags: true, queue: true, state: pb.SyclXptiState_SYCL_XPTI_STATE_APPENDED, streams: []string{"sycl"},
			other: syclThreads * (syclSubmissions + syclSubmissions/10)},
		{name: "dispatcher without xptiGetStashedTuple", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": lib("libxptifw_standin_nostash.so")},
			tags: true, queue: false, state: pb.SyclXptiState_SYCL_XPTI_STATE_ENABLED, streams: []string{"sycl"}},
		{name: "copy of the library as subscriber", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": disp, "XPTI_SUBSCRIBERS": "$DIR/copy/libzestall.so"},
			setup: func(t *testing.T, dir string) { copyFile(t, tr.layer, filepath.Join(dir, "copy", "libzestall.so")) },
			tags:  true, queue: true, state: pb.SyclXptiState_SYCL_XPTI_STATE_APPENDED, streams: []string{"sycl"},
			wantStderr: "is a second copy of libzestall.so"},
		{name: "XPTI_TRACE_ENABLE=0", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": disp, "XPTI_TRACE_ENABLE": "0"},
			state: pb.SyclXptiState_SYCL_XPTI_STATE_OFF_ENV},
		{name: "ZESTALL_XPTI=0", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": disp, "ZESTALL_XPTI": "0"},
			state: pb.SyclXptiState_SYCL_XPTI_STATE_OFF_USER},
		{name: "dispatcher missing", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": "/nonexistent/libxptifw.so"},
			state: pb.SyclXptiState_SYCL_XPTI_STATE_ENABLED},
		{name: "dispatcher without xptiQueryPayload", env: map[string]string{"XPTI_FRAMEWORK_DISPATCHER": lib("libxptifw_standin_nopayload.so")},
			state: pb.SyclXptiState_SYCL_XPTI_STATE_ENABLED, wantStderr: "lacks xptiRegisterStream, xptiRegisterCallback or xptiQueryPayload"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			dir := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			for k, v := range tc.env {
				env[k] = strings.ReplaceAll(v, "$DIR", dir)
			}
			r := tr.runSycl(t, true, env)
			if r.res.stdout != base.res.stdout {
				t.Errorf("the app's output changed:\n%s\nwithout zestall:\n%s", r.res.stdout, base.res.stdout)
			}
			if tc.wantStderr != "" && !strings.Contains(r.res.stderr, tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, r.res.stderr)
			}
			if tc.wantStderr == "" && strings.Contains(r.res.stderr, "xpti") {
				t.Errorf("unexpected XPTI message:\n%s", r.res.stderr)
			}
			st := syclSetup(t, r.recs)
			if st.State != tc.state {
				t.Errorf("Header.sycl.state = %v, want %v", st.State, tc.state)
			}
			if tc.tags && !slices.Equal(st.Streams, tc.streams) {
				t.Errorf("streams %v, want %v", st.Streams, tc.streams)
			}
			checkSyclTags(t, r, tc.tags, tc.queue)
			if tc.other > 0 {
				b, err := os.ReadFile(filepath.Join(dir, "other.txt"))
				if err != nil {
					t.Fatalf("the other subscriber's count: %v", err)
				}
				if n, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); n != tc.other {
					t.Errorf("the other subscriber saw %d task_begin, want %d", n, tc.other)
				}
			}
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestSyclAfterExec: a process that execs (a shell wrapper, a pyenv shim)
// keeps its pid and environment; the new image's zestall is the only
// instance, not a "second copy", and tags its launches.
func TestSyclAfterExec(t *testing.T) {
	tr := buildTree(t)
	dir := t.TempDir()
	app := filepath.Join(tr.build, "bin", "zestall-sycl-app")
	env := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.zst"), "ZESTALL_QUIET": "1",
		"XPTI_FRAMEWORK_DISPATCHER": filepath.Join(tr.build, "lib", "libxptifw_standin.so")}
	res := tr.run(t, dir, true, env, "/bin/sh", "-c", "exec /bin/sh -c 'exec "+app+" 2 20 truth.txt'")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if strings.Contains(res.stderr, "second copy") {
		t.Errorf("an exec'd image taken for a second copy:\n%s", res.stderr)
	}
	r := syclRun{res: res, truth: readSyclTruth(t, filepath.Join(dir, "truth.txt")), recs: readRecords(t, filepath.Join(dir, "out.zst"))}
	// The wrapper shells, preloaded too, already added zestall to
	// XPTI_SUBSCRIBERS: the app's image finds itself listed.
	if st := syclSetup(t, r.recs); st.State != pb.SyclXptiState_SYCL_XPTI_STATE_LISTED {
		t.Errorf("Header.sycl.state = %v", st.State)
	}
	tagged := 0
	for _, rec := range r.recs {
		if l := rec.GetLaunch(); l != nil && l.SyclTaskId != 0 {
			tagged++
		}
	}
	want := 0
	for _, l := range r.truth {
		if l.tagged {
			want++
		}
	}
	if tagged != want || want == 0 {
		t.Errorf("%d launches tagged, the app made %d in tasks", tagged, want)
	}
}
