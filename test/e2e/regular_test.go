package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// TestRegularReplays: regular command lists executed several times
// back-to-back before the application waits (one list, several lists in
// one call, lists on two queues; queue and fence synchronisation). Every
// execution of every launch must be recorded exactly once with the
// device's start and end times, and none written as OVERWRITTEN.
func TestRegularReplays(t *testing.T) {
	tr := buildTree(t)
	tests := []struct {
		name string
		args []string
	}{
		{"one-list", []string{"4", "1", "8", "3", "1", "queue"}},
		{"lists-one-call", []string{"3", "3", "6", "2", "1", "queue"}},
		{"two-queues", []string{"3", "4", "6", "2", "2", "queue"}},
		{"two-queues-fence", []string{"2", "3", "5", "2", "2", "fence"}},
		{"one-list-fence", []string{"5", "1", "10", "2", "1", "fence"}},
		{"lists-alternating-queues", []string{"3", "2", "6", "2", "2", "alternate"}},
		{"long-list", []string{"300", "1", "12", "2", "1", "queue"}},
		{"deep-queue", []string{"4", "1", "150", "2", "1", "queue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Kernels of 80 µs: the executions of a round queue up behind
			// each other (the submissions take a few µs each).
			env := map[string]string{"ZESIM_KERNEL_COST": "*=20000"}
			recs, truth := tr.runTruth(t, env, "zestall-regular", tt.args...)
			checkLaunchTimes(t, recs, truth)
			for _, r := range recs {
				c := r.GetCounters()
				if c == nil || !c.Final {
					continue
				}
				for _, rc := range c.LaunchesWithoutTimestamp {
					t.Errorf("%d launches without timestamp: %v", rc.Count, rc.Reason)
				}
				if c.LaunchesTimed != c.LaunchesSeen {
					t.Errorf("%d launches timed of %d", c.LaunchesTimed, c.LaunchesSeen)
				}
			}
			// Every (list, execution) pair carries each of the list's launches once.
			seen := map[[2]uint64]int{}
			for _, r := range recs {
				if l := r.GetLaunch(); l != nil {
					seen[[2]uint64{l.CommandListId, uint64(l.ExecutionIndex)}]++
				}
			}
			per, _ := strconv.Atoi(tt.args[0])
			lists, _ := strconv.Atoi(tt.args[1])
			execs, _ := strconv.Atoi(tt.args[2])
			rounds, _ := strconv.Atoi(tt.args[3])
			if len(seen) != lists*execs*rounds {
				t.Errorf("%d (list, execution) pairs recorded, want %d", len(seen), lists*execs*rounds)
			}
			for key, n := range seen {
				if n != per {
					t.Errorf("list %d execution %d: %d launch records, want %d", key[0], key[1], n, per)
				}
			}
			if t.Failed() {
				t.Logf("args %s", strings.Join(tt.args, " "))
			}
		})
	}
}
