//go:build !linux

package eustall

func threadCPU() float64 { return 0 }
