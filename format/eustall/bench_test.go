package eustall

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// benchData returns n PVC records whose addresses fall in nk kernels of 4 KiB
// laid out back to back, as in an ISA pool (docs/eu-stall-sampling.md §8.5
// "Layout of kernels in GPU memory"), and the index.
func benchData(b *testing.B, n, nk int) ([]byte, *AddrIndex) {
	l, _ := LayoutOf(XeHPC)
	rng := rand.New(rand.NewPCG(3, 4))
	ranges := make([]KernelRange, nk)
	base := uint32(0x0001_0000)
	for i := range ranges {
		ranges[i] = KernelRange{Base32: base, Size: 0x1000}
		base += 0x1000 + 0x40
	}
	x, err := NewAddrIndex(ranges)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, n*RecordSize)
	raw := make([]uint8, len(l.Raw))
	for i := 0; i < n; i++ {
		k := ranges[rng.IntN(nk)]
		addr := k.Base32 + uint32(rng.IntN(int(k.Size)))&^7
		for j := range raw {
			raw[j] = uint8(rng.Uint32())
		}
		rec := encodeRecord(l, uint64(addr>>3), raw, 1, 0)
		buf = append(buf, rec[:]...)
	}
	return buf, x
}

const benchRecords = 1 << 16 // 4 MiB: one large streamer read

// measure runs body under b.Loop on a locked OS thread and reports
// records/s (wall clock) and records/cpu-s (CPU time of the thread, which
// stays meaningful when the machine is shared and wall time is not).
func measure(b *testing.B, bytes int, body func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.SetBytes(int64(bytes))
	b.ResetTimer()
	c0 := threadCPU()
	for b.Loop() {
		body()
	}
	c1 := threadCPU()
	n := float64(b.N) * float64(bytes/RecordSize)
	b.ReportMetric(n/b.Elapsed().Seconds(), "records/s")
	if c1 > c0 {
		b.ReportMetric(n/(c1-c0), "records/cpu-s")
	}
}

// BenchmarkDecodeAttribute is the collector's inner loop: decode each record
// and attribute it to a kernel and an offset. Compare it with BenchmarkMemcpy
// of the same bytes in the same run.
func BenchmarkDecodeAttribute(b *testing.B) {
	for _, nk := range []int{64, 1024} {
		b.Run(fmt.Sprintf("kernels=%d", nk), func(b *testing.B) {
			buf, x := benchData(b, benchRecords, nk)
			d, _ := NewDecoder(XeHPC, DriverMetricNames(XeHPC))
			var hist [64]uint64
			measure(b, len(buf), func() { decodeAttribute(d, x, buf, &hist) })
		})
	}
}

// decodeAttribute is the loop body of BenchmarkDecodeAttribute: decode every
// record, attribute it, and sum the first counter per kernel.
func decodeAttribute(d *Decoder, x *AddrIndex, buf []byte, hist *[64]uint64) {
	var r Record
	for i := 0; i+RecordSize <= len(buf); i += RecordSize {
		d.DecodeRecord((*[RecordSize]byte)(buf[i:]), &r)
		if k, _, ok := x.Lookup(r.ByteAddrLow32); ok {
			hist[k&63] += uint64(r.Counters[0])
		}
	}
}

// BenchmarkDecodeFuncAttribute is the same through the DecodeFunc callback.
func BenchmarkDecodeFuncAttribute(b *testing.B) {
	buf, x := benchData(b, benchRecords, 64)
	d, _ := NewDecoder(XeHPC, DriverMetricNames(XeHPC))
	var hist [64]uint64
	fn := func(_ int, r *Record) {
		if k, _, ok := x.Lookup(r.ByteAddrLow32); ok {
			hist[k&63] += uint64(r.Counters[0])
		}
	}
	measure(b, len(buf), func() { _ = d.DecodeFunc(buf, fn) })
}

// BenchmarkDecodeSlice decodes into a reused caller-provided slice.
func BenchmarkDecodeSlice(b *testing.B) {
	buf, _ := benchData(b, benchRecords, 64)
	d, _ := NewDecoder(Xe2, DriverMetricNames(Xe2))
	dst := make([]Record, 0, benchRecords)
	measure(b, len(buf), func() { dst, _ = d.Decode(dst[:0], buf) })
}

// BenchmarkMemcpy copies the same bytes: the in-run reference for the
// machine's memory bandwidth.
func BenchmarkMemcpy(b *testing.B) {
	buf, _ := benchData(b, benchRecords, 64)
	dst := make([]byte, len(buf))
	measure(b, len(buf), func() { copy(dst, buf) })
}
