package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"

	"github.com/zestall/zestall/proto/stream"
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
chrome://tracing. Several FILEs are merged first. OUT must not exist.`)
		fs.PrintDefaults()
	}
	m, err := loadForOutput(fs, args, out, "trace", stderr)
	if err != nil {
		return err
	}
	f, err := stream.CreateExclusive(*out)
	if err != nil {
		return err
	}
	n, err := writeTrace(f, m)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "zestall: wrote %s (%d launches)\n", *out, n)
	return m.readErr
}

func writeTrace(w io.Writer, m *runModel) (int, error) {
	names := map[uint64]string{}
	for _, k := range m.kernels {
		names[k.Id] = kernelName(k)
	}
	// Stall samples per launch, by reason.
	perLaunch := map[uint64][]uint64{}
	for _, r := range m.rows {
		if r.launch == 0 {
			continue
		}
		v := perLaunch[r.launch]
		if v == nil {
			v = make([]uint64, len(r.counts))
			perLaunch[r.launch] = v
		}
		for j, c := range r.counts {
			if j < len(v) {
				v[j] += c
			}
		}
	}
	var t0 uint64
	if m.header != nil {
		t0 = m.header.StartHostNs
	}
	var evs []traceEvent
	if m.header != nil {
		for _, d := range m.header.Devices {
			evs = append(evs, traceEvent{Name: "process_name", Ph: "M", Pid: d.Id,
				Args: map[string]any{"name": fmt.Sprintf("device %d: %s", d.Id, d.Name)}})
		}
	}
	tracks := map[[2]uint64]bool{}
	n := 0
	for _, l := range m.launchList {
		if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 || l.DeviceEndNs < l.DeviceStartNs || l.DeviceStartNs < t0 {
			continue
		}
		tid := l.QueueId
		label := fmt.Sprintf("queue %d", l.QueueId)
		if l.QueueId == 0 {
			tid = 1<<32 | l.CommandListId
			label = fmt.Sprintf("immediate list %d", l.CommandListId)
		}
		if key := [2]uint64{uint64(l.DeviceId), tid}; !tracks[key] {
			tracks[key] = true
			evs = append(evs, traceEvent{Name: "thread_name", Ph: "M", Pid: l.DeviceId, Tid: tid, Args: map[string]any{"name": label}})
		}
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
		evs = append(evs, traceEvent{
			Name: names[l.KernelId], Cat: "kernel", Ph: "X", Pid: l.DeviceId, Tid: tid,
			Ts: float64(l.DeviceStartNs-t0) / 1e3, Dur: float64(l.DeviceEndNs-l.DeviceStartNs) / 1e3, Args: args,
		})
		n++
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Ph == "M" && evs[j].Ph != "M" })
	enc := json.NewEncoder(w)
	return n, enc.Encode(map[string]any{"traceEvents": evs, "displayTimeUnit": "ns"})
}
