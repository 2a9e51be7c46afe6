package config

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestExpandOutput(t *testing.T) {
	none := Identity{Rank: -1, LocalRank: -1, Size: -1}
	tests := []struct {
		tmpl string
		pid  int
		host string
		id   Identity
		want string
	}{
		{DefaultOutput, 42, "node1", none, "zestall.node1.42.zst"},
		{"out/%r-%p.zst", 7, "h", Identity{Rank: 3, LocalRank: 1}, "out/3-7.zst"},
		{"%r.%l.zst", 7, "h", none, "norank.nolocal.zst"},
		{"zestall.%j/%h.%r.%l.zst", 7, "x1", Identity{Rank: 13, LocalRank: 1, JobID: "123.aurora/x"}, "zestall.123.aurora_x/x1.13.1.zst"},
		{"%j", 7, "h", none, "nojob"},
		{"100%%-%x-%", 1, "h", none, "100%-%x-%"},
		{"%h", 1, "a/b", none, "a_b"},
		{"%h", 1, "", none, "localhost"},
	}
	for _, tt := range tests {
		if got := ExpandOutput(tt.tmpl, tt.pid, tt.host, tt.id); got != tt.want {
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

// TestRankSettings: ZESTALL_RANKS and ZESTALL_SAMPLE_RANKS, and the
// warning for % verbs of ZESTALL_OUTPUT that zestall does not expand.
func TestRankSettings(t *testing.T) {
	tests := []struct {
		env            map[string]string
		ranks, samples string
		warn           string
	}{
		{nil, "all", "all", ""},
		{map[string]string{"ZESTALL_RANKS": "0,12-23", "ZESTALL_SAMPLE_RANKS": "0,12"}, "0,12-23", "0,12", ""},
		{map[string]string{"ZESTALL_RANKS": "5-2"}, "all", "all", `ZESTALL_RANKS="5-2"`},
		{map[string]string{"ZESTALL_SAMPLE_RANKS": "x"}, "all", "all", `ZESTALL_SAMPLE_RANKS="x"`},
		{map[string]string{"ZESTALL_OUTPUT": "run.%t.%r"}, "all", "all", "%t"},
	}
	for _, tt := range tests {
		var w strings.Builder
		c := FromEnv(func(k string) string { return tt.env[k] }, &w)
		if c.Ranks.String() != tt.ranks || c.SampleRanks.String() != tt.samples {
			t.Errorf("%v: ranks %s, sample ranks %s; want %s, %s", tt.env, c.Ranks, c.SampleRanks, tt.ranks, tt.samples)
		}
		if (tt.warn == "") != (w.Len() == 0) || !strings.Contains(w.String(), tt.warn) {
			t.Errorf("%v: warnings %q, want one naming %q", tt.env, w.String(), tt.warn)
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
		got, w := fromOne("ZESTALL_STALL_LATENCY", tt.v)
		if got.StallLatency != tt.want || (w != "") != tt.warn || got.FromEnv["ZESTALL_STALL_LATENCY"] != (tt.v != "" && !tt.warn) {
			t.Errorf("ZESTALL_STALL_LATENCY=%q: %v, warnings %q; want %v, warning %v", tt.v, got.StallLatency, w, tt.want, tt.warn)
		}
	}
}

func TestReadIdentity(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Identity
	}{
		{"none", nil, Identity{Rank: -1, LocalRank: -1, Size: -1}},
		{"Open MPI", map[string]string{"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_SIZE": "12", "PMIX_RANK": "5"},
			Identity{Rank: 5, LocalRank: 1, Size: 12, RankVar: "OMPI_COMM_WORLD_RANK"}},
		{"MPICH Hydra", map[string]string{"PMI_RANK": "7", "PMI_SIZE": "12", "MPI_LOCALRANKID": "3"},
			Identity{Rank: 7, LocalRank: 3, Size: 12, RankVar: "PMI_RANK"}},
		{"invalid value skipped", map[string]string{"PMI_RANK": "x", "OMPI_COMM_WORLD_RANK": "5"},
			Identity{Rank: 5, LocalRank: -1, Size: -1, RankVar: "OMPI_COMM_WORLD_RANK"}},
		// A local rank alone is never a global rank.
		{"local rank only", map[string]string{"MPI_LOCALRANKID": "2", "PALS_LOCAL_RANKID": "2"},
			Identity{Rank: -1, LocalRank: 2, Size: -1}},
		// Aurora: PALS's mpiexec sets PMI_* and PALS_*; the local rank
		// comes from PALS, whose global rank agrees.
		{"PALS", map[string]string{"PMI_RANK": "13", "PMI_SIZE": "24", "PALS_RANKID": "13", "PALS_LOCAL_RANKID": "1", "PBS_JOBID": "42.aurora"},
			Identity{Rank: 13, LocalRank: 1, Size: 24, RankVar: "PMI_RANK", JobID: "42.aurora"}},
		// mpirun inside a Slurm step: SLURM_PROCID=0 and SLURM_LOCALID=0
		// are inherited by every rank and must not be believed.
		{"mpirun inside Slurm", map[string]string{"OMPI_COMM_WORLD_RANK": "9", "SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_NTASKS": "1", "SLURM_JOB_ID": "77"},
			Identity{Rank: 9, LocalRank: -1, Size: -1, RankVar: "OMPI_COMM_WORLD_RANK", JobID: "77"}},
		{"srun", map[string]string{"SLURM_PROCID": "17", "SLURM_LOCALID": "5", "SLURM_NTASKS": "24", "SLURM_JOB_ID": "77"},
			Identity{Rank: 17, LocalRank: 5, Size: 24, RankVar: "SLURM_PROCID", JobID: "77"}},
		{"Flux", map[string]string{"FLUX_TASK_RANK": "3", "FLUX_TASK_LOCAL_ID": "0", "FLUX_JOB_SIZE": "8", "FLUX_JOB_ID": "f1"},
			Identity{Rank: 3, LocalRank: 0, Size: 8, RankVar: "FLUX_TASK_RANK", JobID: "f1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadIdentity(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRankSet(t *testing.T) {
	tests := []struct {
		in      string
		err     bool
		has     []int
		hasNot  []int
		printed string
	}{
		{"", false, []int{0, 99, -1}, nil, "all"},
		{"all", false, []int{0, 99}, nil, "all"},
		{"0,12-23", false, []int{0, 12, 17, 23, -1}, []int{1, 11, 24}, "0,12-23"},
		{" 5 , 3-3", false, []int{3, 5}, []int{4}, "5 , 3-3"},
		{"3-1", true, nil, nil, ""},
		{"a", true, nil, nil, ""},
		{"1,,2", true, nil, nil, ""},
		{"-1", true, nil, nil, ""},
	}
	for _, tt := range tests {
		rs, err := ParseRankSet(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("ParseRankSet(%q): err %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if tt.err {
			continue
		}
		for _, r := range tt.has {
			if !rs.Has(r) {
				t.Errorf("ParseRankSet(%q).Has(%d) = false", tt.in, r)
			}
		}
		for _, r := range tt.hasNot {
			if rs.Has(r) {
				t.Errorf("ParseRankSet(%q).Has(%d) = true", tt.in, r)
			}
		}
		if rs.String() != tt.printed {
			t.Errorf("ParseRankSet(%q).String() = %q, want %q", tt.in, rs.String(), tt.printed)
		}
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
	if len(got) != 21 {
		t.Errorf("%d entries, want 21: %v", len(got), got)
	}
	for k, want := range map[string]string{
		"ZESTALL_LAUNCHES": "5:", "ZESTALL_SAMPLING": "0", "ZESTALL_START": "on",
		"ZESTALL_OUTPUT": DefaultOutput, "ZESTALL_TOGGLE_SIGNAL": "SIGUSR2 (if the application has no handler)",
		"ZESTALL_RANKS": "all", "ZESTALL_SAMPLE_RANKS": "all", "ZESTALL_RING_FULL": "wait",
		"ZESTALL_RING_SLOTS": "16384", "ZESTALL_TIMESTAMP_READS": "device",
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	if !from["ZESTALL_LAUNCHES"] || !from["ZESTALL_SAMPLING"] || from["ZESTALL_START"] || from["ZESTALL_OUTPUT"] {
		t.Errorf("from environment: %v", from)
	}
}

// TestAffinityEntries: the entry of ZE_AFFINITY_MASK behind each visible
// root device, by the driver's rules (docs/mpi.md §5), and nil whenever
// the mapping is not one to one.
func TestAffinityEntries(t *testing.T) {
	for _, c := range []struct {
		mask      string
		composite bool
		roots     int
		want      []string
	}{
		{"", false, 12, nil},
		{"default", false, 12, nil},
		{"3", false, 1, []string{"3"}},
		{"11,0", false, 2, []string{"0", "11"}},
		{"4,4", false, 1, []string{"4"}},
		{"1.0", false, 0, nil}, // X.Y ignored in FLAT: nothing selected
		{"2,1.0,x,5", false, 2, []string{"2", "5"}},
		{"12", false, 0, nil},   // out of range: the driver shows nothing
		{"3,40", false, 1, nil}, // one entry out of range: not one to one
		{"2", true, 1, []string{"2"}},
		{"2.1", true, 1, []string{"2.1"}},
		{"2.0,2.1", true, 1, []string{"2.0+2.1"}},
		{"5,0.1", true, 2, []string{"0.1", "5"}},
		{"1.0.0", true, 0, nil},
		{"3", false, 2, nil},
	} {
		got := AffinityEntries(c.mask, c.composite, c.roots)
		if !slices.Equal(got, c.want) {
			t.Errorf("AffinityEntries(%q, composite %v, %d roots) = %q, want %q", c.mask, c.composite, c.roots, got, c.want)
		}
	}
}

// TestSeparateLaunches: ZESTALL_SEPARATE_LAUNCHES and ZESTALL_SEPARATE_COPIES
// (unset or "auto": the automatic ring starting at InitialCodeCopies; a
// number: a fixed ring).
func TestSeparateLaunches(t *testing.T) {
	tests := []struct {
		env     map[string]string
		on      bool
		copies  int
		auto    bool
		warning string
	}{
		{nil, false, InitialCodeCopies, true, ""},
		{map[string]string{"ZESTALL_SEPARATE_LAUNCHES": "off"}, false, InitialCodeCopies, true, ""},
		{map[string]string{"ZESTALL_SEPARATE_LAUNCHES": "windows"}, false, InitialCodeCopies, true, ""},
		{map[string]string{"ZESTALL_SEPARATE_LAUNCHES": "copies"}, true, InitialCodeCopies, true, ""},
		{map[string]string{"ZESTALL_SEPARATE_LAUNCHES": "copies", "ZESTALL_SEPARATE_COPIES": "auto"}, true, InitialCodeCopies, true, ""},
		{map[string]string{"ZESTALL_SEPARATE_LAUNCHES": "copies", "ZESTALL_SEPARATE_COPIES": "15"}, true, 15, false, ""},
		{map[string]string{"ZESTALL_SEPARATE_LAUNCHES": "yes"}, false, InitialCodeCopies, true, "ZESTALL_SEPARATE_LAUNCHES=\"yes\""},
		{map[string]string{"ZESTALL_SEPARATE_COPIES": "0"}, false, InitialCodeCopies, true, "ZESTALL_SEPARATE_COPIES=\"0\""},
		{map[string]string{"ZESTALL_SEPARATE_COPIES": "65"}, false, InitialCodeCopies, true, "ZESTALL_SEPARATE_COPIES=\"65\""},
	}
	for _, tt := range tests {
		var w strings.Builder
		c := FromEnv(func(k string) string { return tt.env[k] }, &w)
		if c.SeparateLaunches != tt.on || c.CodeCopies != tt.copies || c.CodeCopiesAuto != tt.auto {
			t.Errorf("%v: SeparateLaunches %v CodeCopies %d auto %v, want %v %d %v", tt.env, c.SeparateLaunches, c.CodeCopies, c.CodeCopiesAuto, tt.on, tt.copies, tt.auto)
		}
		if (tt.warning == "") != (w.Len() == 0) || !strings.Contains(w.String(), tt.warning) {
			t.Errorf("%v: warnings %q, want %q", tt.env, w.String(), tt.warning)
		}
	}
}

// TestCopyMemoryLimit: ZESTALL_SEPARATE_MEMORY caps the module copies' ISA
// bytes (default 256M).
func TestCopyMemoryLimit(t *testing.T) {
	tests := []struct {
		v       string
		want    uint64
		warning bool
	}{
		{"", DefaultCopyMemoryLimit, false},
		{"16M", 16 << 20, false},
		{"10K", 10 << 10, false},
		{"1G", 1 << 30, false},
		{"65536", 65536, false},
		{"1K", DefaultCopyMemoryLimit, true},
		{"65G", DefaultCopyMemoryLimit, true},
		{"12MB", DefaultCopyMemoryLimit, true},
		{"-5", DefaultCopyMemoryLimit, true},
	}
	for _, tt := range tests {
		c, w := fromOne("ZESTALL_SEPARATE_MEMORY", tt.v)
		if c.CopyMemoryLimit != tt.want || (w != "") != tt.warning {
			t.Errorf("%q: limit %d, warnings %q; want %d, warning %v", tt.v, c.CopyMemoryLimit, w, tt.want, tt.warning)
		}
	}
}

// TestChoices: a setting of two values (ZESTALL_RING_FULL wait or drop,
// ZESTALL_TIMESTAMP_READS device or host) takes either, the first by
// default; anything else warns, names the default, and keeps it.
func TestChoices(t *testing.T) {
	for _, set := range []struct {
		key, def, other string
		got             func(Config) bool // the setting is other
	}{
		{"ZESTALL_RING_FULL", "wait", "drop", func(c Config) bool { return c.RingFullDrop }},
		{"ZESTALL_TIMESTAMP_READS", "device", "host", func(c Config) bool { return c.HostReads }},
	} {
		for _, tt := range []struct {
			value          string
			other, fromEnv bool
			warns          bool
		}{
			{"", false, false, false},
			{set.def, false, true, false},
			{set.other, true, true, false},
			{strings.ToUpper(set.other[:1]) + set.other[1:], false, false, true},
			{"1", false, false, true},
		} {
			c, w := fromOne(set.key, tt.value)
			if set.got(c) != tt.other || c.FromEnv[set.key] != tt.fromEnv {
				t.Errorf("%s=%q: %s %v from environment %v, want %v %v", set.key, tt.value, set.other, set.got(c), c.FromEnv[set.key], tt.other, tt.fromEnv)
			}
			want := fmt.Sprintf("%s=%q", set.key, tt.value)
			if !tt.warns && w != "" || tt.warns && (!strings.Contains(w, want) || !strings.Contains(w, "default "+set.def)) {
				t.Errorf("%s=%q: warning %q, want one with %q and the default", set.key, tt.value, w, want)
			}
		}
	}
}

// TestRingSlots: ZESTALL_RING_SLOTS is a number of slots from 1024 (no
// ring grows) to 32 × 32768; anything else warns once, naming the setting
// and its default, and keeps the default (16384).
func TestRingSlots(t *testing.T) {
	for _, tt := range []struct {
		value   string
		want    uint32
		fromEnv bool
		warning bool
	}{
		{"", 16384, false, false},
		{"16384", 16384, true, false},
		{"1024", 1024, true, false},
		{"65536", 65536, true, false},
		{"1048576", 1048576, true, false},
		{"20000", 20000, true, false}, // not a power of two: the budget need not be
		{"1023", 16384, false, true},
		{"0", 16384, false, true},
		{"1048577", 16384, false, true},
		{"-1", 16384, false, true},
		{"16K", 16384, false, true},
		{"016384", 16384, false, true},
		{" 4096", 16384, false, true},
		{"99999999999999999999", 16384, false, true},
	} {
		c, w := fromOne("ZESTALL_RING_SLOTS", tt.value)
		if c.RingSlots != tt.want || c.FromEnv["ZESTALL_RING_SLOTS"] != tt.fromEnv {
			t.Errorf("ZESTALL_RING_SLOTS=%q: %d slots, from environment %v; want %d, %v", tt.value, c.RingSlots, c.FromEnv["ZESTALL_RING_SLOTS"], tt.want, tt.fromEnv)
		}
		said := strings.Count(w, "\n") == 1 && strings.Contains(w, fmt.Sprintf("ZESTALL_RING_SLOTS=%q", tt.value)) && strings.Contains(w, "default 16384")
		if tt.warning != said || !tt.warning && w != "" {
			t.Errorf("ZESTALL_RING_SLOTS=%q: warning %q, want one line naming the setting and the default: %v", tt.value, w, tt.warning)
		}
		for _, e := range c.Entries() {
			if e.Key == "ZESTALL_RING_SLOTS" && (e.Value != fmt.Sprint(tt.want) || e.FromEnvironment != tt.fromEnv) {
				t.Errorf("ZESTALL_RING_SLOTS=%q: header entry %q from environment %v", tt.value, e.Value, e.FromEnvironment)
			}
		}
	}
}

// fromOne is FromEnv with one variable set, and its warnings.
func fromOne(key, value string) (Config, string) {
	var w strings.Builder
	c := FromEnv(func(k string) string {
		if k == key {
			return value
		}
		return ""
	}, &w)
	return c, w.String()
}
