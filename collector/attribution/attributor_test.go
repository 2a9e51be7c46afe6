package attribution_test

import (
	"github.com/zestall/zestall/collector/attribution"

	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/pbconv"
	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	zpb "github.com/zestall/zestall/proto/zestallpb"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

const never = math.MaxUint64

// smp is a sample at byte address addr: its IP field is addr >> 3, masked
// to 29 bits as on PVC.
func smp(addr uint64, c ...uint64) attribution.Sample {
	return attribution.Sample{IP: addr >> 3 & 0x1FFFFFFF, Counters: c}
}

// flatten turns records into sorted lines, one per row, checking column
// shapes and ascending offsets:
//
//	L k<kernel> l<launch> w<start>-<end> +<offset> [counters]
//	S k<kernel> <ids> w<start>-<end> +<offset> [counters]
//	K k<kernel> w<start>-<end> +<offset> [counters]     (summed over records)
//	U w<start>-<end> @<address> [counters]
func flatten(t testing.TB, recs []*pb.Record) []string {
	t.Helper()
	sums := map[string][]uint64{}
	add := func(key string, cs []uint64) {
		if s := sums[key]; s != nil {
			for j := range cs {
				s[j] += cs[j]
			}
			return
		}
		sums[key] = slices.Clone(cs)
	}
	cols := func(counters []uint64, c, n, i int) []uint64 {
		v := make([]uint64, c)
		for j := 0; j < c; j++ {
			v[j] = counters[j*n+i]
		}
		return v
	}
	for _, r := range recs {
		switch k := r.Kind.(type) {
		case *pb.Record_StallRows:
			s := k.StallRows
			n, c := len(s.OffsetDeltas), int(s.ColumnCount)
			if len(s.Counters) != n*c || n == 0 {
				t.Fatalf("bad shape: %v", s)
			}
			var prefix string
			switch s.Attribution {
			case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH:
				prefix = fmt.Sprintf("L k%d l%d", s.KernelId, s.LaunchId)
			case pb.StallAttribution_STALL_ATTRIBUTION_SHARED:
				if !slices.IsSorted(s.CandidateLaunchIds) || len(s.CandidateLaunchIds) < 2 {
					t.Fatalf("bad candidates: %v", s)
				}
				prefix = fmt.Sprintf("S k%d %v", s.KernelId, s.CandidateLaunchIds)
			case pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES:
				r := s.CandidateLaunchIdRanges
				if len(s.CandidateLaunchIds) != 0 || len(r) < 2 || len(r)%2 != 0 {
					t.Fatalf("bad candidate ranges: %v", s)
				}
				n := uint64(0)
				for i := 0; i < len(r); i += 2 {
					n += r[i+1] - r[i] + 1
				}
				if 2*len(r) > 2*int(n) || n < 16 {
					t.Fatalf("ranges %v for %d launches: a list would do", r, n)
				}
				for i := 0; i < len(r); i += 2 {
					if r[i] > r[i+1] || i > 0 && r[i] <= r[i-1]+1 {
						t.Fatalf("candidate ranges not ascending, disjoint and apart: %v", r)
					}
				}
				prefix = fmt.Sprintf("R k%d %v", s.KernelId, r)
			default:
				prefix = fmt.Sprintf("K k%d", s.KernelId)
				if s.WindowStartHostNs != 0 || s.WindowEndHostNs != 0 || s.LaunchId != 0 {
					t.Fatalf("kernel row with window or launch: %v", s)
				}
			}
			offs := stream.DeltaDecode(nil, s.OffsetDeltas)
			for i, off := range offs {
				if i > 0 && off <= offs[i-1] {
					t.Fatalf("offsets not strictly ascending: %v", offs)
				}
				add(fmt.Sprintf("%s w%d-%d +%#x", prefix, s.WindowStartHostNs, s.WindowEndHostNs, off), cols(s.Counters, c, n, i))
			}
		case *pb.Record_Unattributed:
			u := k.Unattributed
			n, c := len(u.AddressDeltas), int(u.ColumnCount)
			if len(u.Counters) != n*c || n == 0 {
				t.Fatalf("bad shape: %v", u)
			}
			addrs := stream.DeltaDecode(nil, u.AddressDeltas)
			for i, ad := range addrs {
				if i > 0 && ad <= addrs[i-1] {
					t.Fatalf("addresses not strictly ascending: %v", addrs)
				}
				add(fmt.Sprintf("U w%d-%d @%#x", u.WindowStartHostNs, u.WindowEndHostNs, ad), cols(u.Counters, c, n, i))
			}
		default:
			t.Fatalf("unexpected record %T", r.Kind)
		}
	}
	var lines []string
	for k, v := range sums {
		lines = append(lines, fmt.Sprintf("%s %v", k, v))
	}
	slices.Sort(lines)
	return lines
}

const (
	baseA = 0x0000_8000_0001_0000 // above 4 GiB
	baseB = 0x0000_8000_0002_0000
)

func TestAttributor(t *testing.T) {
	type tc struct {
		name string
		opt  attribution.Options
		run  func(a *attribution.Attributor) []*pb.Record
		want []string
		amb  uint64 // AmbiguousKernelRows
	}
	resolve := func(a *attribution.Attributor) []*pb.Record { return a.Resolve(never, true) }
	cases := []tc{
		{name: "single launch", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 100, 150)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x20, 3, 4), smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"L k1 l10 w90-200 +0x10 [1 2]",
			"L k1 l10 w90-200 +0x20 [3 4]",
		}},
		{name: "concurrent launches of different kernels", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.KernelCreated(2, baseB, 0x100, 10)
			a.LaunchTimed(10, 1, 100, 180)
			a.LaunchTimed(11, 2, 120, 190)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2), smp(baseB+0x10, 5, 6)})
			return resolve(a)
		}, want: []string{
			"L k1 l10 w90-200 +0x10 [1 2]",
			"L k2 l11 w90-200 +0x10 [5 6]",
		}},
		{name: "overlapping launches of one kernel", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(11, 1, 120, 190)
			a.LaunchTimed(10, 1, 100, 180)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"S k1 [10 11] w90-200 +0x10 [1 2]",
		}},
		{name: "launches back to back named as one range", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			for i := uint64(0); i < 20; i++ {
				a.LaunchTimed(10+i, 1, 100+5*i, 104+5*i)
			}
			a.AddWindow(90, 300, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"R k1 [10 29] w90-300 +0x10 [1 2]",
		}},
		{name: "two runs of launches named as two ranges", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			for i := uint64(0); i < 10; i++ {
				a.LaunchTimed(10+i, 1, 100+5*i, 104+5*i)
				a.LaunchTimed(30+i, 1, 200+5*i, 204+5*i)
			}
			a.AddWindow(90, 300, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"R k1 [10 19 30 39] w90-300 +0x10 [1 2]",
		}},
		{name: "fifteen launches stay a list", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			for i := uint64(0); i < 15; i++ {
				a.LaunchTimed(10+i, 1, 100+5*i, 104+5*i)
			}
			a.AddWindow(90, 300, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"S k1 [10 11 12 13 14 15 16 17 18 19 20 21 22 23 24] w90-300 +0x10 [1 2]",
		}},
		{name: "launches interleaved with another kernel's stay a list", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.KernelCreated(2, baseB, 0x100, 10)
			for i := uint64(0); i < 10; i++ {
				a.LaunchTimed(10+2*i, 1, 100+10*i, 104+10*i)
				a.LaunchTimed(11+2*i, 2, 105+10*i, 109+10*i)
			}
			for i := uint64(0); i < 10; i++ {
				a.LaunchTimed(30+i, 1, 200+5*i, 204+5*i)
			}
			a.AddWindow(90, 300, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			// 20 launches in 11 runs: ranges would take 22 numbers.
			"S k1 [10 12 14 16 18 20 22 24 26 28 30 31 32 33 34 35 36 37 38 39] w90-300 +0x10 [1 2]",
		}},
		{name: "sequential launches in separate windows", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 100, 150)
			a.LaunchTimed(11, 1, 210, 260)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			a.AddWindow(200, 300, []attribution.Sample{smp(baseA+0x10, 3, 4)})
			return resolve(a)
		}, want: []string{
			"L k1 l10 w90-200 +0x10 [1 2]",
			"L k1 l11 w200-300 +0x10 [3 4]",
		}},
		{name: "address reuse after destroy", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 100, 150)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			a.KernelDestroyed(1, 205)
			a.KernelCreated(2, baseA+0x40, 0x100, 210) // overlaps the old range
			a.LaunchTimed(20, 2, 310, 350)
			a.AddWindow(300, 400, []attribution.Sample{smp(baseA+0x50, 3, 4), smp(baseA+0x20, 5, 6)})
			return resolve(a)
		}, want: []string{
			"L k1 l10 w90-200 +0x10 [1 2]",
			"L k2 l20 w300-400 +0x10 [3 4]",
			"U w300-400 @0x10020 [5 6]",
		}},
		{name: "reuse inside one window, launches decide", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 100, 140)
			a.KernelDestroyed(1, 150)
			a.KernelCreated(2, baseA, 0x100, 160)
			a.AddWindow(90, 300, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"L k1 l10 w90-300 +0x10 [1 2]",
		}},
		{name: "reuse inside one window, ambiguous", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 100, 140)
			a.KernelDestroyed(1, 150)
			a.KernelCreated(2, baseA, 0x100, 160)
			a.LaunchTimed(20, 2, 170, 180)
			a.AddWindow(90, 300, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			// Both kernels ran code at this address in the window: the
			// samples are shared by both launches (never guessed).
			"S k2 [10 20] w90-300 +0x10 [1 2]",
		}, amb: 1},
		{name: "sample outside any kernel", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.AddWindow(90, 200, []attribution.Sample{smp(0x1234_5678, 1, 2), smp(0x0FFF_FFF8, 3, 4)})
			return resolve(a)
		}, want: []string{
			"U w90-200 @0xffffff8 [3 4]",
			"U w90-200 @0x12345678 [1 2]",
		}},
		{name: "range edges", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)   // last instruction at +0xf8
			a.KernelCreated(2, baseB, 0x101, 10)   // base+size-1 = +0x100 is inside
			a.KernelCreated(3, baseB+0x1000, 0, 0) // size unknown: matches nothing
			a.AddWindow(90, 200, []attribution.Sample{
				smp(baseA, 1, 0), smp(baseA+0xf8, 2, 0), smp(baseA+0x100, 3, 0), smp(baseA-8, 4, 0),
				smp(baseB+0x100, 5, 0), smp(baseB+0x108, 6, 0), smp(baseB+0x1000, 7, 0),
			})
			return resolve(a)
		}, want: []string{
			"K k1 w0-0 +0x0 [1 0]",
			"K k1 w0-0 +0xf8 [2 0]",
			"K k2 w0-0 +0x100 [5 0]",
			"U w90-200 @0x10100 [3 0]",
			"U w90-200 @0xfff8 [4 0]",
			"U w90-200 @0x20108 [6 0]",
			"U w90-200 @0x21000 [7 0]",
		}},
		{name: "bases above 4 GiB and ranges wrapping 2^32", run: func(a *attribution.Attributor) []*pb.Record {
			// The worked example of docs/eu-stall-sampling.md §8.2 "Canonical rule
			// and worked example".
			a.KernelCreated(1, 0x0000_8000_0001_2300, 0x200, 10)
			a.KernelCreated(2, 0x0000_0001_FFFF_FF00, 0x200, 10) // low 32 bits wrap
			a.AddWindow(90, 200, []attribution.Sample{
				{IP: 0x2478, Counters: []uint64{1, 1}},          // 0x123c0 → k1 +0xc0
				{IP: 0xFFFFFF80 >> 3, Counters: []uint64{2, 2}}, // k2 +0x80
				{IP: 0x80 >> 3, Counters: []uint64{3, 3}},       // k2 +0x180
				{IP: 0x100 >> 3, Counters: []uint64{4, 4}},      // past k2's end
			})
			return resolve(a)
		}, want: []string{
			"K k1 w0-0 +0xc0 [1 1]",
			"K k2 w0-0 +0x180 [3 3]",
			"K k2 w0-0 +0x80 [2 2]",
			"U w90-200 @0x100 [4 4]",
		}},
		{name: "untimed launch gives kernel level", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchUntimed(9, 1, 50)
			a.LaunchTimed(10, 1, 100, 150)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"K k1 w0-0 +0x10 [1 2]",
		}},
		{name: "never-timed launch gives kernel level", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchNeverTimed(9, 1, 50)
			a.LaunchTimed(10, 1, 100, 150)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"K k1 w0-0 +0x10 [1 2]",
		}},
		{name: "never-timed launch appended after the window", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchNeverTimed(12, 1, 250)
			a.LaunchTimed(10, 1, 100, 150)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"L k1 l10 w90-200 +0x10 [1 2]",
		}},
		{name: "untimed launch known to have ended", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchUntimed(9, 1, 50)
			a.UntimedEndedBy(9, 1, 80)
			a.LaunchUntimed(12, 1, 250) // appended after the window
			a.LaunchTimed(10, 1, 100, 150)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"L k1 l10 w90-200 +0x10 [1 2]",
		}},
		{name: "no launch known", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 300, 350)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"K k1 w0-0 +0x10 [1 2]",
		}},
		{name: "launch before the window, no slack", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 50, 90)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"K k1 w0-0 +0x10 [1 2]",
		}},
		{name: "launch before the window, slack", opt: attribution.Options{SlackNs: 10}, run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 50, 85)
			a.LaunchTimed(11, 1, 40, 80) // ends exactly at start − slack: out
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"L k1 l10 w90-200 +0x10 [1 2]",
		}},
		{name: "launch margin: a launch starting just after the window", opt: attribution.Options{LaunchMarginNs: 5}, run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 100, 150)
			a.LaunchTimed(11, 1, 204, 250) // converted start may be 5 ns late: could be in (90, 200]
			a.LaunchTimed(12, 1, 206, 250) // starts after 200 even 5 ns earlier
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"S k1 [10 11] w90-200 +0x10 [1 2]",
		}},
		{name: "launch margin: a launch ending just before the window", opt: attribution.Options{LaunchMarginNs: 5, SlackNs: 10}, run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 20, 76) // + 5 ns margin ends after 90 − 10
			a.LaunchTimed(11, 1, 20, 75) // ends at 80 with the margin: out
			a.LaunchTimed(12, 1, 100, 150)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			return resolve(a)
		}, want: []string{
			"S k1 [10 12] w90-200 +0x10 [1 2]",
		}},
		{name: "kernel destroyed before the window", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.KernelDestroyed(1, 91) // alive until 90 inclusive: not in (90, 200]
			a.KernelCreated(2, baseB, 0x100, 10)
			a.KernelDestroyed(2, 92)                    // alive at 91
			a.KernelCreated(3, baseB+0x100, 0x100, 200) // created at the window's end
			a.KernelCreated(4, baseB+0x200, 0x100, 201)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2), smp(baseB+0x10, 3, 4), smp(baseB+0x110, 5, 6), smp(baseB+0x210, 7, 8)})
			return resolve(a)
		}, want: []string{
			"K k2 w0-0 +0x10 [3 4]",
			"K k3 w0-0 +0x10 [5 6]",
			"U w90-200 @0x10010 [1 2]",
			"U w90-200 @0x20210 [7 8]",
		}},
		{name: "duplicate IPs summed, IP 0", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.LaunchTimed(10, 1, 100, 150)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1, 2), smp(0, 0, 0), smp(baseA+0x10, 3, 4), smp(0, 1, 0), smp(0x4000, 1, 1), smp(0x4000, 2, 2)})
			return resolve(a)
		}, want: []string{
			"L k1 l10 w90-200 +0x10 [4 6]",
			"U w90-200 @0x0 [1 0]",
			"U w90-200 @0x4000 [3 3]",
		}},
		{name: "kernel rows merged across windows", run: func(a *attribution.Attributor) []*pb.Record {
			a.KernelCreated(1, baseA, 0x100, 10)
			a.AddWindow(0, 100, []attribution.Sample{smp(baseA+0x10, 1, 2)})
			a.AddWindow(100, 200, []attribution.Sample{smp(baseA+0x10, 3, 4), smp(baseA+0x8, 1, 1)})
			recs := resolve(a)
			if len(recs) != 1 {
				panic(fmt.Sprintf("%d records, want 1", len(recs)))
			}
			return recs
		}, want: []string{
			"K k1 w0-0 +0x10 [4 6]",
			"K k1 w0-0 +0x8 [1 1]",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := attribution.New(1, nil, 2)
			a.SetOptions(c.opt)
			recs := c.run(a)
			got := flatten(t, recs)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
			tot := a.Totals()
			if tot.AmbiguousKernelRows != c.amb {
				t.Errorf("ambiguous rows %d, want %d", tot.AmbiguousKernelRows, c.amb)
			}
			checkTotals(t, tot, recs)
			if tot.WindowsUndecided != 0 {
				t.Errorf("%d windows undecided after final", tot.WindowsUndecided)
			}
			for _, r := range recs {
				if s, ok := r.Kind.(*pb.Record_StallRows); ok && (s.StallRows.DeviceId != 1 || s.StallRows.SubDeviceIndex != nil) {
					t.Errorf("device fields: %v", s.StallRows)
				}
			}
		})
	}
}

