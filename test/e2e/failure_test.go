package e2e

// Failure tests of issue 3: in every case the application's exit status and
// stdout are those of a run without zestall, zestall says something true on
// stderr, and nothing hangs (every process runs under a deadline and is
// killed with its whole process group when it passes it).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// appTimeout bounds every application run of these tests.
const appTimeout = 90 * time.Second

// command builds the command of a sample app with the environment of
// tree.run: the loader always points at the simulated driver unless env
// overrides ZE_ENABLE_ALT_DRIVERS ("" removes a variable). The process
// gets its own process group, which is SIGKILLed as a whole when ctx ends,
// so a hung forked child cannot outlive the test either.
func (tr tree) command(ctx context.Context, dir string, preload bool, env map[string]string, app string, args ...string) *exec.Cmd {
	path := app
	if !filepath.IsAbs(app) {
		path = filepath.Join(tr.build, "bin", app)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	base := map[string]string{
		"ZE_ENABLE_ALT_DRIVERS":   tr.sim,
		"ZE_ENABLE_TRACING_LAYER": "1",
		"ZET_ENABLE_METRICS":      "1", // EU stall sampling on, as users run it
		"ZESTALL_KERNELS":         filepath.Join(tr.root, "test", "kernels"),
		// EU stall samples become visible to reads only at the kernel
		// driver's next write-pointer poll, as with xe (5 ms); the
		// simulated driver's own default is at once.
		"ZESIM_EUSS_POLL_NS": "5000000",
	}
	for k, v := range env {
		base[k] = v
	}
	if preload {
		base["LD_PRELOAD"] = tr.layer
	}
	var e []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := base[k]; over || k == "LD_PRELOAD" || strings.HasPrefix(k, "ZESTALL_") || strings.HasPrefix(k, "ZESIM_") || strings.HasPrefix(k, "ZE_") || strings.HasPrefix(k, "ZET_") {
			continue
		}
		e = append(e, kv)
	}
	for k, v := range base {
		if v != "" {
			e = append(e, k+"="+v)
		}
	}
	cmd.Env = e
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // a grandchild holding stdout open
	return cmd
}

// runT is tree.run with a deadline: a run that does not finish within
// appTimeout fails the test (it never hangs it).
func (tr tree) runT(t *testing.T, dir string, preload bool, env map[string]string, app string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), appTimeout)
	defer cancel()
	cmd := tr.command(ctx, dir, preload, env, app, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := result{stdout: so.String(), stderr: se.String()}
	if ctx.Err() != nil {
		t.Fatalf("%s %v (zestall preloaded: %v) did not finish within %v: it hangs\nstdout:\n%s\nstderr:\n%s", app, args, preload, appTimeout, r.stdout, r.stderr)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code = 128 + int(ws.Signal()) // as a shell reports it
		}
	default:
		t.Fatalf("running %s: %v", app, err)
	}
	return r
}

// zestallLines returns zestall's own stderr lines.
func zestallLines(stderr string) []string {
	var ours []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "zestall:") {
			ours = append(ours, l)
		}
	}
	return ours
}

