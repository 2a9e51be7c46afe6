package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// The cross-rank view: when the model holds several runs (several FILEs,
// or a merged file), report shows one row per run (an MPI rank, or a
// process) and the load imbalance between them. Everything is derived
// after reading from what the model keeps anyway: each kernel object
// belongs to one input (ids are unique after merging), so per-input sums
// are sums over its kernels. Memory: one entry per kernel object, plus
// the inputs' MergeSource records (a header and counters each).

// isContainer reports whether a source is a merged file merged again: its
// runs are its own sources, it holds no records of its own.
func isContainer(s *pb.MergeSource) bool {
	return s.Header != nil && strings.HasPrefix(s.Header.ToolVersion, "zestall merge ")
}

// runCount is how many runs the model holds (merged sources that are not
// containers; 0 when not merged).
func (m *runModel) runCount() int {
	n := 0
	for _, s := range m.sources {
		if !isContainer(s) {
			n++
		}
	}
	return n
}

// rankRow is one input's totals.
type rankRow struct {
	src          *pb.MergeSource
	launches     int    // launch records
	timed        int    // with device times
	deviceNs     uint64 // summed device times of its launches
	samples      uint64 // EU stall samples attributed to its kernels
	unattributed uint64
	reasons      []uint64          // per stall reason column, attributed
	kernelNs     map[string]uint64 // device time per kernel name
	kernelSample map[string][]uint64
}

// label names the run: its MPI rank when it has one.
func (r *rankRow) label() string {
	if h := r.src.Header; h != nil && h.MpiRank != nil {
		return fmt.Sprintf("rank %d", *h.MpiRank)
	}
	return fmt.Sprintf("input %d", r.src.Index)
}

func (r *rankRow) host() string {
	if h := r.src.Header; h != nil && h.HostName != "" {
		return h.HostName
	}
	return "-"
}

// rankOrder sorts by MPI rank, then input.
func rankLess(a, b *rankRow) bool {
	ra, rb := int64(math.MaxInt64), int64(math.MaxInt64)
	if h := a.src.Header; h != nil && h.MpiRank != nil {
		ra = int64(*h.MpiRank)
	}
	if h := b.src.Header; h != nil && h.MpiRank != nil {
		rb = int64(*h.MpiRank)
	}
	if ra != rb {
		return ra < rb
	}
	return a.src.Index < b.src.Index
}

// rankRows returns one row per input that holds a run (not the container
// source of a merged file merged again), in rank order; nil when the model
// holds one run.
func (m *runModel) rankRows() []*rankRow {
	if len(m.sources) < 2 {
		return nil
	}
	bySrc := map[uint32]*rankRow{}
	var rows []*rankRow
	for _, s := range m.sources {
		if isContainer(s) {
			continue
		}
		r := &rankRow{src: s, kernelNs: map[string]uint64{}, kernelSample: map[string][]uint64{}}
		bySrc[s.Index] = r
		rows = append(rows, r)
	}
	if len(rows) < 2 {
		return nil
	}
	for _, k := range m.kernels {
		r := bySrc[m.kernelSource[k.Id]]
		if r == nil {
			continue
		}
		r.launches += m.launches[k.Id]
		r.timed += m.timed[k.Id]
		r.deviceNs += m.devNs[k.Id]
		r.kernelNs[kernelName(k)] += m.devNs[k.Id]
	}
	for _, a := range m.stallOrder {
		r := bySrc[m.kernelSource[a.kernel]]
		k := m.kernelByID[a.kernel]
		if r == nil || k == nil {
			continue
		}
		ks := r.kernelSample[kernelName(k)]
		if len(ks) < len(a.counts) {
			ks = append(ks, make([]uint64, len(a.counts)-len(ks))...)
		}
		if len(r.reasons) < len(a.counts) {
			r.reasons = append(r.reasons, make([]uint64, len(a.counts)-len(r.reasons))...)
		}
		for j, c := range a.counts {
			ks[j] += c
			r.reasons[j] += c
			r.samples += c
		}
		r.kernelSample[kernelName(k)] = ks
	}
	for at, n := range m.samplesUnattr {
		if r := bySrc[at]; r != nil {
			r.unattributed += n
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rankLess(rows[i], rows[j]) })
	return rows
}

// imbalance is the spread of device time over the runs.
type imbalance struct {
	MinNs       uint64  `json:"min_ns"`
	MedianNs    uint64  `json:"median_ns"`
	MaxNs       uint64  `json:"max_ns"`
	MeanNs      float64 `json:"mean_ns"`
	MaxOverMean float64 `json:"max_over_mean"` // 1 when balanced; 0 without device time
	// Slowest and Fastest name the runs with the most and least device
	// time ("rank 7", or "input 3" without an MPI rank).
	Slowest string `json:"slowest"`
	Fastest string `json:"fastest"`
}

func rankImbalance(rows []*rankRow) imbalance {
	ns := make([]uint64, len(rows))
	var sum float64
	slow, fast := rows[0], rows[0]
	for i, r := range rows {
		ns[i] = r.deviceNs
		sum += float64(r.deviceNs)
		if r.deviceNs > slow.deviceNs {
			slow = r
		}
		if r.deviceNs < fast.deviceNs {
			fast = r
		}
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i] < ns[j] })
	im := imbalance{MinNs: ns[0], MaxNs: ns[len(ns)-1], MeanNs: sum / float64(len(ns)), Slowest: slow.label(), Fastest: fast.label()}
	if n := len(ns); n%2 == 1 {
		im.MedianNs = ns[n/2]
	} else {
		im.MedianNs = (ns[n/2-1] + ns[n/2]) / 2
	}
	if im.MeanNs > 0 {
		im.MaxOverMean = math.Round(float64(im.MaxNs)/im.MeanNs*1000) / 1000
	}
	return im
}

