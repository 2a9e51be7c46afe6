// Package offheap gives zestall's long-lived, pointer-free buffers memory
// outside the Go heap: anonymous private mappings on Unix, which the
// kernel backs with pages only where they are written.
//
// Why: the Go garbage collector lets the heap grow to twice what is live
// (GOGC=100) before it collects, so every live byte of a buffer on the Go
// heap also makes room for a byte of garbage, and a buffer sized for the
// worst case counts fully even when little of it is used. A buffer here
// costs resident memory only for the pages written, and nothing towards
// the heap's goal (issue 14: zestall's memory with EU stall sampling).
//
// Used by collector/attribution (its launch store) and collector/sampling
// (the stall reader's read buffer). The memory must hold no Go pointers
// (the collector does not scan it) and is released with Free, or, for
// memory owned by a Go object, by a cleanup attached with runtime.AddCleanup.
// Builds with CGO_ENABLED=0.
package offheap

import "unsafe"

// Elem are the element types a buffer may hold: none is or holds a
// pointer.
type Elem interface {
	~byte | ~int32 | ~uint32 | ~uint64
}

// Make returns n zeroed elements outside the Go heap, or on the Go heap
// where the system offers no anonymous mapping (ok false: then Free does
// nothing and the garbage collector frees it).
func Make[T Elem](n int) (s []T, ok bool) {
	if n <= 0 {
		return nil, false
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	b, err := mapAnon(n * size)
	if err != nil {
		return make([]T, n), false
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n), true
}

// Free releases what Make returned with ok true. s must not be used after.
func Free[T Elem](s []T) {
	if cap(s) == 0 {
		return
	}
	var zero T
	s = s[:cap(s)]
	unmap(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), cap(s)*int(unsafe.Sizeof(zero))))
}
