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
// The runtime does not revisit its P count (the go:debug default at the
// top of this file; a GODEBUG the user sets still wins): with
// updatemaxprocs=1 it starts a goroutine at initialisation to change the
// count, and its sysmon thread asks for the CPU affinity and re-reads the
// cgroup's CPU limit files every second until zestall first sets the
// count, which happens only once the application launches kernels: a
// program that never does would pay it all its life. zestall sets the
// count itself (config.GoProcs). containermaxprocs=0 is not set: the
// runtime reads the cgroup files once at its start all the same (to count
// how often the setting would change the result), so it saves nothing
// there. BENCHMARKS.md, issue 14, session 10, startup.
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