// notZestall returns stderr without zestall's lines: what the app itself
// said.
func notZestall(stderr string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(l, "zestall:") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// sameApp fails unless the run with zestall behaved like the one without:
// same exit status, same stdout, same stderr apart from zestall's lines.
func sameApp(t *testing.T, base, got result) {
	t.Helper()
	if got.code != base.code {
		t.Errorf("exit status %d with zestall, %d without\nstderr with zestall:\n%s", got.code, base.code, got.stderr)
	}
	if got.stdout != base.stdout {
		t.Errorf("stdout changed by zestall:\n%s\nwithout zestall:\n%s", got.stdout, base.stdout)
	}
	if a, b := notZestall(got.stderr), notZestall(base.stderr); a != b {
		t.Errorf("the application's stderr changed under zestall:\n%s\nwithout zestall:\n%s", a, b)
	}
}

// readKilled reads the file of a killed run: everything complete, and
// at most a truncated tail (rerr); anything worse fails the test.
func readKilled(t *testing.T, path string) (data []byte, recs []*pb.Record, rerr error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, rerr = readAllSafe(t, data)
	if rerr != nil && !errors.Is(rerr, stream.ErrTruncated) {
		t.Fatalf("reading the killed run's file: %v; want nil or ErrTruncated", rerr)
	}
	return data, recs, rerr
}

// readAllSafe reads a file with the stream reader, turning a panic of the
// reader into a test failure.
func readAllSafe(t *testing.T, data []byte) (recs []*pb.Record, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("stream reader panicked: %v", p)
		}
	}()
	r := pbstream.NewReader(bytes.NewReader(data))
	for {
		rec, e := r.Next()
		if e == io.EOF {
			return recs, nil
		}
		if e != nil {
			return recs, e
		}
		recs = append(recs, rec)
	}
}

type summary struct {
	header            *pb.Header
	modules, kernels  int
	kernelNames       map[string]int
	counters          *pb.Counters // the last Counters record
	final             bool
	destroyedKernels  int
	destroyedModules  int
	unknown, launches int
}

func summarize(recs []*pb.Record) summary {
	s := summary{kernelNames: map[string]int{}}
	for i, r := range recs {
		switch k := r.Kind.(type) {
		case *pb.Record_Header:
			if i == 0 {
				s.header = k.Header
			}
		case *pb.Record_Module:
			s.modules++
		case *pb.Record_Kernel:
			s.kernels++
			s.kernelNames[k.Kernel.Name]++
		case *pb.Record_KernelDestroyed:
			s.destroyedKernels++
		case *pb.Record_ModuleDestroyed:
			s.destroyedModules++
		case *pb.Record_Launch:
			s.launches++
		case *pb.Record_Counters:
			s.counters = k.Counters
			s.final = k.Counters.Final
		default:
			s.unknown++
		}
	}
	return s
}

