// Package ze is Level Zero's result type in pure Go: [Result] is a
// ze_result_t that implements error, its message the specification's name
// ("ZE_RESULT_ERROR_DEVICE_LOST (0x70000001)"), and every result of the
// specification is a constant usable as an errors.Is sentinel
// (ze.ErrorDeviceLost). [CallError] adds the call that returned it.
//
// Pipeline position: package cgo turns every ze_result_t that crosses into
// Go into a Result (or a CallError); package collector reports them by
// name, in stderr notices and in the output's loss and sampling-off
// details; nothing else needs to know result codes.
//
// The table (results.go) is generated from the installed ze_api.h by
// internal/mkresult:
//
//	go generate ./ze
//
// and TestResultsUpToDate fails when the committed table differs from what
// the installed header gives (the header is part of Debian's
// libze-dev, installed by scripts/setup.sh). The package builds with
// CGO_ENABLED=0.
package ze

//go:generate go run ./internal/mkresult -header /usr/include/level_zero/ze_api.h -o results.go
