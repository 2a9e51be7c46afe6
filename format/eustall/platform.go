package eustall

import (
	"errors"
	"fmt"
	"strings"
)

// Platform is a GPU family with its own EU-stall record layout.
type Platform uint8

// Platforms that expose the EuStallSampling metric group
// (docs/eu-stall-sampling.md §2.5 "Where the group exists").
const (
	PlatformUnknown Platform = iota
	XeHPC                    // Xe-HPC: Ponte Vecchio (PVC) XT / XT-VG
	Xe2                      // Xe2: Lunar Lake, Battlemage
	Xe3                      // Xe3: Panther Lake
	Xe3p                     // Xe3p
)

var platformNames = [...]string{
	PlatformUnknown: "unknown",
	XeHPC:           "xe-hpc",
	Xe2:             "xe2",
	Xe3:             "xe3",
	Xe3p:            "xe3p",
}

// String returns a short lower-case name ("xe-hpc", "xe2", "xe3", "xe3p").
func (p Platform) String() string {
	if int(p) < len(platformNames) {
		return platformNames[p]
	}
	return fmt.Sprintf("Platform(%d)", uint8(p))
}

// ParsePlatform accepts the names printed by [Platform.String] and common
// aliases: "pvc", "xehpc", "xe_hpc"; "lnl", "bmg"; "ptl". Case is ignored.
func ParsePlatform(s string) (Platform, error) {
	switch strings.ToLower(s) {
	case "xe-hpc", "xehpc", "xe_hpc", "pvc":
		return XeHPC, nil
	case "xe2", "xe2-hpg", "xe2_hpg", "lnl", "bmg":
		return Xe2, nil
	case "xe3", "ptl":
		return Xe3, nil
	case "xe3p":
		return Xe3p, nil
	}
	return PlatformUnknown, fmt.Errorf("eustall: unknown platform %q", s)
}

// Counter names one hardware counter field of a raw record. The names follow
// the kernel driver's field names (xe_eu_stall.c), not the Level-Zero metric
// names.
type Counter uint8

// Hardware counter fields (docs/eu-stall-sampling.md §3.2 "Bit layout").
const (
	CounterTDR       Counter = iota // "tdr", exposed as metric "PSDepStall" (formerly "Tdr"); Xe2 and later
	CounterOther                    // "other", metric "OtherStall"
	CounterControl                  // "control", metric "ControlStall"
	CounterPipeStall                // "pipestall", metric "PipeStall"
	CounterSend                     // "send", metric "SendStall"
	CounterDistAcc                  // "dist_acc", metric "DistStall"
	CounterSbid                     // "sbid", metric "SbidStall"
	CounterSync                     // "sync", metric "SyncStall"
	CounterInstFetch                // "inst_fetch", metric "InstrFetchStall"
	CounterActive                   // "active", metric "Active"
	numCounterKinds
)

var counterNames = [...]string{
	CounterTDR:       "tdr",
	CounterOther:     "other",
	CounterControl:   "control",
	CounterPipeStall: "pipestall",
	CounterSend:      "send",
	CounterDistAcc:   "dist_acc",
	CounterSbid:      "sbid",
	CounterSync:      "sync",
	CounterInstFetch: "inst_fetch",
	CounterActive:    "active",
}

// String returns the kernel driver's field name.
func (c Counter) String() string {
	if int(c) < len(counterNames) {
		return counterNames[c]
	}
	return fmt.Sprintf("Counter(%d)", uint8(c))
}

// MaxCounters is the largest number of counters a record carries on any
// platform.
const MaxCounters = 10

// MetricIP is the name of the metric carrying the IP field.
const MetricIP = "IP"

// metricCounter maps a Level-Zero metric name to its hardware field. "Tdr"
// is the name Intel's driver used for PSDepStall before 2025-11
// (docs/eu-stall-sampling.md §2.4 "Metric lists per platform"). A switch,
// not a package-level map: a map is built when libzestall.so is loaded, in
// every profiled process (docs/level-zero-loader.md §8.4 "Start-up cost of
// `LD_PRELOAD`").
func metricCounter(name string) (Counter, bool) {
	switch name {
	case "Active":
		return CounterActive, true
	case "PSDepStall", "Tdr":
		return CounterTDR, true
	case "ControlStall":
		return CounterControl, true
	case "PipeStall":
		return CounterPipeStall, true
	case "SendStall":
		return CounterSend, true
	case "DistStall":
		return CounterDistAcc, true
	case "SbidStall":
		return CounterSbid, true
	case "SyncStall":
		return CounterSync, true
	case "InstrFetchStall":
		return CounterInstFetch, true
	case "OtherStall":
		return CounterOther, true
	}
	return 0, false
}

// Layout is the bit layout of a record on one platform
// (docs/eu-stall-sampling.md §3.2 "Bit layout", §3.4 "Decoding rule").
type Layout struct {
	Platform Platform
	// IPMask selects the IP field from the little-endian u64 of bytes 0..7.
	IPMask uint64
	// CounterBit is the bit offset of raw counter 0; raw counter k occupies
	// bits [CounterBit+8k, CounterBit+8k+7] of the little-endian record.
	CounterBit uint
	// Raw lists the hardware field of each raw counter k, in record order.
	Raw []Counter
	// DropFlag reports whether the driver reports a drop from the
	// i915-prelim flags word (flags&0x100 at byte 50). Only Xe-HPC does.
	DropFlag bool
}

