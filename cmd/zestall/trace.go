package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

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
	out := fs.String("o", "", "output file (required): trace-event JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall trace FILE... -o OUT.json

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
OUT is written to a temporary file next to it and appears only complete;
it must not exist and is never overwritten.`)
		fs.PrintDefaults()
	}
	m, err := loadForOutputWith(fs, args, out, "trace", stderr, true)
	if err != nil {
		return err
	}
	if countTraceable(m) == 0 {
		return errors.Join(m.readErr, errors.New("no launch has device times: nothing to trace (see zestall report)"))
	}
	var n int
	if err := writeOutput(*out, func(w io.Writer) (err error) {
		n, err = writeTrace(w, m)
		return err
	}); err != nil {
		return errors.Join(m.readErr, err)
	}
	fmt.Fprintf(stderr, "zestall: wrote %s (%d launches)\n", *out, n)
	return m.readErr
}

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
				Args: map[string]any{"name": fmt.Sprintf("device %d: %s", d.Id, d.Name)}})
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
	if err != nil {
		return n, err
	}
	bw.WriteString("]}\n")
	return n, bw.Flush()
}
