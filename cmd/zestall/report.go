package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zestall/zestall/abi"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	top := fs.Int("top", 5, "hottest instructions to show per kernel")
	noDisasm := fs.Bool("no-disasm", false, "do not disassemble (offsets and source lines only)")
	asJSON := fs.Bool("json", false, "print the report as one JSON object (structure: zestall-report/1, below)")
	launches := fs.Bool("launches", false, "print the per-launch table instead of the report (see below)")
	kernel := fs.String("kernel", "", "with --launches: every launch of the kernel with this name (demangled or mangled)")
	ranks := fs.Int("ranks", 16, "several runs: show at most this many in the per-run table (those with the most device time)")
	limit := fs.Int("limit", 20, "with --launches and no --kernel: how many of the longest launches to show")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall report [--top N] [--no-disasm] [--json] FILE...
       zestall report --launches [--kernel NAME | --limit N] [--json] FILE...

Prints the run summary (process, devices, configuration, counters,
anything lost), the collection windows with the launches and stall samples
in each, kernels by total device time, kernels by EU stall samples with
their stall reasons, each kernel's hottest instructions with IGA's
disassembly and the DWARF source line, and every kernel the application
created. Several FILEs are merged first (as zestall merge does).
Several runs (several FILEs, e.g. one per MPI rank, or a merged file)
add, up front, the load imbalance (device time per run: min, median,
max, max/mean, the slowest run) and a per-run table (rank, host,
launches, device time, top kernel, stall samples, the most stalled
kernel and its top reason; at most --ranks rows, the runs with the most
device time); with more runs than --ranks, devices and intact inputs are
not listed one by one. --json has every run ("ranks", "imbalance").
FILE "-" is standard input (as the only FILE). The same file may not be
given twice. A damaged file is read past each damaged stretch to the next
intact frame; what was lost is reported (exit status 1), as is a file with
no record.
Disassembly needs the zestall-iga helper and Debian's libiga64.so.1
(package libigc1); without them offsets are shown.

