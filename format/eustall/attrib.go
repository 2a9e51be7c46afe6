package eustall

import (
	"cmp"
	"fmt"
	"slices"
)

// KernelRange is the code of one kernel as the attribution sees it: the low
// 32 bits of its GPU base address (zexKernelGetBaseAddress & 0xFFFFFFFF) and
// its ISA size in bytes (the size of its .text.<name> section).
type KernelRange struct {
	Base32 uint32
	Size   uint32
}

// AddrIndex maps the low 32 bits of a sampled byte address
// (Record.ByteAddrLow32) to a kernel and an offset in it
// (docs/eu-stall-sampling.md §8.2 "Canonical rule and worked example"):
// the kernel with the greatest base ≤ addr whose range contains addr, as
// unitrace does. Ranges that cross a 4 GiB boundary of the 32-bit space are
// split and still work. An AddrIndex is immutable and safe for concurrent use.
//
// Lookup costs O(1) on average: a bucket table over the span of the bases
// narrows the search to the few ranges starting near addr, which are then
// binary-searched without branches.
type AddrIndex struct {
	start []uint32    // sorted entry starts
	info  []addrEntry // parallel to start
	// Buckets: bucket b covers [lo + b<<shift, lo + (b+1)<<shift); first[b] is
	// the last entry with start <= lo + b<<shift. len(first) = buckets+1, and
	// first[buckets] = len(start)-1.
	lo    uint32
	shift uint
	first []int32
}

type addrEntry struct {
	start  uint32
	delta  uint32 // offset of start within the kernel
	end    uint64 // exclusive end (start + length)
	kernel int32  // index into the ranges given to NewAddrIndex
}

// NewAddrIndex builds an index over ranges; Lookup returns indices into
// ranges. Empty ranges are ignored.
func NewAddrIndex(ranges []KernelRange) (*AddrIndex, error) {
	if len(ranges) > 1<<30 {
		return nil, fmt.Errorf("eustall: too many kernel ranges (%d)", len(ranges))
	}
	es := make([]addrEntry, 0, len(ranges))
	for i, r := range ranges {
		if r.Size == 0 {
			continue
		}
		end := uint64(r.Base32) + uint64(r.Size)
		if end <= 1<<32 {
			es = append(es, addrEntry{r.Base32, 0, end, int32(i)})
			continue
		}
		first := uint32(1<<32 - uint64(r.Base32))
		es = append(es, addrEntry{r.Base32, 0, 1 << 32, int32(i)})
		es = append(es, addrEntry{0, first, end - 1<<32, int32(i)})
	}
	slices.SortStableFunc(es, func(a, b addrEntry) int { return cmp.Compare(a.start, b.start) })
	x := &AddrIndex{start: make([]uint32, len(es)), info: es}
	for i, e := range es {
		x.start[i] = e.start
	}
	if len(es) == 0 {
		return x, nil
	}
	// At most about two buckets per entry.
	x.lo = es[0].start
	span := uint64(es[len(es)-1].start - x.lo)
	for span>>x.shift >= 2*uint64(len(es)) {
		x.shift++
	}
	nb := int(span>>x.shift) + 1
	x.first = make([]int32, nb+1)
	j := 0
	for b := 0; b < nb; b++ {
		at := uint64(x.lo) + uint64(b)<<x.shift
		for j+1 < len(es) && uint64(es[j+1].start) <= at {
			j++
		}
		x.first[b] = int32(j)
	}
	x.first[nb] = int32(len(es) - 1)
	return x, nil
}

// Lookup returns the kernel (an index into the ranges given to NewAddrIndex)
// whose code contains addr and the byte offset of addr in it. When several
// ranges start at the same address the last one given wins. It does not
// allocate.
func (x *AddrIndex) Lookup(addr uint32) (kernel int, offset uint32, ok bool) {
	if len(x.start) == 0 || addr < x.lo {
		return -1, 0, false
	}
	// Candidates: entries first[b] ..= first[b+1]; first[b] starts at or
	// below addr. Past the last bucket only the last entry is a candidate.
	b := uint64(addr-x.lo) >> x.shift
	nb := uint64(len(x.first) - 1)
	b = min(b, nb)
	lo := int(x.first[b])
	hi := int(x.first[min(b+1, nb)])
	// Last entry in [lo, hi] with start <= addr, without branches: sampled
	// addresses are close to random, so a branchy search would mispredict
	// about every other step (and the compiler does not emit CMOV for
	// loop-carried values).
	s := x.start[lo : hi+1]
	base, n := 0, len(s)
	for n > 1 {
		half := n >> 1
		le := int((uint64(s[base+half]) - uint64(addr) - 1) >> 63) // 1 if s[base+half] <= addr
		base += half & -le
		n -= half
	}
	e := &x.info[lo+base]
	if uint64(addr) >= e.end {
		return -1, 0, false
	}
	return int(e.kernel), addr - e.start + e.delta, true
}
