package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// recordsBytes encodes records as one frame holds them (varint length,
// message), the form the fuzzer mutates: the framing and compression are
// fuzzed in proto/stream.
func recordsBytes(t testing.TB, path string, noBinaries bool) []byte {
	recs := readCapture(t, path)
	var b []byte
	for _, r := range recs {
		if mod := r.GetModule(); mod != nil && noBinaries {
			mod.NativeBinary, mod.DebugInfo = nil, nil
		}
		m, err := proto.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b = binary.AppendUvarint(b, uint64(len(m)))
		b = append(b, m...)
	}
	return b
}

// FuzzViews: no record content, however inconsistent (ids naming nothing,
// column counts that do not match, binaries and debug info that are not
// ELF, hostile sizes), makes a view panic; merge's remapping keeps every
// record it is given. The views run without disassembly.
func FuzzViews(f *testing.F) {
	// Small seeds (binaries left out) mutate fast; one with the real
	// zebins and DWARF reaches the code and line decoding.
	for _, p := range []string{multi, serialized} {
		f.Add(recordsBytes(f, p, true))
	}
	f.Add(recordsBytes(f, multi, false))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newRunModel()
		m.keepLaunches = true // as trace loads it
		m.launchSel = newLaunchSelection("", 3)
		m.timelineOn = true
		var recs []*pb.Record
		for len(data) > 0 {
			n, k := binary.Uvarint(data)
			if k <= 0 || n > uint64(len(data)-k) {
				break
			}
			r := &pb.Record{}
			if proto.Unmarshal(data[k:k+int(n)], r) == nil {
				m.add(r)
				recs = append(recs, r)
			}
			data = data[k+int(n):]
		}
		code := newCodeCache(m, io.Discard, false)
		writeReport(io.Discard, m, code, 5, 16)
		if err := writeJSONReport(io.Discard, m, code, 5); err != nil {
			t.Fatal(err)
		}
		a := &annotator{m: m, code: code, w: io.Discard, stderr: io.Discard, files: map[string][]string{}}
		a.run("", false)
		a.run("", true)
		if p, err := buildProfile(m); err == nil {
			var buf bytes.Buffer
			if err := p.Write(&buf); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := writeTrace(io.Discard, m); err != nil {
			t.Fatal(err)
		}
		if _, err := writePerfetto(io.Discard, m); err != nil {
			t.Fatal(err)
		}
		writeLaunchTable(io.Discard, m)
		if err := writeJSONLaunches(io.Discard, m); err != nil {
			t.Fatal(err)
		}
		if err := pageTemplate.Execute(io.Discard, buildPage(m, code, io.Discard, "", 3, 3)); err != nil {
			t.Fatal(err)
		}
		d := buildDiff([]string{"a", "b"}, [2]*runModel{m, m}, [2]*codeCache{code, code}, 3)
		writeDiff(io.Discard, d)
		for _, r := range recs {
			remapRecord(r, idOffsets{device: 1, module: 1, kernel: 1, launch: 1, queue: 1, cmdList: 1})
		}
	})
}
