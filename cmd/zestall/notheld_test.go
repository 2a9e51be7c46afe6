package main

import (
	"bytes"
	"strings"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestReportNotHeld: the report says when stall attribution's cap was
// reached (Counters.stall_launches_not_held, stall_rows_degraded) and is
// silent when it was not.
func TestReportNotHeld(t *testing.T) {
	tests := []struct {
		name string
		c    *pb.Counters
		want string // "" for no line
	}{
		{"under the cap", &pb.Counters{StallRowsAttributed: 100}, ""},
		{"over the cap", &pb.Counters{StallRowsAttributed: 100, StallLaunchesNotHeld: 2976, StallRowsDegraded: 7},
			"stall attribution over its cap: 2976 timed launches not held (more could still receive samples than an attributor holds); 7 of 100 attributed rows kept at kernel level"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeForeign(&b, &pb.Header{}, tc.c)
			got := b.String()
			if tc.want == "" {
				if strings.Contains(got, "cap") {
					t.Errorf("report says %q", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("report says %q, want it to hold %q", got, tc.want)
			}
		})
	}
}
