package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zestall/zestall/proto/stream"
)

// pythonReader returns the command that runs scripts/zestall_read.py, or
// skips naming what is missing (scripts/setup.sh installs it all).
func pythonReader(t *testing.T) []string {
	t.Helper()
	const py = "/usr/bin/python3" // Debian's, with Debian's modules
	if out, err := exec.Command(py, "-c", "import zstandard, google.protobuf").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import zstandard and google.protobuf (Debian: python3-zstandard python3-protobuf): %v: %s", py, err, bytes.TrimSpace(out))
	}
	if _, err := exec.LookPath("protoc"); err != nil {
		t.Skip("protoc not found (Debian: protobuf-compiler): the script generates its schema code with it")
	}
	return []string{py, filepath.Join("..", "..", "scripts", "zestall_read.py")}
}

// TestPythonReaderDamage: the Python example reader exits 0 on an intact
// file and 1, naming the damage, on a damaged, empty or record-less file
// (printing what it read before the damage).
func TestPythonReaderDamage(t *testing.T) {
	py := pythonReader(t)
	file, starts := framedCapture(t, multi, 4)
	flipped := append([]byte(nil), file...)
	flipped[(starts[3]+starts[4])/2] ^= 0x10
	dir := t.TempDir()
	tests := []struct {
		name string
		data []byte
		code int
		msg  string
	}{
		{"intact", file, 0, ""},
		{"truncated", file[:(starts[3]+starts[4])/2], 1, "file ends inside the frame at byte offset"},
		{"bit flip", flipped, 1, "corrupt frame at byte offset"},
		{"prefix only", []byte(stream.Magic + "\x01"), 1, "holds no records"},
		{"empty", nil, 1, "not a zestall file"},
		{"garbage after the last frame", append(append([]byte(nil), file...), "junk"...), 1, "no frame at byte offset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTemp(t, dir, strings.ReplaceAll(tt.name, " ", "_")+".zst", tt.data)
			cmd := exec.Command(py[0], py[1], p)
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || !strings.Contains(se.String(), tt.msg) {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", code, tt.code, tt.msg, se.String())
			}
			if tt.name == "truncated" && !strings.Contains(so.String(), `"kernel_id"`) {
				t.Errorf("printed nothing read before the damage:\n%s", so.String())
			}
		})
	}
}
