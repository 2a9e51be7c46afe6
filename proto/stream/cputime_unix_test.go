//go:build unix

package stream

import "syscall"

// processCPUNs is the CPU time (user + system) of the whole process so
// far, in ns: what a benchmark's goroutines and the Writer's compressor
// cost together.
func processCPUNs() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