var (
	rawPVC   = []Counter{CounterActive, CounterOther, CounterControl, CounterPipeStall, CounterSend, CounterDistAcc, CounterSbid, CounterSync, CounterInstFetch}
	rawXe2   = []Counter{CounterTDR, CounterOther, CounterControl, CounterPipeStall, CounterSend, CounterDistAcc, CounterSbid, CounterSync, CounterInstFetch, CounterActive}
	namesPVC = []string{"IP", "Active", "ControlStall", "PipeStall", "SendStall", "DistStall", "SbidStall", "SyncStall", "InstrFetchStall", "OtherStall"}
	namesXe2 = []string{"IP", "Active", "PSDepStall", "ControlStall", "PipeStall", "SendStall", "DistStall", "SbidStall", "SyncStall", "InstrFetchStall", "OtherStall"}
)

// LayoutOf returns the record layout of p. The Raw slice is a fresh copy.
func LayoutOf(p Platform) (Layout, error) {
	switch p {
	case XeHPC:
		return Layout{Platform: p, IPMask: 0x1fffffff, CounterBit: 29, Raw: append([]Counter(nil), rawPVC...), DropFlag: true}, nil
	case Xe2, Xe3:
		return Layout{Platform: p, IPMask: 0x1fffffff, CounterBit: 29, Raw: append([]Counter(nil), rawXe2...)}, nil
	case Xe3p:
		return Layout{Platform: p, IPMask: 0x1fffffffffffffff, CounterBit: 61, Raw: append([]Counter(nil), rawXe2...)}, nil
	}
	return Layout{}, fmt.Errorf("eustall: platform %v has no EU stall sampling", p)
}

// DriverMetricNames returns the metric list Intel's driver reports for p, in
// its order (docs/eu-stall-sampling.md §2.4 "Metric lists per platform"). It
// exists for the simulated driver and for
// tests; the collector must use the names the driver actually reported.
func DriverMetricNames(p Platform) []string {
	switch p {
	case XeHPC:
		return append([]string(nil), namesPVC...)
	case Xe2, Xe3, Xe3p:
		return append([]string(nil), namesXe2...)
	}
	return nil
}

// SourceIP is the value [Layout.MetricSources] gives the IP metric.
const SourceIP = -1

// Errors wrapped by [MetricError].
var (
	ErrUnknownMetric   = errors.New("not an EU stall metric of this platform")
	ErrDuplicateMetric = errors.New("metric listed twice")
	ErrNoIPMetric      = errors.New(`no "IP" metric`)
	ErrTooManyMetrics  = errors.New("more metrics than the record has counters")
)

// MetricError reports a metric list the decoder cannot use.
type MetricError struct {
	Platform Platform
	Index    int    // metric index in the driver's list; -1 when about the list
	Name     string // metric name, if any
	Err      error  // one of ErrUnknownMetric, ErrDuplicateMetric, ErrNoIPMetric, ErrTooManyMetrics
}

func (e *MetricError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("eustall: %v metric list: %v", e.Platform, e.Err)
	}
	return fmt.Sprintf("eustall: %v metric %d %q: %v", e.Platform, e.Index, e.Name, e.Err)
}

func (e *MetricError) Unwrap() error { return e.Err }

// MetricSources maps a metric list, as reported by the driver and in its
// order, to record fields: element i is [SourceIP] for the "IP" metric and
// otherwise the raw counter index k (into l.Raw) that feeds metric i. Names
// are matched exactly; "Tdr" is accepted for "PSDepStall". A name that is not
// a counter of this platform, a duplicate, or a list without "IP" yields a
// [*MetricError].
func (l Layout) MetricSources(names []string) ([]int, error) {
	if len(names) > MaxCounters+1 {
		return nil, &MetricError{Platform: l.Platform, Index: -1, Err: ErrTooManyMetrics}
	}
	src := make([]int, len(names))
	seenIP := false
	var seen [numCounterKinds]bool
	for i, n := range names {
		if n == MetricIP {
			if seenIP {
				return nil, &MetricError{l.Platform, i, n, ErrDuplicateMetric}
			}
			seenIP = true
			src[i] = SourceIP
			continue
		}
		c, ok := metricCounter(n)
		if !ok {
			return nil, &MetricError{l.Platform, i, n, ErrUnknownMetric}
		}
		if seen[c] {
			return nil, &MetricError{l.Platform, i, n, ErrDuplicateMetric}
		}
		seen[c] = true
		k := -1
		for j, rc := range l.Raw {
			if rc == c {
				k = j
				break
			}
		}
		if k < 0 {
			return nil, &MetricError{l.Platform, i, n, ErrUnknownMetric}
		}
		src[i] = k
	}
	if !seenIP {
		return nil, &MetricError{Platform: l.Platform, Index: -1, Err: ErrNoIPMetric}
	}
	return src, nil
}

// PlatformFor returns the platform of a device from the GFX core family and,
// when that is 0 (as Debian's IGC writes in the zebin's gfxCore note), the
// product family, both as found in a zebin's .note.intelgt.compat (package
// zebin, Compat.GfxCore and Compat.ProductFamily). Values from igfxfmid.h:
// IGFX_XE_HPC_CORE 0x0c08, IGFX_XE2_HPG_CORE 0x0c09, IGFX_XE3_CORE 0x1e00,
// IGFX_XE3P_CORE 0x2300; IGFX_PVC 1271, IGFX_BMG 1274, IGFX_LUNARLAKE 1275,
// IGFX_PTL 1300. Anything else, DG2 included (no EU stall sampling), is
// PlatformUnknown.
func PlatformFor(gfxCore, productFamily uint32) Platform {
	switch gfxCore {
	case 0x0c08:
		return XeHPC
	case 0x0c09:
		return Xe2
	case 0x1e00:
		return Xe3
	case 0x2300:
		return Xe3p
	case 0:
		switch productFamily {
		case 1271:
			return XeHPC
		case 1274, 1275:
			return Xe2
		case 1300:
			return Xe3
		}
	}
	return PlatformUnknown
}