// intAfter returns the integer that follows `word ` in s, or -1.
func intAfter(s, word string) int {
	m := regexp.MustCompile(regexp.QuoteMeta(word)+` (\d+)`).FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return -1
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// TestForkWithoutExec: an app forks after Level Zero and the tracer are
// live; the child initialises again and churns modules, kernels, launches
// and memory (docs/level-zero-loader.md §10 "Hazards", P8: Go code that
// allocates in a forked child hangs it). The
// child must finish, both processes exit 0, the parent's file is complete
// and the child writes no file of its own. Variants: the child leaves with
// exit() or _exit(); the parent forks hundreds of times (a fork lands
// while zestall's own threads hold locks or are inside the driver); the
// child destroys the context it inherited (as runtime cleanup code in a
// forked worker does).
func TestForkWithoutExec(t *testing.T) {
	tr := buildTree(t)
	tests := []struct {
		name  string
		args  []string
		forks int
	}{
		{"child exit", []string{"500", "exit"}, 1},
		{"child _exit", []string{"500", "_exit"}, 1},
		{"300 forks", []string{"1", "_exit", "keep", "300"}, 300},
		{"child destroys inherited context", []string{"20", "exit", "inherit"}, 1},
		{"300 forks, child destroys inherited context", []string{"1", "_exit", "inherit", "300"}, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "out.%p.zst"), "ZESTALL_FLUSH_INTERVAL": "50ms"}
			base := tr.runT(t, dir, false, env, "zestall-fork", tt.args...)
			if base.code != 0 {
				t.Fatalf("zestall-fork fails without zestall: exit %d\n%s", base.code, base.stderr)
			}
			got := tr.runT(t, dir, true, env, "zestall-fork", tt.args...)
			sameApp(t, base, got)
			if strings.Contains(got.stderr, "child hung") {
				t.Fatalf("a forked child hung under zestall (docs/level-zero-loader.md §10 \"Hazards\", P8); the app said: %s", strings.TrimSpace(notZestall(got.stderr)))
			}
			files := outputs(t, dir)
			if len(files) != 1 {
				t.Fatalf("want exactly the parent's output file, got %v (a forked child must not write one); stderr:\n%s", files, got.stderr)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			recs, err := readAllSafe(t, data)
			if err != nil {
				t.Fatalf("parent's file %s: %v", files[0], err)
			}
			s := summarize(recs)
			if s.header == nil {
				t.Fatalf("parent's file has no header")
			}
			if want := fmt.Sprintf("out.%d.zst", s.header.Pid); filepath.Base(files[0]) != want {
				t.Errorf("file %s holds pid %d", files[0], s.header.Pid)
			}
			if !s.final {
				t.Errorf("parent's file has no final counters")
			}
			// The parent ran forks+1 rounds, each creating the module and
			// every kernel of it once; the children's must not appear.
			parentLaunches := intAfter(got.stdout, "launches")
			if s.modules != tt.forks+1 {
				t.Errorf("parent's file holds %d modules, the parent created %d (child modules leaked in?)", s.modules, tt.forks+1)
			}
			if s.kernels != (tt.forks+1)*len(s.kernelNames) {
				t.Errorf("parent's file holds %d kernel records for %d names, want %d per name", s.kernels, len(s.kernelNames), tt.forks+1)
			}
			if s.counters != nil && s.counters.LaunchesSeen != uint64(parentLaunches) {
				t.Errorf("final counters say %d launches, the parent made %d (the children's are not the parent's)", s.counters.LaunchesSeen, parentLaunches)
			}
			ours := zestallLines(got.stderr)
			if len(ours) != 2 || !strings.Contains(ours[0], "profiling to") || !strings.Contains(ours[1], "wrote") {
				t.Errorf("zestall's stderr lines %q; want the parent's start and end notice only", ours)
			}
			t.Logf("%v: one file %s (%d modules, %d kernels, %d launches seen); the children wrote nothing and said nothing",
				tt.args, filepath.Base(files[0]), s.modules, s.kernels, parentLaunches)
		})
	}
}

