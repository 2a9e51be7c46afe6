package config

import "testing"

// TestGoProcs: the user's GOMAXPROCS wins when the runtime would honour
// it; otherwise at most DefaultGoProcs, never more than the runtime's own
// choice.
func TestGoProcs(t *testing.T) {
	for _, tc := range []struct {
		env            string
		runtimeDefault int
		want           int
	}{
		{"", 208, DefaultGoProcs}, // an Aurora node: not one P per hardware thread
		{"", 2, 2},
		{"", 1, 1}, // one CPU: one P
		{"1", 208, 0},
		{"64", 208, 0}, // larger than the default: the user's choice
		{"3", 2, 0},
		{"0", 208, DefaultGoProcs},  // the runtime ignores these,
		{"-4", 208, DefaultGoProcs}, // so the default applies
		{"two", 208, DefaultGoProcs},
		{" 4", 208, DefaultGoProcs},
		{"+4", 208, 0},
		{"4294967297", 208, DefaultGoProcs}, // beyond int32: ignored by the runtime
		{"", 0, 1},
	} {
		getenv := func(k string) string {
			if k == "GOMAXPROCS" {
				return tc.env
			}
			return ""
		}
		if got := GoProcs(getenv, tc.runtimeDefault); got != tc.want {
			t.Errorf("GoProcs(GOMAXPROCS=%q, runtime default %d) = %d, want %d", tc.env, tc.runtimeDefault, got, tc.want)
		}
	}
}
