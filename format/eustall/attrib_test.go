package eustall

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// refLookup is the attribution rule written as a linear scan over the
// ranges: the range with the greatest start <= addr (the later one on ties),
// a range crossing 2^32 continuing at 0; hit if addr is inside it.
func refLookup(ranges []KernelRange, addr uint32) (int, uint32, bool) {
	type ent struct {
		start uint32
		end   uint64
		k     int
		delta uint32
	}
	var best *ent
	for i, r := range ranges {
		if r.Size == 0 {
			continue
		}
		end := uint64(r.Base32) + uint64(r.Size)
		es := []ent{{r.Base32, min(end, 1<<32), i, 0}}
		if end > 1<<32 {
			es = append(es, ent{0, end - 1<<32, i, uint32(1<<32 - uint64(r.Base32))})
		}
		for _, e := range es {
			if e.start <= addr && (best == nil || e.start >= best.start) {
				e := e
				best = &e
			}
		}
	}
	if best == nil || uint64(addr) >= best.end {
		return -1, 0, false
	}
	return best.k, addr - best.start + best.delta, true
}

func checkIndex(t *testing.T, ranges []KernelRange, addrs []uint32) {
	t.Helper()
	x, err := NewAddrIndex(ranges)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		k, off, ok := x.Lookup(a)
		wk, woff, wok := refLookup(ranges, a)
		if k != wk || off != woff || ok != wok {
			t.Fatalf("ranges %v: Lookup(%#x) = %d, %#x, %v; reference %d, %#x, %v", ranges, a, k, off, ok, wk, woff, wok)
		}
	}
}

func TestAddrIndexRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 300; iter++ {
		n := rng.IntN(40)
		ranges := make([]KernelRange, n)
		// Mix: a packed pool, scattered kernels, overlaps, wrap-around.
		base := rng.Uint32()
		for i := range ranges {
			switch rng.IntN(4) {
			case 0, 1:
				ranges[i] = KernelRange{base, uint32(rng.IntN(0x2000))}
				base += uint32(rng.IntN(0x2400))
			case 2:
				ranges[i] = KernelRange{rng.Uint32(), uint32(rng.IntN(0x10000))}
			case 3:
				ranges[i] = KernelRange{0xFFFFFFFF - uint32(rng.IntN(0x100)), uint32(rng.IntN(0x400))}
			}
		}
		var addrs []uint32
		for _, r := range ranges {
			for _, d := range []uint32{0, 1, r.Size - 1, r.Size, r.Size + 1, ^uint32(0)} {
				addrs = append(addrs, r.Base32+d)
			}
		}
		for i := 0; i < 200; i++ {
			addrs = append(addrs, rng.Uint32(), base-uint32(rng.IntN(0x40000)))
		}
		addrs = append(addrs, 0, ^uint32(0))
		checkIndex(t, ranges, addrs)
	}
}

func FuzzAddrIndex(f *testing.F) {
	f.Add([]byte{0, 0x10, 0, 0, 0, 1, 0, 0, 0, 0x18, 0, 0, 0, 1, 0, 0}, uint32(0x1080))
	f.Fuzz(func(t *testing.T, spec []byte, addr uint32) {
		var ranges []KernelRange
		for len(spec) >= 8 && len(ranges) < 64 {
			ranges = append(ranges, KernelRange{binary.LittleEndian.Uint32(spec), binary.LittleEndian.Uint32(spec[4:])})
			spec = spec[8:]
		}
		addrs := []uint32{addr, 0, ^uint32(0)}
		for _, r := range ranges {
			addrs = append(addrs, r.Base32, r.Base32+r.Size-1, r.Base32+r.Size, addr+r.Base32)
		}
		checkIndex(t, ranges, addrs)
	})
}
