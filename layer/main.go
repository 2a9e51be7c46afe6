//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0

// Command layer is built with -buildmode=c-shared into libzestall.so, the
// library users inject into any Level-Zero application:
//
//	ZE_ENABLE_TRACING_LAYER=1 LD_PRELOAD=libzestall.so ./app
//
// It holds only the wiring: the C entry points live in package cgo, the
// logic in package collector. Unless the user set GOMAXPROCS, which the
// runtime then honours, the session runs the library's Go runtime with one
// P and raises it to two under load (config.GoProcs): the library shares
// someone else's process and should not run a P per CPU (README.md,
// GOMAXPROCS). The session sets it from its harvester once the
// application launches kernels, not here: changing it stops the world,
// and the application's first call into zestall waits for this package's
// initialisation.
//
// The runtime's own GOMAXPROCS machinery is off (the go:debug
// defaults at the top of this file; a GODEBUG the user sets still wins). containermaxprocs=0:
// the runtime does not read the process's cgroup CPU limit at start
// (/proc/self/cgroup, /proc/self/mountinfo and two cgroup files, on the
// runtime's start, which the application's first zeInit waits for);
// its default P count is then the CPUs the process may run on, which
// config.ReadGoProcs caps at 2 anyway (under a
// cgroup CPU quota below two CPUs zestall's busy count is now 2, not 1). updatemaxprocs=0: no goroutine to
// change the count, and no sysmon re-reading those files every second
// until zestall first sets the count (when the application first
// launches kernels, a program that never does would pay it all its life).
// zestall sets the count itself (config.GoProcs) and must not be
// overridden behind its back. BENCHMARKS.md, issue 14, session 10,
// startup.
package main

import (
	"os"
	"runtime"

	"github.com/zestall/zestall/cgo"
	"github.com/zestall/zestall/collector"
	"github.com/zestall/zestall/collector/config"
)

func init() {
	procs := config.ReadGoProcs(os.Getenv, runtime.GOMAXPROCS(0))
	// Nothing is read or written before the application's first
	// successful zeInit.
	cgo.SetHandler(collector.NewSession(os.Getenv, os.Stderr, collector.WithGoProcs(procs)))
}

// main is required by -buildmode=c-shared and never runs.
func main() {}