// waitFlushed waits until path exists and at least two flushes wrote data
// to it (it holds more than the prefix, then grew again).
func waitFlushed(t *testing.T, path string, deadline time.Time, exited <-chan struct{}) int64 {
	t.Helper()
	var first int64 = -1
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("the application ended before it could be killed")
		default:
		}
		if fi, err := os.Stat(path); err == nil {
			switch {
			case first < 0 && fi.Size() > stream.PrefixSize:
				first = fi.Size()
			case first > 0 && fi.Size() > first:
				return fi.Size()
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not get two flushes in time", path)
	return 0
}

// TestKilledMidRun: SIGKILL while the app keeps creating modules, kernels
// and launching. The file must still read: a header and every record of
// every complete frame, then nil or ErrTruncated (nothing else, no panic);
// `zestall report` says that the run ended abnormally.
func TestKilledMidRun(t *testing.T) {
	tr := buildTree(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.zst")
	env := map[string]string{"ZESTALL_OUTPUT": out, "ZESTALL_FLUSH_INTERVAL": "100ms"}

	// The workload itself is unchanged by zestall when it runs to the end.
	short := []string{"5", "0"}
	base := tr.runT(t, dir, false, nil, "zestall-longrun", short...)
	got := tr.runT(t, dir, true, map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "short.zst")}, "zestall-longrun", short...)
	sameApp(t, base, got)

	// 3000 rounds of >= 10 ms: at least 30 s, far longer than the test waits.
	app := tr.startBackground(t, dir, env, "zestall-longrun", "3000", "10")
	size := waitFlushed(t, out, time.Now().Add(30*time.Second), app.exited)
	app.kill(t)
	var ee *exec.ExitError
	if !errors.As(app.err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("want the app killed by SIGKILL, got %v\nstderr:\n%s", app.err, app.se.String())
	}
	if !strings.Contains(app.so.String(), "longrun: running") {
		t.Errorf("the app had not started its rounds: stdout %q", app.so.String())
	}
	if ours := zestallLines(app.se.String()); len(ours) != 1 || !strings.Contains(ours[0], "profiling to") {
		t.Errorf("zestall's stderr lines %q; want only the start notice", ours)
	}

	data, recs, rerr := readKilled(t, out)
	s := summarize(recs)
	t.Logf("killed after >= %d bytes were flushed; file %d bytes: %d records (%d modules, %d kernels, %d destroyed kernels), read error %v",
		size, len(data), len(recs), s.modules, s.kernels, s.destroyedKernels, rerr)
	if s.header == nil {
		t.Fatalf("the killed run's file has no header as its first record")
	}
	if s.modules == 0 || s.kernels == 0 {
		t.Errorf("the killed run's file holds %d modules and %d kernels; the app had created some before two flushes", s.modules, s.kernels)
	}
	if s.final {
		t.Errorf("the killed run's file has final counters: it cannot, the run was killed")
	}
	// Counters are written with every flush (issue 14): the killed file has
	// totals up to its last flush, and they count the launches it holds.
	switch c := s.counters; {
	case c == nil:
		t.Errorf("the killed run's file has no Counters record; they are written with every flush")
	case c.HostNs == 0 || c.LaunchesSeen < uint64(s.launches):
		t.Errorf("the killed run's last Counters: host_ns %d, launches_seen %d; the file holds %d launch records before it or after",
			c.HostNs, c.LaunchesSeen, s.launches)
	}
	// Every complete frame: the records before a damaged frame are exactly
	// those of the file cut at the damaged frame's start.
	checkCompleteFrames(t, data, recs, rerr)
	// And a tail torn inside the last frame (as a kill during a write
	// leaves it) loses exactly that frame.
	torn := data[:len(data)-1]
	trecs, terr := readAllSafe(t, torn)
	var fe *stream.FormatError
	if !errors.Is(terr, stream.ErrTruncated) || !errors.As(terr, &fe) {
		t.Fatalf("file cut inside its last frame: error %v, want ErrTruncated", terr)
	}
	if fe.Frame > 0 && (len(trecs) == 0 || trecs[0].GetHeader() == nil) {
		t.Errorf("file cut inside its last frame (%d): %d records, the first is not a header", fe.Frame, len(trecs))
	}
	checkCompleteFrames(t, torn, trecs, terr)

	// The CLI reads it too, and says so.
	ro, re, code := tr.report(t, out)
	if code != 0 && code != 1 {
		t.Errorf("zestall report on the killed run: exit %d, want 0 or 1\nstderr:\n%s", code, re)
	}
	if !strings.Contains(ro, "ended abnormally") {
		t.Errorf("zestall report does not say the run ended abnormally:\n%s", ro)
	}
	if (code == 1) != (rerr != nil) {
		t.Errorf("zestall report exit %d, but the reader's error is %v", code, rerr)
	}
}