// checkTotals checks that the records hold exactly the totals.
func checkTotals(t *testing.T, tot attribution.Totals, recs []*pb.Record) {
	t.Helper()
	m := len(tot.AttributedCounters)
	att, un := make([]uint64, m), make([]uint64, m)
	for _, r := range recs {
		switch k := r.Kind.(type) {
		case *pb.Record_StallRows:
			for i, v := range k.StallRows.Counters {
				att[i/len(k.StallRows.OffsetDeltas)] += v
			}
		case *pb.Record_Unattributed:
			for i, v := range k.Unattributed.Counters {
				un[i/len(k.Unattributed.AddressDeltas)] += v
			}
		}
	}
	if !slices.Equal(att, tot.AttributedCounters) || !slices.Equal(un, tot.UnattributedCounters) {
		t.Errorf("record sums %v/%v, totals %v/%v", att, un, tot.AttributedCounters, tot.UnattributedCounters)
	}
	if tot.AttributedRows+tot.UnattributedRows+tot.ZeroIPRows != tot.InputRows {
		t.Errorf("rows: %d attributed + %d unattributed + %d zero != %d in", tot.AttributedRows, tot.UnattributedRows, tot.ZeroIPRows, tot.InputRows)
	}
	if tot.WindowsUndecided == 0 && tot.LaunchRows+tot.SharedRows+tot.KernelRows != tot.AttributedRows {
		t.Errorf("rows: %d launch + %d shared + %d kernel != %d attributed", tot.LaunchRows, tot.SharedRows, tot.KernelRows, tot.AttributedRows)
	}
}

