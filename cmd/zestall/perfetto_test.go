package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// pfMessage is a decoded protobuf message: field number -> values (varints
// as uint64, length-delimited as []byte), in order.
type pfMessage map[protowire.Number][]any

// decodePF decodes one message generically, with protowire, failing on
// malformed input or a wire type zestall does not write.
func decodePF(t *testing.T, b []byte) pfMessage {
	t.Helper()
	m := pfMessage{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				t.Fatalf("field %d: %v", num, protowire.ParseError(n))
			}
			m[num] = append(m[num], v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				t.Fatalf("field %d: %v", num, protowire.ParseError(n))
			}
			m[num] = append(m[num], v)
			b = b[n:]
		default:
			t.Fatalf("field %d: wire type %d not written by zestall", num, typ)
		}
	}
	return m
}

func (m pfMessage) u(num protowire.Number) (uint64, bool) {
	if v := m[num]; len(v) > 0 {
		x, ok := v[len(v)-1].(uint64)
		return x, ok
	}
	return 0, false
}

func (m pfMessage) s(num protowire.Number) string {
	if v := m[num]; len(v) > 0 {
		if b, ok := v[len(v)-1].([]byte); ok {
			return string(b)
		}
	}
	return ""
}

func (m pfMessage) msgs(t *testing.T, num protowire.Number) []pfMessage {
	var out []pfMessage
	for _, v := range m[num] {
		b, ok := v.([]byte)
		if !ok {
			t.Fatalf("field %d is not a message", num)
		}
		out = append(out, decodePF(t, b))
	}
	return out
}

// pfSlice is a slice rebuilt from a BEGIN/END pair.
type pfSlice struct {
	track      string
	name       string
	start, end uint64
	args       map[string]uint64
}

// readPerfetto rebuilds the slices of a trace written by writePerfetto,
// following Perfetto's rules: interned names valid on the sequence after a
// packet that cleared its incremental state, tracks by uuid, END closing
// the last open BEGIN of its track.
func readPerfetto(t *testing.T, b []byte) []pfSlice {
	t.Helper()
	trace := decodePF(t, b)
	if len(trace) != 1 || len(trace[fTracePacket]) == 0 {
		t.Fatalf("not a Trace of packets: fields %v", trace)
	}
	eventNames, annNames := map[uint64]string{}, map[uint64]string{}
	tracks := map[uint64]string{}
	open := map[uint64][]*pfSlice{}
	var out []pfSlice
	cleared := false
	for i, p := range trace.msgs(t, fTracePacket) {
		if seq, _ := p.u(fPacketSequenceID); seq != perfettoSequence {
			t.Fatalf("packet %d: sequence %d", i, seq)
		}
		flags, _ := p.u(fPacketSequenceFlags)
		if flags&seqIncrementalCleared != 0 {
			cleared = true
		}
		if flags&seqNeedsIncremental != 0 && !cleared {
			t.Fatalf("packet %d needs incremental state before any packet cleared it", i)
		}
		for _, in := range p.msgs(t, fPacketInternedData) {
			for _, e := range in.msgs(t, fInternedEventNames) {
				iid, _ := e.u(fInternedIID)
				eventNames[iid] = e.s(fInternedName)
			}
			for _, e := range in.msgs(t, fInternedAnnotationNames) {
				iid, _ := e.u(fInternedIID)
				annNames[iid] = e.s(fInternedName)
			}
		}
		for _, td := range p.msgs(t, fPacketTrackDescriptor) {
			uuid, _ := td.u(fTrackUUID)
			name := td.s(fTrackName)
			for _, proc := range td.msgs(t, fTrackProcess) {
				name = proc.s(fProcessName)
			}
			if parent, ok := td.u(fTrackParentUUID); ok {
				if tracks[parent] == "" {
					t.Fatalf("track %d before its parent %d", uuid, parent)
				}
				name = tracks[parent] + " / " + name
			}
			if len(td[fTrackCounter]) > 0 {
				name = "counter: " + name
			}
			tracks[uuid] = name
		}
		for _, ev := range p.msgs(t, fPacketTrackEvent) {
			ts, ok := p.u(fPacketTimestamp)
			if !ok {
				t.Fatalf("packet %d: event without timestamp", i)
			}
			typ, _ := ev.u(fEventType)
			uuid, _ := ev.u(fEventTrackUUID)
			if tracks[uuid] == "" {
				t.Fatalf("packet %d: event on undescribed track %d", i, uuid)
			}
			switch typ {
			case eventSliceBegin:
				iid, _ := ev.u(fEventNameIID)
				if eventNames[iid] == "" {
					t.Fatalf("packet %d: name iid %d not interned", i, iid)
				}
				s := &pfSlice{track: tracks[uuid], name: eventNames[iid], start: ts, args: map[string]uint64{}}
				for _, a := range ev.msgs(t, fEventDebugAnnotations) {
					iid, _ := a.u(fAnnotationNameIID)
					v, _ := a.u(fAnnotationUintValue)
					s.args[annNames[iid]] = v
				}
				open[uuid] = append(open[uuid], s)
			case eventSliceEnd:
				st := open[uuid]
				if len(st) == 0 {
					t.Fatalf("packet %d: END without BEGIN on %s", i, tracks[uuid])
				}
				s := st[len(st)-1]
				open[uuid] = st[:len(st)-1]
				s.end = ts
				out = append(out, *s)
			case eventCounter:
				v, ok := ev.u(fEventCounterValue)
				if !ok {
					t.Fatalf("packet %d: counter without value", i)
				}
				out = append(out, pfSlice{track: tracks[uuid], name: "counter", start: ts, end: ts, args: map[string]uint64{"value": v}})
			default:
				t.Fatalf("packet %d: event type %d", i, typ)
			}
		}
	}
	for uuid, st := range open {
		if len(st) > 0 {
			t.Fatalf("%d slices left open on %s", len(st), tracks[uuid])
		}
	}
	return out
}