// TestKilledBeforeFirstFlush: SIGKILL after zestall created its file but
// before the first periodic flush (ZESTALL_FLUSH_INTERVAL=10s). The header
// is flushed at once, so the file holds at least it; the rest of the
// interval is lost, and the reader and the CLI handle that cleanly.
func TestKilledBeforeFirstFlush(t *testing.T) {
	tr := buildTree(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.zst")
	env := map[string]string{"ZESTALL_OUTPUT": out, "ZESTALL_FLUSH_INTERVAL": "10s"}
	app := tr.startBackground(t, dir, env, "zestall-longrun", "3000", "10")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(out); err == nil {
			break
		}
		select {
		case <-app.exited:
			t.Fatalf("the application ended before it could be killed: %v\n%s", app.err, app.se.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not created", out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // modules, kernels and launches are queued by now
	app.kill(t)
	data, recs, rerr := readKilled(t, out)
	s := summarize(recs)
	t.Logf("killed before the first flush: file of %d bytes, %d records (header %v), read error %v", len(data), len(recs), s.header != nil, rerr)
	if s.header == nil {
		t.Errorf("the header is flushed as soon as the file is created, yet the killed run's file has none")
	}
	ro, re, code := tr.report(t, out)
	if code != 0 && code != 1 {
		t.Errorf("zestall report: exit %d, want 0 or 1\nstderr:\n%s", code, re)
	}
	if !strings.Contains(ro, "ended abnormally") {
		t.Errorf("zestall report does not say the run ended abnormally:\n%s\nstderr:\n%s", ro, re)
	}
}

// bgApp is a sample app running in the background in its own process
// group (tree.command), so that a test can kill it mid-run.
type bgApp struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	so, se bytes.Buffer
	exited chan struct{} // closed when the app has ended; err is then set
	err    error
}

// startBackground starts app with zestall preloaded; the test's cleanup
// ends it if it is still running.
func (tr tree) startBackground(t *testing.T, dir string, env map[string]string, app string, args ...string) *bgApp {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), appTimeout)
	b := &bgApp{cancel: cancel, exited: make(chan struct{})}
	b.cmd = tr.command(ctx, dir, true, env, app, args...)
	b.cmd.Stdout, b.cmd.Stderr = &b.so, &b.se
	if err := b.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() { b.err = b.cmd.Wait(); close(b.exited) }()
	t.Cleanup(func() { cancel(); <-b.exited })
	return b
}

// kill SIGKILLs the app's process group and waits for it.
func (b *bgApp) kill(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-b.exited
}

// report runs `zestall report FILE`: its stdout, stderr and exit code.
func (tr tree) report(t *testing.T, file string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), appTimeout)
	defer cancel()
	rep := exec.CommandContext(ctx, filepath.Join(tr.build, "bin", "zestall"), "report", file)
	var ro, re bytes.Buffer
	rep.Stdout, rep.Stderr = &ro, &re
	err := rep.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return ro.String(), re.String(), 0
	case errors.As(err, &ee):
		return ro.String(), re.String(), ee.ExitCode()
	}
	t.Fatalf("zestall report: %v", err)
	return "", "", 0
}

// checkCompleteFrames: when reading data ended with a FormatError, the
// records returned are those of data cut at the damaged frame, which reads
// cleanly.
func checkCompleteFrames(t *testing.T, data []byte, recs []*pb.Record, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *stream.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("read error %v is not a *stream.FormatError", err)
	}
	if fe.Offset < 0 || fe.Offset > int64(len(data)) {
		t.Fatalf("FormatError offset %d outside the file of %d bytes", fe.Offset, len(data))
	}
	if fe.Record >= 0 {
		t.Errorf("a torn tail is reported inside record %d of frame %d; want the frame itself", fe.Record, fe.Frame)
	}
	if fe.Offset < stream.PrefixSize {
		return // the prefix itself: nothing complete
	}
	before, berr := readAllSafe(t, data[:fe.Offset])
	if berr != nil {
		t.Errorf("the file cut before the damaged frame (offset %d) does not read cleanly: %v", fe.Offset, berr)
	}
	if len(before) != len(recs) {
		t.Errorf("the reader returned %d records before the damaged frame %d, the complete frames hold %d", len(recs), fe.Frame, len(before))
	}
}

