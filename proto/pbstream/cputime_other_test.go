//go:build !unix

package pbstream

// processCPUNs is not measured here: benchmarks report 0.
func processCPUNs() int64 { return 0 }
