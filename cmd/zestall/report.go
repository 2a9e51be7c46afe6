package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// run is the in-memory model of one file that the views read.
type runModel struct {
	header   *pb.Header
	modules  map[uint64]*pb.Module
	kernels  []*pb.Kernel
	ended    map[uint64]uint64 // kernel id -> valid until
	launches map[uint64]int    // kernel id -> launch records
	devNs    map[uint64]uint64 // kernel id -> summed device time, ns
	timed    map[uint64]int    // kernel id -> launches with device times
	counters *pb.Counters
	records  int
	readErr  error
}

func loadRun(path string) (*runModel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &runModel{modules: map[uint64]*pb.Module{}, ended: map[uint64]uint64{}, launches: map[uint64]int{},
		devNs: map[uint64]uint64{}, timed: map[uint64]int{}}
	r := stream.NewReader(f)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			// Keep everything complete; the caller reports the error.
			m.readErr = fmt.Errorf("%s: %w", path, err)
			return m, nil
		}
		m.records++
		switch k := rec.Kind.(type) {
		case *pb.Record_Header:
			m.header = k.Header
		case *pb.Record_Module:
			m.modules[k.Module.Id] = k.Module
		case *pb.Record_Kernel:
			m.kernels = append(m.kernels, k.Kernel)
		case *pb.Record_KernelDestroyed:
			m.ended[k.KernelDestroyed.Id] = k.KernelDestroyed.ValidUntilHostNs
		case *pb.Record_Launch:
			l := k.Launch
			m.launches[l.KernelId]++
			if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0 && l.DeviceEndNs >= l.DeviceStartNs {
				m.timed[l.KernelId]++
				m.devNs[l.KernelId] += l.DeviceEndNs - l.DeviceStartNs
			}
		case *pb.Record_Counters:
			m.counters = k.Counters
		}
	}
}

func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall report FILE

Prints the run summary (process, configuration, counters, anything lost)
and every kernel the application created: name, GPU base address, ISA size
and lifetime. A truncated file is reported up to its last complete record.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return errHelp
		}
		return usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError{"report takes exactly one FILE"}
	}
	m, err := loadRun(fs.Arg(0))
	if err != nil {
		return err
	}
	writeReport(stdout, m)
	return m.readErr
}

func writeReport(w io.Writer, m *runModel) {
	if h := m.header; h != nil {
		fmt.Fprintf(w, "zestall %s: pid %d on %s, started %s\n", h.ToolVersion, h.Pid, h.HostName,
			time.Unix(0, h.StartUnixNs).UTC().Format(time.RFC3339))
		fmt.Fprintf(w, "command: %s\n", strings.Join(h.Argv, " "))
		for _, d := range h.Devices {
			kind := "device"
			if d.ParentId != 0 {
				kind = fmt.Sprintf("  sub-device %d of %d", d.GetSubDeviceIndex(), d.ParentId)
			}
			fmt.Fprintf(w, "%s %d: %s (%#04x %s), %d Xe-cores, timer %.1f MHz, kernel timestamps %d bits\n",
				kind, d.Id, d.Name, d.PciDeviceId, d.Platform, d.XeCoreCount, float64(d.TimerFrequencyHz)/1e6, d.KernelTimestampValidBits)
		}
	} else {
		fmt.Fprintln(w, "no header: the file holds no complete frame")
	}
	fmt.Fprintf(w, "records: %d, modules: %d, kernels: %d\n", m.records, len(m.modules), len(m.kernels))
	if c := m.counters; c != nil {
		fmt.Fprintf(w, "kernel launches seen: %d, with device times: %d\n", c.LaunchesSeen, c.LaunchesTimed)
		for _, r := range c.LaunchesWithoutTimestamp {
			fmt.Fprintf(w, "  without device times: %d (%s)\n", r.Count, strings.TrimPrefix(r.Reason.String(), "NO_TIMESTAMP_REASON_"))
		}
		for _, l := range c.Lost {
			fmt.Fprintf(w, "LOST: %d %s\n", l.Count, l.What)
		}
		if !c.Final {
			fmt.Fprintln(w, "the run ended abnormally: counters are from the last flush")
		}
	} else {
		fmt.Fprintln(w, "the run ended abnormally: no counters were written")
	}
	if len(m.kernels) == 0 {
		return
	}
	writeKernelTime(w, m)
	ks := append([]*pb.Kernel(nil), m.kernels...)
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].Id < ks[j].Id })
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKERNEL\tMODULE\tBASE ADDRESS\tISA BYTES\tDEBUG INFO\tLIFETIME")
	for _, k := range ks {
		name := k.Name
		if k.DemangledName != "" {
			name = k.DemangledName
		}
		dbg := "no"
		if mod := m.modules[k.ModuleId]; mod != nil {
			src := mod
			if mod.ContentModuleId != 0 {
				src = m.modules[mod.ContentModuleId]
			}
			if src != nil && len(src.DebugInfo) > 0 {
				dbg = "yes"
			}
		}
		life := "until exit"
		if until, ok := m.ended[k.Id]; ok {
			life = fmt.Sprintf("%.3f ms", float64(until-k.ValidFromHostNs)/1e6)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%#016x\t%d\t%s\t%s\n", k.Id, name, k.ModuleId, k.BaseAddress, k.IsaSize, dbg, life)
	}
	tw.Flush()
}

// kernelName is the demangled name when there is one.
func kernelName(k *pb.Kernel) string {
	if k.DemangledName != "" {
		return k.DemangledName
	}
	return k.Name
}

// writeKernelTime lists kernels (by name: every zeKernelCreate of the same
// code counts together) by total device time.
func writeKernelTime(w io.Writer, m *runModel) {
	type row struct {
		name            string
		launches, timed int
		ns              uint64
	}
	byName := map[string]*row{}
	var rows []*row
	for _, k := range m.kernels {
		n := kernelName(k)
		r := byName[n]
		if r == nil {
			r = &row{name: n}
			byName[n] = r
			rows = append(rows, r)
		}
		r.launches += m.launches[k.Id]
		r.timed += m.timed[k.Id]
		r.ns += m.devNs[k.Id]
	}
	var total uint64
	for _, r := range rows {
		total += r.ns
	}
	if total == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ns > rows[j].ns })
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "DEVICE TIME\tSHARE\tLAUNCHES\tMEAN\t KERNEL\t")
	for _, r := range rows {
		mean := 0.0
		if r.timed > 0 {
			mean = float64(r.ns) / float64(r.timed) / 1e3
		}
		fmt.Fprintf(tw, "%.3f ms\t%.1f%%\t%d\t%.2f us\t %s\t\n", float64(r.ns)/1e6, 100*float64(r.ns)/float64(total), r.launches, mean, r.name)
	}
	tw.Flush()
}