// TestAppSetsAltDrivers: the app puts ZE_ENABLE_ALT_DRIVERS into its own
// environment in main
// (docs/level-zero-loader.md §10 "Hazards", P3). zestall must not initialise
// Level Zero before
// that, and must profile the app.
func TestAppSetsAltDrivers(t *testing.T) {
	tr := buildTree(t)
	dir := t.TempDir()
	env := map[string]string{"ZE_ENABLE_ALT_DRIVERS": "", "ZESTALL_OUTPUT": filepath.Join(dir, "out.zst")}
	base := tr.runT(t, dir, false, env, "zestall-setenv", tr.sim)
	if base.code != 0 {
		t.Fatalf("zestall-setenv fails without zestall: exit %d\n%s", base.code, base.stderr)
	}
	got := tr.runT(t, dir, true, env, "zestall-setenv", tr.sim)
	sameApp(t, base, got)
	if got.code != 0 {
		t.FailNow()
	}
	ours := zestallLines(got.stderr)
	if len(ours) != 2 || !strings.Contains(ours[0], "profiling to") || !strings.Contains(ours[1], "wrote") {
		t.Errorf("zestall's stderr lines %q; want the start and end notices", ours)
	}
	recs := readRecords(t, filepath.Join(dir, "out.zst"))
	s := summarize(recs)
	kernel := ""
	if m := regexp.MustCompile(`kernel (\S+)`).FindStringSubmatch(got.stdout); m != nil {
		kernel = m[1]
	}
	if s.header == nil || len(s.header.Devices) == 0 {
		t.Errorf("no header or no devices in the file")
	}
	if s.kernelNames[kernel] != 1 || s.modules != 1 {
		t.Errorf("file holds modules %d, kernels %v; want 1 module and kernel %q once", s.modules, s.kernelNames, kernel)
	}
	if want := intAfter(got.stdout, "launches:"); s.counters == nil || !s.final || s.counters.LaunchesSeen != uint64(want) {
		t.Errorf("final counters %v; want final with %d launches seen", s.counters, want)
	}
}