// TestPerfettoTrace: the Perfetto trace of a real capture, decoded back
// field by field, holds every launch the JSON trace holds (same kernel,
// track, start and duration, launch id and stall samples), and is much
// smaller.
func TestPerfettoTrace(t *testing.T) {
	for _, in := range []string{serialized, multi, windows} {
		dir := t.TempDir()
		pf, js := filepath.Join(dir, "t.pftrace"), filepath.Join(dir, "t.json")
		for _, args := range [][]string{{"trace", "--format=perfetto", in, "-o", pf}, {"trace", in, "-o", js}} {
			var so, se bytes.Buffer
			if code := run(args, &so, &se); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, se.String())
			}
		}
		b, _ := os.ReadFile(pf)
		jb, _ := os.ReadFile(js)
		slices := readPerfetto(t, b)
		type key struct {
			name       string
			start, dur uint64
			launch     uint64
		}
		got := map[key]map[string]uint64{}
		for _, s := range slices {
			got[key{s.name, s.start, s.end - s.start, s.args["launch"]}] = s.args
		}
		var doc struct {
			TraceEvents []traceEvent `json:"traceEvents"`
		}
		if err := jsonUnmarshal(jb, &doc); err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, e := range doc.TraceEvents {
			if e.Ph != "X" {
				continue
			}
			want++
			id := uint64(e.Args["launch"].(float64))
			k := key{e.Name, uint64(e.Ts*1e3 + 0.5), uint64(e.Dur*1e3 + 0.5), id}
			args, ok := got[k]
			if !ok {
				t.Errorf("%s: launch %d (%s at %v us, %v us) not in the Perfetto trace", in, id, e.Name, e.Ts, e.Dur)
				continue
			}
			if st, _ := e.Args["stall_samples"].(map[string]any); st != nil {
				for r, v := range st {
					if args["stall samples: "+r] != uint64(v.(float64)) {
						t.Errorf("%s: launch %d: %s %v, Perfetto has %d", in, id, r, v, args["stall samples: "+r])
					}
				}
			}
		}
		if len(slices) != want {
			t.Errorf("%s: %d slices, JSON has %d events", in, len(slices), want)
		}
		t.Logf("%s: %d launches: Perfetto %d bytes (%.1f per launch), JSON %d bytes (%.1f per launch)",
			in, want, len(b), float64(len(b))/float64(want), len(jb), float64(len(jb))/float64(want))
		if len(b)*3 > len(jb) {
			t.Errorf("%s: Perfetto trace %d bytes is not much smaller than the JSON (%d)", in, len(b), len(jb))
		}
	}
}

