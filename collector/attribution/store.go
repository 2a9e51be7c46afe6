package attribution

import (
	"runtime"

	"github.com/zestall/zestall/internal/offheap"
)

// launchStore holds the timed launches of one Attributor: one set of
// columns (28 bytes per launch) of the cap's size, outside the Go heap
// (internal/offheap: resident only where written, nothing towards the
// heap's goal), each kernel's launches chained through next in arrival
// order, freed entries reused first. Entries are taken up to a soft limit
// that starts at launchStoreMin and doubles, when the store is full after
// a prune, up to the cap (Options.MaxLaunchesHeld in force at the first
// timed launch): the pages written follow what the run needs, never more
// than the cap. Holding a launch allocates nothing, and the cap bounds
// what attribution keeps of past launches however far the reader falls
// behind (issue 14). The Attributor's mutex guards it.
type launchStore struct {
	id, start, end []uint64
	next           []int32 // next launch of the same kernel, or of the free list; -1 ends
	free           int32   // first free entry, -1 when none
	used           int32   // entries ever taken: [used, soft) are free too
	soft           int32   // entries that may be taken now
	n              int     // entries held
}

// full says whether a launch can be added without raising the soft limit.
func (s *launchStore) full() bool { return s.free < 0 && s.used == s.soft }

// raise doubles the soft limit, up to the cap; it maps the columns on the
// first call (released by a cleanup when owner is collected).
func (s *launchStore) raise(owner *Attributor, limit int) {
	if s.id == nil {
		limit = min(max(limit, 1), 1<<30)
		var cols launchColumns
		cols.id, cols.okID = offheap.Make[uint64](limit)
		cols.start, cols.okStart = offheap.Make[uint64](limit)
		cols.end, cols.okEnd = offheap.Make[uint64](limit)
		cols.next, cols.okNext = offheap.Make[int32](limit)
		s.id, s.start, s.end, s.next = cols.id, cols.start, cols.end, cols.next
		runtime.AddCleanup(owner, launchColumns.free, cols)
	}
	s.soft = int32(min(max(2*int(s.soft), launchStoreMin), len(s.id)))
}

// launchColumns are a store's mapped columns, for their cleanup.
type launchColumns struct {
	id, start, end               []uint64
	next                         []int32
	okID, okStart, okEnd, okNext bool
}

func (c launchColumns) free() {
	if c.okID {
		offheap.Free(c.id)
	}
	if c.okStart {
		offheap.Free(c.start)
	}
	if c.okEnd {
		offheap.Free(c.end)
	}
	if c.okNext {
		offheap.Free(c.next)
	}
}

// add appends a launch to k's chain. The store must not be full.
func (s *launchStore) add(k *atKernel, id, start, end uint64) {
	i := s.free
	if i >= 0 {
		s.free = s.next[i]
	} else {
		i = s.used
		s.used++
	}
	s.id[i], s.start[i], s.end[i], s.next[i] = id, start, end, -1
	if k.last >= 0 {
		s.next[k.last] = i
		if start < s.start[k.last] {
			k.unordered = true
		}
	} else {
		k.first = i
		k.unordered = false
	}
	k.last = i
	s.n++
}

// prune frees k's launches ending at or before lo and returns how many
// are left; it finds again whether those are in start order.
func (s *launchStore) prune(k *atKernel, lo uint64) int {
	left := 0
	prev := int32(-1)
	k.unordered = false
	for i := k.first; i >= 0; {
		nx := s.next[i]
		if s.end[i] > lo {
			if prev >= 0 && s.start[i] < s.start[prev] {
				k.unordered = true
			}
			left++
			prev = i
			i = nx
			continue
		}
		if prev >= 0 {
			s.next[prev] = nx
		} else {
			k.first = nx
		}
		if k.last == i {
			k.last = prev
		}
		s.release(i)
		i = nx
	}
	return left
}

// freeChain frees every launch of k (k is being forgotten).
func (s *launchStore) freeChain(k *atKernel) {
	for i := k.first; i >= 0; {
		nx := s.next[i]
		s.release(i)
		i = nx
	}
	k.first, k.last, k.unordered = -1, -1, false
}

func (s *launchStore) release(i int32) {
	s.next[i] = s.free
	s.free = i
	s.n--
}
