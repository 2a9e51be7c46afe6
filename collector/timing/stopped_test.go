package timing

import (
	"slices"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestHarvesterStopped: executions of a regular list while collection is
// stopped take their readings (so a recorded execution never gets their
// times) and write nothing; a launch appended while stopped is written
// without times when an execution in a window runs it.
func TestHarvesterStopped(t *testing.T) {
	const sec = uint64(1e9)
	exec := func(ns uint64, flags uint8) Slot {
		return Slot{Kind: SlotExec, HostNs: ns, ListID: 5, Queue: 1, Device: 7, Flags: flags}
	}
	tests := []struct {
		name   string
		run    func(x *harness)
		want   []string
		starts []uint64
	}{
		{"stopped execution between two recorded ones, each read late", func(x *harness) {
			x.step(launch(sec, 100, SlotFlagOurs, 5), exec(2*sec, 0))
			x.f.signaled[100] = tsAt(2*sec+100, 2*sec+200)
			x.step(exec(3*sec, SlotFlagStopped))
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.step(exec(4*sec, 0))
			x.f.signaled[100] = tsAt(4*sec+100, 4*sec+200)
			x.step()
		}, []string{"timed", "timed"}, []uint64{2*sec + 100, 4*sec + 100}},
		{"stopped execution read before the recorded one was", func(x *harness) {
			// The goroutine reads only after the stopped execution ran: the
			// reading is the stopped one's, the recorded one is lost, and
			// said so (never given the stopped one's times).
			x.step(launch(sec, 100, SlotFlagOurs, 5), exec(2*sec, 0), exec(3*sec, SlotFlagStopped))
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.step()
		}, []string{"NO_TIMESTAMP_REASON_OVERWRITTEN"}, nil},
		{"only stopped executions: nothing written", func(x *harness) {
			x.step(launch(sec, 100, SlotFlagOurs, 5), exec(2*sec, SlotFlagStopped))
			x.f.signaled[100] = tsAt(2*sec+100, 2*sec+200)
			x.step()
			x.h.Final()
		}, nil, nil},
		{"appended while stopped, executed in a window", func(x *harness) {
			x.step(Slot{Kind: SlotLaunch, HostNs: sec, Device: 7, Context: 9, KernelID: 3, ListID: 5,
				Flags: SlotFlagNoEvent, Reason: uint8(pb.NoTimestampReason_NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED)},
				exec(2*sec, 0))
		}, []string{"NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newHarness()
			tt.run(x)
			var got []string
			var starts []uint64
			for _, r := range x.recs {
				if r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 {
					got = append(got, r.NoTimestampReason.String())
				} else {
					got = append(got, "timed")
					starts = append(starts, r.DeviceStartNs)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("records %v, want %v", got, tt.want)
			}
			for i, s := range starts {
				if d := int64(s) - int64(tt.starts[i]); d < -30 || d > 30 {
					t.Errorf("record %d starts at %d, want %d", i, s, tt.starts[i])
				}
			}
			if n := uint64(len(tt.want)); x.h.seen.Load() != n {
				t.Errorf("launches seen %d, want %d (stopped executions are not launches)", x.h.seen.Load(), n)
			}
		})
	}
}
