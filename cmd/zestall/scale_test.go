package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// writeSyntheticCapture writes, with the project's own stream writer, a
// capture shaped like a long loop of small kernels: one device with EU
// stall sampling, 50 kernels of 200 sampled instructions, n launches on
// four immediate command lists (flushed every 10^4 records, as the
// collector flushes every second), a stall read every 100 launches
// delivering rows for the kernels that ran (single-launch and shared
// attribution), a collection window over the whole run, and final
// counters.
func writeSyntheticCapture(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := stream.CreateExclusive(path)
	if err != nil {
		tb.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := stream.NewWriter(bw, nil)
	if err != nil {
		tb.Fatal(err)
	}
	put := func(r *pb.Record) {
		if err := pbstream.Write(w, r); err != nil {
			tb.Fatal(err)
		}
	}
	const kernels, offsets, cols = 50, 200, 9
	metrics := []*pb.Metric{{Name: "IP", MetricType: 0x7ffffffe}}
	for _, name := range []string{"Active", "ControlStall", "PipeStall", "SendStall", "DistStall", "SbidStall", "SyncStall", "InstrFetchStall", "OtherStall"} {
		metrics = append(metrics, &pb.Metric{Name: name, MetricType: 1})
	}
	t0 := uint64(1_000_000_000)
	put(&pb.Record{Kind: &pb.Record_Header{Header: &pb.Header{FormatVersion: 3, ToolVersion: "synthetic", Pid: 1, HostName: "synth",
		Argv: []string{"./loop", strconv.Itoa(n)}, StartHostNs: t0, StartUnixNs: 1_790_000_000_000_000_000,
		Devices: []*pb.Device{{Id: 1, Name: "Intel(R) Data Center GPU Max 1550", PciDeviceId: 0x0bd5, Platform: "PVC", XeCoreCount: 64,
			TimerFrequencyHz: 38_400_000, KernelTimestampValidBits: 32,
			StallSampling: &pb.StallSampling{Enabled: true, SamplingPeriodNs: 6526, RequestedPeriodNs: 10000, Metrics: metrics}}}}}})
	put(&pb.Record{Kind: &pb.Record_Module{Module: &pb.Module{Id: 1, DeviceId: 1}}})
	for k := 1; k <= kernels; k++ {
		put(&pb.Record{Kind: &pb.Record_Kernel{Kernel: &pb.Kernel{Id: uint64(k), ModuleId: 1, Name: fmt.Sprintf("kernel_%02d", k),
			BaseAddress: 0x800000000000 + uint64(k)<<16, IsaSize: 4096, ValidFromHostNs: t0}}})
	}
	put(&pb.Record{Kind: &pb.Record_Window{Window: &pb.Window{Edge: pb.WindowEdge_WINDOW_EDGE_START, HostNs: t0 + 1, Cause: pb.WindowCause_WINDOW_CAUSE_INIT}}})
	rng := rand.New(rand.NewPCG(1, 2))
	host := t0 + 1000
	var free [4]uint64
	var recent []*pb.Launch
	readStart := host
	records := 0
	for i := 1; i <= n; i++ {
		t := rng.IntN(4)
		host += 1000 + uint64(rng.IntN(5000))
		kid := uint64(1 + (i*7+t)%kernels)
		start := max(host+2000, free[t])
		dur := uint64(5000 + 100*kid + uint64(rng.IntN(2000)))
		free[t] = start + dur
		l := &pb.Launch{Id: uint64(i), KernelId: kid, DeviceId: 1, CommandListId: uint64(t + 1),
			Flags:       uint32(pb.LaunchFlag_LAUNCH_FLAG_IMMEDIATE | pb.LaunchFlag_LAUNCH_FLAG_TIMESTAMP_SWAPPED),
			GroupCountX: 256, GroupCountY: 1, GroupCountZ: 1, GroupSizeX: 64, GroupSizeY: 1, GroupSizeZ: 1,
			HostAppendNs: host, DeviceStartNs: start, DeviceEndNs: start + dur}
		put(&pb.Record{Kind: &pb.Record_Launch{Launch: l}})
		records++
		recent = append(recent, l)
		if i%100 == 0 {
			// One read: rows for the kernels of the last launches.
			for j, rl := range recent[:8] {
				offs := make([]uint64, 20)
				for o := range offs {
					offs[o] = uint64((int(rl.KernelId)*13 + o*9) % offsets * 16)
				}
				sortU64(offs)
				offs = dedupU64(offs)
				counts := make([]uint64, cols*len(offs))
				for c := range counts {
					counts[c] = uint64(rng.IntN(4))
				}
				s := &pb.StallRows{KernelId: rl.KernelId, DeviceId: 1, WindowStartHostNs: readStart, WindowEndHostNs: host,
					ColumnCount: cols, OffsetDeltas: stream.DeltaEncode(nil, offs), Counters: counts}
				if j%2 == 0 {
					s.Attribution, s.LaunchId = pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH, rl.Id
				} else {
					s.Attribution = pb.StallAttribution_STALL_ATTRIBUTION_SHARED
					s.CandidateLaunchIds = []uint64{rl.Id, rl.Id + 4}
				}
				put(&pb.Record{Kind: &pb.Record_StallRows{StallRows: s}})
				records++
			}
			recent, readStart = recent[:0], host
		}
		if records >= 10_000 {
			if err := w.Flush(); err != nil {
				tb.Fatal(err)
			}
			records = 0
		}
	}
	put(&pb.Record{Kind: &pb.Record_Window{Window: &pb.Window{Edge: pb.WindowEdge_WINDOW_EDGE_STOP, HostNs: host + 1, Cause: pb.WindowCause_WINDOW_CAUSE_EXIT}}})
	put(&pb.Record{Kind: &pb.Record_Counters{Counters: &pb.Counters{Final: true, HostNs: host + 2, LaunchesSeen: uint64(n), LaunchesTimed: uint64(n)}}})
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

func sortU64(v []uint64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

func dedupU64(v []uint64) []uint64 {
	out := v[:0]
	for i, x := range v {
		if i == 0 || x != v[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// TestScale measures report, annotate, pprof and trace (up to 10^6) on synthetic
// captures of ZESTALL_SCALE_LAUNCHES launches (comma-separated, e.g.
// 100000,1000000): peak RSS and wall time of each command in a child
// process. It checks what it measured (the report names every launch) and
// is skipped unless asked for: it takes minutes at 10^6.
func TestScale(t *testing.T) {
	spec := os.Getenv("ZESTALL_SCALE_LAUNCHES")
	if spec == "" {
		t.Skip("set ZESTALL_SCALE_LAUNCHES=100000,1000000 to measure (ZESTALL_SCALE_ONLY=TEXT: only the commands containing TEXT)")
	}
	dir := t.TempDir()
	for _, s := range splitComma(spec) {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("synth%d.zst", n))
		st := time.Now()
		writeSyntheticCapture(t, path, n)
		fi, _ := os.Stat(path)
		t.Logf("%d launches: %.1f MiB written in %.1f s", n, float64(fi.Size())/(1<<20), time.Since(st).Seconds())
		for _, args := range [][]string{
			{"report", "--no-disasm", path},
			{"report", "--json", "--no-disasm", path},
			{"annotate", "--no-disasm", "--kernel", "kernel_07", path},
			{"pprof", path, "-o", filepath.Join(dir, fmt.Sprintf("p%d.pb.gz", n))},
			{"trace", path, "-o", filepath.Join(dir, fmt.Sprintf("t%d.json", n))},
			{"trace", "--format=perfetto", path, "-o", filepath.Join(dir, fmt.Sprintf("t%d.pftrace", n))},
			{"trace", "--format=perfetto", "--max-launches", "100000", path, "-o", filepath.Join(dir, fmt.Sprintf("c%d.pftrace", n))},
			{"report", "--launches", "--kernel", "kernel_07", "--no-disasm", path},
			{"html", "--no-disasm", path, "-o", filepath.Join(dir, fmt.Sprintf("p%d.html", n))},
		} {
			if only := os.Getenv("ZESTALL_SCALE_ONLY"); only != "" && !strings.Contains(strings.Join(args, " "), only) {
				continue // measure only the commands that contain it
			}
			if args[0] == "trace" && args[2] != "--max-launches" && n > 1_000_000 {
				continue // about 100 bytes per launch kept in memory
			}
			st := time.Now()
			r := runChild(t, 0, nil, args...)
			el := time.Since(st)
			if r.code != 0 {
				t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
			}
			if args[0] == "report" && args[1] == "--no-disasm" {
				want := fmt.Sprintf("kernel launches seen: %d, with device times: %d", n, n)
				if !containsLine(r.stdout, want) {
					t.Fatalf("%v: report lacks %q", args, want)
				}
			}
			out := len(r.stdout)
			if args[len(args)-2] == "-o" {
				fi, err := os.Stat(args[len(args)-1])
				if err != nil {
					t.Fatal(err)
				}
				out = int(fi.Size())
			}
			t.Logf("%d launches: zestall %s %s: %.2f s wall, %.2f s CPU, peak RSS %d MiB, %d bytes of output (%.1f per launch)", n, args[0], args[1], el.Seconds(), r.cpu.Seconds(), r.maxRSS>>20, out, float64(out)/float64(n))
		}
	}
}

func splitComma(s string) (out []string) {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func containsLine(s, line string) bool {
	for _, l := range splitLines(s) {
		if l == line {
			return true
		}
	}
	return false
}

func splitLines(s string) (out []string) {
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// TestModelMemoryPerLaunch: what the model keeps grows by a few bytes per
// launch (its append time, for the collection windows), not by the launch
// records: the heap after loading 2·10^5 launches exceeds that after
// 2·10^4 by at most 6 bytes per added launch.
func TestModelMemoryPerLaunch(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 2.2·10^5 launches")
	}
	dir := t.TempDir()
	heapAfterLoad := func(n int) (uint64, *runModel) {
		path := filepath.Join(dir, fmt.Sprintf("s%d.zst", n))
		writeSyntheticCapture(t, path, n)
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := loadRuns([]string{path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), m
	}
	small, ms := heapAfterLoad(20_000)
	large, ml := heapAfterLoad(200_000)
	perLaunch := float64(int64(large)-int64(small)) / 180_000
	t.Logf("model heap: %d KiB at 2·10^4 launches, %d KiB at 2·10^5: %.1f bytes per added launch", small>>10, large>>10, perLaunch)
	if perLaunch > 6 {
		t.Errorf("%.1f bytes per launch kept by the model, bound 6", perLaunch)
	}
	if len(ms.stallOrder) == 0 || len(ml.stallOrder) > 3*len(ms.stallOrder) {
		t.Errorf("stall aggregates: %d at 2·10^4 launches, %d at 2·10^5 (bounded by kernels × instructions)", len(ms.stallOrder), len(ml.stallOrder))
	}
	runtime.KeepAlive(ms)
	runtime.KeepAlive(ml)
}
