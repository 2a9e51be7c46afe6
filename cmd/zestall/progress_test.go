package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestProgress: a read that takes longer than progressDelay reports how far
// it got on stderr, and its end; the report itself is unchanged.
func TestProgress(t *testing.T) {
	defer func(d, e time.Duration) { progressDelay, progressEvery = d, e }(progressDelay, progressEvery)
	progressDelay, progressEvery = -time.Second, -time.Second // every read is "long"
	var so, se bytes.Buffer
	if code := run([]string{"report", "--no-disasm", multi}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.Contains(se.String(), "zestall: reading testdata/multi.zst: ") || !strings.Contains(se.String(), "% (0 of 0 MiB)") ||
		!strings.Contains(se.String(), "zestall: read testdata/multi.zst: 0 MiB in ") {
		t.Errorf("no progress on stderr:\n%s", se.String())
	}
	want, err := readGoldenStdout("report_multi_nodisasm")
	if err != nil {
		t.Fatal(err)
	}
	if so.String() != want {
		t.Errorf("progress changed the report")
	}
}

// readGoldenStdout returns the stdout section of a golden file.
func readGoldenStdout(name string) (string, error) {
	b, err := os.ReadFile("testdata/" + name + ".golden")
	if err != nil {
		return "", err
	}
	_, rest, _ := strings.Cut(string(b), "--- stdout\n")
	out, _, _ := strings.Cut(rest, "--- stderr\n")
	return out, nil
}
