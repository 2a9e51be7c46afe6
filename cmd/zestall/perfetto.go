package main

import (
	"bufio"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// trace --format=perfetto writes Perfetto's own trace format: a Trace
// message, that is a sequence of TracePacket messages each written as
// field 1 of Trace, which ui.perfetto.dev and trace_processor open
// directly. zestall writes the few messages it needs by hand with
// protowire, from the field numbers of Perfetto's public protos (paths
// below are in github.com/google/perfetto); TestPerfettoFieldNumbers checks
// them against a Perfetto checkout when one is given.
//
// What is written: one TrackDescriptor per device (a process track, named
// after the device) and one per command queue or immediate command list
// (a child track of its device); per launch a TYPE_SLICE_BEGIN event at
// its device start and a TYPE_SLICE_END event at its device end on its
// queue's track, named by the kernel through interned EventNames, with the
// launch id and the stall samples attributed to the launch alone as debug
// annotations (names interned too). Timestamps are ns from the run's start
// (host clock). With --max-launches, the launches past the cap are a
// counter track per device (TYPE_COUNTER events: busy percent per slice).
// All packets are on one packet sequence: the first clears
// the incremental state, later ones need it.
const (
	// protos/perfetto/trace/trace.proto: message Trace.
	fTracePacket = 1 // repeated TracePacket packet = 1

	// protos/perfetto/trace/trace_packet.proto: message TracePacket.
	fPacketTimestamp       = 8  // optional uint64 timestamp = 8
	fPacketTrackEvent      = 11 // TrackEvent track_event = 11 (oneof data)
	fPacketTrackDescriptor = 60 // TrackDescriptor track_descriptor = 60 (oneof data)
	fPacketSequenceID      = 10 // uint32 trusted_packet_sequence_id = 10
	fPacketInternedData    = 12 // optional InternedData interned_data = 12
	fPacketSequenceFlags   = 13 // optional uint32 sequence_flags = 13
	seqIncrementalCleared  = 1  // SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncremental    = 2  // SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE

	// protos/perfetto/trace/track_event/track_descriptor.proto.
	fTrackUUID       = 1 // optional uint64 uuid = 1
	fTrackName       = 2 // optional string name = 2
	fTrackProcess    = 3 // optional ProcessDescriptor process = 3
	fTrackParentUUID = 5 // optional uint64 parent_uuid = 5
	fTrackCounter    = 8 // optional CounterDescriptor counter = 8

	// protos/perfetto/trace/track_event/process_descriptor.proto.
	fProcessPid  = 1 // optional int32 pid = 1
	fProcessName = 6 // optional string process_name = 6

	// protos/perfetto/trace/track_event/track_event.proto: TrackEvent.
	fEventDebugAnnotations = 4  // repeated DebugAnnotation debug_annotations = 4
	fEventType             = 9  // optional Type type = 9
	fEventNameIID          = 10 // uint64 name_iid = 10 (oneof name_field)
	fEventTrackUUID        = 11 // optional uint64 track_uuid = 11
	eventSliceBegin        = 1  // Type.TYPE_SLICE_BEGIN
	eventSliceEnd          = 2  // Type.TYPE_SLICE_END
	eventCounter           = 4  // Type.TYPE_COUNTER
	fEventCounterValue     = 30 // int64 counter_value = 30 (oneof counter_value_field)

	// protos/perfetto/trace/interned_data/interned_data.proto.
	fInternedEventNames      = 2 // repeated EventName event_names = 2
	fInternedAnnotationNames = 3 // repeated DebugAnnotationName debug_annotation_names = 3
	// EventName (track_event.proto) and DebugAnnotationName
	// (debug_annotation.proto): iid = 1, name = 2.
	fInternedIID  = 1
	fInternedName = 2

	// protos/perfetto/trace/track_event/debug_annotation.proto.
	fAnnotationNameIID   = 1 // uint64 name_iid = 1 (oneof name_field)
	fAnnotationUintValue = 3 // uint64 uint_value = 3 (oneof value)

	perfettoSequence = 1 // our one packet sequence
)

// perfettoWriter appends packets to w.
type perfettoWriter struct {
	w   *bufio.Writer
	buf []byte // the packet being built
	err error
}

// packet writes one TracePacket whose body is b.
func (pw *perfettoWriter) packet(b []byte) {
	if pw.err != nil {
		return
	}
	out := protowire.AppendTag(nil, fTracePacket, protowire.BytesType)
	out = protowire.AppendBytes(out, b)
	_, pw.err = pw.w.Write(out)
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendStringField(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMessageField(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

// interned is an EventName or DebugAnnotationName entry.
func interned(iid uint64, name string) []byte {
	return appendStringField(appendVarintField(nil, fInternedIID, iid), fInternedName, name)
}

// writePerfetto writes the launches of m as a Perfetto protobuf trace and
// returns how many launches it wrote. Memory is the model's launch list
// (as for the JSON trace) and one entry per kernel name and track.
func writePerfetto(w io.Writer, m *runModel) (int, error) {
	pw := &perfettoWriter{w: bufio.NewWriterSize(w, 256<<10)}
	var t0 uint64
	if m.header != nil {
		t0 = m.header.StartHostNs
	}
	names := map[uint64]string{}
	for _, k := range m.kernels {
		names[k.Id] = kernelName(k)
	}
	// Interned annotation names: "launch", then the stall reasons.
	var annot []byte
	annot = appendMessageField(annot, fInternedAnnotationNames, interned(1, "launch"))
	for j, n := range m.metrics {
		annot = appendMessageField(annot, fInternedAnnotationNames, interned(uint64(j+2), "stall samples: "+n))
	}
	first := appendVarintField(nil, fPacketSequenceID, perfettoSequence)
	first = appendVarintField(first, fPacketSequenceFlags, seqIncrementalCleared)
	first = appendMessageField(first, fPacketInternedData, annot)
	pw.packet(first)

	// Tracks: devices (uuid 1<<40 | device id), queues and lists below
	// them (uuids 1, 2, ...).
	deviceUUID := func(dev uint32) uint64 { return 1<<40 | uint64(dev) }
	described := map[uint64]bool{}
	describe := func(uuid uint64, td []byte) {
		if described[uuid] {
			return
		}
		described[uuid] = true
		pw.packet(appendMessageField(appendVarintField(nil, fPacketSequenceID, perfettoSequence), fPacketTrackDescriptor, td))
	}
	devName := deviceLabels(m)
	queueUUID := map[[3]uint64]uint64{} // device, queue, list -> track uuid (1, 2, ...)
	deviceTrack := func(dev uint32) uint64 {
		du := deviceUUID(dev)
		if !described[du] {
			name := devName[dev]
			if name == "" {
				name = fmt.Sprintf("device %d", dev)
			}
			proc := appendStringField(appendVarintField(nil, fProcessPid, uint64(dev)), fProcessName, name)
			td := appendVarintField(nil, fTrackUUID, du)
			td = appendMessageField(td, fTrackProcess, proc)
			describe(du, td)
		}
		return du
	}
	trackOf := func(l *traceLaunch) uint64 {
		du := deviceTrack(l.DeviceId)
		key := [3]uint64{uint64(l.DeviceId), l.QueueId, l.CommandListId}
		if l.QueueId != 0 {
			key[2] = 0 // one track per queue, whatever list was executed
		}
		uuid, ok := queueUUID[key]
		if !ok {
			uuid = uint64(len(queueUUID) + 1)
			queueUUID[key] = uuid
			label := fmt.Sprintf("queue %d", l.QueueId)
			if l.QueueId == 0 {
				label = fmt.Sprintf("immediate list %d", l.CommandListId)
			}
			td := appendVarintField(nil, fTrackUUID, uuid)
			td = appendVarintField(td, fTrackParentUUID, du)
			td = appendStringField(td, fTrackName, label)
			describe(uuid, td)
		}
		return uuid
	}
	nameIID := map[string]uint64{}
	n := 0
	m.launchList.each(func(l *traceLaunch) {
		if !traceable(l, t0) || pw.err != nil {
			return
		}
		track := trackOf(l)
		name := names[l.KernelId]
		iid, ok := nameIID[name]
		var internedNames []byte
		if !ok {
			iid = uint64(len(nameIID) + 1)
			nameIID[name] = iid
			internedNames = appendMessageField(nil, fInternedEventNames, interned(iid, name))
		}
		ev := appendVarintField(nil, fEventType, eventSliceBegin)
		ev = appendVarintField(ev, fEventTrackUUID, track)
		ev = appendVarintField(ev, fEventNameIID, iid)
		ev = appendMessageField(ev, fEventDebugAnnotations,
			appendVarintField(appendVarintField(nil, fAnnotationNameIID, 1), fAnnotationUintValue, l.Id))
		for j, c := range m.perLaunch[l.Id] {
			if c > 0 && j < len(m.metrics) {
				ev = appendMessageField(ev, fEventDebugAnnotations,
					appendVarintField(appendVarintField(nil, fAnnotationNameIID, uint64(j+2)), fAnnotationUintValue, c))
			}
		}
		p := appendVarintField(nil, fPacketTimestamp, l.DeviceStartNs-t0)
		p = appendVarintField(p, fPacketSequenceID, perfettoSequence)
		p = appendVarintField(p, fPacketSequenceFlags, seqNeedsIncremental)
		if internedNames != nil {
			p = appendMessageField(p, fPacketInternedData, internedNames)
		}
		p = appendMessageField(p, fPacketTrackEvent, ev)
		pw.packet(p)
		end := appendVarintField(appendVarintField(nil, fEventType, eventSliceEnd), fEventTrackUUID, track)
		p = appendVarintField(nil, fPacketTimestamp, l.DeviceEndNs-t0)
		p = appendVarintField(p, fPacketSequenceID, perfettoSequence)
		p = appendVarintField(p, fPacketSequenceFlags, seqNeedsIncremental)
		p = appendMessageField(p, fPacketTrackEvent, end)
		pw.packet(p)
		n++
	})
	// The launches past --max-launches: a counter track per device.
	counters := map[sourceDevice]uint64{}
	m.traceSel.restSlices(func(lane sourceDevice, startNs uint64, pct int64) {
		uuid, ok := counters[lane]
		if !ok {
			uuid = 1<<41 | uint64(len(counters)+1)
			counters[lane] = uuid
			td := appendVarintField(nil, fTrackUUID, uuid)
			td = appendVarintField(td, fTrackParentUUID, deviceTrack(lane.device))
			td = appendStringField(td, fTrackName, restCounterName)
			td = appendMessageField(td, fTrackCounter, nil)
			describe(uuid, td)
		}
		ev := appendVarintField(nil, fEventType, eventCounter)
		ev = appendVarintField(ev, fEventTrackUUID, uuid)
		ev = appendVarintField(ev, fEventCounterValue, uint64(pct))
		p := appendVarintField(nil, fPacketTimestamp, startNs)
		p = appendVarintField(p, fPacketSequenceID, perfettoSequence)
		p = appendVarintField(p, fPacketSequenceFlags, seqNeedsIncremental)
		pw.packet(appendMessageField(p, fPacketTrackEvent, ev))
	})
	if pw.err != nil {
		return n, pw.err
	}
	return n, pw.w.Flush()
}
