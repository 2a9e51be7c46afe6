package buildtree

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestNothingStale: after Get, every built artefact is newer than every
// source file it is built from, so a test never runs an older build. The
// sources are asked of the go command itself (the packages each Go target
// depends on, inside this module), so a new package cannot escape the check.
func TestNothingStale(t *testing.T) {
	tr := Get(t)
	for _, tc := range []struct {
		artefact string
		pkg      string
	}{
		{tr.Lib("libzestall.so"), "./layer"},
		{tr.Bin("zestall"), "./cmd/zestall"},
	} {
		built, err := os.Stat(tc.artefact)
		if err != nil {
			t.Fatalf("%s after the build: %v", tc.artefact, err)
		}
		for _, src := range goSources(t, tr.Root, tc.pkg) {
			fi, err := os.Stat(src)
			if err != nil {
				t.Fatal(err)
			}
			if fi.ModTime().After(built.ModTime()) {
				t.Errorf("%s is older than its source %s", tc.artefact, src)
			}
		}
	}
}

// goSources lists the non-test Go, C and header files of pkg and of every
// package of this module it imports.
func goSources(t *testing.T, root, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+os.Getenv("PATH")+":/usr/local/go/bin")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var files []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			Dir                               string
			GoFiles, CgoFiles, CFiles, HFiles []string
			Standard                          bool
			Module                            *struct{ Path string }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Standard || p.Module == nil || p.Module.Path != "github.com/zestall/zestall" {
			continue
		}
		for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.CFiles, p.HFiles} {
			for _, f := range list {
				files = append(files, filepath.Join(p.Dir, f))
			}
		}
	}
	if len(files) == 0 {
		t.Fatalf("go list -deps %s: no source file of this module", pkg)
	}
	return files
}
