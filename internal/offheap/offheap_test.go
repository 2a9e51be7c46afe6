package offheap

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestMakeFree: the memory is zeroed, writable, outside the Go heap
// (allocating it adds nothing to the heap) and resident only where
// written.
func TestMakeFree(t *testing.T) {
	tests := []struct {
		name string
		make func() (free func(), ok bool)
	}{
		{"bytes", func() (func(), bool) {
			s, ok := Make[byte](1 << 20)
			if len(s) != 1<<20 || s[0] != 0 || s[len(s)-1] != 0 {
				t.Fatalf("len %d", len(s))
			}
			s[len(s)-1] = 7
			return func() { Free(s) }, ok
		}},
		{"uint64s", func() (func(), bool) {
			s, ok := Make[uint64](1 << 17)
			if len(s) != 1<<17 || s[0] != 0 {
				t.Fatalf("len %d", len(s))
			}
			s[100] = 1 << 60
			if s[100] != 1<<60 {
				t.Fatal("not kept")
			}
			return func() { Free(s) }, ok
		}},
		{"int32s", func() (func(), bool) {
			s, ok := Make[int32](3)
			s[2] = -1
			return func() { Free(s) }, ok
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			free, ok := tc.make()
			runtime.ReadMemStats(&after)
			if !ok {
				t.Skip("no anonymous mappings on " + runtime.GOOS)
			}
			if grew := after.HeapAlloc - before.HeapAlloc; after.HeapAlloc > before.HeapAlloc && grew > 64<<10 {
				t.Errorf("the Go heap grew by %d bytes", grew)
			}
			free()
		})
	}
	if s, ok := Make[byte](0); s != nil || ok {
		t.Errorf("Make(0) = %v, %v", s, ok)
	}
}

// TestResidentOnlyWhereWritten: a large buffer of which one page is
// written adds about a page to the process's resident memory (Linux).
func TestResidentOnlyWhereWritten(t *testing.T) {
	rss := func() int {
		b, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			t.Skip("no /proc/self/statm: ", err)
		}
		f := strings.Fields(string(b))
		n, _ := strconv.Atoi(f[1])
		return n * os.Getpagesize()
	}
	before := rss()
	s, ok := Make[byte](64 << 20)
	if !ok {
		t.Skip("no anonymous mappings on " + runtime.GOOS)
	}
	defer Free(s)
	s[12345] = 1
	if grew := rss() - before; grew > 8<<20 {
		t.Errorf("64 MiB mapped, one byte written: resident memory grew by %d bytes", grew)
	}
}
