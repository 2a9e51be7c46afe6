package config

import "strconv"

// GoProcs is how many Ps (threads running Go code at once) the library's
// Go runtime gets: Low while the application launches at a rate zestall
// keeps up with, High while the launch harvester has a backlog (full
// launch rate) or EU stalls are sampled. Zero: the user set GOMAXPROCS,
// which the runtime honours; zestall leaves it alone.
//
// Not one P per CPU as in a Go program: zestall runs inside someone else's
// process, whose threads own the CPUs. With a second P idle, every
// goroutine made runnable (a timer's, a channel send's) wakes that P's
// thread too, which looks for work and sleeps again: a futex wake and two
// context switches, tens of µs of CPU on a virtual machine; one P saved a
// quarter of zestall's added CPU at 10^5 launches/s (BENCHMARKS.md, issue
// 14). With one P, though, an application thread's call into Go (the
// zeKernelCreate epilogue) waits while zestall's goroutines hold it: at
// full launch rate its 99th percentile rose from 2-3.5 ms to 5-7.6 ms
// (zestall-callback-latency), so a backlog brings the second P back. The
// stall reader's reads close attribution windows (collector/attribution):
// they do not wait for a P either.
type GoProcs struct{ Low, High int }

// DefaultGoProcs is the policy on a machine with at least 2 CPUs.
var DefaultGoProcs = GoProcs{Low: 1, High: 2}

// ReadGoProcs is the policy for this process: the zero GoProcs when the
// environment's GOMAXPROCS is a positive integer (as the runtime parses
// it, the user's choice wins, larger or smaller), else DefaultGoProcs,
// with High at most runtimeDefault (the runtime's own choice: the CPUs
// the process may use).
func ReadGoProcs(getenv func(string) string, runtimeDefault int) GoProcs {
	// As the runtime parses it (runtime.schedinit).
	if n, err := strconv.ParseInt(getenv("GOMAXPROCS"), 10, 32); err == nil && n > 0 {
		return GoProcs{}
	}
	p := DefaultGoProcs
	p.High = max(p.Low, min(p.High, runtimeDefault))
	return p
}
