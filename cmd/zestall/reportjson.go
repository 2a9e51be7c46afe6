package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zestall/zestall/proto/stream"
)

// The structure of zestall report --json, version 1. It carries the numbers
// of the text report; the field comments are its documentation (zestall
// report --help points here). Conventions: times are nanoseconds, "_ns"
// fields on the host clock are relative to the run's start (the Header's
// start_host_ns), counts are integers, absent optional parts are null or
// omitted, arrays are never null. Fields are only ever added within a
// version; a change of meaning changes "schema".
type jsonReport struct {
	// Schema is "zestall-report/1".
	Schema string `json:"schema"`
	// Inputs: one per FILE, with what reading it lost.
	Inputs []jsonInput `json:"inputs"`
	// Run is the run's header; for merged files the merged header.
	Run *jsonRun `json:"run"`
	// Devices as the header lists them, with what the run did on each.
	Devices []jsonDevice `json:"devices"`
	// Counters are the run's last counters; null when none were written.
	Counters *jsonCounters `json:"counters"`
	// Windows are the collection windows (empty: none recorded).
	Windows []jsonWindow `json:"windows"`
	// OutsideWindows: launches and samples in no window (when windows
	// were recorded).
	OutsideWindows struct {
		Launches     int    `json:"launches"`
		StallSamples uint64 `json:"stall_samples"`
	} `json:"outside_windows"`
	// StallSamplesNoWindow: samples summed over several windows by the
	// collector, so in none of them.
	StallSamplesNoWindow uint64 `json:"stall_samples_no_window"`
	// Metrics names the stall reasons, in the driver's order: the keys of
	// every "reasons" object below.
	Metrics []string `json:"metrics"`
	// StallSamples adds up: total = single_launch + shared + kernel_only
	// + unattributed.
	StallSamples jsonStallTotals `json:"stall_samples"`
	// Kernels, by name (every kernel object of one name counts
	// together), most EU stall samples first, then the rest by name.
	Kernels []jsonKernel `json:"kernels"`
	// Ranks: one entry per run when several were read (several FILEs or
	// a merged file), in MPI rank order; empty for one run.
	Ranks []jsonRank `json:"ranks"`
	// Imbalance of device time over Ranks; null for one run.
	Imbalance *imbalance `json:"imbalance"`
}

type jsonInput struct {
	Path    string `json:"path"`
	Records int    `json:"records"` // records read
	// DamagedStretches skipped to the next intact frame, and their bytes.
	DamagedStretches int   `json:"damaged_stretches"`
	SkippedBytes     int64 `json:"skipped_bytes"`
	// StoppedAtOffset: byte offset after which nothing could be read
	// (a truncated or corrupt end); -1 when read to the end.
	StoppedAtOffset int64 `json:"stopped_at_offset"`
	// Error says what was lost, or is "" when the input read completely.
	Error string `json:"error"`
}

type jsonRun struct {
	ToolVersion string   `json:"tool_version"`
	Pid         uint32   `json:"pid"`
	Host        string   `json:"host"`
	Command     []string `json:"command"`
	StartUnixNs int64    `json:"start_unix_ns"`
	MergedRuns  int      `json:"merged_runs"` // runs merged (a merged file merged again counts by its runs); 0: not a merged file
}

type jsonDevice struct {
	ID       uint32 `json:"id"`
	ParentID uint32 `json:"parent_id"` // 0: a root device
	Name     string `json:"name"`
	Platform string `json:"platform"`
	XeCores  uint32 `json:"xe_cores"`
	// Sampling: "on", or the off reason ("disabled", "metrics_not_enabled",
	// "no_group", "open_failed", "via_root", "unspecified").
	Sampling         string `json:"sampling"`
	SamplingPeriodNs uint64 `json:"sampling_period_ns"` // 0 when off
	SamplingDetail   string `json:"sampling_detail"`
	Launches         int    `json:"launches"`      // launch records on this device
	StallSamples     uint64 `json:"stall_samples"` // attributed and unattributed
}

type jsonCounters struct {
	Final                 bool              `json:"final"` // false: the run ended abnormally
	LaunchesSeen          uint64            `json:"launches_seen"`
	LaunchesTimed         uint64            `json:"launches_timed"`
	StallRecordsRead      uint64            `json:"stall_records_read"`
	StallRowsAttributed   uint64            `json:"stall_rows_attributed"`
	StallRowsUnattributed uint64            `json:"stall_rows_unattributed"`
	StallDropWarnings     uint64            `json:"stall_drop_warnings"`
	StallDropFlagRecords  uint64            `json:"stall_drop_flag_records"`
	LaunchesWaited        uint64            `json:"launches_waited,omitempty"` // ZESTALL_RING_FULL=wait
	LaunchWaitNs          uint64            `json:"launch_wait_ns,omitempty"`
	StallLaunchesNotHeld  uint64            `json:"stall_launches_not_held,omitempty"`      // over the attributors' cap
	StallRowsDegraded     uint64            `json:"stall_rows_degraded,omitempty"`          // kept at kernel level for them
	TimedByCopy           uint64            `json:"launches_timed_by_copy,omitempty"`       // immediate lists, device-side copies
	TimedByHostQuery      uint64            `json:"launches_timed_by_host_query,omitempty"` // immediate lists, one host query each
	WithoutTimestamp      map[string]uint64 `json:"launches_without_timestamp"`             // by reason
	Lost                  map[string]uint64 `json:"lost"`                                   // by what
}

