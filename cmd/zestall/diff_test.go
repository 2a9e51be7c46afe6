package main

import (
	"path/filepath"
	"testing"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// rewriteCapture writes a copy of a capture with edit applied to every
// record.
func rewriteCapture(t *testing.T, src, name string, edit func(*pb.Record)) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	out, err := stream.CreateExclusive(dst)
	if err != nil {
		t.Fatal(err)
	}
	w, err := stream.NewWriter(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range readCapture(t, src) {
		edit(r)
		if err := pbstream.Write(w, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return dst
}

// TestDiff: goldens of a comparison of two real captures (same code), of
// a capture against one whose compute_poly module changed (compared by
// source line) and whose stream_triad is renamed (one side only), and
// a run compared with itself changes nothing.
func TestDiff(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	changed := rewriteCapture(t, serialized, "changed.zst", func(r *pb.Record) {
		if m := r.GetModule(); m != nil && len(m.ContentHash) > 0 {
			m.ContentHash = append([]byte(nil), m.ContentHash...)
			m.ContentHash[0] ^= 0xff
		}
		if k := r.GetKernel(); k != nil && k.Name == "stream_triad" {
			k.Name = "stream_triad_v2"
		}
	})
	checkGolden(t, "diff_multi_serialized", cliResult(t, []string{"diff", "--no-disasm", multi, serialized}))
	checkGolden(t, "diff_json", cliResult(t, []string{"diff", "--json", "--top", "2", "--no-disasm", multi, serialized}))
	got := cliResult(t, []string{"diff", "--no-disasm", serialized, changed})
	checkGolden(t, "diff_changed_code", got)

	var d jsonDiff
	same := rewriteCapture(t, multi, "same.zst", func(*pb.Record) {})
	decode(t, []string{"diff", "--json", "--no-disasm", multi, same}, &d)
	for _, k := range d.Kernels {
		if k.Code != "same" || len(k.Changed) != 0 || k.Old.Samples != k.New.Samples || k.Old.DeviceNs != k.New.DeviceNs {
			t.Errorf("a run against itself: %+v", k)
		}
	}
	decode(t, []string{"diff", "--json", "--no-disasm", serialized, changed}, &d)
	codes := map[string]string{}
	for _, k := range d.Kernels {
		codes[k.Name] = k.Code + "/" + k.By
	}
	if codes["compute_poly"] != "changed/source line" || codes["stream_triad"] != "old only/" || codes["stream_triad_v2"] != "new only/" {
		t.Errorf("matching: %v", codes)
	}
}
