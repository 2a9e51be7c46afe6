//go:build !unix

package stream

// processCPUNs is not measured here: benchmarks report 0.
func processCPUNs() int64 { return 0 }
