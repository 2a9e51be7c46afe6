package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output file (required); never overwritten")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall merge FILE... -o OUT.zst

Merges the files of several runs (processes, MPI ranks, hosts) into one
zestall file that every command reads. Ids are renumbered so that they stay
unique; each input's records follow a MergeSource record that keeps where
they came from (file name, the input's header and last counters, the id
offsets; see proto/zestall.proto). Times are not changed. A damaged input
is merged past each damaged stretch, and what was lost is kept in its
MergeSource and named on stderr (exit status 1). The same file may not be
given twice; merge reads each input twice, so not from standard input.
Memory holds one record at a time.
OUT is written to a temporary file next to it and appears only complete;
it must not exist and is never overwritten.`)
		fs.PrintDefaults()
	}
	files, err := parseFiles(fs, args, "merge takes at least one FILE and -o OUT", func() bool { return *out != "" })
	if err != nil {
		return err
	}
	if err := checkInputs(files, false); err != nil {
		return err
	}
	for _, f := range files {
		if f == *out {
			return usageError{fmt.Sprintf("output %s is also an input", f)}
		}
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	n := 0
	var ins []*inputRead
	err = writeOutput(*out, func(f io.Writer) error {
		w, err := stream.NewWriter(f, nil)
		if err != nil {
			return err
		}
		ins, err = mergeRuns(files, stderr, func(rec *pb.Record) error {
			n++
			if err := pbstream.Write(w, rec); err != nil {
				return err
			}
			if n%4096 == 0 {
				return w.Flush()
			}
			return nil
		})
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err == nil && n <= 2+len(files) {
			// Header, sources and counters only.
			err = readErrors(ins)
		}
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "zestall: wrote %s (%d files, %d records)\n", *out, len(files), n)
	return readErrors(ins)
}

// readErrors joins what was lost reading the inputs (nil when nothing).
func readErrors(ins []*inputRead) error {
	var errs []error
	for _, in := range ins {
		errs = append(errs, in.err())
	}
	return errors.Join(errs...)
}

// idOffsets are added to an input's non-zero ids of each kind.
type idOffsets struct {
	device                                 uint32
	module, kernel, launch, queue, cmdList uint64
	// SYCL ids (revision 5): renumbered like the others, but MergeSource
	// has no fields for their offsets yet.
	syclLoc            uint32
	syclTask, syclNode uint64
}

// grow makes o cover the ids of the other maximums.
func (o *idOffsets) grow(max idOffsets) {
	o.device += max.device
	o.module += max.module
	o.kernel += max.kernel
	o.launch += max.launch
	o.queue += max.queue
	o.cmdList += max.cmdList
	o.syclLoc += max.syclLoc
	o.syclTask += max.syclTask
	o.syclNode += max.syclNode
}

// mergeInput is what the first pass learns about one input.
type mergeInput struct {
	path     string
	header   *pb.Header
	counters *pb.Counters
	max      idOffsets // the largest id of each kind
	dropped  uint64
	read     *inputRead // records read, damage
}

// scanInput reads an input once to find its largest ids, its header and
// its last counters.
func scanInput(path string, stderr io.Writer) (*mergeInput, error) {
	in := &mergeInput{path: path}
	read, err := readInput(path, stderr, 0, func(rec *pb.Record) error {
		ids := &in.max
		dev := func(id uint32) { ids.device = max(ids.device, id) }
		switch k := rec.Kind.(type) {
		case *pb.Record_Header:
			if in.header == nil {
				in.header = k.Header
			}
			for _, d := range k.Header.Devices {
				dev(d.Id)
				dev(d.ParentId)
			}
		case *pb.Record_Module:
			ids.module = max(ids.module, k.Module.Id, k.Module.ContentModuleId)
			dev(k.Module.DeviceId)
		case *pb.Record_ModuleDestroyed:
			ids.module = max(ids.module, k.ModuleDestroyed.Id)
		case *pb.Record_Kernel:
			ids.kernel = max(ids.kernel, k.Kernel.Id)
			ids.module = max(ids.module, k.Kernel.ModuleId)
		case *pb.Record_KernelDestroyed:
			ids.kernel = max(ids.kernel, k.KernelDestroyed.Id)
		case *pb.Record_Launch:
			l := k.Launch
			ids.launch = max(ids.launch, l.Id)
			ids.kernel = max(ids.kernel, l.KernelId)
			ids.queue = max(ids.queue, l.QueueId)
			ids.cmdList = max(ids.cmdList, l.CommandListId)
			ids.syclLoc = max(ids.syclLoc, l.SyclLocationId)
			ids.syclTask = max(ids.syclTask, l.SyclTaskId)
			dev(l.DeviceId)
		case *pb.Record_SyclLocation:
			ids.syclLoc = max(ids.syclLoc, k.SyclLocation.Id)
		case *pb.Record_SyclSpan:
			sp := k.SyclSpan
			ids.syclTask = max(ids.syclTask, sp.Id)
			ids.syclLoc = max(ids.syclLoc, sp.LocationId)
			ids.syclNode = max(ids.syclNode, sp.NodeId)
		case *pb.Record_SyclGraph:
			g := k.SyclGraph
			ids.syclLoc = max(ids.syclLoc, g.LocationId)
			ids.syclNode = max(ids.syclNode, g.NodeId, g.TargetNodeId)
		case *pb.Record_StallRows:
			s := k.StallRows
			ids.kernel = max(ids.kernel, s.KernelId)
			ids.launch = max(ids.launch, s.LaunchId)
			for _, c := range s.CandidateLaunchIds {
				ids.launch = max(ids.launch, c)
			}
			for _, c := range s.CandidateLaunchIdRanges {
				ids.launch = max(ids.launch, c)
			}
			dev(s.DeviceId)
		case *pb.Record_Unattributed:
			dev(k.Unattributed.DeviceId)
		case *pb.Record_Window:
			dev(k.Window.DeviceId)
		case *pb.Record_MergeSource:
			// A merged file merged again: its sources' offsets are
			// already applied to its ids, so nothing to learn here.
		case *pb.Record_Counters:
			in.counters = k.Counters
		case nil:
			in.dropped++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	in.read = read
	return in, nil
}

// remapRecord adds the offsets to every id of rec, in place. It reports
// false for records merge leaves out (header, counters, unknown kinds).
func remapRecord(rec *pb.Record, o idOffsets) bool {
	add := func(id *uint64, off uint64) {
		if *id != 0 {
			*id += off
		}
	}
	dev := func(id *uint32) {
		if *id != 0 {
			*id += o.device
		}
	}
	add32 := func(id *uint32, off uint32) {
		if *id != 0 {
			*id += off
		}
	}
	switch k := rec.Kind.(type) {
	case *pb.Record_Module:
		add(&k.Module.Id, o.module)
		add(&k.Module.ContentModuleId, o.module)
		dev(&k.Module.DeviceId)
	case *pb.Record_ModuleDestroyed:
		add(&k.ModuleDestroyed.Id, o.module)
	case *pb.Record_Kernel:
		add(&k.Kernel.Id, o.kernel)
		add(&k.Kernel.ModuleId, o.module)
	case *pb.Record_KernelDestroyed:
		add(&k.KernelDestroyed.Id, o.kernel)
	case *pb.Record_Launch:
		l := k.Launch
		add(&l.Id, o.launch)
		add(&l.KernelId, o.kernel)
		add(&l.QueueId, o.queue)
		add(&l.CommandListId, o.cmdList)
		add(&l.SyclTaskId, o.syclTask)
		add32(&l.SyclLocationId, o.syclLoc)
		dev(&l.DeviceId)
	case *pb.Record_SyclLocation:
		add32(&k.SyclLocation.Id, o.syclLoc)
	case *pb.Record_SyclSpan:
		sp := k.SyclSpan
		add(&sp.Id, o.syclTask)
		add32(&sp.LocationId, o.syclLoc)
		add(&sp.NodeId, o.syclNode)
	case *pb.Record_SyclGraph:
		g := k.SyclGraph
		add(&g.NodeId, o.syclNode)
		add(&g.TargetNodeId, o.syclNode)
		add32(&g.LocationId, o.syclLoc)
	case *pb.Record_StallRows:
		s := k.StallRows
		add(&s.KernelId, o.kernel)
		add(&s.LaunchId, o.launch)
		for i := range s.CandidateLaunchIds {
			add(&s.CandidateLaunchIds[i], o.launch)
		}
		for i := range s.CandidateLaunchIdRanges {
			add(&s.CandidateLaunchIdRanges[i], o.launch)
		}
		dev(&s.DeviceId)
	case *pb.Record_Unattributed:
		dev(&k.Unattributed.DeviceId)
	case *pb.Record_Window:
		dev(&k.Window.DeviceId)
	case *pb.Record_MergeSource:
		// An input that is itself a merged file: its sources' offsets
		// now lead to this file's ids (the caller renumbers Index).
		ms := k.MergeSource
		ms.DeviceIdOffset += o.device
		ms.ModuleIdOffset += o.module
		ms.KernelIdOffset += o.kernel
		ms.LaunchIdOffset += o.launch
		ms.QueueIdOffset += o.queue
		ms.CommandListIdOffset += o.cmdList
	default: // header, counters, unknown kinds
		return false
	}
	return true
}

// mergeRuns merges the inputs into one record stream given to emit: a
// merged Header, then per input a MergeSource and its records with ids
// remapped, then the summed Counters. Each input is read twice (the first
// pass finds its largest ids), so memory stays bounded by one record.
// What reading each input found (damage) is returned; err is an input
// that cannot be opened or an error from emit.
func mergeRuns(paths []string, stderr io.Writer, emit func(*pb.Record) error) ([]*inputRead, error) {
	ins := make([]*mergeInput, len(paths))
	reads := make([]*inputRead, len(paths))
	for i, p := range paths {
		var err error
		if ins[i], err = scanInput(p, stderr); err != nil {
			return nil, err
		}
		reads[i] = ins[i].read
	}
	offs := make([]idOffsets, len(ins))
	var next idOffsets
	for i, in := range ins {
		offs[i] = next
		next.grow(in.max)
	}
	nextIndex := uint32(len(ins) + 1) // for the sources of inputs that are merged files
	if err := emit(&pb.Record{Kind: &pb.Record_Header{Header: mergedHeader(ins, offs)}}); err != nil {
		return reads, err
	}
	for i, in := range ins {
		src := &pb.MergeSource{
			Index: uint32(i + 1), Path: in.path, Header: in.header, Counters: in.counters,
			DeviceIdOffset: offs[i].device, ModuleIdOffset: offs[i].module, KernelIdOffset: offs[i].kernel,
			LaunchIdOffset: offs[i].launch, QueueIdOffset: offs[i].queue, CommandListIdOffset: offs[i].cmdList,
			RecordsRead: uint64(in.read.records), RecordsDropped: in.dropped,
		}
		if err := in.read.err(); err != nil {
			src.ReadError = err.Error()
		}
		if err := emit(&pb.Record{Kind: &pb.Record_MergeSource{MergeSource: src}}); err != nil {
			return reads, err
		}
		if err := copyInput(in, offs[i], &nextIndex, emit); err != nil {
			return reads, err
		}
		if in.dropped > 0 {
			fmt.Fprintf(stderr, "zestall: %s: left out %d records of kinds this zestall does not know\n", in.path, in.dropped)
		}
	}
	return reads, emit(&pb.Record{Kind: &pb.Record_Counters{Counters: summedCounters(ins)}})
}

// copyInput is the second pass over one input: every record it knows,
// remapped, up to where the first pass stopped (past the same damaged
// stretches).
func copyInput(in *mergeInput, o idOffsets, nextIndex *uint32, emit func(*pb.Record) error) error {
	if in.read.records == 0 {
		return nil
	}
	read, err := readInput(in.path, nil, in.read.records, func(rec *pb.Record) error {
		if remapRecord(rec, o) {
			if ms := rec.GetMergeSource(); ms != nil {
				// Sources of a merged input follow this file's own
				// inputs in numbering; their records stay theirs.
				ms.Index = *nextIndex
				*nextIndex++
			}
			return emit(rec)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if read.records != in.read.records {
		return fmt.Errorf("%s: changed while merging (%d records on the first pass, %d on the second)", in.path, in.read.records, read.records)
	}
	return nil
}

// mergedHeader describes the merged file: every input's devices with ids
// remapped, the earliest start, the host name when all inputs share it.
func mergedHeader(ins []*mergeInput, offs []idOffsets) *pb.Header {
	h := &pb.Header{FormatVersion: stream.SchemaRevision, ToolVersion: "zestall merge " + version}
	first := true
	for i, in := range ins {
		ih := in.header
		if ih == nil {
			continue
		}
		if first || ih.StartHostNs < h.StartHostNs {
			h.StartHostNs, h.StartUnixNs = ih.StartHostNs, ih.StartUnixNs
		}
		if first {
			h.HostName = ih.HostName
			h.OtherProcessesKnown = ih.OtherProcessesKnown
		} else if h.HostName != ih.HostName {
			h.HostName = ""
		}
		// Known for the merged file only if known for every input.
		h.OtherProcessesKnown = h.OtherProcessesKnown && ih.OtherProcessesKnown
		first = false
		for _, d := range ih.Devices {
			nd := cloneDevice(d)
			nd.Id += offs[i].device
			if nd.ParentId != 0 {
				nd.ParentId += offs[i].device
			}
			h.Devices = append(h.Devices, nd)
		}
	}
	return h
}

func cloneDevice(d *pb.Device) *pb.Device {
	return proto.Clone(d).(*pb.Device)
}

// summedCounters adds up the inputs' last counters.
func summedCounters(ins []*mergeInput) *pb.Counters {
	sum := &pb.Counters{Final: true}
	reasons := map[pb.NoTimestampReason]uint64{}
	lost := map[string]uint64{}
	var lostOrder []string
	for _, in := range ins {
		c := in.counters
		if c == nil || !c.Final || in.read.damaged() {
			sum.Final = false
		}
		if c == nil {
			continue
		}
		sum.HostNs = max(sum.HostNs, c.HostNs)
		sum.LaunchesSeen += c.LaunchesSeen
		sum.LaunchesTimed += c.LaunchesTimed
		sum.StallRecordsRead += c.StallRecordsRead
		sum.StallRowsAttributed += c.StallRowsAttributed
		sum.StallRowsUnattributed += c.StallRowsUnattributed
		sum.StallRowsPossiblyForeign += c.StallRowsPossiblyForeign
		sum.StallRowsUnattributedOtherProcess += c.StallRowsUnattributedOtherProcess
		sum.StallLaunchesNotHeld += c.StallLaunchesNotHeld
		sum.StallRowsDegraded += c.StallRowsDegraded
		sum.StallDropWarnings += c.StallDropWarnings
		sum.StallDropFlagRecords += c.StallDropFlagRecords
		sum.SyclTasks += c.SyclTasks
		sum.SyclRecordsLost += c.SyclRecordsLost
		sum.LaunchesWaited += c.LaunchesWaited
		sum.LaunchWaitNs += c.LaunchWaitNs
		sum.LaunchesTimedByCopy += c.LaunchesTimedByCopy
		sum.LaunchesTimedByHostQuery += c.LaunchesTimedByHostQuery
		for _, r := range c.LaunchesWithoutTimestamp {
			reasons[r.Reason] += r.Count
		}
		for _, l := range c.Lost {
			if _, ok := lost[l.What]; !ok {
				lostOrder = append(lostOrder, l.What)
			}
			lost[l.What] += l.Count
		}
	}
	for r, n := range reasons {
		sum.LaunchesWithoutTimestamp = append(sum.LaunchesWithoutTimestamp, &pb.ReasonCount{Reason: r, Count: n})
	}
	sort.Slice(sum.LaunchesWithoutTimestamp, func(i, j int) bool {
		return sum.LaunchesWithoutTimestamp[i].Reason < sum.LaunchesWithoutTimestamp[j].Reason
	})
	for _, w := range lostOrder {
		sum.Lost = append(sum.Lost, &pb.Loss{What: w, Count: lost[w]})
	}
	return sum
}