// TestPerfettoProtoc decodes the trace with protoc against Perfetto's own
// .proto files (an independent decoder and the real schema): every field
// zestall writes must have a name there (protoc prints unknown fields by
// number). Needs a checkout of github.com/google/perfetto (not part of this
// repository): ZESTALL_PERFETTO_PROTOS=DIR with DIR/protos/perfetto/trace.
func TestPerfettoProtoc(t *testing.T) {
	dir := os.Getenv("ZESTALL_PERFETTO_PROTOS")
	if dir == "" {
		t.Skip("ZESTALL_PERFETTO_PROTOS not set (a checkout of github.com/google/perfetto; its protos are not in this repository)")
	}
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		t.Fatalf("protoc: %v (scripts/setup.sh installs protobuf-compiler)", err)
	}
	out := filepath.Join(t.TempDir(), "t.pftrace")
	var so, se bytes.Buffer
	if code := run([]string{"trace", "--format=perfetto", serialized, "-o", out}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(protoc, "--decode=perfetto.protos.Trace", "-I", dir, "protos/perfetto/trace/trace.proto")
	cmd.Stdin = f
	var po, pe bytes.Buffer
	cmd.Stdout, cmd.Stderr = &po, &pe
	if err := cmd.Run(); err != nil {
		t.Fatalf("protoc --decode: %v\n%s", err, pe.String())
	}
	text := po.String()
	if m := regexp.MustCompile(`(?m)^\s*\d+: `).FindString(text); m != "" {
		t.Errorf("a field unknown to Perfetto's schema: %q", m)
	}
	// The JSON trace names the same tracks: one thread per queue or list,
	// and the devices with launches.
	js := filepath.Join(t.TempDir(), "t.json")
	if code := run([]string{"trace", serialized, "-o", js}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	jb, _ := os.ReadFile(js)
	var doc struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(jb, &doc); err != nil {
		t.Fatal(err)
	}
	queues, devices := 0, map[uint32]bool{}
	for _, e := range doc.TraceEvents {
		if e.Name == "thread_name" {
			queues++
		}
		if e.Ph == "X" {
			devices[e.Pid] = true
		}
	}
	for what, want := range map[string]int{"type: TYPE_SLICE_BEGIN": 64, "type: TYPE_SLICE_END": 64,
		"track_descriptor {": queues + len(devices), "process_name: ": len(devices)} {
		if n := strings.Count(text, what); n != want {
			t.Errorf("%q %d times in protoc's decoding, want %d", what, n, want)
		}
	}
	for _, want := range []string{`name: "compute_poly"`, `name: "stall samples: SbidStall"`, "sequence_flags: 1", "trusted_packet_sequence_id: 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("protoc's decoding lacks %s", want)
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestTraceSelection: --kernel, --from/--to and --max-launches write
// exactly the launches they select (in both formats), and the launches
// past the cap become a counter track, never dropped silently.
func TestTraceSelection(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.pftrace")
	var so, se bytes.Buffer
	if code := run([]string{"trace", "--format=perfetto", serialized, "-o", full}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	b, _ := os.ReadFile(full)
	all := readPerfetto(t, b)
	var first, last uint64 = ^uint64(0), 0
	for _, s := range all {
		first, last = min(first, s.start), max(last, s.start)
	}
	mid := first + (last-first)/2
	tests := []struct {
		name string
		args []string
		keep func(pfSlice) bool
	}{
		{"kernel", []string{"--kernel", "compute_poly"}, func(s pfSlice) bool { return s.name == "compute_poly" }},
		{"window", []string{"--from", fmt.Sprintf("%.6f", float64(mid)/1e6)}, func(s pfSlice) bool { return s.start >= mid }},
		{"window_to", []string{"--to", fmt.Sprintf("%.6f", float64(mid)/1e6)}, func(s pfSlice) bool { return s.start < mid }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "t.pftrace")
			var so, se bytes.Buffer
			if code := run(append([]string{"trace", "--format=perfetto", serialized, "-o", out}, tt.args...), &so, &se); code != 0 {
				t.Fatalf("exit %d: %s", code, se.String())
			}
			b, _ := os.ReadFile(out)
			got := readPerfetto(t, b)
			want := 0
			for _, s := range all {
				if tt.keep(s) {
					want++
				}
			}
			for _, s := range got {
				if !tt.keep(s) {
					t.Errorf("slice %+v is not selected", s)
				}
			}
			if len(got) != want || want == 0 || want == len(all) {
				t.Errorf("%d slices, want %d of %d", len(got), want, len(all))
			}
		})
	}
	for _, format := range []string{"perfetto", "json"} {
		out := filepath.Join(dir, "capped."+format)
		var so, se bytes.Buffer
		if code := run([]string{"trace", "--format=" + format, "--max-launches", "10", serialized, "-o", out}, &so, &se); code != 0 {
			t.Fatalf("exit %d: %s", code, se.String())
		}
		if !strings.Contains(se.String(), "10 launches; 54 more past --max-launches") {
			t.Errorf("%s: stderr %q", format, se.String())
		}
		b, _ := os.ReadFile(out)
		slices, counters := 0, 0
		if format == "perfetto" {
			for _, s := range readPerfetto(t, b) {
				if s.name == "counter" {
					counters++
					if s.args["value"] > 100 || !strings.HasPrefix(s.track, "counter: ") {
						t.Errorf("counter %+v", s)
					}
				} else {
					slices++
				}
			}
		} else {
			validateTraceEvents(t, b)
			var doc struct {
				TraceEvents []traceEvent `json:"traceEvents"`
			}
			json.Unmarshal(b, &doc)
			for _, e := range doc.TraceEvents {
				switch e.Ph {
				case "X":
					slices++
				case "C":
					counters++
				}
			}
		}
		if slices != 10 || counters < 2 {
			t.Errorf("%s: %d slices, %d counter values", format, slices, counters)
		}
	}
	if code := run([]string{"trace", "--kernel", "nope", serialized, "-o", filepath.Join(dir, "x.json")}, &so, &se); code != 1 {
		t.Errorf("unknown kernel: exit %d", code)
	}
	if code := run([]string{"trace", "--from", "5", "--to", "2", serialized, "-o", filepath.Join(dir, "x.json")}, &so, &se); code != 2 {
		t.Errorf("--to before --from: exit %d", code)
	}
}