type jsonWindow struct {
	Input        uint32 `json:"input"`  // MergeSource index; 0 when not merged
	Device       uint32 `json:"device"` // 0: all devices
	StartNs      uint64 `json:"start_ns"`
	StopNs       *int64 `json:"stop_ns"` // null: open at the end of the file
	StartedBy    string `json:"started_by"`
	StoppedBy    string `json:"stopped_by"`
	Launches     int    `json:"launches"`      // by append time
	StallSamples uint64 `json:"stall_samples"` // by the read that delivered them
}

type jsonStallTotals struct {
	Total        uint64 `json:"total"`
	SingleLaunch uint64 `json:"single_launch"`
	Shared       uint64 `json:"shared"`      // shared by overlapping launches
	KernelOnly   uint64 `json:"kernel_only"` // no launch could be named
	Unattributed uint64 `json:"unattributed"`
}

type jsonKernel struct {
	Name string   `json:"name"`
	IDs  []uint64 `json:"ids"` // the kernel objects of the name
	// Launches and DeviceNs are over the launches with device times;
	// LaunchesUntimed counts the others.
	Launches        int     `json:"launches"`
	LaunchesUntimed int     `json:"launches_untimed"`
	DeviceNs        uint64  `json:"device_ns"`
	MeanNs          float64 `json:"mean_ns"`
	// Quantiles of the device times, within 1% (a sketch); MaxNs exact.
	MedianNs     float64           `json:"median_ns"`
	P99Ns        float64           `json:"p99_ns"`
	MaxNs        uint64            `json:"max_ns"`
	StallSamples uint64            `json:"stall_samples"`
	Reasons      map[string]uint64 `json:"reasons"` // samples by reason, non-zero only
	// Hot: the instructions with the most samples, hottest first (at
	// most --top).
	Hot []jsonInstruction `json:"hot"`
}

type jsonInstruction struct {
	Offset      uint64            `json:"offset"` // bytes from the kernel's start
	Samples     uint64            `json:"samples"`
	Reasons     map[string]uint64 `json:"reasons"`
	Source      string            `json:"source"`      // "file:line", "" when unknown
	Instruction string            `json:"instruction"` // IGA's text, "" without it
}

func reasonMap(m *runModel, c []uint64) map[string]uint64 {
	out := map[string]uint64{}
	for j, v := range c {
		if v > 0 && j < len(m.metrics) {
			out[m.metrics[j]] = v
		}
	}
	return out
}

func snakeEnum(s, prefix string) string {
	return strings.ToLower(strings.TrimPrefix(s, prefix))
}

