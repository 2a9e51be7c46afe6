package pbstream

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// A synthetic run shaped like a real one, for size and speed measurements:
// an iterative application on one device, four threads each appending to
// its own immediate command list, cycling through kernels with occasional
// detours, with per-kernel group sizes (sometimes another one) and per-kernel
// durations with jitter, all times in ns with full-resolution noise.

const (
	synthKernels  = 50
	synthLaunches = 100_000
	synthOffsets  = 200
	synthColumns  = 10
	synthFlushes  = 10 // frames the launches are spread over (a flush per "second")
)

type synthKernel struct {
	gsx, gsy, gsz uint32  // usual group size
	items         uint32  // work-items of a typical launch
	durNs         float64 // typical duration
}

func synthKernelSet(rng *rand.Rand) []synthKernel {
	shapes := [][3]uint32{{64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}, {16, 16, 1}, {8, 8, 4}, {32, 4, 1}}
	ks := make([]synthKernel, synthKernels)
	for i := range ks {
		s := shapes[rng.IntN(len(shapes))]
		ks[i] = synthKernel{
			gsx: s[0], gsy: s[1], gsz: s[2],
			items: uint32(1 << (14 + rng.IntN(10))),
			durNs: math.Exp(math.Log(5e3) + rng.Float64()*math.Log(400)), // 5 µs .. 2 ms
		}
	}
	return ks
}

// synthLaunchRecords returns the launches of the synthetic run in append
// order, in absolute form. Append times increase monotonically; so do the
// device times of each command list.
func synthLaunchRecords() []*pb.Record {
	rng := rand.New(rand.NewPCG(1, 2))
	ks := synthKernelSet(rng)
	const threads = 4
	recs := make([]*pb.Record, 0, synthLaunches)
	var hostNs uint64 = 1_234_567_890_123
	var queueFree [threads]uint64
	var next [threads]int
	for i := range next {
		next[i] = rng.IntN(synthKernels)
	}
	for i := 0; i < synthLaunches; i++ {
		t := rng.IntN(threads)
		hostNs += 1000 + uint64(rng.IntN(20_000)) // next append 1..21 µs later
		if queueFree[t] > hostNs+2_000_000 {
			// Like real applications, a thread waits for its queue
			// (zeCommandListHostSynchronize) rather than running
			// ahead of the device without bound.
			hostNs = queueFree[t] + 1000 + uint64(rng.IntN(5000))
		}
		// Threads mostly step through a 12-kernel cycle of their own.
		kid := next[t]
		if rng.IntN(5) == 0 {
			kid = rng.IntN(synthKernels)
		}
		next[t] = (kid + 1 + t*12) % synthKernels
		k := ks[kid]
		gsx, gsy, gsz := k.gsx, k.gsy, k.gsz
		if rng.IntN(10) == 0 {
			gsx, gsy, gsz = 32, 1, 1
		}
		items := k.items
		if rng.IntN(4) == 0 {
			items <<= rng.IntN(3)
		}
		groups := max(1, items/(gsx*gsy*gsz))
		start := max(hostNs+2000+uint64(rng.IntN(8000)), queueFree[t]+uint64(rng.IntN(500)))
		dur := uint64(k.durNs * (0.9 + 0.2*rng.Float64()))
		queueFree[t] = start + dur
		l := &pb.Launch{
			Id:            uint64(i + 1),
			KernelId:      uint64(kid + 1),
			DeviceId:      1,
			CommandListId: uint64(t + 1),
			Flags:         uint32(pb.LaunchFlag_LAUNCH_FLAG_TIMESTAMP_SWAPPED | pb.LaunchFlag_LAUNCH_FLAG_IMMEDIATE),
			GroupCountX:   groups,
			GroupCountY:   1,
			GroupCountZ:   1,
			GroupSizeX:    gsx,
			GroupSizeY:    gsy,
			GroupSizeZ:    gsz,
			HostAppendNs:  hostNs,
			DeviceStartNs: start,
			DeviceEndNs:   start + dur,
		}
		if rng.IntN(1000) == 0 {
			l.Flags = uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP | pb.LaunchFlag_LAUNCH_FLAG_IMMEDIATE)
			l.NoTimestampReason = pb.NoTimestampReason_NO_TIMESTAMP_REASON_POOL_EXHAUSTED
			l.DeviceStartNs, l.DeviceEndNs = 0, 0
		}
		recs = append(recs, &pb.Record{Kind: &pb.Record_Launch{Launch: l}})
	}
	return recs
}

// synthStallRecords returns one kernel-level StallRows per kernel with
// synthOffsets rows of synthColumns counters: instructions 8 or 16 bytes
// apart with unsampled gaps, sample counts with a few hot spots, most
// stall reasons rare.
func synthStallRecords() []*pb.Record {
	rng := rand.New(rand.NewPCG(3, 4))
	// Share of samples per reason (Active, then stalls), a typical mix.
	share := [synthColumns]float64{0.30, 0.02, 0.05, 0.12, 0.18, 0.08, 0.20, 0.03, 0.015, 0.005}
	recs := make([]*pb.Record, 0, synthKernels)
	for k := 0; k < synthKernels; k++ {
		offsets := make([]uint64, synthOffsets)
		var off uint64
		for i := range offsets {
			offsets[i] = off
			if rng.IntN(4) == 0 {
				off += 8
			} else {
				off += 16 * uint64(1+rng.IntN(3))
			}
		}
		counters := make([]uint64, synthColumns*synthOffsets)
		for i := 0; i < synthOffsets; i++ {
			total := rng.ExpFloat64() * 20
			if rng.IntN(20) == 0 {
				total *= 50 // hot spot
			}
			for j := 0; j < synthColumns; j++ {
				// Poisson-like count around the reason's share.
				mean := total * share[j] * (0.5 + rng.Float64())
				counters[j*synthOffsets+i] = uint64(mean + rng.Float64())
			}
		}
		recs = append(recs, &pb.Record{Kind: &pb.Record_StallRows{StallRows: &pb.StallRows{
			KernelId:     uint64(k + 1),
			DeviceId:     1,
			ColumnCount:  synthColumns,
			OffsetDeltas: stream.DeltaEncode(nil, offsets),
			Counters:     counters,
		}}})
	}
	return recs
}

// encode writes recs with a flush every `every` records (and at the end)
// and returns the file.
func encode(tb testing.TB, recs []*pb.Record, every int, opts *stream.WriterOptions) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := stream.NewWriter(&buf, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for i, r := range recs {
		if err := Write(w, r); err != nil {
			tb.Fatal(err)
		}
		if every > 0 && (i+1)%every == 0 {
			if err := w.Flush(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// synthSizes returns the compressed bytes per launch (compact and absolute
// form) and per stall row of the synthetic run.
func synthSizes(tb testing.TB) (perLaunch, perLaunchAbs, perRow float64) {
	launches := synthLaunchRecords()
	every := synthLaunches / synthFlushes
	compact := encode(tb, launches, every, nil)
	abs := encode(tb, launches, every, &stream.WriterOptions{AbsoluteLaunches: true})
	stall := encode(tb, synthStallRecords(), 0, nil)
	return float64(len(compact)) / synthLaunches,
		float64(len(abs)) / synthLaunches,
		float64(len(stall)) / (synthKernels * synthOffsets)
}
