package config

import "testing"

// TestReadGoProcs: the user's GOMAXPROCS wins when the runtime would
// honour it; otherwise 1 P, 2 under load, never more than the runtime's
// own choice.
func TestReadGoProcs(t *testing.T) {
	for _, tc := range []struct {
		env            string
		runtimeDefault int
		want           GoProcs
	}{
		{"", 208, GoProcs{1, 2}}, // an Aurora node: not one P per hardware thread
		{"", 2, GoProcs{1, 2}},
		{"", 1, GoProcs{1, 1}}, // one CPU: one P
		{"", 0, GoProcs{1, 1}},
		{"1", 208, GoProcs{}},
		{"64", 208, GoProcs{}}, // larger than the default: the user's choice
		{"3", 2, GoProcs{}},
		{"+4", 208, GoProcs{}},
		{"0", 208, GoProcs{1, 2}},  // the runtime ignores these,
		{"-4", 208, GoProcs{1, 2}}, // so the default applies
		{"two", 208, GoProcs{1, 2}},
		{" 4", 208, GoProcs{1, 2}},
		{"4294967297", 208, GoProcs{1, 2}}, // beyond int32: ignored by the runtime
	} {
		getenv := func(k string) string {
			if k == "GOMAXPROCS" {
				return tc.env
			}
			return ""
		}
		if got := ReadGoProcs(getenv, tc.runtimeDefault); got != tc.want {
			t.Errorf("ReadGoProcs(GOMAXPROCS=%q, runtime default %d) = %+v, want %+v", tc.env, tc.runtimeDefault, got, tc.want)
		}
	}
}
