package collector

import (
	"strings"
	"testing"
	"time"

	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/ze"
)

// fakeCopies records how the session configured the copy source.
type fakeCopies struct {
	copies  int
	reuseNs uint64
}

func (f *fakeCopies) Configure(n int, reuseNs uint64)    { f.copies, f.reuseNs = n, reuseNs }
func (f *fakeCopies) Counters() (uint64, uint64, uint64) { return 7, 2, 1 }

// TestCopiesWiring: with ZESTALL_SEPARATE_LAUNCHES=copies and stall
// sampling on, the session turns the copy source on with the configured
// ring and the reuse interval (latency + read interval), says so in the
// header, records per module the copies or the reason, registers a
// kernel's copies with the stall reader, and writes the source's counters
// (fallbacks said on stderr at exit). Without sampling it warns and stays
// off.
func TestCopiesWiring(t *testing.T) {
	env := map[string]string{"ZESTALL_SEPARATE_LAUNCHES": "copies", "ZESTALL_SEPARATE_COPIES": "3",
		"ZESTALL_STALL_LATENCY": "5ms", "ZESTALL_STALL_READ_INTERVAL": "2ms"}
	s, path, stderr := testSession(t, env)
	src := &fakeCopies{}
	s.Devices(testDevices)
	s.Stalls(quietStalls{})
	s.Timestamps(idleTimestamps{})
	s.Copies(src)
	s.Status(StateActive, ze.Success)
	if src.copies != 3 || src.reuseNs != uint64(7*time.Millisecond) || s.CodeCopies() != 3 {
		t.Errorf("configured %d copies, reuse %d ns; CodeCopies %d", src.copies, src.reuseNs, s.CodeCopies())
	}
	if e := s.CopyEligibility(nil); e.Reason != "no native binary" {
		t.Errorf("eligibility of nothing: %+v", e)
	}
	s.ModuleCreated(&Module{Handle: 1, Device: 0x10, CodeCopies: 3, CopyISABytes: 3 * 640, CopyNs: 1234})
	s.ModuleCreated(&Module{Handle: 2, Device: 0x10, CopyReason: "writable program-scope globals (.data.global)"})
	s.KernelCreated(&Kernel{ID: 1, Handle: 10, Module: 1, Name: "k", Base: 0x1000, ISA: make([]byte, 64),
		CopyBases: []uint64{0x2000, 0x3000, 0x4000}})
	s.KernelDestroyed(10)
	s.Shutdown()
	recs := readBack(t, path)
	h := recs[0].GetHeader()
	if h.LaunchSeparation != pb.LaunchSeparation_LAUNCH_SEPARATION_COPIES || h.CodeCopiesPerModule != 3 {
		t.Errorf("header: %v %d", h.LaunchSeparation, h.CodeCopiesPerModule)
	}
	var mods []*pb.Module
	for _, r := range recs {
		if m := r.GetModule(); m != nil {
			mods = append(mods, m)
		}
	}
	if len(mods) != 2 || mods[0].CodeCopies != 3 || mods[0].CopyIsaBytes != 1920 || mods[0].CopyCreateNs != 1234 ||
		mods[1].CodeCopies != 0 || mods[1].CopyIneligibleReason != "writable program-scope globals (.data.global)" {
		t.Errorf("modules %v", mods)
	}
	c := recs[len(recs)-1].GetCounters()
	if c.LaunchesOnCopies != 7 || c.CodeCopyEarlyReuses != 2 || len(c.Lost) != 0 {
		t.Errorf("counters %v", c)
	}
	if len(s.kernCopies) != 0 {
		t.Errorf("copies still held after the kernel was destroyed: %v", s.kernCopies)
	}
	if out := stderr.String(); !strings.Contains(out, "1 launches ran the application's own kernel") {
		t.Errorf("stderr %q", out)
	}

	// Without EU stall sampling there is nothing to separate.
	env["ZESTALL_SAMPLING"] = "0"
	s, path, stderr = testSession(t, env)
	src = &fakeCopies{}
	s.Devices(testDevices)
	s.Timestamps(idleTimestamps{})
	s.Copies(src)
	s.Status(StateActive, ze.Success)
	s.Shutdown()
	if src.copies != 0 || s.CodeCopies() != 0 || !strings.Contains(stderr.String(), "needs EU stall sampling") {
		t.Errorf("sampling off: %d copies configured, CodeCopies %d, stderr %q", src.copies, s.CodeCopies(), stderr)
	}
	if h := readBack(t, path)[0].GetHeader(); h.LaunchSeparation != pb.LaunchSeparation_LAUNCH_SEPARATION_TIME_WINDOWS {
		t.Errorf("header says %v with sampling off", h.LaunchSeparation)
	}
}
