package main

import (
	"bytes"
	"errors"
	"io"

	"github.com/zestall/zestall/abi"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// runModel is the in-memory model of one file (or of several files merged)
// that every view reads.
type runModel struct {
	header     *pb.Header
	modules    map[uint64]*pb.Module
	kernels    []*pb.Kernel
	kernelByID map[uint64]*pb.Kernel
	ended      map[uint64]uint64  // kernel id -> valid until
	launches   map[uint64]int     // kernel id -> launch records
	codesUsed  map[uint64]codeSet // kernel id -> codes its launches ran (Launch.code_copy)
	devNs      map[uint64]uint64  // kernel id -> summed device time, ns
	timed      map[uint64]int     // kernel id -> launches with device times
	counters   *pb.Counters
	records    int
	metrics    []string               // stall counter columns (driver order, IP excluded)
	unattr     uint64                 // unattributed sample counts
	stalls     map[stallKey]*stallAgg // EU stall rows, summed (aggregate.go)
	stallOrder []*stallAgg            // the same, in the order first seen
	durations  map[uint64]*sketch     // kernel id -> device times of its launches
	// Per device: launch records, EU stall samples (attributed and not).
	devLaunches map[uint32]int
	devSamples  map[uint32]uint64
	// For the collection windows: launch append times, stall samples
	// per read.
	appendTimes map[sourceDevice]*timeList
	samplesAt   map[sampleAt]uint64
	// Only for trace (keepLaunches): every launch record, and the stall
	// samples attributed to each single launch.
	keepLaunches bool
	traceSel     *traceSelection // trace's launch selection, or nil: every launch
	launchList   launchList
	perLaunch    map[uint64][]uint64
	// For the per-launch views (launches.go): the launches kept, and for
	// annotate --launch the one launch whose rows alone are aggregated.
	launchSel *launchSelection
	// For the web page (html.go): device busy time over time.
	timelineOn bool
	timeline   *timeline
	// For the cross-rank view (ranks.go): the input each kernel object
	// came from, and unattributed samples per input.
	kernelSource  map[uint64]uint32
	samplesUnattr map[uint32]uint64
	// Modules by content hash: the ranks of one job load the same code,
	// whose bytes are then kept once (shareCode).
	codeByHash map[string]*pb.Module
	onlyLaunch uint64
	periodNs   uint64       // the sampling period the driver chose
	windows    []windowEdge // Window records in file order
	sources    []*pb.MergeSource
	unknown    int // records of kinds this reader does not know
	inputs     []*inputRead
	readErr    error // what was lost reading the inputs, or nil

	source uint32    // index of the MergeSource the records belong to (0: not merged)
	sycl   syclModel // SYCL call sites (sycl.go)
}

// windowEdge is one Window record with the input it came from.
type windowEdge struct {
	*pb.Window
	source uint32
}

func newRunModel() *runModel {
	return &runModel{modules: map[uint64]*pb.Module{}, kernelByID: map[uint64]*pb.Kernel{}, ended: map[uint64]uint64{},
		launches: map[uint64]int{}, codesUsed: map[uint64]codeSet{}, devNs: map[uint64]uint64{}, timed: map[uint64]int{},
		stalls: map[stallKey]*stallAgg{}, durations: map[uint64]*sketch{}, devLaunches: map[uint32]int{}, devSamples: map[uint32]uint64{},
		appendTimes: map[sourceDevice]*timeList{}, samplesAt: map[sampleAt]uint64{}, perLaunch: map[uint64][]uint64{},
		kernelSource: map[uint64]uint32{}, samplesUnattr: map[uint32]uint64{}, codeByHash: map[string]*pb.Module{}}
}

// loadRuns reads one file, or merges several (as zestall merge does) into
// one model. A damaged file leaves everything intact in the model (reading
// goes on after a damaged stretch at the next intact frame) and says what
// was lost in inputs and readErr; a file that cannot be opened, or inputs
// that hold no record at all, are an error.
func loadRuns(paths []string, stderr io.Writer) (*runModel, error) {
	return loadRunsWith(paths, stderr, false)
}

// loadRunsWith is loadRuns; keepLaunches keeps every launch record (for
// trace, whose output has one event per launch).
func loadRunsWith(paths []string, stderr io.Writer, keepLaunches bool) (*runModel, error) {
	m := newRunModel()
	m.keepLaunches = keepLaunches
	return m.load(paths, stderr)
}

// load reads paths into m (configured by the caller), as loadRuns does.
func (m *runModel) load(paths []string, stderr io.Writer) (*runModel, error) {
	if len(paths) == 1 {
		in, err := readInput(paths[0], stderr, 0, func(rec *pb.Record) error {
			m.add(rec)
			return nil
		})
		if err != nil {
			return nil, err
		}
		m.inputs = []*inputRead{in}
	} else {
		ins, err := mergeRuns(paths, stderr, func(rec *pb.Record) error {
			m.add(rec)
			return nil
		})
		if err != nil {
			return nil, err
		}
		m.inputs = ins
	}
	var errs []error
	records := 0
	for _, in := range m.inputs {
		errs = append(errs, in.err())
		records += in.records
	}
	m.readErr = errors.Join(errs...)
	if records == 0 {
		return nil, m.readErr
	}
	return m, nil
}

// damaged reports whether records of any input were lost.
func (m *runModel) damaged() bool {
	for _, in := range m.inputs {
		if in.damaged() {
			return true
		}
	}
	for _, src := range m.sources {
		if src.ReadError != "" {
			return true
		}
	}
	return false
}

// add adds one record to the model.
func (m *runModel) add(rec *pb.Record) {
	m.records++
	switch k := rec.Kind.(type) {
	case *pb.Record_Header:
		m.header = k.Header
		for _, d := range k.Header.Devices {
			if ss := d.GetStallSampling(); ss.GetEnabled() && m.metrics == nil {
				m.periodNs = ss.SamplingPeriodNs
				for _, mt := range ss.Metrics {
					if mt.MetricType != abi.MetricTypeIP { // the IP metric is no column
						m.metrics = append(m.metrics, mt.Name)
					}
				}
			}
		}
	case *pb.Record_StallRows:
		m.addStalls(k.StallRows)
	case *pb.Record_Unattributed:
		u := k.Unattributed
		var sum uint64
		for _, c := range u.Counters {
			sum += c
		}
		m.unattr += sum
		m.samplesUnattr[m.source] += sum
		m.devSamples[u.DeviceId] += sum
		m.samplesAt[sampleAt{m.source, u.DeviceId, u.WindowEndHostNs}] += sum
	case *pb.Record_Module:
		m.shareCode(k.Module)
		m.modules[k.Module.Id] = k.Module
	case *pb.Record_Kernel:
		m.kernels = append(m.kernels, k.Kernel)
		m.kernelByID[k.Kernel.Id] = k.Kernel
		m.kernelSource[k.Kernel.Id] = m.source
	case *pb.Record_KernelDestroyed:
		m.ended[k.KernelDestroyed.Id] = k.KernelDestroyed.ValidUntilHostNs
	case *pb.Record_Launch:
		m.addLaunch(k.Launch)
		m.sycl.addLaunch(k.Launch)
	case *pb.Record_SyclLocation:
		m.sycl.addLocation(k.SyclLocation)
	case *pb.Record_SyclSpan:
		if m.keepLaunches { // for trace only, like the launches
			m.sycl.spans = append(m.sycl.spans, k.SyclSpan)
		}
	case *pb.Record_Window:
		m.windows = append(m.windows, windowEdge{k.Window, m.source})
	case *pb.Record_MergeSource:
		m.sources = append(m.sources, k.MergeSource)
		m.source = k.MergeSource.Index
	case *pb.Record_Counters:
		m.counters = k.Counters
	case nil:
		m.unknown++
	}
}

// moduleContent returns the module holding the bytes of kernel k's module
// (following content_module_id), or nil.
func (m *runModel) moduleContent(k *pb.Kernel) *pb.Module {
	mod := m.modules[k.ModuleId]
	if mod != nil && mod.ContentModuleId != 0 {
		mod = m.modules[mod.ContentModuleId]
	}
	return mod
}

// shareCode makes a module whose bytes equal those of a module seen before
// (same content hash, equal bytes) use that module's byte slices, so that
// the code of many runs of one program (MPI ranks) is held once.
func (m *runModel) shareCode(mod *pb.Module) {
	if len(mod.ContentHash) == 0 || len(mod.NativeBinary) == 0 {
		return
	}
	prev := m.codeByHash[string(mod.ContentHash)]
	if prev == nil {
		m.codeByHash[string(mod.ContentHash)] = mod
		return
	}
	if bytes.Equal(prev.NativeBinary, mod.NativeBinary) {
		mod.NativeBinary = prev.NativeBinary
	}
	if bytes.Equal(prev.DebugInfo, mod.DebugInfo) {
		mod.DebugInfo = prev.DebugInfo
	}
}
