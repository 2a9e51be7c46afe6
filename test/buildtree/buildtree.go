// Package buildtree gives the tests that run built artefacts (the
// end-to-end tests in test/e2e, the CLI's disassembly tests in
// cmd/zestall) a build tree that is up to date with the sources they run
// in: before the first use in a test process it runs the CMake build of
// that tree, so an edit to Go or C code is always what the tests test and
// never a stale libzestall.so. It is the shape of Go's own
// cmd/cgo/internal/testcshared harness, which builds the c-shared library
// inside the test run.
//
// The tree is $ZESTALL_BUILD_DIR, else build/ at the repository root. A
// tree that was never configured is configured first (RelWithDebInfo, as
// scripts/build.sh does). Concurrent test processes (go test runs
// packages in parallel) build one tree one at a time, under an exclusive
// lock on a file in it. When cmake is missing, Get skips the test saying
// so, unless ZESTALL_BUILD_DIR is set (scripts/test.sh sets it): then the
// tree must be there and be buildable, and anything else fails.
package buildtree

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
)

// Tree is a built tree and the repository it was built from.
type Tree struct {
	Root  string // repository root
	Build string // build directory (see CMakeLists.txt for its fixed layout)
}

// Lib returns the path of a library in the tree, e.g. Lib("libzestall.so").
func (tr Tree) Lib(name string) string { return filepath.Join(tr.Build, "lib", name) }

// Bin returns the path of a program in the tree, e.g. Bin("zestall").
func (tr Tree) Bin(name string) string { return filepath.Join(tr.Build, "bin", name) }

var (
	once    sync.Once
	tree    Tree
	problem string // why the tree cannot be used; "" when it can
	skip    bool   // problem is an environment's missing tool, not a failure
)

// Get returns the repository's build tree, brought up to date once per test
// process, or ends the test with the precise reason it cannot.
func Get(t testing.TB) Tree {
	t.Helper()
	once.Do(prepare)
	if problem != "" {
		if skip {
			t.Skip(problem)
		}
		t.Fatal(problem)
	}
	return tree
}

// Root returns the repository root: the directory above this package's
// source (test/buildtree), so it holds wherever the clone is.
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func prepare() {
	root := Root()
	dir := os.Getenv("ZESTALL_BUILD_DIR")
	required := dir != ""
	if dir == "" {
		dir = filepath.Join(root, "build")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		problem = err.Error()
		return
	}
	tree = Tree{Root: root, Build: dir}
	cmake, err := exec.LookPath("cmake")
	if err != nil {
		problem = "cmake not found (scripts/setup.sh installs it): the build tree under test cannot be brought up to date"
		skip = !required
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		problem = fmt.Sprintf("build tree %s: %v", dir, err)
		return
	}
	unlock, err := lock(filepath.Join(dir, ".buildtree.lock"))
	if err != nil {
		problem = fmt.Sprintf("build tree %s: %v", dir, err)
		return
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, "CMakeCache.txt")); err != nil {
		if out, err := run(root, cmake, "-S", root, "-B", dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"); err != nil {
			problem = fmt.Sprintf("configuring the build tree %s failed: %v\n%s", dir, err, out)
			return
		}
	}
	if out, err := run(root, cmake, "--build", dir, "-j", fmt.Sprint(runtime.NumCPU())); err != nil {
		problem = fmt.Sprintf("building %s (the tests test what the sources say, never an older build) failed: %v\n%s", dir, err, out)
	}
}

func run(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Go is found where the build expects it even when PATH lacks it.
	cmd.Env = append(os.Environ(), "PATH="+os.Getenv("PATH")+string(os.PathListSeparator)+"/usr/local/go/bin")
	err := cmd.Run()
	return out.Bytes(), err
}

// lock takes an exclusive lock on path, waiting for another test process
// that builds the same tree.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