// buildJSONReport gathers the report's numbers into the JSON structure.
func buildJSONReport(m *runModel, code *codeCache, top int) *jsonReport {
	r := &jsonReport{Schema: "zestall-report/1", Inputs: []jsonInput{}, Devices: []jsonDevice{}, Windows: []jsonWindow{},
		Metrics: append([]string{}, m.metrics...), Kernels: []jsonKernel{}}
	for _, in := range m.inputs {
		ji := jsonInput{Path: in.path, Records: in.records, DamagedStretches: len(in.skipped), SkippedBytes: in.skippedBytes(), StoppedAtOffset: -1}
		var fe *stream.FormatError
		if errors.As(in.final, &fe) {
			ji.StoppedAtOffset = fe.Offset
		}
		if err := in.err(); err != nil {
			ji.Error = err.Error()
		}
		r.Inputs = append(r.Inputs, ji)
	}
	var t0 uint64
	if h := m.header; h != nil {
		t0 = h.StartHostNs
		r.Run = &jsonRun{ToolVersion: h.ToolVersion, Pid: h.Pid, Host: h.HostName, Command: append([]string{}, h.Argv...),
			StartUnixNs: h.StartUnixNs, MergedRuns: m.runCount()}
		use := m.deviceUse()
		for _, d := range h.Devices {
			jd := jsonDevice{ID: d.Id, ParentID: d.ParentId, Name: d.Name, Platform: d.Platform, XeCores: d.XeCoreCount}
			ss := d.GetStallSampling()
			switch {
			case ss.GetEnabled():
				jd.Sampling, jd.SamplingPeriodNs = "on", ss.SamplingPeriodNs
			default:
				jd.Sampling = snakeEnum(ss.GetOffReason().String(), "STALL_SAMPLING_OFF_")
			}
			jd.SamplingDetail = ss.GetDetail()
			if u := use[d.Id]; u != nil {
				jd.Launches, jd.StallSamples = u.launches, u.samples
			}
			r.Devices = append(r.Devices, jd)
		}
	}
	if c := m.counters; c != nil {
		jc := &jsonCounters{Final: c.Final, LaunchesSeen: c.LaunchesSeen, LaunchesTimed: c.LaunchesTimed,
			StallRecordsRead: c.StallRecordsRead, StallRowsAttributed: c.StallRowsAttributed, StallRowsUnattributed: c.StallRowsUnattributed,
			StallDropWarnings: c.StallDropWarnings, StallDropFlagRecords: c.StallDropFlagRecords,
			LaunchesWaited: c.LaunchesWaited, LaunchWaitNs: c.LaunchWaitNs,
			StallLaunchesNotHeld: c.StallLaunchesNotHeld, StallRowsDegraded: c.StallRowsDegraded,
			TimedByCopy: c.LaunchesTimedByCopy, TimedByHostQuery: c.LaunchesTimedByHostQuery,
			WithoutTimestamp: map[string]uint64{}, Lost: map[string]uint64{}}
		for _, x := range c.LaunchesWithoutTimestamp {
			jc.WithoutTimestamp[snakeEnum(x.Reason.String(), "NO_TIMESTAMP_REASON_")] += x.Count
		}
		for _, l := range c.Lost {
			jc.Lost[l.What] += l.Count
		}
		r.Counters = jc
	}
	ws := m.collectionWindows()
	r.OutsideWindows.Launches, r.OutsideWindows.StallSamples, r.StallSamplesNoWindow = m.countInWindows(ws)
	for _, cw := range ws {
		jw := jsonWindow{Input: cw.source, Device: cw.device, StartNs: cw.start - min(cw.start, t0), StartedBy: causeName(cw.startCause),
			StoppedBy: causeName(cw.stopCause), Launches: cw.launches, StallSamples: cw.samples}
		if cw.fromRun {
			jw.StartedBy = "run start"
		}
		if cw.stop != 0 {
			v := int64(cw.stop - min(cw.stop, t0))
			jw.StopNs = &v
		} else {
			jw.StoppedBy = ""
		}
		r.Windows = append(r.Windows, jw)
	}
	sum := summarizeStalls(m)
	r.StallSamples = jsonStallTotals{Total: sum.all + sum.unattrib, SingleLaunch: sum.byLaunch, Shared: sum.shared,
		KernelOnly: sum.kernelOnly, Unattributed: sum.unattrib}
	byName := map[string]*jsonKernel{}
	durs := map[string]*sketch{}
	var order []string
	for _, k := range m.kernels {
		n := kernelName(k)
		jk := byName[n]
		if jk == nil {
			jk = &jsonKernel{Name: n, IDs: []uint64{}, Reasons: map[string]uint64{}, Hot: []jsonInstruction{}}
			byName[n] = jk
			order = append(order, n)
			durs[n] = newSketch()
		}
		durs[n].merge(m.durations[k.Id])
		jk.IDs = append(jk.IDs, k.Id)
		jk.Launches += m.timed[k.Id]
		jk.LaunchesUntimed += m.launches[k.Id] - m.timed[k.Id]
		jk.DeviceNs += m.devNs[k.Id]
	}
	done := map[string]bool{}
	add := func(jk *jsonKernel) {
		if jk.Launches > 0 {
			jk.MeanNs = float64(jk.DeviceNs) / float64(jk.Launches)
		}
		if d := durs[jk.Name]; d != nil {
			jk.MedianNs, jk.P99Ns, jk.MaxNs = math.Round(d.quantile(0.5)), math.Round(d.quantile(0.99)), d.max
		}
		r.Kernels = append(r.Kernels, *jk)
		done[jk.Name] = true
	}
	for _, sk := range sum.kernels {
		jk := byName[sk.name]
		if jk == nil {
			jk = &jsonKernel{Name: sk.name, IDs: []uint64{}, Hot: []jsonInstruction{}}
		}
		jk.StallSamples, jk.Reasons = sk.total, reasonMap(m, sk.sum)
		var kc *kernelCode
		if sk.first != nil {
			kc = code.get(sk.first)
		}
		for i, o := range sk.offs {
			if i == top {
				break
			}
			in := jsonInstruction{Offset: o.off, Samples: sumCounts(o.c), Reasons: reasonMap(m, o.c)}
			if kc != nil {
				if row, ok := kc.line(o.off); ok {
					in.Source = fmt.Sprintf("%s:%d", filepath.Base(row.File), row.Line)
				}
				if ins, ok := kc.inst(o.off); ok {
					in.Instruction = ins.text
				}
			}
			jk.Hot = append(jk.Hot, in)
		}
		add(jk)
	}
	sortedRest := []string{}
	for _, n := range order {
		if !done[n] {
			sortedRest = append(sortedRest, n)
		}
	}
	sort.Strings(sortedRest)
	for _, n := range sortedRest {
		add(byName[n])
	}
	r.Ranks, r.Imbalance = jsonRanks(m, m.rankRows())
	return r
}

// writeJSONReport writes the report as one indented JSON object.
func writeJSONReport(w io.Writer, m *runModel, code *codeCache, top int) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(buildJSONReport(m, code, top))
}
