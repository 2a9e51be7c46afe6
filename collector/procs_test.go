package collector

import (
	"testing"
	"time"

	"github.com/zestall/zestall/collector/config"
)

// TestProcsPolicy: a backlog (or sampling) raises the runtime to High Ps
// at once; it goes back to Low after procsCalm without one; a user's
// GOMAXPROCS (the zero policy) is never changed.
func TestProcsPolicy(t *testing.T) {
	type pass struct {
		at       time.Duration
		backlog  bool
		sampling bool
		busy     bool // the pass drained something
	}
	for _, tc := range []struct {
		name   string
		policy config.GoProcs
		passes []pass
		want   []int // GOMAXPROCS calls
		start  int   // the runtime's P count before the first pass (0: Low)
	}{
		{"steady rate stays low", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, false, false, false}, {16 * time.Millisecond, false, false, false}, {5 * time.Second, false, false, false}}, nil, 0},
		{"backlog raises, calm lowers", config.GoProcs{Low: 1, High: 2},
			[]pass{
				{0, true, false, false},
				{time.Millisecond, true, false, false}, // already high
				{2 * time.Millisecond, false, false, false},
				{500 * time.Millisecond, false, false, false},
				{1002 * time.Millisecond, false, false, false}, // a second without a backlog
				{1003 * time.Millisecond, false, false, false},
			}, []int{2, 1}, 0},
		{"a backlog inside the calm second restarts it", config.GoProcs{Low: 1, High: 2},
			[]pass{
				{0, true, false, false},
				{10 * time.Millisecond, false, false, false},
				{900 * time.Millisecond, true, false, false},
				{1100 * time.Millisecond, false, false, false},
				{1500 * time.Millisecond, false, false, false}, // 0.4 s calm: stays high
				{2200 * time.Millisecond, false, false, false}, // 1.1 s
			}, []int{2, 1}, 0},
		{"sampling keeps it high", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, false, true, false}, {5 * time.Second, false, true, false}, {10 * time.Second, false, true, false}}, []int{2}, 0},
		{"user's GOMAXPROCS", config.GoProcs{},
			[]pass{{0, true, true, false}, {5 * time.Second, false, false, false}}, nil, 0},
		{"one CPU", config.GoProcs{Low: 1, High: 1},
			[]pass{{0, true, false, false}, {5 * time.Second, false, false, false}}, nil, 0},
		// layer's init leaves the runtime's own count (one P per CPU):
		// the first pass that finds work sets the policy's.
		{"first busy pass lowers the runtime's count", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, false, false, true}, {16 * time.Millisecond, false, false, true}}, []int{1}, 8},
		// A program that never launches (the trivial program) never
		// pays for the change (procs).
		{"idle passes keep the runtime's count", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, false, false, false}, {16 * time.Millisecond, false, false, false}, {5 * time.Second, false, false, false}}, nil, 8},
		{"idle passes, then work", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, false, false, false}, {16 * time.Millisecond, false, false, false}, {32 * time.Millisecond, false, false, true},
				{48 * time.Millisecond, false, false, false}}, []int{1}, 8},
		{"first pass with a backlog", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, true, false, false}, {10 * time.Millisecond, false, false, false}, {1100 * time.Millisecond, false, false, false}}, []int{2, 1}, 8},
		{"first pass at High already", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, true, false, false}, {10 * time.Millisecond, false, false, false}, {1100 * time.Millisecond, false, false, false}}, []int{1}, 2},
		{"user's GOMAXPROCS at start", config.GoProcs{},
			[]pass{{0, false, false, false}, {5 * time.Second, false, false, false}}, nil, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			c := procs{policy: tc.policy, cur: tc.policy.Low, set: func(n int) int { got = append(got, n); return 0 }}
			if tc.start != 0 {
				c.cur = tc.start
			}
			t0 := time.Now()
			for _, p := range tc.passes {
				c.pass(p.backlog, p.sampling, p.busy, t0.Add(p.at))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("GOMAXPROCS calls %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("GOMAXPROCS calls %v, want %v", got, tc.want)
				}
			}
		})
	}
}
