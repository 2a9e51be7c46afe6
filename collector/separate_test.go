package collector

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zestall/zestall/collector/config"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/ze"
)

// fakeCopies records how the session configured the copy source and
// what the harvester told it.
type fakeCopies struct {
	copies, most int
	reuseNs, mem uint64
	ran          []string
	stopped      bool
}

func (f *fakeCopies) Configure(n, most int, reuseNs, mem uint64) {
	f.copies, f.most, f.reuseNs, f.mem = n, most, reuseNs, mem
}
func (f *fakeCopies) Ran(id uint64, code uint32, appendNs, endNs uint64, imm bool) {
	f.ran = append(f.ran, fmt.Sprint(id, code, appendNs, endNs, imm))
}
func (f *fakeCopies) Stop(time.Duration) bool { f.stopped = true; return true }
func (f *fakeCopies) Counters() CopyCounters {
	return CopyCounters{OnCopies: 7, EarlyReuses: 2, Fallbacks: 1, CopiesMade: 9, CopyISABytes: 9 * 640, KernelsMade: 4}
}

// TestCopiesWiring: with ZESTALL_SEPARATE_LAUNCHES=copies and stall
// sampling on, the session turns the copy source on with the configured
// ring (fixed: ZESTALL_SEPARATE_COPIES=3; auto: InitialCodeCopies growing
// to MaxCodeCopies) and the reuse interval (latency + 2 read intervals),
// says so in the header, records per module the copies or the reason,
// registers a kernel's copies with the stall reader when they are
// created (and only for separated kernels), writes the source's counters
// and stops it at exit (fallbacks said on stderr). Without sampling it
// warns and stays off.
func TestCopiesWiring(t *testing.T) {
	env := map[string]string{"ZESTALL_SEPARATE_LAUNCHES": "copies", "ZESTALL_SEPARATE_COPIES": "3",
		"ZESTALL_STALL_LATENCY": "5ms", "ZESTALL_STALL_READ_INTERVAL": "2ms", "ZESTALL_QUIET": "0"}
	s, path, stderr := testSession(t, env)
	src := &fakeCopies{}
	s.Devices(testDevices)
	s.Stalls(quietStalls{})
	s.Timestamps(idleTimestamps{})
	s.Copies(src)
	s.Status(StateActive, ze.Success)
	if src.copies != 3 || src.most != 3 || src.reuseNs != uint64(9*time.Millisecond) || s.CodeCopies() != 3 || src.mem != config.DefaultCopyMemoryLimit {
		t.Errorf("configured %d copies (most %d), reuse %d ns; CodeCopies %d", src.copies, src.most, src.reuseNs, s.CodeCopies())
	}
	if e := s.CopyEligibility(nil); e.Reason != "no native binary" {
		t.Errorf("eligibility of nothing: %+v", e)
	}
	s.ModuleCreated(&Module{Handle: 1, Device: 0x10, CodeCopies: 3, CopyISABytes: 3 * 640, CopyNs: 1234})
	s.ModuleCreated(&Module{Handle: 2, Device: 0x10, CopyReason: "writable program-scope globals (.data.global)"})
	s.KernelCreated(&Kernel{ID: 1, Handle: 10, Module: 1, Name: "k", Base: 0x1000, ISA: make([]byte, 64), Separated: true})
	s.KernelCreated(&Kernel{ID: 2, Handle: 11, Module: 2, Name: "g", Base: 0x8000, ISA: make([]byte, 64)})
	s.CopyKernelCreated(1, 2, 0x3000)
	s.CopyKernelCreated(2, 1, 0x9000) // not separated: ignored
	if kc := s.kernCopies[1]; kc.size != 64 || kc.codes != 0b10 || len(s.kernCopies) != 1 {
		t.Errorf("kernel copies %v", s.kernCopies)
	}
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
	if c.LaunchesOnCopies != 7 || c.CodeCopyEarlyReuses != 2 || c.CodeCopiesMade != 9 || c.CodeCopyIsaBytes != 5760 || len(c.Lost) != 0 {
		t.Errorf("counters %v", c)
	}
	if !src.stopped {
		t.Error("copy source not stopped at exit")
	}
	if mods[0].CopyIsaBytesEach != 640 || h.CodeCopiesMax != 0 || h.CodeCopyMemoryLimit != config.DefaultCopyMemoryLimit {
		t.Errorf("copy bytes each %d, header max %d (fixed ring)", mods[0].CopyIsaBytesEach, h.CodeCopiesMax)
	}

	// The automatic ring; the harvester's timed launches reach the source.
	delete(env, "ZESTALL_SEPARATE_COPIES")
	s, path, _ = testSession(t, env)
	src = &fakeCopies{}
	s.Devices(testDevices)
	s.Stalls(quietStalls{})
	s.Timestamps(idleTimestamps{})
	s.Copies(src)
	s.Status(StateActive, ze.Success)
	// A batch reaches the stall reader whole, before the ring hears of
	// any of its launches; untimed launches free no code.
	var fed []string
	f := s.onLaunches(func(ls []stream.Launch) {
		fed = append(fed, fmt.Sprint(len(ls), " launches, ", len(src.ran), " ran before"))
	})
	f([]stream.Launch{
		{KernelId: 5, CodeCopy: 2, HostAppendNs: 10, DeviceEndNs: 30, Flags: uint32(pb.LaunchFlag_LAUNCH_FLAG_IMMEDIATE)},
		{KernelId: 5, CodeCopy: 1, HostAppendNs: 40, Flags: uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)},
		{KernelId: 6, CodeCopy: 1, HostAppendNs: 50, DeviceEndNs: 70},
	})
	f([]stream.Launch{{KernelId: 5, CodeCopy: 3, HostAppendNs: 80, DeviceEndNs: 90}})
	s.Shutdown()
	if want := []string{"5 2 10 30 true", "6 1 50 70 false", "5 3 80 90 false"}; src.copies != config.InitialCodeCopies || src.most != config.MaxCodeCopies || !slices.Equal(src.ran, want) {
		t.Errorf("auto: configured %d copies (most %d); ran %q, want %q", src.copies, src.most, src.ran, want)
	}
	if want := []string{"3 launches, 0 ran before", "1 launches, 2 ran before"}; !slices.Equal(fed, want) {
		t.Errorf("the stall reader was fed %q, want %q", fed, want)
	}
	if h := readBack(t, path)[0].GetHeader(); h.CodeCopiesPerModule != config.InitialCodeCopies || h.CodeCopiesMax != config.MaxCodeCopies {
		t.Errorf("auto: header %d copies, max %d", h.CodeCopiesPerModule, h.CodeCopiesMax)
	}
	if len(s.kernCopies) != 0 {
		t.Errorf("copies still held after the kernel was destroyed: %v", s.kernCopies)
	}
	if out := stderr.String(); !strings.Contains(out, "1 launches ran the application's own kernel") ||
		!strings.Contains(out, "9 module copies made (5760 bytes of ISA); 4 kernels created in copies") {
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
