package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// traceEvent is one Chrome trace-event ("Trace Event Format"), the JSON
// Perfetto and chrome://tracing load.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`            // µs
	Dur  float64        `json:"dur,omitempty"` // µs
	Pid  uint32         `json:"pid"`
	Tid  uint64         `json:"tid"`
	Id   uint64         `json:"id,omitempty"` // flow events ("s", "f")
	Bp   string         `json:"bp,omitempty"` // flow end binding ("e": the enclosing slice)
	Args map[string]any `json:"args,omitempty"`
}

func cmdTrace(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output file (required)")
	format := fs.String("format", "json", "json (Chrome trace-event JSON) or perfetto (Perfetto's protobuf trace, about a fifth of the size)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall trace FILE... -o OUT.json
       zestall trace --format=perfetto FILE... -o OUT.pftrace

Writes the kernel launches of FILE as Chrome/Perfetto trace-event JSON:
one process per device, one track per command queue (regular lists) or
command list (immediate lists); each launch a complete event at its device
start and end, with the kernel name, group counts and sizes, and the stall
samples attributed to that launch (args). Open it in ui.perfetto.dev or
chrome://tracing. Several FILEs are merged first. Memory grows with the
launches (what trace needs of every launch record is kept, about 100
bytes each), and so does the JSON (about 200 bytes per launch). FILE "-" is standard input (as the only FILE). The same file may not be
given twice. A damaged file is read past each damaged stretch to the next
intact frame; what was lost is reported (exit status 1), as is a file with
no record.
--format=perfetto writes the same launches as Perfetto's protobuf trace
(TracePacket messages: a track per device and per queue or immediate list,
each launch a slice with its kernel name interned, its launch id and stall
samples as debug annotations): about 40 bytes per launch, what
ui.perfetto.dev and trace_processor read fastest; use it for big runs.
--kernel, --from/--to and --max-launches keep big traces useful: only the
launches of one kernel, only those starting in a time range, at most N
launches (the first N the file holds, in the order their device times were
learned); the launches past the cap are not dropped silently: they become,
per device, a counter track of their busy time (percent of each of 400
slices of the run). Memory is then bounded by the launches written.
OUT is written to a temporary file next to it and appears only complete;
it must not exist and is never overwritten.`)
		fs.PrintDefaults()
	}
	kernel := fs.String("kernel", "", "only the launches of the kernel with this name (demangled or mangled)")
	from := fs.Float64("from", 0, "only launches starting at or after this time, ms from the run's start")
	to := fs.Float64("to", 0, "only launches starting before this time, ms from the run's start (0: the end)")
	maxLaunches := fs.Int("max-launches", 0, "write at most this many launches (0: all); the rest become a busy-time counter per device")
	files, err := parseFiles(fs, args, "trace takes FILE... and -o OUT", func() bool { return *out != "" })
	if err != nil {
		return err
	}
	write := writeTrace
	switch *format {
	case "json":
	case "perfetto":
		write = writePerfetto
	default:
		return usageError{fmt.Sprintf("--format %q: json or perfetto", *format)}
	}
	if *from < 0 || *to < 0 || *to != 0 && *to <= *from || *maxLaunches < 0 {
		return usageError{"--from and --to are ms from the run's start, --to after --from; --max-launches is not negative"}
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	m := newRunModel()
	m.keepLaunches = true
	if *kernel != "" || *from > 0 || *to > 0 || *maxLaunches > 0 {
		m.traceSel = &traceSelection{kernel: *kernel, from: uint64(*from * 1e6), to: uint64(*to * 1e6), max: *maxLaunches, kept: map[uint64]struct{}{}}
	}
	if _, err := m.load(files, stderr); err != nil {
		return err
	}
	if *kernel != "" && !slices.ContainsFunc(m.kernels, func(k *pb.Kernel) bool { return kernelName(k) == *kernel || k.Name == *kernel }) {
		return errors.Join(m.readErr, fmt.Errorf("no kernel named %q in the file", *kernel))
	}
	if countTraceable(m) == 0 {
		if m.traceSel != nil {
			return errors.Join(m.readErr, errors.New("no launch with device times matches --kernel/--from/--to: nothing to trace"))
		}
		return errors.Join(m.readErr, errors.New("no launch has device times: nothing to trace (see zestall report)"))
	}
	var n int
	if err := writeOutput(*out, func(w io.Writer) (err error) {
		n, err = write(w, m)
		return err
	}); err != nil {
		return errors.Join(m.readErr, err)
	}
	if sel := m.traceSel; sel != nil && sel.over > 0 {
		fmt.Fprintf(stderr, "zestall: wrote %s (%d launches; %d more past --max-launches drawn as a busy-time counter per device)\n", *out, n, sel.over)
	} else {
		fmt.Fprintf(stderr, "zestall: wrote %s (%d launches)\n", *out, n)
	}
	return m.readErr
}

// restCounterName names the counter of the launches past --max-launches.
const restCounterName = "busy % of the launches past --max-launches"

// traceable reports whether a launch becomes a trace event: it has device
// times, in order, not before the run started.
func traceable(l *traceLaunch, t0 uint64) bool {
	return l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0 && l.DeviceEndNs >= l.DeviceStartNs && l.DeviceStartNs >= t0
}

// countTraceable counts the launches writeTrace writes.
func countTraceable(m *runModel) int {
	var t0 uint64
	if m.header != nil {
		t0 = m.header.StartHostNs
	}
	n := 0
	m.launchList.each(func(l *traceLaunch) {
		if traceable(l, t0) {
			n++
		}
	})
	return n
}

// writeTrace writes the trace one event at a time (the metadata events
// naming processes and tracks first), so that it holds no event list: its
// memory is the model's launch records.
func writeTrace(w io.Writer, m *runModel) (int, error) {
	names := map[uint64]string{}
	for _, k := range m.kernels {
		names[k.Id] = kernelName(k)
	}
	perLaunch := m.perLaunch // stall samples per single launch, by reason
	var t0 uint64
	if m.header != nil {
		t0 = m.header.StartHostNs
	}
	track := func(l *traceLaunch) (tid uint64, label string) {
		if l.QueueId == 0 {
			return 1<<32 | l.CommandListId, fmt.Sprintf("immediate list %d", l.CommandListId)
		}
		return l.QueueId, fmt.Sprintf("queue %d", l.QueueId)
	}
	bw := bufio.NewWriter(w)
	first := true
	var err error
	emit := func(ev traceEvent) {
		if err != nil {
			return
		}
		var b []byte
		if b, err = json.Marshal(ev); err != nil {
			return
		}
		if !first {
			bw.WriteByte(',')
		}
		first = false
		_, err = bw.Write(b)
	}
	bw.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	if m.header != nil {
		for _, d := range m.header.Devices {
			emit(traceEvent{Name: "process_name", Ph: "M", Pid: d.Id,
				Args: map[string]any{"name": deviceLabels(m)[d.Id]}})
		}
	}
	writeSyclSpans(m, t0, emit)
	tracks := map[[2]uint64]bool{}
	m.launchList.each(func(l *traceLaunch) {
		if !traceable(l, t0) {
			return
		}
		tid, label := track(l)
		if key := [2]uint64{uint64(l.DeviceId), tid}; !tracks[key] {
			tracks[key] = true
			emit(traceEvent{Name: "thread_name", Ph: "M", Pid: l.DeviceId, Tid: tid, Args: map[string]any{"name": label}})
		}
	})
	n := 0
	m.launchList.each(func(l *traceLaunch) {
		if !traceable(l, t0) {
			return
		}
		tid, _ := track(l)
		args := map[string]any{
			"launch": l.Id, "kernel_id": l.KernelId,
			"groups":         []uint32{l.GroupCountX, l.GroupCountY, l.GroupCountZ},
			"group_size":     []uint32{l.GroupSizeX, l.GroupSizeY, l.GroupSizeZ},
			"host_append_us": float64(l.HostAppendNs-min(l.HostAppendNs, t0)) / 1e3,
		}
		if v := perLaunch[l.Id]; v != nil {
			stalls := map[string]uint64{}
			for j, c := range v {
				if c > 0 && j < len(m.metrics) {
					stalls[m.metrics[j]] = c
				}
			}
			args["stall_samples"] = stalls
		}
		if loc := m.sycl.locs[l.SyclLocationId]; loc != nil {
			args["sycl"] = syclSiteName(loc)
		}
		emit(traceEvent{
			Name: names[l.KernelId], Cat: "kernel", Ph: "X", Pid: l.DeviceId, Tid: tid,
			Ts: float64(l.DeviceStartNs-t0) / 1e3, Dur: float64(l.DeviceEndNs-l.DeviceStartNs) / 1e3, Args: args,
		})
		if l.SyclTaskId != 0 && len(m.sycl.spans) > 0 { // the flow from its SYCL task
			emit(traceEvent{Name: "launch", Cat: "sycl", Ph: "f", Bp: "e", Id: l.SyclTaskId, Pid: l.DeviceId, Tid: tid,
				Ts: float64(l.DeviceStartNs-t0) / 1e3})
		}
		n++
	})
	m.traceSel.restSlices(func(lane sourceDevice, startNs uint64, pct int64) {
		emit(traceEvent{Name: restCounterName, Ph: "C", Pid: lane.device, Ts: float64(startNs) / 1e3,
			Args: map[string]any{"busy %": pct}})
	})
	if err != nil {
		return n, err
	}
	bw.WriteString("]}\n")
	return n, bw.Flush()
}

// deviceLabels names each device of the model for the trace's process
// tracks: "device 1: NAME", and for merged runs the run first ("rank 3
// device 1: NAME", the device id as the run's own file has it).
func deviceLabels(m *runModel) map[uint32]string {
	out := map[uint32]string{}
	if m.header == nil {
		return out
	}
	for _, d := range m.header.Devices {
		out[d.Id] = fmt.Sprintf("device %d: %s", d.Id, d.Name)
	}
	for _, s := range m.sources {
		if s.Header == nil || isContainer(s) {
			continue
		}
		run := fmt.Sprintf("input %d", s.Index)
		if s.Header.MpiRank != nil {
			run = fmt.Sprintf("rank %d", *s.Header.MpiRank)
		}
		for _, d := range s.Header.Devices {
			out[d.Id+s.DeviceIdOffset] = fmt.Sprintf("%s device %d: %s", run, d.Id, d.Name)
		}
	}
	return out
}
