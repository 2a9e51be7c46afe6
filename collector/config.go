package collector

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Config is zestall's run-time configuration, read from ZESTALL_*
// environment variables. Every variable is documented in README.md with its
// default; an invalid value is named on stderr and the default is used.
type Config struct {
	// Output is the output path template (ZESTALL_OUTPUT). %p expands to
	// the process id, %h to the host name, %r to the MPI rank when known
	// (else "norank"), %% to a percent sign.
	Output string
	// FlushInterval bounds how much data a killed run can lose
	// (ZESTALL_FLUSH_INTERVAL, a Go duration such as "1s").
	FlushInterval time.Duration
	// Quiet suppresses the one-line start and end notices (ZESTALL_QUIET=1);
	// warnings are always printed.
	Quiet bool
	// Sampling turns EU stall sampling on (ZESTALL_SAMPLING=1, default) or
	// off (0).
	Sampling bool
	// SamplingPeriodNs is the EU stall sampling period asked of the driver
	// (ZESTALL_SAMPLING_PERIOD_NS); the driver rounds it to what the
	// hardware supports, and the header records both.
	SamplingPeriodNs uint32
	// StallReadInterval is the longest time between two reads of a
	// streamer (ZESTALL_STALL_READ_INTERVAL).
	StallReadInterval time.Duration
	// Serialize makes every launch run alone, followed by a streamer read
	// (ZESTALL_SERIALIZE=1): exact per-launch stall attribution, no
	// concurrency.
	Serialize bool
	// FromEnv names the settings whose value came from the environment
	// (false when unset, or invalid and replaced by the default).
	FromEnv map[string]bool
}

// Defaults.
const (
	DefaultOutput            = "zestall.%h.%p.zst"
	DefaultFlushInterval     = time.Second
	DefaultSamplingPeriodNs  = 50000
	DefaultStallReadInterval = 10 * time.Millisecond
)

// ConfigFromEnv reads the configuration with getenv and reports invalid
// values on w (normally os.Stderr), once each.
func ConfigFromEnv(getenv func(string) string, w io.Writer) Config {
	c := Config{Output: DefaultOutput, FlushInterval: DefaultFlushInterval, Sampling: true,
		SamplingPeriodNs: DefaultSamplingPeriodNs, StallReadInterval: DefaultStallReadInterval, FromEnv: map[string]bool{}}
	e := envReader{getenv: getenv, w: w, from: c.FromEnv}
	e.flag("ZESTALL_SERIALIZE", &c.Serialize)
	e.flag("ZESTALL_SAMPLING", &c.Sampling)
	if v := getenv("ZESTALL_SAMPLING_PERIOD_NS"); v != "" {
		var p uint64
		if _, err := fmt.Sscanf(v, "%d", &p); err != nil || fmt.Sprint(p) != v || p < 1000 || p > 1e9 {
			fmt.Fprintf(w, "zestall: ZESTALL_SAMPLING_PERIOD_NS=%q is not a number of ns between 1000 and 1000000000; using the default %d\n", v, DefaultSamplingPeriodNs)
		} else {
			c.SamplingPeriodNs = uint32(p)
			c.FromEnv["ZESTALL_SAMPLING_PERIOD_NS"] = true
		}
	}
	e.duration("ZESTALL_STALL_READ_INTERVAL", &c.StallReadInterval, 100*time.Microsecond, time.Second, "100us and 1s")
	if v := getenv("ZESTALL_OUTPUT"); v != "" {
		c.Output = v
		c.FromEnv["ZESTALL_OUTPUT"] = true
	}
	e.duration("ZESTALL_FLUSH_INTERVAL", &c.FlushInterval, 1, time.Hour, "0 and 1h")
	e.flag("ZESTALL_QUIET", &c.Quiet)
	return c
}

// envReader reads settings for ConfigFromEnv: an unset variable keeps the
// default, a valid one replaces it (and is marked as from the environment),
// an invalid one is named on w with the default that stays in use.
type envReader struct {
	getenv func(string) string
	w      io.Writer
	from   map[string]bool
}

// flag reads a 0/1 setting into *dst (which holds the default).
func (e envReader) flag(name string, dst *bool) {
	switch v := e.getenv(name); v {
	case "":
	case "0", "1":
		*dst = v == "1"
		e.from[name] = true
	default:
		def := 0
		if *dst {
			def = 1
		}
		fmt.Fprintf(e.w, "zestall: %s=%q is not 0 or 1; using the default %d\n", name, v, def)
	}
}

// duration reads a Go duration in [lo, hi] into *dst (which holds the
// default); between names that range in the message.
func (e envReader) duration(name string, dst *time.Duration, lo, hi time.Duration, between string) {
	v := e.getenv(name)
	if v == "" {
		return
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < lo || d > hi {
		fmt.Fprintf(e.w, "zestall: %s=%q is not a duration between %s; using the default %s\n", name, v, between, *dst)
		return
	}
	*dst = d
	e.from[name] = true
}

// Rank returns the MPI rank from the variables common launchers set, or
// -1 when none is set.
func Rank(getenv func(string) string) int {
	for _, name := range []string{"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "MPI_LOCALRANKID", "PALS_RANKID", "SLURM_PROCID"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		var r int
		if _, err := fmt.Sscanf(v, "%d", &r); err == nil && r >= 0 {
			return r
		}
	}
	return -1
}

// ExpandOutput expands the %p, %h, %r and %% verbs of an output template.
// Unknown verbs are kept literally.
func ExpandOutput(tmpl string, pid int, host string, rank int) string {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		if c != '%' || i+1 == len(tmpl) {
			b.WriteByte(c)
			continue
		}
		i++
		switch tmpl[i] {
		case 'p':
			fmt.Fprintf(&b, "%d", pid)
		case 'h':
			b.WriteString(sanitizeHost(host))
		case 'r':
			if rank >= 0 {
				fmt.Fprintf(&b, "%d", rank)
			} else {
				b.WriteString("norank")
			}
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(tmpl[i])
		}
	}
	return b.String()
}

// sanitizeHost keeps a host name from introducing path separators.
func sanitizeHost(h string) string {
	if h == "" {
		return "localhost"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == 0 {
			return '_'
		}
		return r
	}, h)
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "localhost"
	}
	return h
}
