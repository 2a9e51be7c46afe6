//go:build zestall_profile

package collector

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/zestall/zestall/collector/config"
)

// startProfile profiles zestall's own Go code when ZESTALL_CPUPROFILE names
// a file (a developer setting for the benchmarks; see BENCHMARKS.md).
func (s *Session) startProfile() {
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

func (s *Session) stopProfile() {
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
