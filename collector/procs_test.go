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
	}
	for _, tc := range []struct {
		name   string
		policy config.GoProcs
		passes []pass
		want   []int // GOMAXPROCS calls
		start  int   // the runtime's P count before the first pass (0: Low)
	}{
		{"steady rate stays low", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, false, false}, {16 * time.Millisecond, false, false}, {5 * time.Second, false, false}}, nil, 0},
		{"backlog raises, calm lowers", config.GoProcs{Low: 1, High: 2},
			[]pass{
				{0, true, false},
				{time.Millisecond, true, false}, // already high
				{2 * time.Millisecond, false, false},
				{500 * time.Millisecond, false, false},
				{1002 * time.Millisecond, false, false}, // a second without a backlog
				{1003 * time.Millisecond, false, false},
			}, []int{2, 1}, 0},
		{"a backlog inside the calm second restarts it", config.GoProcs{Low: 1, High: 2},
			[]pass{
				{0, true, false},
				{10 * time.Millisecond, false, false},
				{900 * time.Millisecond, true, false},
				{1100 * time.Millisecond, false, false},
				{1500 * time.Millisecond, false, false}, // 0.4 s calm: stays high
				{2200 * time.Millisecond, false, false}, // 1.1 s
			}, []int{2, 1}, 0},
		{"sampling keeps it high", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, false, true}, {5 * time.Second, false, true}, {10 * time.Second, false, true}}, []int{2}, 0},
		{"user's GOMAXPROCS", config.GoProcs{},
			[]pass{{0, true, true}, {5 * time.Second, false, false}}, nil, 0},
		{"one CPU", config.GoProcs{Low: 1, High: 1},
			[]pass{{0, true, false}, {5 * time.Second, false, false}}, nil, 0},
		// layer's init leaves the runtime's own count (one P per CPU):
		// the first pass sets the policy's.
		{"first pass lowers the runtime's count", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, false, false}, {16 * time.Millisecond, false, false}}, []int{1}, 8},
		{"first pass with a backlog", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, true, false}, {10 * time.Millisecond, false, false}, {1100 * time.Millisecond, false, false}}, []int{2, 1}, 8},
		{"first pass at High already", config.GoProcs{Low: 1, High: 2},
			[]pass{{0, true, false}, {10 * time.Millisecond, false, false}, {1100 * time.Millisecond, false, false}}, []int{1}, 2},
		{"user's GOMAXPROCS at start", config.GoProcs{},
			[]pass{{0, false, false}, {5 * time.Second, false, false}}, nil, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			c := procs{policy: tc.policy, cur: tc.policy.Low, set: func(n int) int { got = append(got, n); return 0 }}
			if tc.start != 0 {
				c.cur = tc.start
			}
			t0 := time.Now()
			for _, p := range tc.passes {
				c.pass(p.backlog, p.sampling, t0.Add(p.at))
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
