package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
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
		{"prefix only, version 2", []byte(stream.Magic + "\x02"), 1, "holds no records"},
		{"newer framing version", []byte(stream.Magic + "\x03"), 1, "framing version 3"},
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

// TestPythonReaderLaunches: the Python example reader resolves compact
// Launch records (deltas, device-end references per command list,
// repeat_of) to what the Go reader returns, on launches of several kernels
// on several command lists, some untimed, over several frames.
func TestPythonReaderLaunches(t *testing.T) {
	py := pythonReader(t)
	var buf bytes.Buffer
	w, err := stream.NewWriter(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	app := uint64(1e12)
	for i := range 5000 {
		app += uint64(rng.IntN(3000))
		list := uint64(1 + rng.IntN(11))
		if i >= 2500 {
			list = 1 // a loop: LaunchRun records (revision 8)
		}
		l := stream.Launch{Id: uint64(i + 1), KernelId: list%3 + 1, DeviceId: 1, CommandListId: list,
			GroupCountX: uint32(64 << (list % 2)), GroupSizeX: 128, HostAppendNs: app}
		if rng.IntN(20) == 0 {
			l.Flags = uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
			l.NoTimestampReason = pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED
		} else {
			l.DeviceStartNs = app + uint64(rng.IntN(50_000))
			l.DeviceEndNs = l.DeviceStartNs + uint64(rng.IntN(20_000))
		}
		if err := w.WriteLaunch(&l); err != nil {
			t.Fatal(err)
		}
		if i%1500 == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := pbstream.ReadAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, r := range recs {
		l := r.GetLaunch()
		fmt.Fprintf(&want, "%d %d %d %d\n", l.Id, l.KernelId, l.DeviceStartNs, l.DeviceEndNs)
	}
	out, err := exec.Command(py[0], py[1], writeTemp(t, t.TempDir(), "launches.zst", buf.Bytes())).Output()
	if err != nil {
		t.Fatalf("%s: %v", py[1], err)
	}
	var got strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		var l struct {
			Launch, KernelID, DeviceStartNs, DeviceEndNs uint64
		}
		if !strings.HasPrefix(line, `{"launch"`) {
			continue
		}
		if err := json.Unmarshal([]byte(line), &struct {
			Launch        *uint64 `json:"launch"`
			KernelID      *uint64 `json:"kernel_id"`
			DeviceStartNs *uint64 `json:"device_start_ns"`
			DeviceEndNs   *uint64 `json:"device_end_ns"`
		}{&l.Launch, &l.KernelID, &l.DeviceStartNs, &l.DeviceEndNs}); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		fmt.Fprintf(&got, "%d %d %d %d\n", l.Launch, l.KernelID, l.DeviceStartNs, l.DeviceEndNs)
	}
	if got.String() != want.String() {
		t.Errorf("Python reader's launches differ from the Go reader's (%d against %d bytes of id, kernel, start, end)",
			got.Len(), want.Len())
	}
}
