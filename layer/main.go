// Command layer is built with -buildmode=c-shared into libzestall.so, the
// library users inject into any Level-Zero application:
//
//	ZE_ENABLE_TRACING_LAYER=1 LD_PRELOAD=libzestall.so ./app
//
// It holds only the wiring: the C entry points live in package cgo, the
// logic in package collector.
package main

import (
	"os"

	"github.com/zestall/zestall/cgo"
	"github.com/zestall/zestall/collector"
)

func init() {
	// Nothing is read or written before the application's first
	// successful zeInit.
	cgo.SetHandler(collector.NewSession(os.Getenv, os.Stderr))
}

// main is required by -buildmode=c-shared and never runs.
func main() {}
