package main

import (
	"bytes"
	"encoding/binary"
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

// The hostile-input suite: damaged, empty, duplicated and hostile inputs
// and outputs that cannot be written, through the CLI as users meet them.
// Every case must end with a clear error and exit status 1 (2 for usage),
// print what is intact, never leave a partial output, and stay within a
// memory bound measured on a child process.

// childEnv makes the test binary run the CLI (TestMain).
const childEnv = "ZESTALL_TEST_RUN_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// childResult is one CLI run in a child process.
type childResult struct {
	code           int
	stdout, stderr string
	maxRSS         int64 // bytes
	cpu            time.Duration
}

// runChild runs "zestall args..." in a child process (the test binary),
// under the shell's ulimit -f blocks when fsizeBlocks > 0, and measures
// its peak resident memory.
func runChild(t *testing.T, fsizeBlocks int, stdin []byte, args ...string) childResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := `exec "$0" "$@"`
	if fsizeBlocks > 0 {
		script = fmt.Sprintf("ulimit -f %d && exec \"$0\" \"$@\"", fsizeBlocks)
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, exe}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1", helperEnv+"=/nonexistent/zestall-iga")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // KiB on Linux
	}
	return childResult{code, so.String(), se.String(), rss, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

// framedCapture rewrites a real capture with a frame every `every`
// records; it returns the file and the offset where each frame starts
// (the last entry is the end of the file).
func framedCapture(t *testing.T, src string, every int) ([]byte, []int) {
	t.Helper()
	recs := readCapture(t, src)
	var buf bytes.Buffer
	w, err := stream.NewWriter(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	starts := []int{stream.PrefixSize}
	for i, r := range recs {
		if err := pbstream.Write(w, r); err != nil {
			t.Fatal(err)
		}
		if (i+1)%every == 0 || i == len(recs)-1 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			starts = append(starts, buf.Len())
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), starts
}

func writeTemp(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// recordsLine returns N of the report's "records: N" line.
func recordsLine(t *testing.T, report string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^records: (\d+)`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no records line in\n%s", report)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestHostileTruncation cuts a real capture at every frame boundary and
// in the middle of every frame. A cut at a boundary is a run killed after
// a flush: the report reads cleanly and says the run ended abnormally. A
// cut inside a frame also names the truncation, on stderr and in the
// report, and exits 1.
func TestHostileTruncation(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	file, starts := framedCapture(t, multi, 4)
	dir := t.TempDir()
	t.Logf("%d bytes, %d frames", len(file), len(starts)-1)
	for i, s := range starts[:len(starts)-1] {
		for _, cut := range []int{s, (s + starts[i+1]) / 2} {
			p := writeTemp(t, dir, fmt.Sprintf("cut%d.zst", cut), file[:cut])
			var so, se bytes.Buffer
			code := run([]string{"report", "--no-disasm", p}, &so, &se)
			switch {
			case i == 0 && cut != s:
				// The first frame holds the header: nothing to report.
				if code != 1 || !strings.Contains(se.String(), "truncated") || so.Len() != 0 {
					t.Errorf("cut at %d in the first frame: exit %d\n%s%s", cut, code, so.String(), se.String())
				}
			case cut == stream.PrefixSize:
				if code != 1 || !strings.Contains(se.String(), "holds no records") || so.Len() != 0 {
					t.Errorf("cut at %d (prefix only): exit %d\n%s%s", cut, code, so.String(), se.String())
				}
			case cut == s:
				if code != 0 || !strings.Contains(so.String(), "the run ended abnormally") || recordsLine(t, so.String()) != 4*i {
					t.Errorf("cut at boundary %d: exit %d\n%s%s", cut, code, so.String(), se.String())
				}
			default:
				want := fmt.Sprintf("nothing read after byte offset %d (truncated", s)
				if code != 1 || !strings.Contains(so.String(), want) || !strings.Contains(se.String(), "truncated") ||
					strings.Contains(so.String(), "covered the whole run") {
					t.Errorf("cut at %d inside the frame at %d: exit %d, want the report to say %q\n%s%s", cut, s, code, want, so.String(), se.String())
				}
			}
		}
	}
}

// TestHostileBitFlips damages one frame of a real capture at a time: the
// report goes on with the frames after it, counts the damaged stretch (or,
// for the last frame, says nothing was read after it), leaves out exactly
// that frame's records, never claims that collection covered the whole
// run, and exits 1.
func TestHostileBitFlips(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	file, starts := framedCapture(t, multi, 4)
	total := len(readCapture(t, multi))
	dir := t.TempDir()
	for i := 1; i < len(starts)-1; i++ { // frame 0 holds the header
		s, e := starts[i], starts[i+1]
		for _, at := range []int{s + 1, (s + e) / 2, e - 2} {
			bad := append([]byte(nil), file...)
			bad[at] ^= 0x10
			p := writeTemp(t, dir, fmt.Sprintf("flip%d.zst", at), bad)
			var so, se bytes.Buffer
			code := run([]string{"report", "--no-disasm", p}, &so, &se)
			lost := min(4, total-4*i)
			out := so.String()
			want, stderr := "DAMAGED: "+p+": 1 damaged stretches skipped", "skipped"
			if i == len(starts)-2 {
				want = fmt.Sprintf("DAMAGED: %s: nothing read after byte offset %d (corrupt", p, s)
				stderr = "corrupt"
			}
			if code != 1 || !strings.Contains(out, want) ||
				!strings.Contains(se.String(), stderr) || strings.Contains(out, "covered the whole run") ||
				recordsLine(t, out) != total-lost {
				t.Errorf("flip at %d in frame %d: exit %d, records %d (want %d)\n%s%s", at, i, code, recordsLine(t, out), total-lost, out, se.String())
			}
		}
	}
}

// bombFile is a zestall file of 33 KB whose one frame decompresses to
// 1 GiB of zeros (RLE blocks: 4 bytes of input per 128 KiB of output).
func bombFile() []byte {
	b := []byte(stream.Magic + "\x01")
	b = binary.LittleEndian.AppendUint32(b, 0xFD2FB528)
	b = append(b, 0x00, 0x38)
	const n = 8400
	for i := 0; i < n; i++ {
		bh := uint32(128<<10)<<3 | 1<<1
		if i == n-1 {
			bh |= 1
		}
		b = append(b, byte(bh), byte(bh>>8), byte(bh>>16), 0)
	}
	return b
}

// TestHostileInputs runs every command on empty, prefix-only, bomb and
// duplicated inputs in a child process: a clear error, the exit status,
// no output file, and peak memory within a bound.
func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 512 MiB per bomb run")
	}
	dir := t.TempDir()
	empty := writeTemp(t, dir, "empty.zst", nil)
	prefix := writeTemp(t, dir, "prefix.zst", []byte(stream.Magic+"\x01"))
	bomb := writeTemp(t, dir, "bomb.zst", bombFile())
	good, err := filepath.Abs(multi)
	if err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(dir, "alias.zst")
	if err := os.Symlink(good, alias); err != nil {
		t.Fatal(err)
	}
	// Peak RSS of a child (this test binary, so built with -race in CI)
	// reading the inputs: 15–28 MiB measured without the race detector,
	// up to 97 MiB with it (merge reads each input twice). Without the
	// limits while decompressing, the bomb alone took 2.1 GB.
	const memLimit = 192 << 20
	out := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"empty report", []string{"report", empty}, 1, "empty file"},
		{"empty dump", []string{"dump", empty}, 1, "empty file"},
		{"prefix report", []string{"report", prefix}, 1, "holds no records"},
		{"prefix dump", []string{"dump", prefix}, 1, "holds no records"},
		{"prefix annotate", []string{"annotate", prefix}, 1, "holds no records"},
		{"prefix trace", []string{"trace", prefix, "-o", out("p.json")}, 1, "holds no records"},
		{"prefix pprof", []string{"pprof", prefix, "-o", out("p.pb.gz")}, 1, "holds no records"},
		{"prefix merge", []string{"merge", prefix, "-o", out("p.zst")}, 1, "holds no records"},
		{"bomb report", []string{"report", bomb}, 1, "decompresses to more than"},
		{"bomb dump", []string{"dump", bomb}, 1, "decompresses to more than"},
		// The intact input is merged; the bomb is named in its
		// MergeSource (zestall report of the result says DAMAGED).
		{"bomb merge", []string{"merge", bomb, good, "-o", out("b.zst")}, 1, "decompresses to more than"},
		{"bomb trace", []string{"trace", bomb, "-o", out("b.json")}, 1, "decompresses to more than"},
		{"same file twice", []string{"report", good, good}, 2, "given twice"},
		{"same file by another path", []string{"report", good, alias}, 2, "are the same file"},
		{"same file, merge", []string{"merge", alias, good, "-o", out("d.zst")}, 2, "are the same file"},
		{"stdin twice", []string{"report", "-", "-"}, 2, "only once"},
		{"stdin merge", []string{"merge", "-", "-o", out("s.zst")}, 2, "cannot read standard input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runChild(t, 0, nil, tt.args...)
			t.Logf("exit %d, peak RSS %d MiB: %s", r.code, r.maxRSS>>20, strings.TrimSpace(r.stderr))
			if r.code != tt.code || !strings.Contains(r.stderr, tt.msg) {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", r.code, tt.code, tt.msg, r.stderr)
			}
			if r.maxRSS > memLimit {
				t.Errorf("peak RSS %d MiB, bound %d MiB", r.maxRSS>>20, memLimit>>20)
			}
			for i, a := range tt.args {
				if a == "-o" && tt.name != "bomb merge" {
					if _, err := os.Lstat(tt.args[i+1]); err == nil {
						t.Errorf("output %s was written", tt.args[i+1])
					}
				}
			}
		})
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestFullDisk writes every output under a file size limit (the shell's
// ulimit -f, which makes write fail with EFBIG as a full disk makes it
// fail with ENOSPC): exit 1 naming the error, no output and no temporary
// file left, and the retry without the limit succeeds.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ cmd, out string }{
		{"trace", "t.json"}, {"pprof", "p.pb.gz"}, {"merge", "m.zst"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			out := filepath.Join(dir, tc.out)
			args := []string{tc.cmd, multi, "-o", out}
			if tc.cmd == "merge" {
				args = []string{tc.cmd, multi, serialized, "-o", out}
			}
			r := runChild(t, 1, nil, args...) // 1 block: 512 bytes with dash
			if r.code != 1 || !strings.Contains(r.stderr, "file too large") {
				t.Errorf("under ulimit -f 1: exit %d, stderr %q", r.code, r.stderr)
			}
			if _, err := os.Lstat(out); err == nil {
				t.Errorf("a partial %s was left", out)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			r = runChild(t, 0, nil, args...)
			if r.code != 0 {
				t.Errorf("retry: exit %d: %s", r.code, r.stderr)
			}
			if fi, err := os.Stat(out); err != nil || fi.Size() <= 512 {
				t.Errorf("retry did not write %s: %v", out, err)
			}
		})
	}
}

// TestOutputNeverReplaced: a file that appears at OUT while zestall writes
// (another process) is neither overwritten nor replaced; zestall fails and
// removes its temporary file.
func TestOutputNeverReplaced(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.json")
	err := writeOutput(out, func(w io.Writer) error {
		if err := os.WriteFile(out, []byte("theirs"), 0o644); err != nil {
			return err
		}
		_, err := w.Write([]byte("ours"))
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("err = %v, want exists", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "theirs" {
		t.Errorf("the other writer's file was changed: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Without the race: written complete, mode 0644 less the umask.
	out2 := filepath.Join(dir, "ok.json")
	if err := writeOutput(out2, func(w io.Writer) error { _, err := w.Write([]byte("ours")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out2); string(b) != "ours" {
		t.Errorf("got %q", b)
	}
	// The exclusive rename, used where hard links are missing.
	tmp := filepath.Join(dir, "tmp")
	os.WriteFile(tmp, []byte("x"), 0o644)
	if err := renameNoReplace(tmp, out); err == nil {
		t.Error("renameNoReplace replaced an existing file")
	}
}

// TestStdin: "-" reads standard input, for the commands that read once.
func TestStdin(t *testing.T) {
	b, err := os.ReadFile(multi)
	if err != nil {
		t.Fatal(err)
	}
	r := runChild(t, 0, b, "report", "--no-disasm", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "records: ") {
		t.Fatalf("report -: exit %d\n%s", r.code, r.stderr)
	}
	var so, se bytes.Buffer
	run([]string{"report", "--no-disasm", multi}, &so, &se)
	if r.stdout != so.String() {
		t.Errorf("report of standard input differs from the file's:\n%s", diffLines(so.String(), r.stdout))
	}
	r = runChild(t, 0, b[:len(b)/2], "dump", "-")
	if r.code != 1 || !strings.Contains(r.stderr, "standard input: zestall stream") {
		t.Errorf("dump of a truncated standard input: exit %d: %s", r.code, r.stderr)
	}
}

// TestHostileDamageEveryCommand: one damaged frame in the middle of a real
// capture; dump, annotate, pprof, trace and merge all go on past it, name
// it and exit 1, and merge's output reads back with exactly the intact
// records, the damage kept in its MergeSource.
func TestHostileDamageEveryCommand(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	file, starts := framedCapture(t, multi, 4)
	total := len(readCapture(t, multi))
	k := len(starts) / 2
	bad := append([]byte(nil), file...)
	bad[(starts[k]+starts[k+1])/2] ^= 0x10
	dir := t.TempDir()
	p := writeTemp(t, dir, "damaged.zst", bad)
	for _, args := range [][]string{
		{"dump", p}, {"annotate", "--no-disasm", p}, {"report", "--json", p},
		{"pprof", p, "-o", filepath.Join(dir, "p.pb.gz")}, {"trace", p, "-o", filepath.Join(dir, "t.json")},
		{"merge", p, serialized, "-o", filepath.Join(dir, "m.zst")},
	} {
		var so, se bytes.Buffer
		code := run(args, &so, &se)
		if code != 1 || !strings.Contains(se.String(), "skipped") {
			t.Errorf("zestall %v: exit %d, stderr %q", args, code, se.String())
		}
		if args[0] == "dump" {
			if n := strings.Count(so.String(), "\n"); n != total-4 {
				t.Errorf("dump printed %d records, want the %d intact ones", n, total-4)
			}
		}
	}
	var n int
	var src *pb.MergeSource
	for _, r := range readCapture(t, filepath.Join(dir, "m.zst")) {
		if ms := r.GetMergeSource(); ms != nil && ms.Index == 1 {
			src = ms
		}
		n++
	}
	if src == nil || src.RecordsRead != uint64(total-4) || !strings.Contains(src.ReadError, "skipped") {
		t.Errorf("merge source of the damaged input: %v", src)
	}
	var so, se bytes.Buffer
	if code := run([]string{"report", "--no-disasm", filepath.Join(dir, "m.zst")}, &so, &se); code != 0 || !strings.Contains(so.String(), "DAMAGED") ||
		strings.Contains(so.String(), "covered the whole run") {
		t.Errorf("report of the merge: exit %d\n%s", code, so.String())
	}
}