--json prints the same numbers as one JSON object, schema
"zestall-report/1": inputs (records read, damaged stretches, skipped bytes,
error), run, devices (sampling, launches, stall_samples), counters,
windows (start_ns/stop_ns from the run's start, launches, stall_samples),
outside_windows, stall_samples_no_window, metrics (the stall reasons, in
the driver's order), stall_samples (total = single_launch + shared +
kernel_only + unattributed), and kernels (name, ids, launches, mean_ns,
median_ns, p99_ns, max_ns over launches with device times,
launches_untimed, device_ns,
stall_samples, reasons, hot instructions: offset, samples, reasons,
source, instruction). Times are ns; fields are only added within a
schema version. Every field is described in cmd/zestall/reportjson.go.

--launches prints a table of single launches instead: each launch's
device, queue, start, device time and its ratio to the kernel's median,
shape (groups x group size), the EU stall samples attributed to it alone
with their top reasons, and the samples of reads it shared with
overlapping launches. With --kernel NAME it lists every launch of that
kernel; without, the --limit longest launches of the run. Longest first.
With --json it is one JSON object, schema "zestall-launches/1"
(cmd/zestall/launches.go).

Memory is bounded by kernels, instructions and devices, plus 2 to 4 bytes
per launch record (its append time, for the collection windows); with
--launches also by the launches kept (about 350 bytes each: every launch
of the --kernel, or --limit launches).`)
		fs.PrintDefaults()
	}
	files, err := parseFiles(fs, args, "report takes at least one FILE", nil)
	if err != nil {
		return err
	}
	if !*launches && *kernel != "" {
		return usageError{"--kernel selects the launches of --launches"}
	}
	if *limit < 1 || *ranks < 1 {
		return usageError{"--limit and --ranks must be at least 1"}
	}
	m := newRunModel()
	if *launches {
		m.launchSel = newLaunchSelection(*kernel, *limit)
	}
	if _, err := m.load(files, stderr); err != nil {
		return err
	}
	if *launches {
		if *kernel != "" && !slices.ContainsFunc(m.kernels, m.launchSel.matches) {
			return errors.Join(m.readErr, fmt.Errorf("no kernel named %q in the file", *kernel))
		}
		if *asJSON {
			if err := writeJSONLaunches(stdout, m); err != nil {
				return err
			}
		} else {
			writeLaunchTable(stdout, m)
		}
		return m.readErr
	}
	code := newCodeCache(m, stderr, !*noDisasm)
	defer code.close()
	if *asJSON {
		if err := writeJSONReport(stdout, m, code, *top); err != nil {
			return err
		}
		return m.readErr
	}
	writeReport(stdout, m, code, *top, *ranks)
	return m.readErr
}

func writeReport(w io.Writer, m *runModel, code *codeCache, top, maxRanks int) {
	rows := m.rankRows()
	// Many runs: their devices and inputs are summed up in the per-run
	// table, not listed one by one.
	many := len(rows) > maxRanks
	if h := m.header; h != nil {
		if len(m.sources) > 0 {
			host := h.HostName
			if host == "" {
				host = "several hosts"
			}
			fmt.Fprintf(w, "%s: %d runs merged, on %s, earliest started %s\n", h.ToolVersion, m.runCount(), host,
				time.Unix(0, h.StartUnixNs).UTC().Format(time.RFC3339))
		} else {
			fmt.Fprintf(w, "zestall %s: pid %d on %s, started %s\n", h.ToolVersion, h.Pid, h.HostName,
				time.Unix(0, h.StartUnixNs).UTC().Format(time.RFC3339))
			fmt.Fprintf(w, "command: %s\n", strings.Join(h.Argv, " "))
		}
		if rows != nil {
			writeRanks(w, m, rows, maxRanks)
			fmt.Fprintln(w)
		}
		use := m.deviceUse()
		if many {
			fmt.Fprintf(w, "devices: %d over %d runs (each run's in its file; report it alone to list them)\n", len(h.Devices), len(rows))
		}
		for _, d := range h.Devices {
			if many {
				break
			}
			kind := "device"
			if d.ParentId != 0 {
				kind = fmt.Sprintf("  sub-device %d of %d", d.GetSubDeviceIndex(), d.ParentId)
			}
			fmt.Fprintf(w, "%s %d: %s (%#04x %s), %d Xe-cores, timer %.1f MHz, kernel timestamps %d bits\n",
				kind, d.Id, d.Name, d.PciDeviceId, d.Platform, d.XeCoreCount, float64(d.TimerFrequencyHz)/1e6, d.KernelTimestampValidBits)
			writeSampling(w, d)
			writeDeviceUse(w, d, use, m.damaged())
		}
	} else {
		fmt.Fprintln(w, "no header: the frame that held it is missing or damaged")
	}
	fmt.Fprintf(w, "records: %d, modules: %d, kernels: %d\n", m.records, len(m.modules), len(m.kernels))
	writeSeparation(w, m)
	fmt.Fprintln(w, glossary)
	if c := m.counters; c != nil {
		fmt.Fprintf(w, "kernel launches seen: %d, with device times: %d\n", c.LaunchesSeen, c.LaunchesTimed)
		if c.StallRecordsRead > 0 || c.StallDropWarnings > 0 {
			fmt.Fprintf(w, "EU stall records read: %d; rows calculated from them: %d attributed to kernels, %d unattributed\n", c.StallRecordsRead, c.StallRowsAttributed, c.StallRowsUnattributed)
		}
		writeForeign(w, m.header, c)
		if c.StallRecordsDiscardedStopped > 0 || c.LaunchesWhileStopped > 0 {
			fmt.Fprintf(w, "while collection was stopped: %d EU stall records read and discarded, %d kernel launches passed (counted only with ZESTALL_LAUNCHES)\n", c.StallRecordsDiscardedStopped, c.LaunchesWhileStopped)
		}
		if c.StallDropWarnings > 0 || c.StallDropFlagRecords > 0 {
			fmt.Fprintf(w, "LOST: EU stall data dropped by the hardware: %d reads warned (ZE_RESULT_WARNING_DROPPED_DATA), %d calculations saw drop-flagged records; raise ZESTALL_SAMPLING_PERIOD_NS or lower ZESTALL_STALL_READ_INTERVAL\n", c.StallDropWarnings, c.StallDropFlagRecords)
		}
		for _, r := range c.LaunchesWithoutTimestamp {
			fmt.Fprintf(w, "  without device times: %d (%s)\n", r.Count, strings.TrimPrefix(r.Reason.String(), "NO_TIMESTAMP_REASON_"))
		}
		for _, l := range c.Lost {
			fmt.Fprintf(w, "LOST: %d %s\n", l.Count, l.What)
		}
		if c.LaunchesTimedByCopy+c.LaunchesTimedByHostQuery > 0 {
			fmt.Fprintf(w, "  immediate lists' device times: %d copied on the device, %d queried on the host\n",
				c.LaunchesTimedByCopy, c.LaunchesTimedByHostQuery)
		}
		if c.LaunchesWaited > 0 {
			fmt.Fprintf(w, "kernel launches that waited for zestall to record earlier ones: %d, %v in all (ZESTALL_RING_FULL=wait: the application was slowed, nothing was lost)\n",
				c.LaunchesWaited, time.Duration(c.LaunchWaitNs).Round(time.Microsecond))
		}
		if !c.Final {
			fmt.Fprintln(w, "the run ended abnormally: counters are from the last flush")
		}
	} else {
		fmt.Fprintln(w, "the run ended abnormally: no counters were written")
	}
	writeDamage(w, m)
	shownSources := 0
	for _, src := range m.sources {
		if many && src.ReadError == "" && src.RecordsDropped == 0 && src.Counters != nil && src.Counters.Final {
			continue // an intact input of many: in the per-run table
		}
		writeSource(w, src)
		shownSources++
	}
	if many && shownSources < len(m.sources) {
		fmt.Fprintf(w, "inputs: %d read completely, runs ended normally (not listed); %d listed above\n", len(m.sources)-shownSources, shownSources)
	}
	if m.unknown > 0 {
		fmt.Fprintf(w, "records of kinds this zestall does not know (skipped): %d\n", m.unknown)
	}
	writeWindows(w, m)
	if len(m.kernels) == 0 {
		return
	}
	writeKernelTime(w, m)
	writeSyclSites(w, m, top)
	writeStalls(w, m, code, top)
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

// glossary says once what the report's counting words mean.
const glossary = `glossary: record = one entry of this file; EU stall record = one 64-byte hardware report (one instruction, one Xe-core);
          row = one instruction's counts in one read, calculated by the driver from EU stall records;
          sample = one unit of those counts (every samples figure below adds them up)`

// deviceUsage is what the run did on one device.
type deviceUsage struct {
	launches int
	samples  uint64
}

// deviceUse counts launches and EU stall samples per device id.
func (m *runModel) deviceUse() map[uint32]*deviceUsage {
	use := map[uint32]*deviceUsage{}
	get := func(id uint32) *deviceUsage {
		u := use[id]
		if u == nil {
			u = &deviceUsage{}
			use[id] = u
		}
		return u
	}
	for d, n := range m.devLaunches {
		get(d).launches += n
	}
	for d, n := range m.devSamples {
		get(d).samples += n
	}
	return use
}

// writeDeviceUse says what the run did on a device, and why a device
// shows nothing.
func writeDeviceUse(w io.Writer, d *pb.Device, use map[uint32]*deviceUsage, damaged bool) {
	u := use[d.Id]
	if u == nil {
		u = &deviceUsage{}
	}
	sampling := d.GetStallSampling().GetEnabled()
	switch {
	case d.ParentId != 0 && u.launches == 0 && u.samples == 0:
		// Sub-devices are shown with their root's use.
	case u.launches == 0 && u.samples == 0 && damaged:
		fmt.Fprintln(w, "  no kernel launches read for this device (records were lost to damage)")
	case u.launches == 0 && u.samples == 0:
		fmt.Fprintln(w, "  no kernel launches recorded on this device: the application launched none here (or only while collection was stopped)")
	case !sampling:
		fmt.Fprintf(w, "  kernel launches: %d\n", u.launches)
	case u.samples == 0:
		fmt.Fprintf(w, "  kernel launches: %d, EU stall samples: 0 (kernels shorter than the sampling period can go unsampled)\n", u.launches)
	default:
		fmt.Fprintf(w, "  kernel launches: %d, EU stall samples: %d\n", u.launches, u.samples)
	}
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
		dur             *sketch
	}
	byName := map[string]*row{}
	var rows []*row
	for _, k := range m.kernels {
		n := kernelName(k)
		r := byName[n]
		if r == nil {
			r = &row{name: n, dur: newSketch()}
			byName[n] = r
			rows = append(rows, r)
		}
		r.launches += m.launches[k.Id]
		r.timed += m.timed[k.Id]
		r.ns += m.devNs[k.Id]
		r.dur.merge(m.durations[k.Id])
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
	// LAUNCHES and MEAN are over the same launches: those with device
	// times, the only ones DEVICE TIME can add up.
	untimed := 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "DEVICE TIME\tSHARE\tLAUNCHES\tMEAN\tMEDIAN\tP99\tMAX\t KERNEL\t")
	for _, r := range rows {
		mean := 0.0
		if r.timed > 0 {
			mean = float64(r.ns) / float64(r.timed) / 1e3
		}
		untimed += r.launches - r.timed
		fmt.Fprintf(tw, "%.3f ms\t%.1f%%\t%d\t%.2f us\t%.2f us\t%.2f us\t%.2f us\t %s\t\n", float64(r.ns)/1e6, 100*float64(r.ns)/float64(total), r.timed, mean,
			r.dur.quantile(0.5)/1e3, r.dur.quantile(0.99)/1e3, float64(r.dur.max)/1e3, r.name)
	}
	tw.Flush()
	if untimed > 0 {
		fmt.Fprintf(w, "  LAUNCHES, MEAN, MEDIAN, P99 and MAX are over the launches with device times; %d launch records without device times are left out of this table\n", untimed)
	} else {
		fmt.Fprintln(w, "  LAUNCHES, MEAN, MEDIAN, P99 and MAX are over the launches with device times (all of them here); MEDIAN and P99 within 1%")
	}
}

// stallOffset is the samples of one instruction offset, per reason.
type stallOffset struct {
	off uint64
	c   []uint64
}

// stallKernel is the samples of every kernel record of one name.
type stallKernel struct {
	name  string
	first *pb.Kernel // a kernel record of the name, for its code
	sum   []uint64   // per reason
	total uint64
	offs  []stallOffset // hottest first
}

// stallSummary is the EU stall samples of the run, per kernel name and
// by attribution; the text and JSON reports both show it.
type stallSummary struct {
	kernels                                []stallKernel // most samples first
	all                                    uint64        // attributed to kernels
	byLaunch, shared, kernelOnly, unattrib uint64
}

func sumCounts(c []uint64) (t uint64) {
	for _, x := range c {
		t += x
	}
	return t
}

func summarizeStalls(m *runModel) stallSummary {
	names := map[uint64]string{}
	first := map[string]*pb.Kernel{}
	for _, k := range m.kernels {
		names[k.Id] = kernelName(k)
		if first[kernelName(k)] == nil {
			first[kernelName(k)] = k
		}
	}
	byName := map[string]map[uint64][]uint64{}
	var s stallSummary
	for _, r := range m.stallOrder {
		n := names[r.kernel]
		agg := byName[n]
		if agg == nil {
			agg = map[uint64][]uint64{}
			byName[n] = agg
		}
		a := agg[r.off]
		if a == nil {
			a = make([]uint64, len(r.counts))
			agg[r.off] = a
		}
		if len(a) < len(r.counts) {
			a = append(a, make([]uint64, len(r.counts)-len(a))...)
			agg[r.off] = a
		}
		for j, c := range r.counts {
			a[j] += c
			switch r.kind {
			case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH:
				s.byLaunch += c
			case pb.StallAttribution_STALL_ATTRIBUTION_SHARED:
				s.shared += c
			default:
				s.kernelOnly += c
			}
		}
	}
	for name, rows := range byName {
		k := stallKernel{name: name, first: first[name]}
		for off, c := range rows {
			if k.sum == nil {
				k.sum = make([]uint64, len(c))
			}
			for j := range c {
				k.sum[j] += c[j]
			}
			k.offs = append(k.offs, stallOffset{off, c})
		}
		k.total = sumCounts(k.sum)
		s.all += k.total
		sort.Slice(k.offs, func(i, j int) bool {
			ti, tj := sumCounts(k.offs[i].c), sumCounts(k.offs[j].c)
			if ti != tj {
				return ti > tj
			}
			return k.offs[i].off < k.offs[j].off
		})
		s.kernels = append(s.kernels, k)
	}
	sort.Slice(s.kernels, func(i, j int) bool {
		if s.kernels[i].total != s.kernels[j].total {
			return s.kernels[i].total > s.kernels[j].total
		}
		return s.kernels[i].name < s.kernels[j].name
	})
	s.unattrib = m.unattr
	return s
}

// writeStalls prints, per kernel (by name), the stall reasons and the
// hottest instruction offsets.
func writeStalls(w io.Writer, m *runModel, code *codeCache, top int) {
	if len(m.stallOrder) == 0 {
		return
	}
	sum := summarizeStalls(m)
	ks, all, total := sum.kernels, sum.all, sumCounts
	fmt.Fprintf(w, "\nEU stall samples: %d = %d attributed to kernels (%d to a single launch + %d shared by overlapping launches + %d to the kernel only, no launch named) + %d unattributed (in no known kernel)\n",
		all+m.unattr, all, sum.byLaunch, sum.shared, sum.kernelOnly, m.unattr)
	col := func(j int) string {
		if j < len(m.metrics) {
			return m.metrics[j]
		}
		return fmt.Sprintf("col%d", j)
	}
	for _, k := range ks {
		fmt.Fprintf(w, "\n%s: %d samples (%.1f%%)\n", k.name, k.total, 100*float64(k.total)/float64(max(all, 1)))
		// Reasons, largest first.
		idx := make([]int, len(k.sum))
		for j := range idx {
			idx[j] = j
		}
		sort.SliceStable(idx, func(a, b int) bool { return k.sum[idx[a]] > k.sum[idx[b]] })
		var parts []string
		for _, j := range idx {
			if k.sum[j] == 0 {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %.1f%%", col(j), 100*float64(k.sum[j])/float64(max(k.total, 1))))
		}
		fmt.Fprintf(w, "  reasons: %s\n", strings.Join(parts, ", "))
		var kc *kernelCode
		if k.first != nil {
			kc = code.get(k.first)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  OFFSET\tSAMPLES\tTOP REASONS\tSOURCE\tINSTRUCTION")
		for i, o := range k.offs {
			if i == top {
				break
			}
			t := total(o.c)
			oi := make([]int, len(o.c))
			for j := range oi {
				oi[j] = j
			}
			sort.SliceStable(oi, func(a, b int) bool { return o.c[oi[a]] > o.c[oi[b]] })
			var rs []string
			for _, j := range oi[:min(3, len(oi))] {
				if o.c[j] > 0 {
					rs = append(rs, fmt.Sprintf("%s %d", col(j), o.c[j]))
				}
			}
			src, text := "-", "-"
			if kc != nil {
				if row, ok := kc.line(o.off); ok {
					src = fmt.Sprintf("%s:%d", filepath.Base(row.File), row.Line)
				}
				if in, ok := kc.inst(o.off); ok && in.text != "" {
					text = in.text
				} else if !ok && len(kc.insts) > 0 {
					text = "(not an instruction boundary)"
				}
			}
			fmt.Fprintf(tw, "  %#06x\t%d\t%s\t%s\t%s\n", o.off, t, strings.Join(rs, ", "), src, text)
		}
		tw.Flush()
	}
}

// writeDamage says, per input, what reading it lost.
func writeDamage(w io.Writer, m *runModel) {
	for _, in := range m.inputs {
		if len(in.skipped) > 0 {
			fmt.Fprintf(w, "DAMAGED: %s: %d damaged stretches skipped (%d bytes, first at byte offset %d); their records are lost and counted nowhere below\n",
				in.path, len(in.skipped), in.skippedBytes(), in.skipped[0].Offset)
		}
		if in.final != nil {
			var fe *stream.FormatError
			if errors.As(in.final, &fe) && fe.Frame >= 0 {
				why := fe.Kind.Error() + ": " + fe.Msg
				if fe.Cause != nil {
					why += ": " + fe.Cause.Error()
				}
				fmt.Fprintf(w, "DAMAGED: %s: nothing read after byte offset %d (%s)\n", in.path, fe.Offset, why)
			} else {
				fmt.Fprintf(w, "DAMAGED: %s: %v\n", in.path, in.final)
			}
		}
	}
}

// writeSource prints where a merged file's input came from.
func writeSource(w io.Writer, src *pb.MergeSource) {
	h := src.Header
	fmt.Fprintf(w, "input %d: %s", src.Index, src.Path)
	if h != nil {
		fmt.Fprintf(w, ": pid %d on %s", h.Pid, h.HostName)
		if h.MpiRank != nil {
			fmt.Fprintf(w, ", MPI rank %d", *h.MpiRank)
		}
		fmt.Fprintf(w, ", started %s", time.Unix(0, h.StartUnixNs).UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(w, "; %d records", src.RecordsRead)
	if src.Counters != nil && !src.Counters.Final {
		fmt.Fprint(w, "; the run ended abnormally")
	}
	if src.Counters == nil {
		fmt.Fprint(w, "; no counters")
	}
	if src.RecordsDropped > 0 {
		fmt.Fprintf(w, "; %d records of unknown kinds left out", src.RecordsDropped)
	}
	if src.ReadError != "" {
		fmt.Fprintf(w, "; DAMAGED: %s", src.ReadError)
	}
	fmt.Fprintln(w)
}

// offReason says why sampling was off, in words.
func offReason(r pb.StallSamplingOff) string {
	switch r {
	case pb.StallSamplingOff_STALL_SAMPLING_OFF_DISABLED:
		return "disabled by zestall's configuration (see the ZESTALL_ settings)"
	case pb.StallSamplingOff_STALL_SAMPLING_OFF_METRICS_NOT_ENABLED:
		return "the driver exposes no metrics (run with ZET_ENABLE_METRICS=1)"
	case pb.StallSamplingOff_STALL_SAMPLING_OFF_NO_GROUP:
		return "the device has no EuStallSampling metric group (no EU stall sampling on this device, or the kernel driver refused access: perf_stream_paranoid / observation_paranoid)"
	case pb.StallSamplingOff_STALL_SAMPLING_OFF_OPEN_FAILED:
		return "the metric streamer could not be opened (another sampling session may be active)"
	case pb.StallSamplingOff_STALL_SAMPLING_OFF_UNSPECIFIED:
		return "reason not recorded"
	}
	return fmt.Sprintf("reason %d (written by a newer zestall)", int32(r))
}

// writeSampling says how EU stall sampling ran on a device, or why not.
func writeSampling(w io.Writer, d *pb.Device) {
	ss := d.GetStallSampling()
	switch {
	case ss == nil:
	case ss.Enabled:
		cols := 0
		for _, mt := range ss.Metrics {
			if mt.MetricType != abi.MetricTypeIP {
				cols++
			}
		}
		fmt.Fprintf(w, "  EU stall sampling: period %d ns (asked %d ns), %d stall reasons", ss.SamplingPeriodNs, ss.RequestedPeriodNs, cols)
		if ss.SubDeviceSets > 1 {
			fmt.Fprintf(w, ", %d sub-device sets", ss.SubDeviceSets)
		}
		if ss.Detail != "" {
			fmt.Fprintf(w, "; %s", ss.Detail)
		}
		fmt.Fprintln(w)
	case ss.OffReason == pb.StallSamplingOff_STALL_SAMPLING_OFF_VIA_ROOT:
		// The root device's line says it.
	default:
		fmt.Fprintf(w, "  EU stall sampling: off: %s", offReason(ss.OffReason))
		// The detail is the Level-Zero result of the call that failed;
		// a success code is no reason and is not shown.
		if ss.Detail != "" && !strings.HasPrefix(ss.Detail, "ZE_RESULT_SUCCESS") {
			fmt.Fprintf(w, " (%s)", ss.Detail)
		}
		fmt.Fprintln(w)
	}
}

// writeForeign says where samples that are not this process's may come
// from: unattributed rows by cause, and attributed rows taken while other
// processes ran kernels on the same device (their samples can land on this
// process's addresses: the IP is an offset from each process's own base);
// and rows that stall attribution's cap kept at kernel level.
func writeForeign(w io.Writer, h *pb.Header, c *pb.Counters) {
	known := h != nil && h.OtherProcessesKnown
	if c.StallRowsUnattributed > 0 {
		if known {
			fmt.Fprintf(w, "unattributed rows: %d while other processes ran kernels on the device (most likely theirs), %d with no other process there (the driver's own kernels: copies and fills on compute engines run as built-in kernels)\n",
				c.StallRowsUnattributedOtherProcess, c.StallRowsUnattributed-c.StallRowsUnattributedOtherProcess)
		} else {
			fmt.Fprintln(w, "unattributed rows: cause unknown (zestall could not ask the driver which processes use the device; set ZES_ENABLE_SYSMAN=1 for Sysman zesDeviceProcessesGetState)")
		}
	}
	if c.StallLaunchesNotHeld > 0 {
		fmt.Fprintf(w, "stall attribution over its cap: %d timed launches not held (more could still receive samples than an attributor holds); %d of %d attributed rows kept at kernel level for them (their samples are all counted, per kernel and instruction)\n",
			c.StallLaunchesNotHeld, c.StallRowsDegraded, c.StallRowsAttributed)
	}
	if c.StallRowsPossiblyForeign > 0 {
		fmt.Fprintf(w, "POSSIBLY FOREIGN: %d of %d attributed rows were taken while other processes ran kernels on the same device; samples of theirs at this process's addresses cannot be told apart. Profile with the tile to yourself, or read those rows as an upper bound\n",
			c.StallRowsPossiblyForeign, c.StallRowsAttributed)
	}
}

// writeSeparation says how launches of one kernel were told apart and, with
// module copies, how the ring was sized, and per module whether it was
// copied (the copies its launches used, the device memory they took, the
// sample counts left SHARED) or why not.
func writeSeparation(w io.Writer, m *runModel) {
	h := m.header
	if h == nil || h.LaunchSeparation != pb.LaunchSeparation_LAUNCH_SEPARATION_COPIES {
		fmt.Fprintln(w, "launch separation: read windows only")
		return
	}
	if h.CodeCopiesMax > 0 {
		fmt.Fprintf(w, "launch separation: module copies (automatic ring: %d copies per module at its create, more made on demand up to %d; a launch takes the lowest code whose last launch's samples can no longer arrive)\n",
			h.CodeCopiesPerModule, h.CodeCopiesMax)
	} else {
		fmt.Fprintf(w, "launch separation: module copies (fixed ring: %d per module; a launch takes the lowest code whose last launch's samples can no longer arrive)\n", h.CodeCopiesPerModule)
	}
	if c := m.counters; c != nil {
		fmt.Fprintf(w, "  launches on copies: %d; launches that found every code busy (reused early, rows may be SHARED): %d; copies made: %d (%d bytes of ISA)\n",
			c.LaunchesOnCopies, c.CodeCopyEarlyReuses, c.CodeCopiesMade, c.CodeCopyIsaBytes)
	}
	// Per module: the codes its kernels' launches used, and its sample
	// counts by kind.
	used := map[uint64]codeSet{}
	launches := map[uint64]int{}
	for kid, cs := range m.codesUsed {
		if k := m.kernelByID[kid]; k != nil {
			used[k.ModuleId] = used[k.ModuleId].union(cs)
			launches[k.ModuleId] += m.launches[kid]
		}
	}
	shared, total := map[uint64]uint64{}, map[uint64]uint64{}
	for _, a := range m.stallOrder {
		k := m.kernelByID[a.kernel]
		if k == nil {
			continue
		}
		for _, v := range a.counts {
			total[k.ModuleId] += v
			if a.kind == pb.StallAttribution_STALL_ATTRIBUTION_SHARED {
				shared[k.ModuleId] += v
			}
		}
	}
	ids := slices.Sorted(maps.Keys(m.modules))
	for _, id := range ids {
		mod := m.modules[id]
		switch {
		case mod.CodeCopies > 0:
			u := used[id]
			fmt.Fprintf(w, "  module %d: %d copies at create (%d bytes of ISA, made in %.3f ms); its %d launches ran on %d codes (the original and %d copies, %d bytes of ISA); SHARED sample counts: %d of %d\n",
				id, mod.CodeCopies, mod.CopyIsaBytes, float64(mod.CopyCreateNs)/1e6, launches[id], u.len(), u.copies(),
				uint64(u.copies())*mod.CopyIsaBytesEach, shared[id], total[id])
		case mod.CopyIneligibleReason != "":
			fmt.Fprintf(w, "  module %d: not copied: %s (read windows only)\n", id, mod.CopyIneligibleReason)
		}
	}
	fmt.Fprintln(w, "  (a regular command list keeps the codes chosen at its appends for every execution)")
}
