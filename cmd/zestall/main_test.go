package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// writeRun writes a small synthetic run; truncate cuts the file after
// its first frame (a killed run).
func writeRun(t *testing.T, dir string, final bool) string {
	t.Helper()
	path := filepath.Join(dir, "run.zst")
	f, err := stream.CreateExclusive(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := stream.NewWriter(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := []*pb.Record{
		{Kind: &pb.Record_Header{Header: &pb.Header{FormatVersion: 1, ToolVersion: "test", Pid: 42, HostName: "h", Argv: []string{"./app", "1"},
			Devices: []*pb.Device{{Id: 1, Name: "Intel(R) Data Center GPU Max 1550", PciDeviceId: 0x0bd5, Platform: "PVC", XeCoreCount: 64, TimerFrequencyHz: 38400000, KernelTimestampValidBits: 32}}}}},
		{Kind: &pb.Record_Module{Module: &pb.Module{Id: 1, NativeBinary: []byte("zebin"), DebugInfo: []byte("dwarf")}}},
		{Kind: &pb.Record_Kernel{Kernel: &pb.Kernel{Id: 1, ModuleId: 1, Name: "_Z4triadPf", DemangledName: "triad(float*)", BaseAddress: 0x800000010000, IsaSize: 576, ValidFromHostNs: 1000}}},
		{Kind: &pb.Record_KernelDestroyed{KernelDestroyed: &pb.KernelDestroyed{Id: 1, ValidUntilHostNs: 2001000}}},
	}
	for _, r := range recs {
		if err := pbstream.Write(w, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if final {
		if err := pbstream.Write(w, &pb.Record{Kind: &pb.Record_Counters{Counters: &pb.Counters{Final: true, LaunchesSeen: 7}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	good := writeRun(t, dir, true)
	sub := t.TempDir()
	crashed := writeRun(t, sub, false)
	// Append garbage: a torn frame after the last complete one.
	fh, _ := os.OpenFile(crashed, os.O_APPEND|os.O_WRONLY, 0)
	fh.Write([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x04})
	fh.Close()

	tests := []struct {
		args   []string
		code   int
		stdout []string // substrings
		stderr []string
	}{
		{nil, 2, nil, []string{"usage"}},
		{[]string{"bogus"}, 2, nil, []string{"unknown command"}},
		{[]string{"help"}, 0, []string{"dump FILE"}, nil},
		{[]string{"--version"}, 0, []string{"zestall " + version}, nil},
		{[]string{"version"}, 0, []string{"zestall " + version}, nil},
		{[]string{"dump", good, "--bytes"}, 0, []string{`"native_binary":"emViaW4="`}, nil},
		{[]string{"report", good, "--top", "1"}, 0, []string{"pid 42"}, nil},
		{[]string{"report", "--", good}, 0, []string{"pid 42"}, nil},
		{[]string{"dump"}, 2, nil, []string{"exactly one FILE"}},
		{[]string{"dump", "--help"}, 0, nil, []string{"type"}},
		{[]string{"dump", filepath.Join(dir, "missing.zst")}, 1, nil, []string{"no such file"}},
		{[]string{"dump", good}, 0, []string{`"type":"header"`, `"type":"kernel"`, `"native_binary_size":5`, `"base_address":140737488420864`, `"type":"counters"`}, nil},
		{[]string{"report", good}, 0, []string{"pid 42", "device 1: Intel(R) Data Center GPU Max 1550 (0x0bd5 PVC), 64 Xe-cores, timer 38.4 MHz", "triad(float*)", "0x0000800000010000", "576", "2.000 ms", "kernel launches seen: 7"}, nil},
		{[]string{"report", crashed}, 1, []string{"triad(float*)", "ended abnormally"}, []string{"truncated"}},
		{[]string{"pprof", good}, 2, nil, []string{"-o OUT"}},
		{[]string{"pprof", good, "-o", filepath.Join(dir, "p.pb.gz")}, 1, nil, []string{"no EU stall samples"}},
	}
	for _, tt := range tests {
		var so, se bytes.Buffer
		code := run(tt.args, &so, &se)
		if code != tt.code {
			t.Errorf("zestall %v: exit %d, want %d (stderr %q)", tt.args, code, tt.code, se.String())
		}
		for _, s := range tt.stdout {
			if !strings.Contains(so.String(), s) {
				t.Errorf("zestall %v: stdout lacks %q:\n%s", tt.args, s, so.String())
			}
		}
		for _, s := range tt.stderr {
			if !strings.Contains(strings.ToLower(se.String()), strings.ToLower(s)) {
				t.Errorf("zestall %v: stderr lacks %q:\n%s", tt.args, s, se.String())
			}
		}
	}
}

func TestDumpLinesAreJSON(t *testing.T) {
	path := writeRun(t, t.TempDir(), true)
	var so, se bytes.Buffer
	if code := run([]string{"dump", path}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	lines := strings.Split(strings.TrimSpace(so.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5", len(lines))
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q: %v", l, err)
		}
		if _, ok := m["type"].(string); !ok {
			t.Errorf("no type in %q", l)
		}
	}
}

// TestSamplingOffLine: the reason sampling was off is said in words, and
// a success code recorded as the detail is never shown as a reason.
func TestSamplingOffLine(t *testing.T) {
	tests := []struct {
		reason pb.StallSamplingOff
		detail string
		want   string
	}{
		{pb.StallSamplingOff_STALL_SAMPLING_OFF_METRICS_NOT_ENABLED, "ZE_RESULT_SUCCESS (0x0)",
			"  EU stall sampling: off: the driver exposes no metrics (run with ZET_ENABLE_METRICS=1)\n"},
		{pb.StallSamplingOff_STALL_SAMPLING_OFF_OPEN_FAILED, "ZE_RESULT_ERROR_NOT_AVAILABLE (0x78000003)",
			"  EU stall sampling: off: the metric streamer could not be opened (another sampling session may be active) (ZE_RESULT_ERROR_NOT_AVAILABLE (0x78000003))\n"},
		{pb.StallSamplingOff(99), "", "  EU stall sampling: off: reason 99 (written by a newer zestall)\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		writeSampling(&b, &pb.Device{StallSampling: &pb.StallSampling{OffReason: tt.reason, Detail: tt.detail}})
		if b.String() != tt.want {
			t.Errorf("%v %q:\n got %q\nwant %q", tt.reason, tt.detail, b.String(), tt.want)
		}
	}
}

// TestJSONReportAddsUp: report --json decodes into its documented
// structure (no field outside it) and its numbers add up: the sample
// totals by attribution, by kernel, by device and by window.
func TestJSONReportAddsUp(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	for _, args := range [][]string{{multi}, {serialized}, {windows}, {multi, serialized}} {
		var so, se bytes.Buffer
		if code := run(append([]string{"report", "--json"}, args...), &so, &se); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, se.String())
		}
		dec := json.NewDecoder(&so)
		dec.DisallowUnknownFields()
		var r jsonReport
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		s := r.StallSamples
		if r.Schema != "zestall-report/1" || s.Total != s.SingleLaunch+s.Shared+s.KernelOnly+s.Unattributed || s.Total == 0 {
			t.Errorf("%v: schema %q, totals %+v", args, r.Schema, s)
		}
		var byKernel, byDevice, byWindow uint64
		launches := 0
		for _, k := range r.Kernels {
			byKernel += k.StallSamples
			launches += k.Launches + k.LaunchesUntimed
			var rs uint64
			for _, v := range k.Reasons {
				rs += v
			}
			if rs != k.StallSamples {
				t.Errorf("%v: kernel %s: reasons add up to %d, samples %d", args, k.Name, rs, k.StallSamples)
			}
		}
		for _, d := range r.Devices {
			byDevice += d.StallSamples
		}
		for _, w := range r.Windows {
			byWindow += w.StallSamples
		}
		if len(r.Windows) > 0 {
			byWindow += r.OutsideWindows.StallSamples + r.StallSamplesNoWindow
		} else {
			byWindow = s.Total
		}
		if byKernel+s.Unattributed != s.Total || byDevice != s.Total || byWindow != s.Total {
			t.Errorf("%v: total %d; by kernel %d (+%d unattributed), by device %d, by window %d", args, s.Total, byKernel, s.Unattributed, byDevice, byWindow)
		}
		if r.Counters == nil || uint64(launches) != r.Counters.LaunchesSeen {
			t.Errorf("%v: kernels hold %d launches, counters %+v", args, launches, r.Counters)
		}
	}
}
