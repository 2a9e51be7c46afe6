//go:build linux

package eustall

import "syscall"

// threadCPU returns the CPU time consumed by the calling OS thread, in
// seconds, or 0 if unavailable.
func threadCPU() float64 {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
