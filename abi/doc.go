// Package abi is the Go side of cgo/abi.h: the constants zestall's C code
// and its Go code share (layer states, control requests, what blocks
// collection, why stall sampling is off, why a launch has no times, the
// IP metric's type), other than the launch-slot contract of cgo/launch.h.
//
// Pipeline position: package cgo's C code and packages collector and
// cmd/zestall (pure Go) all take these values from the one header; this
// package lets the pure-Go ones do so without cgo. It builds with
// CGO_ENABLED=0 and holds nothing but constants.
//
// abi.go is generated, never edited: change cgo/abi.h, then
//
//	go generate ./abi
//
// (go tool cgo -godefs over types_def.go; needs a C compiler).
// TestGeneratedUpToDate fails when abi.go differs from what the header
// gives; TestProtoAgrees checks the values proto/zestall.proto defines too.
package abi

//go:generate sh generate.sh abi.go
