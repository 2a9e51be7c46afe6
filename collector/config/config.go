// Package config reads zestall's run-time configuration from the ZESTALL_*
// environment variables (each documented in README.md with its default),
// names an invalid value on stderr and uses the default instead, and
// describes the result for the output file's header ([Config.Entries]).
//
// Pipeline position: package collector reads the configuration once, when
// the layer becomes active (the first successful zeInit), and hands each
// part to the room that uses it (the writer, the stall reader, collection
// control). Pure Go, no state: a function of the environment.
package config

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zestall/zestall/abi"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// Config is zestall's run-time configuration, read from ZESTALL_*
// environment variables. Every variable is documented in README.md with its
// default; an invalid value is named on stderr and the default is used.
type Config struct {
	// Output is the output path template (ZESTALL_OUTPUT). %p expands to
	// the process id, %h to the host name, %r to the MPI rank when known
	// (else "norank"), %l to the local rank, %j to the job id, %% to a
	// percent sign (ExpandOutput). Missing directories are created.
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
	// StallLatency bounds how long after it was taken a sample may first
	// be returned by a streamer read (ZESTALL_STALL_LATENCY): the kernel
	// driver's write-pointer poll period plus scheduling delay. Per-launch
	// attribution widens read windows by it (see collector/attribution).
	StallLatency time.Duration
	// Serialize makes every launch run alone, followed by a streamer read
	// (ZESTALL_SERIALIZE=1): exact per-launch stall attribution, no
	// concurrency.
	Serialize bool
	// RingFullDrop: a launch whose thread's ring is full passes untouched
	// and is counted lost (ZESTALL_RING_FULL=drop) instead of waiting for
	// the harvester to make room (wait, the default: nothing is lost, and
	// the application runs at the rate zestall records; the time it
	// waited is in Counters.launch_wait_ns and the exit line).
	RingFullDrop bool
	// HostReads makes the harvester query each immediate launch's event
	// on the host (ZESTALL_TIMESTAMP_READS=host) instead of having the
	// device copy a batch's timestamps into host memory (device, the
	// default; cgo/timestamp_copies.c, docs/level-zero-loader.md §8.8
	// "Copying timestamps on the device").
	HostReads bool
	// RingSlots is the most slots a lone thread's launch ring may reach
	// (ZESTALL_RING_SLOTS, RingMinSlots to MaxRingSlots, default
	// abi.RingDefaultSlots): all threads' rings start with
	// abi.RingMinSlots each and together grow by at most RingSlots -
	// abi.RingMinSlots (cgo/launch_rings.c, "Ring capacity"; one ring
	// holds at most abi.RingMaxSlots). Larger rings absorb longer
	// harvester pauses before a launch waits (or, with
	// ZESTALL_RING_FULL=drop, is lost), at about 1.1 KB of resident
	// memory per slot the rings ever fill (the 128-byte slot and one of
	// zestall's events in flight, about 1 KB of heap in Intel's driver:
	// test/sim/README.md, "An event's host memory").
	RingSlots uint32
	// SeparateLaunches turns on launch separation by module copies
	// (ZESTALL_SEPARATE_LAUNCHES=copies; off by default): consecutive
	// launches of a kernel of an eligible module run on different copies
	// of its code, so that EU stall samples name their launch by address
	// (collector/attribution, "Launch separation by copies").
	SeparateLaunches bool
	// CodeCopies is the number of copies made per eligible module at its
	// zeModuleCreate. With CodeCopiesAuto (ZESTALL_SEPARATE_COPIES unset
	// or "auto") the ring starts with InitialCodeCopies and grows on
	// demand, off the application's threads, up to MaxCodeCopies: a
	// launch takes the lowest code (the original or a copy) whose previous
	// launch's samples can no longer arrive (cgo/separate.c, "Ring size").
	// ZESTALL_SEPARATE_COPIES=n (1 to 64) fixes the ring at n copies made
	// at module create, never grown.
	CodeCopies     int
	CodeCopiesAuto bool
	// CopyMemoryLimit caps the device memory (ISA bytes) of all module
	// copies of the process (ZESTALL_SEPARATE_MEMORY: bytes, or a number
	// with K, M or G (binary units), 4K to 64G, default 256M): a module whose copies would pass it is copied
	// less, or not at all (its launches keep read-window attribution),
	// and rings stop growing.
	CopyMemoryLimit uint64
	// StartPaused starts with collection off (ZESTALL_START=paused); a
	// zestall_start() call or the toggle signal turns it on.
	StartPaused bool
	// Delay and Duration set a time window (ZESTALL_DELAY,
	// ZESTALL_DURATION) counted from the application's first successful
	// zeInit: collection is on from Delay to Delay+Duration (Duration 0:
	// to the end).
	Delay, Duration time.Duration
	// LaunchFrom and LaunchTo set a launch-count window
	// (ZESTALL_LAUNCHES=<from>:<to>): launches numbered from 0 in append
	// order over all threads are collected when From <= n < To. LaunchWindow
	// says whether it is set.
	LaunchFrom, LaunchTo uint64
	LaunchWindow         bool
	// ToggleSignal is the signal that toggles collection
	// (ZESTALL_TOGGLE_SIGNAL): 0 for none. ToggleSignalAuto is true when
	// the default applies: SIGUSR2, installed only if the application has
	// no handler for it.
	ToggleSignal     int
	ToggleSignalAuto bool
	// Ranks are the global ranks of an MPI job that collect at all
	// (ZESTALL_RANKS, default all); the others stay out of the way.
	// SampleRanks are those of them that also sample EU stalls
	// (ZESTALL_SAMPLE_RANKS, default all); the others keep kernel timing.
	// Only one process can sample a tile (docs/mpi.md), so with several
	// ranks per tile, choose one per tile here.
	Ranks, SampleRanks RankSet
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
	// DefaultStallLatency: twice the xe KMD's 5 ms poll rounded up to
	// 4 ms ticks, and 10 ms over i915-prelim's 10 ms poll.
	DefaultStallLatency = 20 * time.Millisecond
	// InitialCodeCopies: the automatic ring's copies made at module
	// create (inside the application's zeModuleCreate); more are made on
	// demand by a thread of zestall's, up to MaxCodeCopies.
	InitialCodeCopies = 3
	// DefaultCopyMemoryLimit: 64 copies of a 4 MiB module.
	DefaultCopyMemoryLimit = 256 << 20
	MaxCodeCopies          = abi.MaxCodeCopies // cgo/abi.h
	// MaxRingSlots bounds ZESTALL_RING_SLOTS: 32 rings of the most
	// slots one ring holds, 128 MiB of slots.
	MaxRingSlots = 32 * abi.RingMaxSlots
)

