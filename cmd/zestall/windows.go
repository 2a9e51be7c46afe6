package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// collectionWindow is one interval between a Window START and the next
// STOP for the same device (device 0: all devices) of the same input.
type collectionWindow struct {
	source      uint32
	device      uint32
	start, stop uint64 // host ns; stop 0 while open at the end of the file
	startCause  pb.WindowCause
	stopCause   pb.WindowCause
	startDetail string
	stopDetail  string
	fromRun     bool // no START: open from the start of the run
	launches    int
	samples     uint64
}

// causeName is a WindowCause without its prefix, for any value, known to
// this build or not.
func causeName(c pb.WindowCause) string {
	if c.Type().Descriptor().Values().ByNumber(c.Number()) == nil {
		return fmt.Sprintf("cause %d", int32(c))
	}
	return strings.ToLower(strings.TrimPrefix(c.String(), "WINDOW_CAUSE_"))
}

// collectionWindows pairs the Window records into intervals, in order of
// their start.
func (m *runModel) collectionWindows() []*collectionWindow {
	type key struct{ source, device uint32 }
	open := map[key]*collectionWindow{}
	var ws []*collectionWindow
	var runStart uint64
	if m.header != nil {
		runStart = m.header.StartHostNs
	}
	for _, e := range m.windows {
		k := key{e.source, e.DeviceId}
		switch e.Edge {
		case pb.WindowEdge_WINDOW_EDGE_START:
			if open[k] != nil {
				continue // already collecting: a repeated start changes nothing
			}
			w := &collectionWindow{source: e.source, device: e.DeviceId, start: e.HostNs, startCause: e.Cause, startDetail: e.Detail}
			open[k] = w
			ws = append(ws, w)
		case pb.WindowEdge_WINDOW_EDGE_STOP:
			w := open[k]
			if w == nil {
				// A stop without a start: collection ran from the start.
				w = &collectionWindow{source: e.source, device: e.DeviceId, start: runStart, fromRun: true}
				ws = append(ws, w)
			}
			w.stop, w.stopCause, w.stopDetail = e.HostNs, e.Cause, e.Detail
			delete(open, k)
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].start < ws[j].start })
	return ws
}

// contains reports whether host ns t falls in the window (a window still
// open at the end of the file extends to the end).
func (w *collectionWindow) contains(t uint64, inclusiveStop bool) bool {
	if t < w.start {
		return false
	}
	if w.stop == 0 {
		return true
	}
	return t < w.stop || inclusiveStop && t == w.stop
}

// applies reports whether the window covers the given input and device.
func (w *collectionWindow) applies(source, device uint32) bool {
	return w.source == source && (w.device == 0 || w.device == device)
}

// writeWindows prints the collection windows with the launches (by their
// append time) and stall samples (by the read that delivered them) in each.
func writeWindows(w io.Writer, m *runModel) {
	ws := m.collectionWindows()
	if len(ws) == 0 && m.header == nil {
		return // nothing was read: no window to speak of
	}
	fmt.Fprintln(w)
	if len(ws) == 0 {
		if m.damaged() {
			fmt.Fprintln(w, "collection windows: none read; records were lost to damage, so whether collection covered the whole run is unknown")
		} else {
			fmt.Fprintln(w, "collection windows: none recorded (collection covered the whole run)")
		}
		return
	}
	var t0 uint64
	if m.header != nil {
		t0 = m.header.StartHostNs
	}
	outLaunches, outSamples, aggregated := m.countInWindows(ws)
	ms := func(t uint64) string { return fmt.Sprintf("%.3f ms", (float64(t)-float64(t0))/1e6) }
	fmt.Fprintf(w, "collection windows: %d\n", len(ws))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	hasSource := len(m.sources) > 0
	if hasSource {
		fmt.Fprint(tw, "  INPUT\t")
	} else {
		fmt.Fprint(tw, "  ")
	}
	fmt.Fprintln(tw, "DEVICE\tSTART\tSTOP\tDURATION\tSTARTED BY\tSTOPPED BY\tLAUNCHES\tSTALL SAMPLES")
	for _, cw := range ws {
		dev := "all"
		if cw.device != 0 {
			dev = fmt.Sprint(cw.device)
		}
		start, startBy := ms(cw.start), causeName(cw.startCause)
		if cw.fromRun {
			start, startBy = "run start", "-"
		}
		if cw.startDetail != "" {
			startBy += " (" + cw.startDetail + ")"
		}
		stop, dur, stopBy := "-", "-", "open at end of file"
		if cw.stop != 0 {
			stop, dur, stopBy = ms(cw.stop), fmt.Sprintf("%.3f ms", float64(cw.stop-min(cw.start, cw.stop))/1e6), causeName(cw.stopCause)
			if cw.stopDetail != "" {
				stopBy += " (" + cw.stopDetail + ")"
			}
		}
		if hasSource {
			fmt.Fprintf(tw, "  %d\t", cw.source)
		} else {
			fmt.Fprint(tw, "  ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", dev, start, stop, dur, startBy, stopBy, cw.launches, cw.samples)
	}
	tw.Flush()
	if outLaunches > 0 || outSamples > 0 {
		fmt.Fprintf(w, "  outside every window: %d launches, %d stall samples\n", outLaunches, outSamples)
	}
	if aggregated > 0 {
		fmt.Fprintf(w, "  stall samples summed over several windows (no window): %d\n", aggregated)
	}
	if m.damaged() {
		fmt.Fprintln(w, "  records were lost to damage: windows, launches and samples in them are missing here")
	}
}

// countInWindows counts the launches (by append time) and stall samples
// (by the read that delivered them) in each window, and those outside
// every window or summed over several (aggregated, no window).
func (m *runModel) countInWindows(ws []*collectionWindow) (outLaunches int, outSamples, aggregated uint64) {
	find := func(source, device uint32, t uint64, inclusive bool) *collectionWindow {
		for _, cw := range ws {
			if cw.applies(source, device) && cw.contains(t, inclusive) {
				return cw
			}
		}
		return nil
	}
	for sd, times := range m.appendTimes {
		times.each(func(t uint64) {
			if cw := find(sd.source, sd.device, t, false); cw != nil {
				cw.launches++
			} else {
				outLaunches++
			}
		})
	}
	for at, n := range m.samplesAt {
		if at.end == 0 {
			aggregated += n
		} else if cw := find(at.source, at.device, at.end, true); cw != nil {
			cw.samples += n
		} else {
			outSamples += n
		}
	}
	return outLaunches, outSamples, aggregated
}
