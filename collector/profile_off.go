//go:build !zestall_profile

package collector

// The profiling settings are built only with -tags zestall_profile
// (scripts/build.sh -DZESTALL_GO_TAGS=zestall_profile). Linking
// runtime/pprof into every application's process costs start-up: its
// packages (and compress/gzip, text/tabwriter) add relocations the dynamic
// linker applies before main, and a reachable runtime.MemProfile keeps the
// runtime's heap sampling on, which unwinds a stack every 512 KiB
// allocated (docs/level-zero-loader.md §8.4 "Start-up cost of
// `LD_PRELOAD`").

import "fmt"

// startProfile says once that the profiling settings are not built in.
func (s *Session) startProfile() {
	for _, v := range []string{"ZESTALL_CPUPROFILE", "ZESTALL_MEMPROFILE", "ZESTALL_MEMPROFILE_PEAK"} {
		if s.getenv(v) != "" {
			fmt.Fprintf(s.stderr, "zestall: %s is set but this libzestall.so was built without profiling (rebuild with -tags zestall_profile); no profile\n", v)
		}
	}
}

func (s *Session) stopProfile() {}
