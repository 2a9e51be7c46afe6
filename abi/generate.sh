#!/bin/sh
# Writes abi.go, the pure-Go mirror of cgo/abi.h, with `go tool cgo -godefs`
# from types_def.go (run by `go generate ./abi`; needs a C compiler):
#
#   sh generate.sh [OUT]     # OUT defaults to abi.go
#
# TestGeneratedUpToDate runs it into a temporary file and fails when the
# committed abi.go differs.
set -eu
cd "$(dirname "$0")"
out=${1:-abi.go}
obj=$(mktemp -d)
trap 'rm -rf "$obj"' EXIT
# cgo names its scratch directory in the second line: name the input instead,
# so that the output depends on abi.h alone.
go tool cgo -objdir "$obj" -godefs types_def.go |
	sed '2s|.*|// cgo -godefs types_def.go (abi/generate.sh), from cgo/abi.h|' >"$obj/abi.go"
gofmt "$obj/abi.go" >"$out"
