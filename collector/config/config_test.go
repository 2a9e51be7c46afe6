package config

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestExpandOutput(t *testing.T) {
	tests := []struct {
		tmpl string
		pid  int
		host string
		rank int
		want string
	}{
		{DefaultOutput, 42, "node1", -1, "zestall.node1.42.zst"},
		{"out/%r-%p.zst", 7, "h", 3, "out/3-7.zst"},
		{"%r.zst", 7, "h", -1, "norank.zst"},
		{"100%%-%x-%", 1, "h", -1, "100%-%x-%"},
		{"%h", 1, "a/b", -1, "a_b"},
		{"%h", 1, "", -1, "localhost"},
	}
	for _, tt := range tests {
		if got := ExpandOutput(tt.tmpl, tt.pid, tt.host, tt.rank); got != tt.want {
			t.Errorf("ExpandOutput(%q) = %q, want %q", tt.tmpl, got, tt.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		env      map[string]string
		want     Config
		warnings []string
	}{
		{nil, Config{Output: DefaultOutput, FlushInterval: time.Second}, nil},
		{map[string]string{"ZESTALL_OUTPUT": "x.zst", "ZESTALL_FLUSH_INTERVAL": "250ms", "ZESTALL_QUIET": "1"},
			Config{Output: "x.zst", FlushInterval: 250 * time.Millisecond, Quiet: true}, nil},
		{map[string]string{"ZESTALL_FLUSH_INTERVAL": "soon", "ZESTALL_QUIET": "yes"},
			Config{Output: DefaultOutput, FlushInterval: time.Second},
			[]string{"ZESTALL_FLUSH_INTERVAL=\"soon\"", "ZESTALL_QUIET=\"yes\""}},
	}
	for _, tt := range tests {
		var w strings.Builder
		got := FromEnv(func(k string) string { return tt.env[k] }, &w)
		for k, from := range got.FromEnv {
			if _, set := tt.env[k]; from && !set {
				t.Errorf("%s marked from environment but unset", k)
			}
		}
		if got.Output != tt.want.Output || got.FlushInterval != tt.want.FlushInterval || got.Quiet != tt.want.Quiet ||
			got.Sampling != true || got.SamplingPeriodNs != DefaultSamplingPeriodNs {
			t.Errorf("FromEnv(%v) = %+v, want %+v", tt.env, got, tt.want)
		}
		out := w.String()
		if len(tt.warnings) == 0 && out != "" {
			t.Errorf("unexpected warnings %q", out)
		}
		for _, wmsg := range tt.warnings {
			if !strings.Contains(out, wmsg) || !strings.Contains(out, "default") {
				t.Errorf("warnings %q lack %q and the default", out, wmsg)
			}
		}
	}
}

// TestStallLatency: ZESTALL_STALL_LATENCY is a duration in [0, 1s],
// default DefaultStallLatency.
func TestStallLatency(t *testing.T) {
	tests := []struct {
		v    string
		want time.Duration
		warn bool
	}{
		{"", DefaultStallLatency, false},
		{"0", 0, false},
		{"5ms", 5 * time.Millisecond, false},
		{"1s", time.Second, false},
		{"2s", DefaultStallLatency, true},
		{"-1ms", DefaultStallLatency, true},
		{"soon", DefaultStallLatency, true},
	}
	for _, tt := range tests {
		var w strings.Builder
		got := FromEnv(func(k string) string {
			if k == "ZESTALL_STALL_LATENCY" {
				return tt.v
			}
			return ""
		}, &w)
		if got.StallLatency != tt.want || (w.Len() > 0) != tt.warn || got.FromEnv["ZESTALL_STALL_LATENCY"] != (tt.v != "" && !tt.warn) {
			t.Errorf("ZESTALL_STALL_LATENCY=%q: %v, warnings %q; want %v, warning %v", tt.v, got.StallLatency, w.String(), tt.want, tt.warn)
		}
	}
}

func TestRank(t *testing.T) {
	env := map[string]string{"PMI_RANK": "x", "OMPI_COMM_WORLD_RANK": "5"}
	if got := Rank(func(k string) string { return env[k] }); got != 5 {
		t.Errorf("Rank = %d, want 5", got)
	}
	if got := Rank(func(string) string { return "" }); got != -1 {
		t.Errorf("Rank = %d, want -1", got)
	}
}

func TestControlConfig(t *testing.T) {
	type ctl struct {
		paused          bool
		delay, duration time.Duration
		from, to        uint64
		window          bool
		sig             int
		auto            bool
	}
	def := ctl{sig: sigUSR2, auto: true}
	tests := []struct {
		env     map[string]string
		want    ctl
		warning string
	}{
		{nil, def, ""},
		{map[string]string{"ZESTALL_START": "paused"}, ctl{paused: true, sig: sigUSR2, auto: true}, ""},
		{map[string]string{"ZESTALL_START": "later"}, def, `ZESTALL_START="later"`},
		{map[string]string{"ZESTALL_DELAY": "2s", "ZESTALL_DURATION": "500ms"}, ctl{delay: 2 * time.Second, duration: 500 * time.Millisecond, sig: sigUSR2, auto: true}, ""},
		{map[string]string{"ZESTALL_DURATION": "0s"}, def, `ZESTALL_DURATION="0s"`},
		{map[string]string{"ZESTALL_LAUNCHES": "10:20"}, ctl{from: 10, to: 20, window: true, sig: sigUSR2, auto: true}, ""},
		{map[string]string{"ZESTALL_LAUNCHES": "5:"}, ctl{from: 5, to: ^uint64(0), window: true, sig: sigUSR2, auto: true}, ""},
		{map[string]string{"ZESTALL_LAUNCHES": "20:10"}, def, `ZESTALL_LAUNCHES="20:10"`},
		{map[string]string{"ZESTALL_LAUNCHES": "7"}, def, `ZESTALL_LAUNCHES="7"`},
		{map[string]string{"ZESTALL_TOGGLE_SIGNAL": "none"}, ctl{}, ""},
		{map[string]string{"ZESTALL_TOGGLE_SIGNAL": "SIGUSR1"}, ctl{sig: sigUSR1}, ""},
		{map[string]string{"ZESTALL_TOGGLE_SIGNAL": "rtmin+3"}, ctl{sig: sigRTMIN + 3}, ""},
		{map[string]string{"ZESTALL_TOGGLE_SIGNAL": "12"}, ctl{sig: sigUSR2}, ""},
		{map[string]string{"ZESTALL_TOGGLE_SIGNAL": "SIGSEGV"}, def, `ZESTALL_TOGGLE_SIGNAL="SIGSEGV"`},
		{map[string]string{"ZESTALL_TOGGLE_SIGNAL": "9"}, def, `ZESTALL_TOGGLE_SIGNAL="9"`},
	}
	for _, tt := range tests {
		var w strings.Builder
		c := FromEnv(func(k string) string { return tt.env[k] }, &w)
		got := ctl{c.StartPaused, c.Delay, c.Duration, c.LaunchFrom, c.LaunchTo, c.LaunchWindow, c.ToggleSignal, c.ToggleSignalAuto}
		if got != tt.want {
			t.Errorf("FromEnv(%v) control = %+v, want %+v", tt.env, got, tt.want)
		}
		out := w.String()
		if tt.warning == "" && out != "" {
			t.Errorf("FromEnv(%v): unexpected warning %q", tt.env, out)
		}
		if tt.warning != "" && (!strings.Contains(out, tt.warning) || !strings.Contains(out, "default")) {
			t.Errorf("FromEnv(%v): warning %q lacks %q and the default", tt.env, out, tt.warning)
		}
	}
}

// TestEntries: the header names every setting with the value in effect and
// whether the environment set it.
func TestEntries(t *testing.T) {
	env := map[string]string{"ZESTALL_LAUNCHES": "5:", "ZESTALL_SAMPLING": "0", "ZESTALL_START": "bogus"}
	c := FromEnv(func(k string) string { return env[k] }, io.Discard)
	got := map[string]string{}
	from := map[string]bool{}
	for _, e := range c.Entries() {
		got[e.Key], from[e.Key] = e.Value, e.FromEnvironment
	}
	if len(got) != 13 {
		t.Errorf("%d entries, want 13: %v", len(got), got)
	}
	for k, want := range map[string]string{
		"ZESTALL_LAUNCHES": "5:", "ZESTALL_SAMPLING": "0", "ZESTALL_START": "on",
		"ZESTALL_OUTPUT": DefaultOutput, "ZESTALL_TOGGLE_SIGNAL": "SIGUSR2 (if the application has no handler)",
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	if !from["ZESTALL_LAUNCHES"] || !from["ZESTALL_SAMPLING"] || from["ZESTALL_START"] || from["ZESTALL_OUTPUT"] {
		t.Errorf("from environment: %v", from)
	}
}