func TestAttributorResolveWaits(t *testing.T) {
	a := attribution.New(1, nil, 1)
	a.KernelCreated(1, baseA, 0x100, 10)
	a.LaunchTimed(10, 1, 100, 150)
	a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1)})
	a.AddWindow(200, 300, []attribution.Sample{smp(baseA+0x10, 2)})
	for _, p := range []uint64{0, 150, 200} {
		if recs := a.Resolve(p, false); len(recs) != 0 {
			t.Fatalf("Resolve(%d) decided %v", p, flatten(t, recs))
		}
	}
	// Launch 11, appended at 200, gets its times; nothing else is pending
	// before 250.
	a.LaunchTimed(11, 1, 240, 260)
	got := flatten(t, a.Resolve(250, false))
	if want := []string{"L k1 l10 w90-200 +0x10 [1]"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if n := a.Totals().WindowsUndecided; n != 1 {
		t.Fatalf("%d undecided, want 1", n)
	}
	if recs := a.Resolve(300, false); len(recs) != 0 {
		t.Fatalf("decided too early: %v", flatten(t, recs))
	}
	got = flatten(t, a.Resolve(0, true)) // final: everything
	if want := []string{"L k1 l11 w200-300 +0x10 [2]"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if tot := a.Totals(); tot.WindowsDecided != 2 || tot.WindowsUndecided != 0 || tot.LaunchRows != 2 {
		t.Fatalf("totals %+v", tot)
	}
}

func TestAttributorUndecidedCap(t *testing.T) {
	a := attribution.New(1, nil, 1)
	a.SetOptions(attribution.Options{MaxUndecided: 2})
	a.KernelCreated(1, baseA, 0x100, 10)
	for i := uint64(0); i < 4; i++ {
		a.LaunchTimed(10+i, 1, 100*i+10, 100*i+20)
		a.AddWindow(100*i, 100*(i+1), []attribution.Sample{smp(baseA+0x10, i+1)})
	}
	tot := a.Totals()
	if tot.WindowsForced != 2 || tot.WindowsUndecided != 2 {
		t.Fatalf("forced %d undecided %d, want 2 and 2", tot.WindowsForced, tot.WindowsUndecided)
	}
	got := flatten(t, a.Resolve(never, true))
	want := []string{
		"K k1 w0-0 +0x10 [3]", // windows 1 and 2: launches could still be pending
		"L k1 l12 w200-300 +0x10 [3]",
		"L k1 l13 w300-400 +0x10 [4]",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	// Once Resolve said nothing is pending, the cap decides normally.
	a.AddWindow(400, 500, []attribution.Sample{smp(baseA+0x10, 1)})
	a.LaunchTimed(14, 1, 410, 420)
	a.AddWindow(500, 600, nil)
	a.AddWindow(600, 700, []attribution.Sample{smp(baseA+0x10, 1)})
	a.AddWindow(700, 800, []attribution.Sample{smp(baseA+0x10, 1)}) // pushes window 4 out
	got = flatten(t, a.Resolve(0, false))
	if want := []string{"L k1 l14 w400-500 +0x10 [1]"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestAttributorValuesAndSubDevice(t *testing.T) {
	sub := uint32(1)
	for _, ipIndex := range []int{0, 1, 3} {
		a := attribution.New(2, &sub, 3)
		b := attribution.New(2, &sub, 3)
		for _, x := range []*attribution.Attributor{a, b} {
			x.KernelCreated(1, baseA, 0x100, 10)
			x.LaunchTimed(10, 1, 100, 150)
		}
		reps := [][]uint64{{baseA + 0x10, 1, 2, 3}, {baseA + 0x18, 4, 5, 6}, {0x40, 7, 8, 9}}
		var values []uint64
		var samples []attribution.Sample
		for _, r := range reps {
			row := slices.Clone(r[1:])
			row = slices.Insert(row, ipIndex, r[0]>>3)
			values = append(values, row...)
			samples = append(samples, smp(r[0], r[1:]...))
		}
		a.AddWindowValues(90, 200, values, ipIndex)
		b.AddWindow(90, 200, samples)
		ra, rb := a.Resolve(never, true), b.Resolve(never, true)
		if !slices.Equal(flatten(t, ra), flatten(t, rb)) || len(ra) != 2 {
			t.Fatalf("ipIndex %d: %v vs %v", ipIndex, flatten(t, ra), flatten(t, rb))
		}
		for _, r := range ra {
			var d uint32
			var s *uint32
			switch k := r.Kind.(type) {
			case *pb.Record_StallRows:
				d, s = k.StallRows.DeviceId, k.StallRows.SubDeviceIndex
			case *pb.Record_Unattributed:
				d, s = k.Unattributed.DeviceId, k.Unattributed.SubDeviceIndex
			}
			if d != 2 || s == nil || *s != 1 {
				t.Fatalf("device %d sub %v", d, s)
			}
		}
	}
}

func TestAttributorBadWidth(t *testing.T) {
	a := attribution.New(1, nil, 2)
	a.KernelCreated(1, baseA, 0x100, 10)
	a.AddWindow(90, 200, []attribution.Sample{smp(baseA, 1), smp(baseA+8, 1, 2, 3)})
	got := flatten(t, a.Resolve(never, true))
	if want := []string{"K k1 w0-0 +0x0 [1 0]", "K k1 w0-0 +0x8 [1 2]"}; !slices.Equal(got, want) {
		t.Fatalf("got %v", got)
	}
	if n := a.Totals().BadWidthRows; n != 2 {
		t.Fatalf("bad width rows %d", n)
	}
}

// scenario is a random run: kernels in address slots (some above 4 GiB,
// one wrapping 2^32), reused after destroy; launches timed and untimed;
// windows of 100 ns with samples at random addresses.
type scenario struct {
	slack    uint64
	kernels  []scKernel
	launches []scLaunch
	windows  []scWindow
}

type scKernel struct {
	id, base, size, from, until uint64
}

type scLaunch struct {
	id, kernel, appendNs, start, end uint64
	untimed                          bool
	endedBy                          uint64 // untimed: 0 = unknown
	knownAt                          uint64 // when the attributor learns it
}

type scWindow struct {
	start, end uint64
	samples    []attribution.Sample
}

// checkInputSums checks that every counter column's attributed and
// unattributed sums add up to the scenario's input.
func (sc *scenario) checkInputSums(t *testing.T, what string, tot attribution.Totals) {
	t.Helper()
	var in [3]uint64
	for _, w := range sc.windows {
		for _, s := range w.samples {
			for j, v := range s.Counters {
				in[j] += v
			}
		}
	}
	for j := range in {
		if tot.AttributedCounters[j]+tot.UnattributedCounters[j] != in[j] {
			t.Fatalf("%s column %d: %d + %d != %d input", what, j, tot.AttributedCounters[j], tot.UnattributedCounters[j], in[j])
		}
	}
}

func newScenario(seed uint64, nWindows int) *scenario {
	rng := rand.New(rand.NewPCG(seed, 7))
	sc := &scenario{slack: []uint64{0, 30}[rng.IntN(2)]}
	bases := []uint64{0x0000_0001_FFFF_F000} // wraps in the low 32 bits
	for i := 0; i < 15; i++ {
		bases = append(bases, 0x0000_8000_0010_0000+uint64(i)*0x3000)
	}
	span := uint64(nWindows) * 100
	var kid, lid uint64
	for _, b := range bases {
		t := uint64(rng.IntN(200))
		for t < span {
			kid++
			k := scKernel{id: kid, base: b + uint64(rng.IntN(4))*8, size: uint64(0x800 + rng.IntN(0x1000)), from: t, until: never}
			life := uint64(200 + rng.IntN(3000))
			if t+life < span {
				k.until = t + life
			}
			sc.kernels = append(sc.kernels, k)
			// Launches inside the lifetime.
			for n := rng.IntN(8); n > 0; n-- {
				lid++
				end := min(k.until, span+500)
				start := k.from + uint64(rng.IntN(int(end-k.from)))
				l := scLaunch{id: lid, kernel: kid, start: start, end: min(start+uint64(1+rng.IntN(150)), end)}
				l.appendNs = sat(l.start, uint64(rng.IntN(50)))
				l.appendNs = max(l.appendNs, k.from)
				l.knownAt = l.end + uint64(rng.IntN(300))
				if rng.IntN(15) == 0 {
					l.untimed = true
					l.knownAt = l.appendNs + uint64(rng.IntN(300))
					if rng.IntN(2) == 0 {
						l.endedBy = l.end + uint64(rng.IntN(100))
					}
				}
				sc.launches = append(sc.launches, l)
			}
			if k.until == never {
				break
			}
			t = k.until + 250 + uint64(rng.IntN(500)) // no two kernels of a slot in one window
		}
	}
	slices.SortFunc(sc.launches, func(x, y scLaunch) int { return int(int64(x.knownAt - y.knownAt)) })
	for i := 0; i < nWindows; i++ {
		w := scWindow{start: uint64(i) * 100, end: uint64(i+1) * 100}
		for n := rng.IntN(40); n > 0; n-- {
			b := bases[rng.IntN(len(bases))]
			addr := b + uint64(rng.IntN(0x2000))&^7
			if rng.IntN(10) == 0 {
				addr = uint64(rng.Uint32()) &^ 7
			}
			w.samples = append(w.samples, smp(addr, uint64(rng.IntN(5)), uint64(rng.IntN(100)), 1))
		}
		sc.windows = append(sc.windows, w)
	}
	return sc
}

// expect computes the flattened result by brute force.
func (sc *scenario) expect(t testing.TB) []string {
	var recs []*pb.Record
	for _, w := range sc.windows {
		lo := sat(w.start, sc.slack)
		type kw struct {
			k    uint64
			offs map[uint64][]uint64
		}
		byK := map[uint64]map[uint64][]uint64{}
		ua := map[uint64][]uint64{}
		for _, s := range w.samples {
			addr := uint32(s.IP << 3)
			var hit *scKernel
			for i := range sc.kernels {
				k := &sc.kernels[i]
				if uint64(addr-uint32(k.base)) < k.size && k.from <= w.end && k.until > lo+1 {
					if hit != nil {
						t.Fatalf("scenario has two kernels at %#x in window %d", addr, w.end)
					}
					hit = k
				}
			}
			if hit == nil {
				addSum(ua, s.IP<<3, s.Counters)
				continue
			}
			if byK[hit.id] == nil {
				byK[hit.id] = map[uint64][]uint64{}
			}
			addSum(byK[hit.id], uint64(addr-uint32(hit.base)), s.Counters)
		}
		for kid, offs := range byK {
			var ids []uint64
			untimed := false
			for _, l := range sc.launches {
				if l.kernel != kid {
					continue
				}
				if l.untimed {
					eb := l.endedBy
					if eb == 0 {
						eb = never
					}
					untimed = untimed || (l.appendNs <= w.end && eb > lo)
				} else if l.start <= w.end && l.end > lo {
					ids = append(ids, l.id)
				}
			}
			slices.Sort(ids)
			s := &pb.StallRows{KernelId: kid, ColumnCount: 3, WindowStartHostNs: w.start, WindowEndHostNs: w.end}
			switch {
			case untimed || len(ids) == 0:
				s.WindowStartHostNs, s.WindowEndHostNs = 0, 0
			case len(ids) == 1:
				s.Attribution, s.LaunchId = pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH, ids[0]
			default:
				s.Attribution, s.CandidateLaunchIds = pb.StallAttribution_STALL_ATTRIBUTION_SHARED, ids
			}
			s.OffsetDeltas, s.Counters = columns(offs)
			recs = append(recs, &pb.Record{Kind: &pb.Record_StallRows{StallRows: s}})
		}
		if len(ua) > 0 {
			u := &pb.Unattributed{ColumnCount: 3, WindowStartHostNs: w.start, WindowEndHostNs: w.end}
			u.AddressDeltas, u.Counters = columns(ua)
			recs = append(recs, &pb.Record{Kind: &pb.Record_Unattributed{Unattributed: u}})
		}
	}
	return flatten(t, recs)
}

func addSum(m map[uint64][]uint64, key uint64, cs []uint64) {
	if m[key] == nil {
		m[key] = make([]uint64, len(cs))
	}
	for j, v := range cs {
		m[key][j] += v
	}
}

func columns(m map[uint64][]uint64) (deltas, counters []uint64) {
	var keys []uint64
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	n := len(keys)
	c := len(m[keys[0]])
	counters = make([]uint64, c*n)
	for i, k := range keys {
		for j := 0; j < c; j++ {
			counters[j*n+i] = m[k][j]
		}
	}
	return stream.DeltaEncode(nil, keys), counters
}

// play runs the scenario through an attribution.Attributor the way the layer does:
// kernels and launches reported as they happen or become known, Resolve
// after every read with the pending horizon. It returns every record
// written, Kernel and Launch records included, in file order.
func (sc *scenario) play(a *attribution.Attributor, resolveEvery int) (stall []*pb.Record, all []*pb.Record) {
	return sc.playFed(a, resolveEvery, false)
}

// playFed is play; batched gives the timed launches to Launches in
// batches, as the harvester hands them over (each batch also holds a
// launch of another device, which the attributor skips), instead of one
// LaunchTimed each: a batch goes before the window's kernel events and
// before every Resolve, as the harvester's goes by the end of its pass.
func (sc *scenario) playFed(a *attribution.Attributor, resolveEvery int, batched bool) (stall []*pb.Record, all []*pb.Record) {
	var batch []stream.Launch
	timed := func(l scLaunch) {
		if !batched {
			a.LaunchTimed(l.id, l.kernel, l.start, l.end)
			return
		}
		batch = append(batch, stream.Launch{Id: l.id, KernelId: l.kernel, DeviceId: 1, HostAppendNs: l.appendNs, DeviceStartNs: l.start, DeviceEndNs: l.end})
		if l.id%3 == 0 {
			batch = append(batch, stream.Launch{Id: l.id, KernelId: l.kernel, DeviceId: 2, DeviceStartNs: 1, DeviceEndNs: 2})
		}
	}
	flush := func() {
		if len(batch) == 0 {
			return
		}
		a.Launches(1, batch)
		batch = batch[:0]
	}
	type kev struct {
		at     uint64
		create bool
		k      *scKernel
	}
	var kevs []kev
	for i := range sc.kernels {
		k := &sc.kernels[i]
		kevs = append(kevs, kev{k.from, true, k})
		if k.until != never {
			kevs = append(kevs, kev{k.until, false, k})
		}
	}
	slices.SortStableFunc(kevs, func(x, y kev) int { return int(int64(x.at - y.at)) })
	ki, li := 0, 0
	emit := func(recs []*pb.Record) {
		stall = append(stall, recs...)
		all = append(all, recs...)
	}
	for wi, w := range sc.windows {
		flush()
		for ; ki < len(kevs) && kevs[ki].at <= w.end; ki++ {
			e := kevs[ki]
			if e.create {
				a.KernelCreated(e.k.id, e.k.base, e.k.size, e.k.from)
				all = append(all, &pb.Record{Kind: &pb.Record_Kernel{Kernel: &pb.Kernel{Id: e.k.id, BaseAddress: e.k.base, IsaSize: e.k.size, ValidFromHostNs: e.k.from}}})
			} else {
				a.KernelDestroyed(e.k.id, e.k.until)
				all = append(all, &pb.Record{Kind: &pb.Record_KernelDestroyed{KernelDestroyed: &pb.KernelDestroyed{Id: e.k.id, ValidUntilHostNs: e.k.until}}})
			}
		}
		a.AddWindow(w.start, w.end, w.samples)
		for ; li < len(sc.launches) && sc.launches[li].knownAt <= w.end; li++ {
			l := sc.launches[li]
			rec := &pb.Launch{Id: l.id, KernelId: l.kernel, DeviceId: 1, HostAppendNs: l.appendNs}
			if l.untimed {
				a.LaunchUntimed(l.id, l.kernel, l.appendNs)
				if l.endedBy != 0 {
					a.UntimedEndedBy(l.id, l.kernel, l.endedBy)
				}
				rec.Flags = uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
			} else {
				timed(l)
				rec.DeviceStartNs, rec.DeviceEndNs = l.start, l.end
			}
			all = append(all, &pb.Record{Kind: &pb.Record_Launch{Launch: rec}})
		}
		if resolveEvery > 0 && wi%resolveEvery == 0 {
			flush()
			pending := uint64(never)
			for _, l := range sc.launches[li:] {
				pending = min(pending, l.appendNs)
			}
			emit(a.Resolve(pending, false))
		}
	}
	for ; li < len(sc.launches); li++ {
		l := sc.launches[li]
		if l.untimed {
			a.LaunchUntimed(l.id, l.kernel, l.appendNs)
			if l.endedBy != 0 {
				a.UntimedEndedBy(l.id, l.kernel, l.endedBy)
			}
		} else {
			timed(l)
		}
	}
	flush()
	emit(a.Resolve(never, true))
	return stall, all
}

func TestAttributorRandom(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		sc := newScenario(seed, 300)
		want := sc.expect(t)
		for _, every := range []int{1, 7, 0} {
			a := attribution.New(1, nil, 3)
			a.SetOptions(attribution.Options{SlackNs: sc.slack, KernelFlushNs: 1000})
			recs, _ := sc.play(a, every)
			got := flatten(t, recs)
			if !slices.Equal(got, want) {
				diffLines(t, fmt.Sprintf("seed %d every %d slack %d", seed, every, sc.slack), got, want)
			}
			tot := a.Totals()
			checkTotals(t, tot, recs)
			sc.checkInputSums(t, fmt.Sprintf("seed %d", seed), tot)
			if tot.AmbiguousKernelRows != 0 || tot.WindowsForced != 0 || tot.LaunchesUnknownKernel != 0 {
				t.Fatalf("seed %d: totals %+v", seed, tot)
			}
		}
	}
}

func diffLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	var extra, missing []string
	for _, g := range got {
		if _, ok := slices.BinarySearch(want, g); !ok {
			extra = append(extra, g)
		}
	}
	for _, w := range want {
		if _, ok := slices.BinarySearch(got, w); !ok {
			missing = append(missing, w)
		}
	}
	t.Fatalf("%s: extra\n\t%s\nmissing\n\t%s", what, strings.Join(extra, "\n\t"), strings.Join(missing, "\n\t"))
}

// The records go through the file format unchanged.
func TestAttributorRoundTrip(t *testing.T) {
	sc := newScenario(99, 300)
	a := attribution.New(1, nil, 3)
	stall, all := sc.play(a, 3)
	if len(stall) == 0 {
		t.Fatal("no stall records")
	}
	var buf bytes.Buffer
	w, err := stream.NewWriter(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&pb.Record{Kind: &pb.Record_Header{Header: &pb.Header{FormatVersion: 1}}})
	for i, r := range all {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, r := range stall {
		if s, ok := r.Kind.(*pb.Record_StallRows); ok {
			rows += len(s.StallRows.OffsetDeltas)
		}
	}
	back, err := pbstream.ReadAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var gotStall []*zpb.Record
	for _, r := range back {
		switch r.Kind.(type) {
		case *zpb.Record_StallRows, *zpb.Record_Unattributed:
			gotStall = append(gotStall, r)
		}
	}
	if len(gotStall) != len(stall) {
		t.Fatalf("%d stall records back, want %d", len(gotStall), len(stall))
	}
	for i := range stall {
		if !proto.Equal(gotStall[i], pbconv.RecordFromWire(stall[i])) {
			t.Fatalf("record %d: got %v, want %v", i, gotStall[i], stall[i])
		}
	}
	t.Logf("%d records, %d stall records, %d kernel-offset rows, file %d bytes", len(all), len(stall), rows, buf.Len())
}

// benchSetup returns an attribution.Attributor with nk kernels of 8 KiB each and
// windows of rows samples, ascending IPs (as the driver delivers them).
func benchSetup(nk, rows, nwin int) (*attribution.Attributor, [][]attribution.Sample) {
	a := attribution.New(1, nil, 9)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < nk; k++ {
		a.KernelCreated(uint64(k+1), baseA+uint64(k)*0x2000, 0x2000, 0)
	}
	wins := make([][]attribution.Sample, nwin)
	for w := range wins {
		ss := make([]attribution.Sample, rows)
		flat := make([]uint64, rows*9)
		for i := range ss {
			addr := baseA + uint64(rng.IntN(nk*0x2000+0x1000))&^7
			c := flat[i*9 : (i+1)*9 : (i+1)*9]
			for j := range c {
				c[j] = uint64(rng.IntN(4))
			}
			ss[i] = attribution.Sample{IP: addr >> 3, Counters: c}
		}
		slices.SortFunc(ss, func(x, y attribution.Sample) int { return int(int64(x.IP - y.IP)) })
		wins[w] = ss
	}
	return a, wins
}

// BenchmarkAddWindow measures the reader goroutine's per-read cost: rows
// (one per sampled IP and read) attributed per second, AddWindow alone and
// with the decisions (Resolve) included.
func BenchmarkAddWindow(b *testing.B) {
	// 1000 kernels; reads of 4096 distinct IPs every ms; KERNEL rows
	// flushed every second (default).
	const nk, rows, nwin, winNs = 1000, 4096, 2, 1_000_000
	for _, withResolve := range []bool{false, true} {
		name := "AddWindow"
		if withResolve {
			name = "AddWindow+Resolve"
		}
		b.Run(name, func(b *testing.B) {
			a, wins := benchSetup(nk, rows, nwin)
			t := uint64(0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%4 == 0 {
					// A launch of each of a few kernels per batch of reads.
					for k := 0; k < 4; k++ {
						a.LaunchTimed(uint64(i*4+k+1), uint64((i+k*250)%nk+1), t+1, t+4*winNs)
					}
				}
				a.AddWindow(t, t+winNs, wins[i%nwin])
				t += winNs
				if i%4 == 3 { // Resolve after every 4th read
					if !withResolve {
						b.StopTimer()
					}
					a.Resolve(never, false)
					if !withResolve {
						b.StartTimer()
					}
				}
			}
			b.StopTimer()
			a.Resolve(never, true)
			b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
		})
	} // The driver's flat value array (IP first), as the reader gets it from
	// the calculation, without building Samples.
	b.Run("AddWindowValues", func(b *testing.B) {
		a, wins := benchSetup(nk, rows, nwin)
		flat := make([][]uint64, nwin)
		for w, ss := range wins {
			for _, s := range ss {
				flat[w] = append(append(flat[w], s.IP), s.Counters...)
			}
		}
		t := uint64(0)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			a.AddWindowValues(t, t+winNs, flat[i%nwin], 0)
			t += winNs
			if i%4 == 3 {
				b.StopTimer()
				a.Resolve(never, false)
				b.StartTimer()
			}
		}
		b.StopTimer()
		a.Resolve(never, true)
		b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
	})
}

func TestAttributorScenarioMix(t *testing.T) {
	sc := newScenario(5, 300)
	kinds := map[byte]int{}
	for _, l := range sc.expect(t) {
		kinds[l[0]]++
	}
	t.Logf("rows by kind: L %d S %d K %d U %d", kinds['L'], kinds['S'], kinds['K'], kinds['U'])
	for _, k := range "LSKU" {
		if kinds[byte(k)] == 0 {
			t.Errorf("scenario has no %c rows", k)
		}
	}
}

// TestAttributorSize reports the compressed bytes per (kernel, offset) row
// of a typical run: 50 kernels of 4 KiB launched one after another on one
// queue (so most windows give LAUNCH rows), reads every 200 µs, each read
// seeing ~150 of the running kernel's instructions.
func TestAttributorSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := attribution.New(1, nil, 9)
	const nk, win = 50, 200_000
	for k := 0; k < nk; k++ {
		a.KernelCreated(uint64(k+1), baseA+uint64(k)*0x1000, 0x1000, 0)
	}
	var recs []*pb.Record
	rows := 0
	now, lid := uint64(0), uint64(0)
	for round := 0; round < 20; round++ {
		for k := 0; k < nk; k++ {
			lid++
			dur := uint64(300_000 + rng.IntN(2_000_000))
			a.LaunchTimed(lid, uint64(k+1), now+1000, now+1000+dur)
			for end := now + 1000 + dur; now < end; now += win {
				var ss []attribution.Sample
				for off := uint64(0); off < 0x1000; off += 8 {
					if rng.IntN(512/150) == 0 {
						c := make([]uint64, 9)
						for j := range c {
							if rng.IntN(3) == 0 {
								c[j] = uint64(rng.ExpFloat64() * 5)
							}
						}
						ss = append(ss, smp(baseA+uint64(k)*0x1000+off, c...))
					}
				}
				a.AddWindow(now, now+win, ss)
			}
			recs = append(recs, a.Resolve(now, false)...)
		}
	}
	recs = append(recs, a.Resolve(never, true)...)
	for _, r := range recs {
		if s, ok := r.Kind.(*pb.Record_StallRows); ok {
			rows += len(s.StallRows.OffsetDeltas)
		}
	}
	var buf bytes.Buffer
	w, _ := stream.NewWriter(&buf, nil)
	for i, r := range recs {
		w.Write(r)
		if i%5000 == 4999 {
			w.Flush()
		}
	}
	w.Close()
	tot := a.Totals()
	per := float64(buf.Len()) / float64(rows)
	t.Logf("%d records, %d rows (%d launch, %d shared, %d kernel input rows): %.2f bytes per row",
		len(recs), rows, tot.LaunchRows, tot.SharedRows, tot.KernelRows, per)
	if per > 8 {
		t.Errorf("%.2f bytes per row, target 8", per)
	}
}

// A long run with kernel churn: what the attributor holds stays bounded,
// and the result is still exact.
func TestAttributorPrune(t *testing.T) {
	sc := newScenario(3, 3000)
	want := sc.expect(t)
	a := attribution.New(1, nil, 3)
	a.SetOptions(attribution.Options{SlackNs: sc.slack})
	recs, _ := sc.play(a, 1)
	if got := flatten(t, recs); !slices.Equal(got, want) {
		diffLines(t, "prune", got, want)
	}
	tot := a.Totals()
	nk, nl := tot.KernelsHeld, tot.LaunchesHeld
	t.Logf("%d kernels and %d launches in the run; %d kernels and %d launches held at the end", len(sc.kernels), len(sc.launches), nk, nl)
	if nk > 300 || nl > 1000 {
		t.Errorf("holding %d kernels and %d launches", nk, nl)
	}
}

// TestAttributorNeverTimedBounded: a long run's untimed launches (the
// harvester's: never bounded) are held as one time per kernel, not one
// entry per launch (issue 14: memory bounded by what is live).
func TestAttributorNeverTimedBounded(t *testing.T) {
	a := attribution.New(1, nil, 2)
	a.KernelCreated(1, baseA, 0x100, 10)
	for i := uint64(0); i < 100000; i++ {
		a.LaunchNeverTimed(100+i, 1, 1000+i)
	}
	tot := a.Totals()
	if tot.LaunchesHeld != 0 {
		t.Errorf("holding %d launch entries, want 0", tot.LaunchesHeld)
	}
	// The earliest never-timed append (1000) is what counts: a window
	// ending before it is decided by its timed launch, one after it stays
	// at kernel level.
	a.LaunchTimed(1, 1, 500, 600)
	a.AddWindow(500, 700, []attribution.Sample{smp(baseA+8, 1)})
	a.AddWindow(1100, 1200, []attribution.Sample{smp(baseA+8, 1)})
	a.Resolve(never, true)
	if tot := a.Totals(); tot.LaunchRows != 1 || tot.KernelRows != 1 {
		t.Errorf("launch rows %d, kernel rows %d; want 1 and 1", tot.LaunchRows, tot.KernelRows)
	}
	if tot := a.Totals(); tot.LaunchesUntimed != 100000 {
		t.Errorf("LaunchesUntimed %d, want 100000", tot.LaunchesUntimed)
	}
}

// TestAttributorOtherProcesses: windows taken while other processes run
// kernels on the device flag their rows possibly foreign (LAUNCH, SHARED
// and KERNEL rows alike) and give unattributed rows the other-process
// cause with the pids; with no other process the cause is driver-internal,
// and unknown when the driver could not say. Nothing is moved or dropped.
func TestAttributorOtherProcesses(t *testing.T) {
	type window struct {
		others []uint32
		known  bool
	}
	for _, c := range []struct {
		name        string
		w           window
		wantForeign bool
		wantCause   pb.UnattributedCause
		wantPids    []uint32
	}{
		{"alone", window{nil, true}, false, pb.UnattributedCause_UNATTRIBUTED_CAUSE_DRIVER_INTERNAL, nil},
		{"not known", window{nil, false}, false, pb.UnattributedCause_UNATTRIBUTED_CAUSE_UNKNOWN, nil},
		{"others", window{[]uint32{7, 9}, true}, true, pb.UnattributedCause_UNATTRIBUTED_CAUSE_OTHER_PROCESS, []uint32{7, 9}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := attribution.New(1, nil, 1)
			a.KernelCreated(1, baseA, 0x100, 10)
			a.KernelCreated(2, baseB, 0x100, 10)
			a.LaunchTimed(10, 1, 100, 150)
			a.LaunchUntimed(20, 2, 50) // kernel 2: KERNEL rows
			a.SetOtherProcesses(c.w.others, c.w.known)
			a.AddWindow(90, 200, []attribution.Sample{smp(baseA+0x10, 1), smp(baseB+0x10, 2), smp(0x7000_0000, 3)})
			// A later window alone: flags belong to windows, not to the attributor's state at decision.
			a.SetOtherProcesses(nil, true)
			a.AddWindow(200, 300, []attribution.Sample{smp(baseA+0x10, 4)})
			recs := a.Resolve(never, true)
			var foreign, plain, unattr int
			for _, r := range recs {
				switch k := r.Kind.(type) {
				case *pb.Record_StallRows:
					s := k.StallRows
					// kernel 1: LAUNCH in the first window, KERNEL rows (window 0-0) from the second
					// only; kernel 2: KERNEL rows from the first only.
					inFirst := s.WindowEndHostNs == 200 || s.KernelId == 2
					if s.PossiblyForeign != (c.wantForeign && inFirst) {
						t.Errorf("kernel %d window %d-%d: possibly_foreign %v", s.KernelId, s.WindowStartHostNs, s.WindowEndHostNs, s.PossiblyForeign)
					}
					if s.PossiblyForeign {
						foreign += len(s.OffsetDeltas)
					} else {
						plain += len(s.OffsetDeltas)
					}
				case *pb.Record_Unattributed:
					u := k.Unattributed
					unattr += len(u.AddressDeltas)
					if u.Cause != c.wantCause || !slices.Equal(u.OtherPids, c.wantPids) {
						t.Errorf("unattributed cause %v pids %v, want %v %v", u.Cause, u.OtherPids, c.wantCause, c.wantPids)
					}
				}
			}
			tot := a.Totals()
			checkTotals(t, tot, recs)
			wantForeignRows := uint64(0)
			if c.wantForeign {
				wantForeignRows = 2
			}
			if uint64(foreign) != wantForeignRows || tot.PossiblyForeignRows != wantForeignRows || foreign+plain != 3 || unattr != 1 {
				t.Errorf("rows: %d foreign (totals %d), %d plain, %d unattributed", foreign, tot.PossiblyForeignRows, plain, unattr)
			}
			if want := map[bool]uint64{true: 1, false: 0}[c.wantForeign]; tot.UnattributedOtherRows != want {
				t.Errorf("unattributed other-process rows %d, want %d", tot.UnattributedOtherRows, want)
			}
			var cnt pb.Counters
			tot.AddTo(&cnt)
			if cnt.StallRowsPossiblyForeign != wantForeignRows {
				t.Errorf("Counters.stall_rows_possibly_foreign %d", cnt.StallRowsPossiblyForeign)
			}
		})
	}
}

// TestNoSamplesLetsLaunchesGo: a device that produces no EU stall samples
// (kernels shorter than the sampling period) still lets the attributor
// drop the timed launches it holds, once reads that found nothing pass
// them: memory is bounded by the window, not by the run (issue 14).
func TestNoSamplesLetsLaunchesGo(t *testing.T) {
	a := attribution.New(1, nil, 2)
	a.SetOptions(attribution.Options{SlackNs: 1000})
	a.KernelCreated(1, 0x1000, 0x100, 0)
	const n = 100000
	for i := uint64(1); i <= n; i++ {
		ns := i * 100 // one launch every 100 ns
		a.LaunchTimed(i, 1, ns, ns+50)
		if i%1000 == 0 {
			a.NoSamplesUntil(ns)
			a.Resolve(ns, false)
		}
	}
	if held := a.Totals().LaunchesHeld; held > 4096 {
		t.Errorf("%d of %d timed launches still held after reads that found no samples", held, n)
	}
	if tot := a.Totals(); tot.LaunchesTimed != n {
		t.Errorf("%d launches timed, want %d", tot.LaunchesTimed, n)
	}
}

func sat(x, y uint64) uint64 {
	if x < y {
		return 0
	}
	return x - y
}