// FromEnv reads the configuration with getenv and reports invalid
// values on w (normally os.Stderr), once each.
func FromEnv(getenv func(string) string, w io.Writer) Config {
	c := Config{Output: DefaultOutput, FlushInterval: DefaultFlushInterval, Sampling: true,
		SamplingPeriodNs: DefaultSamplingPeriodNs, StallReadInterval: DefaultStallReadInterval,
		StallLatency: DefaultStallLatency, CodeCopies: InitialCodeCopies, CodeCopiesAuto: true, CopyMemoryLimit: DefaultCopyMemoryLimit, RingSlots: abi.RingDefaultSlots, FromEnv: map[string]bool{}}
	e := envReader{getenv: getenv, w: w, from: c.FromEnv}
	e.flag("ZESTALL_SERIALIZE", &c.Serialize)
	e.flag("ZESTALL_SAMPLING", &c.Sampling)
	e.choice("ZESTALL_RING_FULL", "wait", "drop", &c.RingFullDrop)
	e.choice("ZESTALL_TIMESTAMP_READS", "device", "host", &c.HostReads)
	if v := getenv("ZESTALL_RING_SLOTS"); v != "" {
		var n uint64
		if _, err := fmt.Sscanf(v, "%d", &n); err != nil || fmt.Sprint(n) != v || n < abi.RingMinSlots || n > MaxRingSlots {
			fmt.Fprintf(w, "zestall: ZESTALL_RING_SLOTS=%q is not a number of slots between %d and %d; using the default %d\n", v, abi.RingMinSlots, MaxRingSlots, abi.RingDefaultSlots)
		} else {
			c.RingSlots = uint32(n)
			c.FromEnv["ZESTALL_RING_SLOTS"] = true
		}
	}
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
	e.duration("ZESTALL_STALL_LATENCY", &c.StallLatency, 0, time.Second, "0 and 1s")
	e.choice("ZESTALL_SEPARATE_LAUNCHES", "windows", "copies", &c.SeparateLaunches, "off")
	if v := getenv("ZESTALL_SEPARATE_COPIES"); v == "auto" {
		c.FromEnv["ZESTALL_SEPARATE_COPIES"] = true
	} else if v != "" {
		var n int
		if _, err := fmt.Sscanf(v, "%d", &n); err != nil || fmt.Sprint(n) != v || n < 1 || n > MaxCodeCopies {
			fmt.Fprintf(w, "zestall: ZESTALL_SEPARATE_COPIES=%q is not \"auto\" or a number between 1 and %d; using the default auto\n", v, MaxCodeCopies)
		} else {
			c.CodeCopies, c.CodeCopiesAuto = n, false
			c.FromEnv["ZESTALL_SEPARATE_COPIES"] = true
		}
	}
	if v := getenv("ZESTALL_SEPARATE_MEMORY"); v != "" {
		if n, ok := parseBytes(v); !ok || n < 4<<10 || n > 64<<30 {
			fmt.Fprintf(w, "zestall: ZESTALL_SEPARATE_MEMORY=%q is not a size between 4K and 64G (bytes, or a number with K, M or G); using the default %dM\n", v, DefaultCopyMemoryLimit>>20)
		} else {
			c.CopyMemoryLimit = n
			c.FromEnv["ZESTALL_SEPARATE_MEMORY"] = true
		}
	}
	if v := getenv("ZESTALL_OUTPUT"); v != "" {
		c.Output = v
		c.FromEnv["ZESTALL_OUTPUT"] = true
		if bad := badVerbs(v); len(bad) > 0 {
			fmt.Fprintf(w, "zestall: ZESTALL_OUTPUT=%q has %s, which zestall does not expand (it knows %%p %%h %%r %%l %%j %%%%); kept as written\n", v, strings.Join(bad, " "))
		}
	}
	e.ranks("ZESTALL_RANKS", &c.Ranks)
	e.ranks("ZESTALL_SAMPLE_RANKS", &c.SampleRanks)
	e.duration("ZESTALL_FLUSH_INTERVAL", &c.FlushInterval, 1, time.Hour, "0 and 1h")
	e.flag("ZESTALL_QUIET", &c.Quiet)
	switch v := getenv("ZESTALL_START"); v {
	case "":
	case "on", "1":
		c.FromEnv["ZESTALL_START"] = true
	case "paused", "0":
		c.StartPaused = true
		c.FromEnv["ZESTALL_START"] = true
	default:
		fmt.Fprintf(w, "zestall: ZESTALL_START=%q is not \"on\" or \"paused\"; using the default on\n", v)
	}
	e.duration("ZESTALL_DELAY", &c.Delay, 0, 1000*time.Hour, "0 and 1000h")
	e.duration("ZESTALL_DURATION", &c.Duration, time.Microsecond, 1000*time.Hour, "1us and 1000h")
	if v := getenv("ZESTALL_LAUNCHES"); v != "" {
		from, to, ok := parseLaunchWindow(v)
		if ok {
			c.LaunchFrom, c.LaunchTo, c.LaunchWindow = from, to, true
			c.FromEnv["ZESTALL_LAUNCHES"] = true
		} else {
			fmt.Fprintf(w, "zestall: ZESTALL_LAUNCHES=%q is not <from>:<to> with from < to (launch numbers from 0; an empty <to> means no end); using the default: every launch\n", v)
		}
	}
	c.ToggleSignal, c.ToggleSignalAuto = sigUSR2, true
	if v := getenv("ZESTALL_TOGGLE_SIGNAL"); v != "" {
		if sig, ok := parseSignal(v); ok {
			c.ToggleSignal, c.ToggleSignalAuto = sig, false
			c.FromEnv["ZESTALL_TOGGLE_SIGNAL"] = true
		} else {
			fmt.Fprintf(w, "zestall: ZESTALL_TOGGLE_SIGNAL=%q is not none, USR1, USR2, RTMIN+<n> or a signal number of those; using the default USR2 (installed only if the application has no handler for it)\n", v)
		}
	}
	return c
}