// TestAppDlopensLoader: an app that dlopen()s the loader and resolves
// zeInit with dlsym on that handle would bypass a plain zeInit interposer
// (docs/level-zero-loader.md §7 "Interposing zeInit"); zestall's dlsym
// interposer hands it zestall's zeInit. The
// app must run exactly as without zestall, and be profiled.
func TestAppDlopensLoader(t *testing.T) {
	tr := buildTree(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.zst")
	env := map[string]string{"ZESTALL_OUTPUT": out}
	base := tr.runT(t, dir, false, env, "zestall-dlopen")
	if base.code != 0 {
		t.Fatalf("zestall-dlopen fails without zestall: exit %d\n%s", base.code, base.stderr)
	}
	got := tr.runT(t, dir, true, env, "zestall-dlopen")
	sameApp(t, base, got)
	ours := zestallLines(got.stderr)
	files := outputs(t, dir)
	claims := strings.Contains(got.stderr, "zestall: profiling to")
	switch {
	case len(files) == 0:
		t.Errorf("zestall did not profile the dlopen app; it said %q", ours)
	default:
		if !claims {
			t.Errorf("zestall wrote %v without saying so: %q", files, ours)
		}
		s := summarize(readRecords(t, files[0]))
		if s.header == nil || s.kernels == 0 || !s.final {
			t.Errorf("zestall profiled the dlopen app but the file is incomplete: %+v", s)
		}
		if want := intAfter(got.stdout, "launches:"); s.counters != nil && s.counters.LaunchesSeen != uint64(want) {
			t.Errorf("launches seen %d, the app made %d", s.counters.LaunchesSeen, want)
		}
		t.Logf("zestall profiled the dlopen app: %d kernels", s.kernels)
	}
}

// TestFailedInitNotADriver: ZE_ENABLE_ALT_DRIVERS names something that is
// not a Level-Zero driver, or the first zeInit fails after the loader
// loaded the driver (VPU-only flags: the loader drops the simulated driver,
// the state of docs/level-zero-loader.md §10 "Hazards", P2, in which the next
// call crashes). After a failed zeInit
// zestall makes no Level-Zero call; the app's behaviour, its own crash
// included, is identical with and without zestall.
func TestFailedInitNotADriver(t *testing.T) {
	tr := buildTree(t)
	const vpuOnly = "2" // ZE_INIT_FLAG_VPU_ONLY
	tests := []struct {
		name   string
		driver string
		app    string
		args   []string
		code   int // expected exit status without zestall
	}{
		{"not a library, app stops", "/bin/true", "zestall-simple", []string{"3"}, 1},
		{"not a library, app goes on", "/bin/true", "zestall-longrun", []string{"probe"}, 4},
		{"library without driver entry points", "libc", "zestall-longrun", []string{"probe"}, 4},
		{"driver dropped after failed zeInit", tr.sim, "zestall-longrun", []string{"probe", vpuOnly}, 139}, // docs/level-zero-loader.md §10 "Hazards", P2
		{"setenv app given a non-driver", "", "zestall-setenv", []string{"/bin/true"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			driver := tt.driver
			if driver == "libc" {
				m, _ := filepath.Glob("/lib/*/libc.so.6")
				if len(m) == 0 {
					t.Skip("no /lib/*/libc.so.6")
				}
				driver = m[0]
			}
			dir := t.TempDir()
			env := map[string]string{"ZE_ENABLE_ALT_DRIVERS": driver, "ZESTALL_OUTPUT": filepath.Join(dir, "out.zst")}
			base := tr.runT(t, dir, false, env, tt.app, tt.args...)
			if base.code != tt.code {
				t.Fatalf("without zestall: exit %d, expected %d (the scenario changed?)\nstdout:\n%s\nstderr:\n%s", base.code, tt.code, base.stdout, base.stderr)
			}
			got := tr.runT(t, dir, true, env, tt.app, tt.args...)
			sameApp(t, base, got)
			ours := zestallLines(got.stderr)
			if len(ours) != 1 || !strings.Contains(ours[0], "zeInit failed") || !strings.Contains(ours[0], "ZE_ENABLE_ALT_DRIVERS") {
				t.Errorf("zestall's stderr lines %q; want exactly one saying zeInit failed, naming ZE_ENABLE_ALT_DRIVERS", ours)
			}
			if files := outputs(t, dir); len(files) != 0 {
				t.Errorf("output written after a failed zeInit: %v", files)
			}
			t.Logf("exit %d with and without zestall; stdout %q", got.code, got.stdout)
		})
	}
}

// TestInvalidFlushInterval: an invalid ZESTALL_FLUSH_INTERVAL is named on
// stderr with the default used, and profiling continues with the default.
func TestInvalidFlushInterval(t *testing.T) {
	tr := buildTree(t)
	for _, v := range []string{"bogus", "0", "-1s", "2h", "100"} {
		t.Run(v, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.zst")
			env := map[string]string{"ZESTALL_OUTPUT": out, "ZESTALL_FLUSH_INTERVAL": v}
			base := tr.runT(t, dir, false, env, "zestall-simple", "3")
			got := tr.runT(t, dir, true, env, "zestall-simple", "3")
			sameApp(t, base, got)
			var named, start, end int
			for _, l := range zestallLines(got.stderr) {
				switch {
				case strings.Contains(l, "ZESTALL_FLUSH_INTERVAL") && strings.Contains(l, strconv.Quote(v)) && strings.Contains(l, "default 1s"):
					named++
				case strings.Contains(l, "profiling to"):
					start++
				case strings.Contains(l, "wrote"):
					end++
				default:
					t.Errorf("unexpected zestall line %q", l)
				}
			}
			if named != 1 || start != 1 || end != 1 {
				t.Errorf("zestall's stderr lines %q; want one naming ZESTALL_FLUSH_INTERVAL=%q and the default 1s, then the start and end notices", zestallLines(got.stderr), v)
			}
			s := summarize(readRecords(t, out))
			if s.header == nil || s.kernels == 0 || !s.final {
				t.Fatalf("profiling did not continue: header %v, %d kernels, final %v", s.header != nil, s.kernels, s.final)
			}
			for _, c := range s.header.Config {
				if c.Key != "ZESTALL_FLUSH_INTERVAL" {
					continue
				}
				if c.Value != "1s" {
					t.Errorf("header config ZESTALL_FLUSH_INTERVAL=%q, want the default 1s", c.Value)
				}
				// zestall.proto: from_environment is "false for a default
				// (including a default used because the given value was
				// invalid)".
				if c.FromEnvironment {
					t.Errorf("header config ZESTALL_FLUSH_INTERVAL: from_environment is true for the default used instead of the invalid %q (zestall.proto says false)", v)
				}
			}
		})
	}
	// README: "zestall reads ZESTALL_* variables once, when the
	// application's first zeInit succeeds". A process that never uses
	// Level Zero but inherits LD_PRELOAD (a shell, make, timeout, …) must
	// hear nothing from zestall, however long it lives.
	t.Run("process without Level Zero", func(t *testing.T) {
		sleep, err := exec.LookPath("sleep")
		if err != nil {
			t.Skip("no sleep(1)")
		}
		dir := t.TempDir()
		env := map[string]string{"ZESTALL_FLUSH_INTERVAL": "bogus", "ZESTALL_QUIET": "maybe"}
		base := tr.runT(t, dir, false, env, sleep, "0.5")
		got := tr.runT(t, dir, true, env, sleep, "0.5")
		sameApp(t, base, got)
		if ours := zestallLines(got.stderr); len(ours) != 0 {
			t.Errorf("zestall spoke in a process that never called zeInit: %q (README: variables are read when the first zeInit succeeds)", ours)
		}
		if files := outputs(t, dir); len(files) != 0 {
			t.Errorf("output written by a process without Level Zero: %v", files)
		}
	})
}

