package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zestall/zestall/internal/gencheck"
)

// inittraceLine is one line of GODEBUG=inittrace=1:
// "init <package> @<t> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs".
var inittraceLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// initBytesLimit is what one of zestall's packages may allocate at
// initialisation: a few sentinel errors (errors.New: 16 bytes each) or a
// sync.OnceValue, never a table.
const initBytesLimit = 128

// TestPackageInitBuildsNothing holds zestall's own packages to building
// nothing when libzestall.so is loaded: package initialisation runs in
// every profiled process and the application's first zeInit waits for it
// (docs/level-zero-loader.md §8.4 "Start-up cost of `LD_PRELOAD`").
// Tables are switches or arrays, heavier state is made at first use. The
// test binary links the library's package graph; GODEBUG=inittrace=1
// reports each package whose initialisation does work, with its heap
// allocations. Exempt: this package's init (the session object, no I/O;
// the test's own variables count there too).
func TestPackageInitBuildsNothing(t *testing.T) {
	if os.Getenv("ZESTALL_TEST_INITTRACE_CHILD") == "1" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPackageInitBuildsNothing$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "ZESTALL_TEST_INITTRACE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", cmd, err, out)
	}
	const own = "github.com/zestall/zestall/"
	exempt := map[string]bool{
		own + "layer": true,
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		m := inittraceLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		seen++
		if !strings.HasPrefix(m[1], own) || exempt[m[1]] {
			continue
		}
		bytes, _ := strconv.Atoi(m[2])
		allocs, _ := strconv.Atoi(m[3])
		if bytes > initBytesLimit {
			t.Errorf("package %s allocates %d bytes in %d allocations at initialisation (limit %d); make it a switch, an array or state built at first use", m[1], bytes, allocs, initBytesLimit)
		}
	}
	if seen == 0 {
		t.Fatalf("no inittrace line in the child's output (GODEBUG=inittrace=1 not honoured?):\n%s", out)
	}
}

// TestRuntimeMaxprocsMachineryOff: libzestall.so is built with the Go
// runtime's self-updating GOMAXPROCS off (the go:debug line of main.go):
// no updater goroutine, and no sysmon re-reading the cgroup files every
// second until zestall first sets the count (config.GoProcs). go list
// reports the package's GODEBUG defaults as the build applies them.
func TestRuntimeMaxprocsMachineryOff(t *testing.T) {
	goTool := gencheck.Tool(t, "go", "the Go toolchain reports the package's GODEBUG defaults")
	out, err := exec.Command(goTool, "list", "-f", "{{.DefaultGODEBUG}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	got := map[string]bool{}
	for _, kv := range strings.Split(strings.TrimSpace(string(out)), ",") {
		got[kv] = true
	}
	if !got["updatemaxprocs=0"] {
		t.Errorf("libzestall.so's GODEBUG defaults %q lack updatemaxprocs=0", strings.TrimSpace(string(out)))
	}
}