// Signal numbers on Linux (the only system zestall targets).
const (
	sigUSR1  = 10
	sigUSR2  = 12
	sigRTMIN = 34
	sigRTMAX = 64
)

// parseSignal reads a toggle signal: none/off/0, USR1, USR2 (with or
// without SIG), RTMIN+n, or the number of one of those. Other signals are
// refused: they terminate by default, are synchronous, or belong to the Go
// runtime or the C library.
func parseSignal(v string) (int, bool) {
	u := strings.TrimPrefix(strings.ToUpper(v), "SIG")
	switch u {
	case "NONE", "OFF", "0":
		return 0, true
	case "USR1":
		return sigUSR1, true
	case "USR2":
		return sigUSR2, true
	}
	var n int
	if strings.HasPrefix(u, "RTMIN+") {
		if _, err := fmt.Sscanf(u[6:], "%d", &n); err != nil || fmt.Sprint(n) != u[6:] {
			return 0, false
		}
		n += sigRTMIN
	} else if _, err := fmt.Sscanf(u, "%d", &n); err != nil || fmt.Sprint(n) != u {
		return 0, false
	}
	if n == sigUSR1 || n == sigUSR2 || (n >= sigRTMIN && n <= sigRTMAX) {
		return n, true
	}
	return 0, false
}

