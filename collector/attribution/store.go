package attribution

// launchStore holds the timed launches of one Attributor: one set of
// columns (28 bytes per launch) reused through a free list, each kernel's
// launches chained through next in arrival order. It starts at
// launchStoreMin entries and doubles, when full after a prune, up to the
// cap (Options.MaxLaunchesHeld); it never shrinks. Holding a launch
// allocates nothing once the store has grown to what the run needs, and
// the store's size bounds what attribution keeps of past launches,
// however far the reader falls behind (issue 14). The Attributor's mutex
// guards it.
type launchStore struct {
	id, start, end []uint64
	next           []int32 // next launch of the same kernel, or of the free list; -1 ends
	free           int32   // first free entry, -1 when none
	n              int     // entries held
}

// full says whether a launch can be added without growing the store.
func (s *launchStore) full() bool { return s.free < 0 }

// grow doubles the store, up to limit entries; nothing once at the limit.
func (s *launchStore) grow(limit int) {
	old := len(s.id)
	size := min(max(2*old, launchStoreMin), limit)
	if size <= old {
		return
	}
	grow := func(c []uint64) []uint64 { return append(c, make([]uint64, size-old)...) }
	s.id, s.start, s.end = grow(s.id), grow(s.start), grow(s.end)
	s.next = append(s.next, make([]int32, size-old)...)
	// Chain the new entries onto the free list (which is empty: the store
	// grows only when full).
	for i := old; i < size-1; i++ {
		s.next[i] = int32(i + 1)
	}
	s.next[size-1] = s.free
	s.free = int32(old)
}

// add appends a launch to k's chain. The store must not be full.
func (s *launchStore) add(k *atKernel, id, start, end uint64) {
	i := s.free
	s.free = s.next[i]
	s.id[i], s.start[i], s.end[i], s.next[i] = id, start, end, -1
	if k.last >= 0 {
		s.next[k.last] = i
	} else {
		k.first = i
	}
	k.last = i
	s.n++
}

// prune frees k's launches ending at or before lo and returns how many
// are left.
func (s *launchStore) prune(k *atKernel, lo uint64) int {
	left := 0
	prev := int32(-1)
	for i := k.first; i >= 0; {
		nx := s.next[i]
		if s.end[i] > lo {
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
	k.first, k.last = -1, -1
}

func (s *launchStore) release(i int32) {
	s.next[i] = s.free
	s.free = i
	s.n--
}
