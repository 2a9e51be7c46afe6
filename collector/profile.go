//go:build zestall_profile

package collector

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/zestall/zestall/collector/config"
)

// startProfile profiles zestall's own Go code when ZESTALL_CPUPROFILE names
// a file (a developer setting for the benchmarks; see BENCHMARKS.md).
func (s *Session) startProfile() {
	if s.getenv("ZESTALL_MEMPROFILE_PEAK") != "" {
		startPeakHeap()
	}
	path := s.getenv("ZESTALL_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.OpenFile(config.ExpandOutput(path, os.Getpid(), config.Hostname(), config.ReadIdentity(s.getenv)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(s.stderr, "zestall: ZESTALL_CPUPROFILE: %v; no profile\n", err)
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintf(s.stderr, "zestall: ZESTALL_CPUPROFILE: %v; no profile\n", err)
		return
	}
	s.profile = f
}

// peakHeap is ZESTALL_MEMPROFILE_PEAK: the heap profile taken when the
// live heap (after a collection) was largest, polled every 10 ms, written
// at exit. The exit profile (ZESTALL_MEMPROFILE) misses what a backlog
// held during the run.
type peakHeap struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
	live uint64
}

var peak *peakHeap

func startPeakHeap() {
	p := &peakHeap{stop: make(chan struct{}), done: make(chan struct{})}
	runtime.MemProfileRate = 16 << 10
	peak = p
	go func() {
		defer close(p.done)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > p.live+p.live/32 {
				p.mu.Lock()
				p.live = v
				p.buf.Reset()
				pprof.Lookup("heap").WriteTo(&p.buf, 0)
				p.mu.Unlock()
			}
		}
	}()
}

func (s *Session) stopPeakHeap(path string) {
	p := peak
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
	f, err := os.OpenFile(config.ExpandOutput(path, os.Getpid(), config.Hostname(), config.ReadIdentity(s.getenv)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(s.stderr, "zestall: ZESTALL_MEMPROFILE_PEAK: %v; no profile\n", err)
		return
	}
	defer f.Close()
	f.Write(p.buf.Bytes())
	fmt.Fprintf(s.stderr, "zestall: peak live heap %d bytes\n", p.live)
}

func (s *Session) stopProfile() {
	if path := s.getenv("ZESTALL_MEMPROFILE_PEAK"); path != "" {
		s.stopPeakHeap(path)
	}
	if s.profile != nil {
		pprof.StopCPUProfile()
		s.profile.Close()
		s.profile = nil
	}
	// ZESTALL_MEMPROFILE: the live heap at exit (before the final
	// harvest's garbage is collected), for the memory benchmarks.
	if path := s.getenv("ZESTALL_MEMPROFILE"); path != "" {
		f, err := os.OpenFile(config.ExpandOutput(path, os.Getpid(), config.Hostname(), config.ReadIdentity(s.getenv)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(s.stderr, "zestall: ZESTALL_MEMPROFILE: %v; no profile\n", err)
			return
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			fmt.Fprintf(s.stderr, "zestall: ZESTALL_MEMPROFILE: %v\n", err)
		}
	}
}