// TestExitStatusPropagation: an app that ends with a non-zero status keeps
// it under zestall, whether it returns from main, calls exit() or _exit(),
// after real Level-Zero work, or fails before any.
func TestExitStatusPropagation(t *testing.T) {
	tr := buildTree(t)
	tests := []struct {
		name string
		app  string
		args []string
		env  map[string]string
		code int
		file string // "final": complete file; "any": readable if present; "none"
	}{
		{"return 7 from main", "zestall-longrun", []string{"3", "0", "7", "return"}, nil, 7, "final"},
		{"exit(9)", "zestall-longrun", []string{"3", "0", "9", "exit"}, nil, 9, "final"},
		{"_exit(5)", "zestall-longrun", []string{"3", "0", "5", "_exit"}, nil, 5, "any"},
		{"exit 1 before any Level-Zero call", "zestall-simple", []string{"0"}, nil, 1, "none"},
		{"exit 1 after a failed zeInit", "zestall-setenv", []string{"/nonexistent/libze_nothing.so"}, map[string]string{"ZE_ENABLE_ALT_DRIVERS": ""}, 1, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.zst")
			env := map[string]string{"ZESTALL_OUTPUT": out}
			for k, v := range tt.env {
				env[k] = v
			}
			base := tr.runT(t, dir, false, env, tt.app, tt.args...)
			if base.code != tt.code {
				t.Fatalf("without zestall: exit %d, want %d\n%s", base.code, tt.code, base.stderr)
			}
			got := tr.runT(t, dir, true, env, tt.app, tt.args...)
			sameApp(t, base, got)
			files := outputs(t, dir)
			switch tt.file {
			case "none":
				if len(files) != 0 {
					t.Errorf("output file written although Level Zero never came up: %v", files)
				}
			case "final":
				s := summarize(readRecords(t, out))
				if s.header == nil || s.kernels == 0 || !s.final {
					t.Errorf("incomplete file: header %v, %d kernels, final %v", s.header != nil, s.kernels, s.final)
				}
			case "any":
				if len(files) == 0 {
					t.Logf("no output file")
					break
				}
				data, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				recs, rerr := readAllSafe(t, data)
				if rerr != nil && !errors.Is(rerr, stream.ErrTruncated) {
					t.Errorf("reading %s: %v", out, rerr)
				}
				s := summarize(recs)
				if s.final {
					t.Errorf("_exit runs no destructor, yet the file has final counters")
				}
				t.Logf("after _exit: file of %d bytes, %d records (header %v, %d kernels), read error %v; zestall said %q",
					len(data), len(recs), s.header != nil, s.kernels, rerr, zestallLines(got.stderr))
			}
		})
	}
}