// SignalName names a toggle signal for messages and the Window records.
func SignalName(sig int) string {
	switch {
	case sig == sigUSR1:
		return "SIGUSR1"
	case sig == sigUSR2:
		return "SIGUSR2"
	case sig >= sigRTMIN && sig <= sigRTMAX:
		return fmt.Sprintf("SIGRTMIN+%d", sig-sigRTMIN)
	}
	return fmt.Sprintf("signal %d", sig)
}

// parseLaunchWindow reads "<from>:<to>"; an empty <to> means no end.
func parseLaunchWindow(v string) (from, to uint64, ok bool) {
	a, b, found := strings.Cut(v, ":")
	if !found {
		return 0, 0, false
	}
	if _, err := fmt.Sscanf(a, "%d", &from); err != nil || fmt.Sprint(from) != a {
		return 0, 0, false
	}
	if b == "" {
		return from, ^uint64(0), true
	}
	if _, err := fmt.Sscanf(b, "%d", &to); err != nil || fmt.Sprint(to) != b || to <= from {
		return 0, 0, false
	}
	return from, to, true
}

// envReader reads settings for FromEnv: an unset variable keeps the
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

// choice reads a setting of two values: def (the default; also its
// aliases) and alt, which sets *dst. Anything else warns and keeps def.
func (e envReader) choice(name, def, alt string, dst *bool, aliases ...string) {
	switch v := e.getenv(name); {
	case v == "":
	case v == alt:
		*dst = true
		e.from[name] = true
	case v == def || slices.Contains(aliases, v):
		e.from[name] = true
	default:
		q := []string{strconv.Quote(alt), strconv.Quote(def)}
		for _, a := range aliases {
			q = append(q, strconv.Quote(a))
		}
		list := strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
		fmt.Fprintf(e.w, "zestall: %s=%q is not %s; using the default %s\n", name, v, list, def)
	}
}