// topOf returns the key with the largest value (ties: the smaller key).
func topOf(m map[string]uint64) (string, uint64) {
	best, bv := "", uint64(0)
	for k, v := range m {
		if v > bv || v == bv && v > 0 && k < best {
			best, bv = k, v
		}
	}
	return best, bv
}

// stallTop names a run's kernel with the most stall samples and that
// kernel's largest reason.
func (r *rankRow) stallTop(m *runModel) (kernel string, samples uint64, reason string) {
	sums := map[string]uint64{}
	for n, c := range r.kernelSample {
		sums[n] = sumCounts(c)
	}
	kernel, samples = topOf(sums)
	if kernel == "" {
		return "-", 0, "-"
	}
	c := r.kernelSample[kernel]
	j, best := 0, uint64(0)
	for i, v := range c {
		if v > best {
			j, best = i, v
		}
	}
	return kernel, samples, fmt.Sprintf("%s %.0f%%", m.metricName(j), 100*float64(best)/float64(max(samples, 1)))
}

// writeRanks prints the imbalance line and the per-run table (at most
// limit rows: the runs with the most device time when there are more).
func writeRanks(w io.Writer, m *runModel, rows []*rankRow, limit int) {
	im := rankImbalance(rows)
	fmt.Fprintf(w, "\nruns: %d; device time per run: min %.3f ms (%s), median %.3f ms, max %.3f ms (%s); max/mean %.2f\n",
		len(rows), float64(im.MinNs)/1e6, im.Fastest, float64(im.MedianNs)/1e6, float64(im.MaxNs)/1e6, im.Slowest, im.MaxOverMean)
	shown := rows
	if len(rows) > limit {
		shown = append([]*rankRow(nil), rows...)
		sort.SliceStable(shown, func(i, j int) bool { return shown[i].deviceNs > shown[j].deviceNs })
		shown = shown[:limit]
		sort.SliceStable(shown, func(i, j int) bool { return rankLess(shown[i], shown[j]) })
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  RUN\tHOST\tLAUNCHES\tDEVICE TIME\tVS MEAN\tTOP KERNEL (TIME)\tSTALL SAMPLES\tMOST STALLED KERNEL: TOP REASON")
	for _, r := range shown {
		vs := "-"
		if im.MeanNs > 0 {
			vs = fmt.Sprintf("%.2f", float64(r.deviceNs)/im.MeanNs)
		}
		tk, _ := topOf(r.kernelNs)
		if tk == "" {
			tk = "-"
		}
		sk, _, reason := r.stallTop(m)
		stalled := "-"
		if sk != "-" {
			stalled = sk + ": " + reason
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%.3f ms\t%s\t%s\t%d\t%s\n", r.label(), r.host(), r.launches, float64(r.deviceNs)/1e6, vs, tk, r.samples+r.unattributed, stalled)
	}
	tw.Flush()
	if len(shown) < len(rows) {
		fmt.Fprintf(w, "  the %d runs with the most device time are shown (--ranks); %d more in report --json\n", len(shown), len(rows)-len(shown))
	}
	fmt.Fprintln(w, "  DEVICE TIME: summed device times of a run's launches (overlapping launches count fully); STALL SAMPLES: attributed and unattributed")
}

// jsonRank is one run of the cross-rank view (report --json "ranks").
type jsonRank struct {
	Input     uint32  `json:"input"`      // MergeSource index
	Path      string  `json:"path"`       // the input file
	Rank      *uint32 `json:"mpi_rank"`   // null when the run had none
	LocalRank *uint32 `json:"local_rank"` // null when unknown
	Host      string  `json:"host"`
	Launches  int     `json:"launches"`  // launch records
	Timed     int     `json:"timed"`     // with device times
	DeviceNs  uint64  `json:"device_ns"` // summed over the timed ones
	// StallSamples attributed to the run's kernels, by reason; and the
	// unattributed ones of its devices.
	StallSamples uint64            `json:"stall_samples"`
	Reasons      map[string]uint64 `json:"reasons"`
	Unattributed uint64            `json:"unattributed"`
	TopKernel    string            `json:"top_kernel"`   // by device time
	MostStalled  string            `json:"most_stalled"` // kernel with the most samples
	MostStalledR string            `json:"most_stalled_reason"`
}

func jsonRanks(m *runModel, rows []*rankRow) ([]jsonRank, *imbalance) {
	if rows == nil {
		return []jsonRank{}, nil
	}
	out := []jsonRank{}
	for _, r := range rows {
		jr := jsonRank{Input: r.src.Index, Path: r.src.Path, Host: r.host(), Launches: r.launches, Timed: r.timed, DeviceNs: r.deviceNs,
			StallSamples: r.samples, Reasons: reasonMap(m, r.reasons), Unattributed: r.unattributed}
		if h := r.src.Header; h != nil {
			jr.Rank, jr.LocalRank = h.MpiRank, h.LocalRank
		}
		jr.TopKernel, _ = topOf(r.kernelNs)
		sk, _, reason := r.stallTop(m)
		if sk != "-" {
			jr.MostStalled, jr.MostStalledR = sk, reason
		}
		out = append(out, jr)
	}
	im := rankImbalance(rows)
	return out, &im
}
