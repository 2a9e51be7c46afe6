// Package gencheck holds what the drift tests of generated files share:
// finding the generator's tools (skipping with the reason on a developer's
// machine, failing in CI, where they must be installed) and comparing the
// committed file with what the generator gives now.
//
// Used by the tests of proto (zestallpb from zestall.proto, zestallwire
// and pbconv from zestallpb), ze (results from ze_api.h) and abi (the
// mirror of cgo/abi.h); layer's dependency test uses Tool.
package gencheck

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// Tool returns the path of a tool the generator needs. Without it the test
// is skipped, naming what is missing and how to install it, or fails when
// CI is set in the environment.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" not in PATH ("+install+")")
	}
	return path
}

// Missing skips the test because what is missing, or fails it when CI is
// set in the environment.
func Missing(t testing.TB, what string) {
	t.Helper()
	msg := what + ": cannot check the generated file"
	if os.Getenv("CI") != "" {
		t.Fatal(msg + "; CI must have it")
	}
	t.Skip(msg)
}

// SameFiles is Same over the committed file and the file the generator
// just wrote.
func SameFiles(t testing.TB, committed, generated, regenerate string) {
	t.Helper()
	c, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	g, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	Same(t, committed, c, g, regenerate)
}

// Same fails when committed (what the repository holds) differs from
// generated (what the generator gives now), naming the command that
// brings the file up to date.
func Same(t testing.TB, file string, committed, generated []byte, regenerate string) {
	t.Helper()
	if !bytes.Equal(committed, generated) {
		t.Fatalf("%s is stale or was edited by hand: run `%s` and commit the result", file, regenerate)
	}
}