// ranks reads a rank set into *dst (which holds the default, all).
func (e envReader) ranks(name string, dst *RankSet) {
	v := e.getenv(name)
	if v == "" {
		return
	}
	rs, err := ParseRankSet(v)
	if err != nil {
		fmt.Fprintf(e.w, "zestall: %s=%q: %v (a list such as 0,12-23, or all); using the default all\n", name, v, err)
		return
	}
	*dst = rs
	e.from[name] = true
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

// ExpandOutput expands the verbs of an output template: %p the process
// id, %h the host name, %r the global rank ("norank" when unknown), %l the
// local rank on this host ("nolocal"), %j the job id ("nojob"), %% a
// percent sign. Unknown verbs are kept literally (FromEnv warns of them).
func ExpandOutput(tmpl string, pid int, host string, id Identity) string {
	var b strings.Builder
	num := func(v int, none string) {
		if v >= 0 {
			fmt.Fprintf(&b, "%d", v)
		} else {
			b.WriteString(none)
		}
	}
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
			num(id.Rank, "norank")
		case 'l':
			num(id.LocalRank, "nolocal")
		case 'j':
			if id.JobID == "" {
				b.WriteString("nojob")
			} else {
				b.WriteString(sanitizeHost(id.JobID))
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

// badVerbs lists the unknown % verbs of an output template.
func badVerbs(tmpl string) []string {
	var bad []string
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '%' {
			continue
		}
		if i+1 == len(tmpl) {
			bad = append(bad, "%")
			break
		}
		i++
		if !strings.ContainsRune("phrlj%", rune(tmpl[i])) {
			bad = append(bad, "%"+string(tmpl[i]))
		}
	}
	return bad
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

// Hostname is the host name for the output path and the header
// ("localhost" when the system does not say).
func Hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "localhost"
	}
	return h
}

// Entries describes the configuration for the output file's header: every
// setting, its value in effect, and whether it came from the environment.
func (c Config) Entries() []*pb.ConfigEntry {
	return []*pb.ConfigEntry{
		{Key: "ZESTALL_OUTPUT", Value: c.Output, FromEnvironment: c.FromEnv["ZESTALL_OUTPUT"]},
		{Key: "ZESTALL_FLUSH_INTERVAL", Value: c.FlushInterval.String(), FromEnvironment: c.FromEnv["ZESTALL_FLUSH_INTERVAL"]},
		{Key: "ZESTALL_SERIALIZE", Value: fmt.Sprint(map[bool]int{false: 0, true: 1}[c.Serialize]), FromEnvironment: c.FromEnv["ZESTALL_SERIALIZE"]},
		{Key: "ZESTALL_RING_FULL", Value: map[bool]string{false: "wait", true: "drop"}[c.RingFullDrop], FromEnvironment: c.FromEnv["ZESTALL_RING_FULL"]},
		{Key: "ZESTALL_TIMESTAMP_READS", Value: map[bool]string{false: "device", true: "host"}[c.HostReads], FromEnvironment: c.FromEnv["ZESTALL_TIMESTAMP_READS"]},
		{Key: "ZESTALL_RING_SLOTS", Value: fmt.Sprint(c.RingSlots), FromEnvironment: c.FromEnv["ZESTALL_RING_SLOTS"]},
		{Key: "ZESTALL_SAMPLING", Value: fmt.Sprint(map[bool]int{false: 0, true: 1}[c.Sampling]), FromEnvironment: c.FromEnv["ZESTALL_SAMPLING"]},
		{Key: "ZESTALL_SAMPLING_PERIOD_NS", Value: fmt.Sprint(c.SamplingPeriodNs), FromEnvironment: c.FromEnv["ZESTALL_SAMPLING_PERIOD_NS"]},
		{Key: "ZESTALL_STALL_READ_INTERVAL", Value: c.StallReadInterval.String(), FromEnvironment: c.FromEnv["ZESTALL_STALL_READ_INTERVAL"]},
		{Key: "ZESTALL_STALL_LATENCY", Value: c.StallLatency.String(), FromEnvironment: c.FromEnv["ZESTALL_STALL_LATENCY"]},
		{Key: "ZESTALL_SEPARATE_LAUNCHES", Value: map[bool]string{false: "windows", true: "copies"}[c.SeparateLaunches], FromEnvironment: c.FromEnv["ZESTALL_SEPARATE_LAUNCHES"]},
		{Key: "ZESTALL_SEPARATE_MEMORY", Value: fmt.Sprint(c.CopyMemoryLimit), FromEnvironment: c.FromEnv["ZESTALL_SEPARATE_MEMORY"]},
		{Key: "ZESTALL_SEPARATE_COPIES", Value: map[bool]string{false: fmt.Sprint(c.CodeCopies), true: "auto"}[c.CodeCopiesAuto], FromEnvironment: c.FromEnv["ZESTALL_SEPARATE_COPIES"]},
		{Key: "ZESTALL_QUIET", Value: fmt.Sprint(map[bool]int{false: 0, true: 1}[c.Quiet]), FromEnvironment: c.FromEnv["ZESTALL_QUIET"]},
		{Key: "ZESTALL_START", Value: map[bool]string{false: "on", true: "paused"}[c.StartPaused], FromEnvironment: c.FromEnv["ZESTALL_START"]},
		{Key: "ZESTALL_DELAY", Value: c.Delay.String(), FromEnvironment: c.FromEnv["ZESTALL_DELAY"]},
		{Key: "ZESTALL_DURATION", Value: c.Duration.String(), FromEnvironment: c.FromEnv["ZESTALL_DURATION"]},
		{Key: "ZESTALL_LAUNCHES", Value: launchWindowString(c), FromEnvironment: c.FromEnv["ZESTALL_LAUNCHES"]},
		{Key: "ZESTALL_TOGGLE_SIGNAL", Value: toggleSignalString(c), FromEnvironment: c.FromEnv["ZESTALL_TOGGLE_SIGNAL"]},
		{Key: "ZESTALL_RANKS", Value: c.Ranks.String(), FromEnvironment: c.FromEnv["ZESTALL_RANKS"]},
		{Key: "ZESTALL_SAMPLE_RANKS", Value: c.SampleRanks.String(), FromEnvironment: c.FromEnv["ZESTALL_SAMPLE_RANKS"]},
	}
}

func launchWindowString(c Config) string {
	switch {
	case !c.LaunchWindow:
		return ""
	case c.LaunchTo == ^uint64(0):
		return fmt.Sprintf("%d:", c.LaunchFrom)
	}
	return fmt.Sprintf("%d:%d", c.LaunchFrom, c.LaunchTo)
}

func toggleSignalString(c Config) string {
	switch {
	case c.ToggleSignal == 0:
		return "none"
	case c.ToggleSignalAuto:
		return SignalName(c.ToggleSignal) + " (if the application has no handler)"
	}
	return SignalName(c.ToggleSignal)
}

// parseBytes reads a size: a decimal number of bytes, or one followed by
// K, M or G (powers of 1024).
func parseBytes(v string) (uint64, bool) {
	mul := uint64(1)
	switch {
	case strings.HasSuffix(v, "K"):
		mul, v = 1<<10, strings.TrimSuffix(v, "K")
	case strings.HasSuffix(v, "M"):
		mul, v = 1<<20, strings.TrimSuffix(v, "M")
	case strings.HasSuffix(v, "G"):
		mul, v = 1<<30, strings.TrimSuffix(v, "G")
	}
	var n uint64
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil || fmt.Sprint(n) != v || n > 1<<40 {
		return 0, false
	}
	return n * mul, true
}
