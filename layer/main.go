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
