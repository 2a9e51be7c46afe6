package timing

import (
	"fmt"
	"slices"
	"testing"

	"github.com/zestall/zestall/proto/stream"
)

// TestOnLaunches: the hook sees every finished record once, in order, a
// batch at a time: the batch the writer gets next, just before it gets
// it (a full batch at once, the rest at the end of the pass), so that
// when a pass ends every launch it finished has been handed over; a
// launch still pending is not.
func TestOnLaunches(t *testing.T) {
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	tests := []struct {
		name string
		// passes: per pass, the launches appended and how many of all
		// appended so far have signalled by then.
		passes []struct{ append, signaled int }
		want   [][]int // per pass, the sizes of the batches handed over
	}{
		{name: "fewer than a batch", passes: []struct{ append, signaled int }{{10, 10}}, want: [][]int{{10}}},
		{name: "several batches in a pass", passes: []struct{ append, signaled int }{{2*LaunchBatch + 5, 2*LaunchBatch + 5}},
			want: [][]int{{LaunchBatch, LaunchBatch, 5}}},
		{name: "pending launches wait", passes: []struct{ append, signaled int }{{10, 6}, {0, 6}, {3, 13}},
			want: [][]int{{6}, nil, {7}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := newHarness()
			var hooked [][]stream.Launch // copies of what the hook saw
			var lastHook []stream.Launch // the slice itself
			emitted := 0
			x.h.emit = func(ls []stream.Launch) []stream.Launch {
				// The writer gets the very batch the hook just saw.
				if len(ls) == 0 || &ls[0] != &lastHook[0] || len(ls) != len(lastHook) || !slices.Equal(ls, hooked[len(hooked)-1]) {
					t.Fatalf("emit got %d records, not the batch the hook saw before (%d)", len(ls), len(lastHook))
				}
				lastHook = nil
				emitted += len(ls)
				x.recs = append(x.recs, ls...)
				return ls[:0]
			}
			x.h.OnLaunches(func(ls []stream.Launch) {
				if lastHook != nil {
					t.Fatal("the hook saw a batch the writer did not get")
				}
				lastHook = ls
				hooked = append(hooked, slices.Clone(ls))
			})
			appended := 0
			var ns uint64 = 1e9
			for p, pass := range tc.passes {
				var slots []Slot
				for range pass.append {
					appended++
					ns += 1000
					slots = append(slots, launch(ns, uint64(1000+appended), imm, 1))
				}
				for ev := 1; ev <= pass.signaled; ev++ {
					at := 1e9 + 1000*uint64(ev)
					x.f.signaled[uint64(1000+ev)] = tsAt(at+100, at+200)
				}
				before := len(hooked)
				x.step(slots...)
				var sizes []int
				for _, b := range hooked[before:] {
					sizes = append(sizes, len(b))
				}
				if !slices.Equal(sizes, tc.want[p]) {
					t.Errorf("pass %d: batches of %v handed over, want %v", p, sizes, tc.want[p])
				}
				if lastHook != nil {
					t.Errorf("pass %d: a batch handed over was not written by the pass's end", p)
				}
			}
			var ids []uint64
			for _, b := range hooked {
				for _, l := range b {
					ids = append(ids, l.Id)
				}
			}
			if !slices.IsSorted(ids) || len(ids) != emitted || len(x.recs) != emitted {
				t.Errorf("hooked %d records (in order: %v), the writer got %d", len(ids), slices.IsSorted(ids), emitted)
			}
			for i, r := range x.recs {
				if r.Id != ids[i] || r.DeviceEndNs == 0 {
					t.Fatalf("record %d: %s", i, fmt.Sprint(r))
				}
			}
		})
	}
}
