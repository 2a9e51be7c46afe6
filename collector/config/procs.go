package config

import "strconv"

// DefaultGoProcs is how many Ps (threads running Go code at once) the
// library's Go runtime gets when the user did not set GOMAXPROCS: at most
// 2, not one per CPU as in a Go program. zestall runs inside someone
// else's process, whose threads own the CPUs; its goroutines (harvester,
// writer, compressor, stall reader) need one P most of the time and two
// at full launch rate. Every P beyond that costs the process: a goroutine
// made runnable wakes an idle P's thread (a futex wake and two context
// switches, tens of µs of system time on a virtual machine), and the
// garbage collector starts a mark worker per four Ps. One P was measured
// too: it saved CPU at 10^5 launches/s, but an application thread's call
// into Go (zeKernelCreate's epilogue) then waited for the harvester's
// pass or a cgo call to end: at full launch rate its 99th percentile rose
// from about 2 ms to 6-8 ms and its maximum from 9 to 20 ms (BENCHMARKS.md,
// issue 14).
const DefaultGoProcs = 2

// GoProcs is the GOMAXPROCS the library should set for its Go runtime, or
// 0 to leave it alone: when the environment's GOMAXPROCS is a positive
// integer the runtime honours it already (as it parses it, the user's
// choice wins, larger or smaller). Otherwise it is DefaultGoProcs, or
// runtimeDefault (the runtime's own choice: the CPUs the process may use)
// if that is smaller.
func GoProcs(getenv func(string) string, runtimeDefault int) int {
	// As the runtime parses it (runtime.schedinit).
	if n, err := strconv.ParseInt(getenv("GOMAXPROCS"), 10, 32); err == nil && n > 0 {
		return 0
	}
	return max(1, min(DefaultGoProcs, runtimeDefault))
}
