#!/bin/sh
# Regenerates abi_timing.go from the slot contract of cgo/abi.h (go generate ./collector/timing).
# The objdir is dropped from the header line so the output is reproducible.
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
go tool cgo -objdir "$d" -godefs abi_timing_defs.go | sed '2s/-objdir [^ ]* //' | gofmt > abi_timing.go.new
mv abi_timing.go.new abi_timing.go
