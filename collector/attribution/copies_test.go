package attribution_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/zestall/zestall/collector/attribution"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestCopiesSeparateLaunches: back-to-back launches of one kernel on two
// codes (the original and copy 1) whose samples share one read window
// are each LAUNCH-attributed, reported under the original kernel at the
// same offsets; a third launch reusing the original's code in the same
// window makes that code's rows SHARED, never wrong.
func TestCopiesSeparateLaunches(t *testing.T) {
	const copyBase = 0x9000
	a := attribution.New(1, nil, 1)
	a.KernelCreated(7, baseA, 0x100, 0)
	a.KernelCreated(attribution.CodeID(7, 1), copyBase, 0x100, 0)
	a.LaunchTimed(100, 7, 10, 20)
	a.LaunchTimed(101, attribution.CodeID(7, 1), 20, 30)
	a.AddWindow(0, 40, []attribution.Sample{smp(baseA+0x10, 3), smp(copyBase+0x10, 5), smp(copyBase+0x20, 1)})
	recs := a.Resolve(never, true)
	got := map[uint64]map[uint64]uint64{} // launch -> offset -> count
	for _, r := range recs {
		s := r.GetStallRows()
		if s == nil {
			t.Fatalf("unexpected record %v", r)
		}
		if s.KernelId != 7 || s.Attribution != pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH {
			t.Errorf("row of kernel %d, %v; want kernel 7, LAUNCH", s.KernelId, s.Attribution)
		}
		off := uint64(0)
		for i, d := range s.OffsetDeltas {
			off += d
			if got[s.LaunchId] == nil {
				got[s.LaunchId] = map[uint64]uint64{}
			}
			got[s.LaunchId][off] += s.Counters[i]
		}
	}
	want := map[uint64]map[uint64]uint64{100: {0x10: 3}, 101: {0x10: 5, 0x20: 1}}
	if len(got) != 2 || got[100][0x10] != 3 || got[101][0x10] != 5 || got[101][0x20] != 1 {
		t.Errorf("got %v, want %v", got, want)
	}

	// The ring wrapped inside one window: the original's two launches
	// share its rows, copy 1's stay exact.
	a.LaunchTimed(102, 7, 50, 60)
	a.LaunchTimed(103, 7, 60, 70)
	a.LaunchTimed(104, attribution.CodeID(7, 1), 55, 65)
	a.AddWindow(40, 80, []attribution.Sample{smp(baseA+0x10, 2), smp(copyBase+0x10, 4)})
	for _, r := range a.Resolve(never, true) {
		s := r.GetStallRows()
		switch {
		case s.Attribution == pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH && s.LaunchId == 104:
		case s.Attribution == pb.StallAttribution_STALL_ATTRIBUTION_SHARED && len(s.CandidateLaunchIds) == 2 &&
			s.CandidateLaunchIds[0] == 102 && s.CandidateLaunchIds[1] == 103:
		default:
			t.Errorf("row %v", s)
		}
		if s.KernelId != 7 {
			t.Errorf("row of kernel %d, want 7", s.KernelId)
		}
	}
	// Destroying the kernel and its copies: later samples are unattributed.
	a.KernelDestroyed(7, 100)
	a.KernelDestroyed(attribution.CodeID(7, 1), 100)
	a.AddWindow(200, 300, []attribution.Sample{smp(copyBase+0x10, 1)})
	a.Resolve(never, true)
	if tot := a.Totals(); tot.UnattributedRows != 1 {
		t.Errorf("unattributed rows %d, want 1", tot.UnattributedRows)
	}
}

// TestCopyEligibility decides from real compiler output (test/kernels).
// The indirect-call case is compute.zebin with one .ze_info key renamed in
// place: Debian's ocloc rejects function pointers in OpenCL C ("pointers
// to functions are not allowed"), so no real module with indirect calls
// can be built here.
func TestCopyEligibility(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile("../../test/kernels/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	globalvar := read("globalvar.zebin")
	indirect := bytes.Replace(read("globalvar.raw.zebin"), []byte(".data.global"), []byte(".data.const\x00"), 1)
	indirect = bytes.Replace(indirect, []byte("has_global_atomics: true"), []byte("has_indirect_calls: true"), 1)
	tests := []struct {
		name   string
		native []byte
		reason string
	}{
		{"compute", read("compute.zebin"), ""},
		{"stream (two kernels)", read("stream.zebin"), ""},
		{"slm", read("slm.zebin"), ""},
		{"mixed", read("mixed.zebin"), ""},
		{"globalvar", globalvar, "writable program-scope globals (.data.global)"},
		{"indirect calls", indirect, "function pointers or indirect calls (.ze_info has_indirect_calls)"},
		{"empty", nil, "no native binary"},
		{"garbage", []byte("not an ELF file"), "native binary unreadable"},
	}
	for _, tt := range tests {
		e := attribution.CopyEligibility(tt.native)
		if !strings.HasPrefix(e.Reason, tt.reason) || (tt.reason == "") != (e.Reason == "") {
			t.Errorf("%s: reason %q, want %q", tt.name, e.Reason, tt.reason)
		}
		if tt.reason == "" && e.ISABytes == 0 {
			t.Errorf("%s: no ISA bytes", tt.name)
		}
	}
}

// FuzzCopyEligibility: any bytes give a decision (a reason, or none with
// the kernels' ISA size), never a panic.
func FuzzCopyEligibility(f *testing.F) {
	for _, name := range []string{"compute.zebin", "globalvar.raw.zebin", "stream.zebin"} {
		if b, err := os.ReadFile("../../test/kernels/" + name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF"))
	f.Fuzz(func(t *testing.T, native []byte) {
		e := attribution.CopyEligibility(native)
		if e.Reason == "" && len(native) == 0 {
			t.Errorf("no binary, no reason")
		}
	})
}
