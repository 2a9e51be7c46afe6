package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
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

// TestSharedRangesSameViews: a SHARED row's launches given as ranges of
// ids (STALL_ATTRIBUTION_SHARED_RANGES, schema revision 11) read the same
// as the list: every view of two real captures, rewritten with each
// SHARED row's list as ranges, equals the view of the original, and
// merging them offsets the ranges as the lists.
func TestSharedRangesSameViews(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	ranged := map[string]string{}
	for _, src := range []string{multi, serialized} {
		shared := 0
		r := rewriteCapture(t, src, "ranged.zst", func(r *pb.Record) {
			s := r.GetStallRows()
			if s == nil || s.Attribution != pb.StallAttribution_STALL_ATTRIBUTION_SHARED {
				return
			}
			shared++
			var rg []uint64
			for i, id := range s.CandidateLaunchIds {
				if i > 0 && id == rg[len(rg)-1]+1 {
					rg[len(rg)-1] = id
					continue
				}
				rg = append(rg, id, id)
			}
			s.Attribution, s.CandidateLaunchIds, s.CandidateLaunchIdRanges = pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES, nil, rg
		})
		if shared == 0 {
			t.Fatalf("%s has no SHARED row to rewrite", src)
		}
		ranged[src] = r
		for _, args := range [][]string{
			{"report"},
			{"report", "--json"},
			{"report", "--launches", "--limit", "5"},
			{"report", "--launches", "--json", "--kernel", "compute_poly"},
			{"annotate", "--no-disasm"},
		} {
			// The first line echoes the command (its file's name).
			_, want, _ := strings.Cut(cliResult(t, append(slices.Clone(args), src)), "\n")
			_, got, _ := strings.Cut(cliResult(t, append(slices.Clone(args), r)), "\n")
			got = strings.ReplaceAll(got, "$TMP/ranged.zst", src)
			if got != want {
				t.Errorf("%s %v: ranges read differently from the list:\n%s", src, args, diffLines(want, got))
			}
		}
	}
	// Merged, the second input's ranges move by the first's launch ids as
	// its lists do.
	dir := t.TempDir()
	var so, se bytes.Buffer
	lists, ranges := filepath.Join(dir, "lists.zst"), filepath.Join(dir, "ranges.zst")
	for _, m := range [][]string{{multi, serialized, lists}, {ranged[multi], ranged[serialized], ranges}} {
		if code := run([]string{"merge", m[0], m[1], "-o", m[2]}, &so, &se); code != 0 {
			t.Fatalf("merge: exit %d: %s", code, se.String())
		}
	}
	for _, args := range [][]string{{"report", "--launches", "--limit", "8"}, {"report", "--launches", "--json", "--kernel", "compute_poly"}} {
		_, want, _ := strings.Cut(cliResult(t, append(slices.Clone(args), lists)), "\n")
		_, got, _ := strings.Cut(cliResult(t, append(slices.Clone(args), ranges)), "\n")
		if got != strings.ReplaceAll(want, "lists.zst", "ranges.zst") {
			t.Errorf("merged %v: ranges read differently from the lists:\n%s", args, diffLines(want, got))
		}
	}
}
