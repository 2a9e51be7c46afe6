#!/usr/bin/env bash
# Sets up, builds and runs every test:
#   1. the build (build/): C with -Wall -Wextra -Werror (ZESTALL_WERROR=ON;
#      a user's build keeps warnings as warnings), Go c-shared + CLI; and the
#      C code once more in the Release configuration (build-release/), so a
#      warning that only optimisation brings out fails here too;
#   2. Go: go vet, CGO_ENABLED=0 builds of the pure-Go packages, and the race
#      detector over every package, including the end-to-end tests that run
#      the sample apps through the real loader with libzestall.so;
#   3. the C code built with AddressSanitizer + UndefinedBehaviorSanitizer
#      (build-asan/): conformance suite, unit tests and apps;
#   4. every Go fuzz target for a bounded time (scripts/fuzz.sh; FUZZTIME,
#      default 10s per target; FUZZTIME=0 skips);
#   5. the full ctest suite of build/, last, so the closing line is ctest's.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="/usr/local/go/bin:$PATH"
# cgo's C code (cgo/) under go vet and go test: warnings are errors here too.
export CGO_CFLAGS="-g -O2 -Werror"

bash scripts/setup.sh
echo "== build (build/)" >&2
bash scripts/build.sh -DZESTALL_WERROR=ON
echo "== build, Release configuration (build-release/, C only)" >&2
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DZESTALL_WERROR=ON -DZESTALL_GO=OFF >/dev/null
cmake --build build-release -j"$(nproc)"

echo "== gofmt / go vet / go test -race" >&2
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then echo "gofmt needed: $unformatted" >&2; exit 1; fi
go vet ./...
CGO_ENABLED=0 go build ./abi/... ./collector/... ./format/... ./internal/... ./ze/... ./proto/... ./cmd/... ./test/groundtruth/...
# test/e2e runs 10^6-launch scale tests (issue 14): more than go test's 10 min default on a loaded 2-vCPU machine.
# It runs after the other packages, not beside them: its tests measure what
# zestall's goroutines do while an application launches (events created
# ahead of need, memory, launch rates), and other test packages on the
# same CPUs starved those goroutines for tens of milliseconds (a 2-vCPU
# machine; test/e2e/appthread_test.go).
ZESTALL_BUILD_DIR="$ROOT/build" go test -race -count=1 -timeout 30m $(go list ./... | grep -v '/test/e2e$')
ZESTALL_BUILD_DIR="$ROOT/build" go test -race -count=1 -timeout 30m ./test/e2e/

echo "== sanitizers (build-asan/)" >&2
bash scripts/test-sanitize.sh

if [ "${FUZZTIME:-10s}" != 0 ]; then
	echo "== fuzzing (scripts/fuzz.sh, ${FUZZTIME:-10s} per target)" >&2
	FUZZTIME=${FUZZTIME:-10s} bash scripts/fuzz.sh
fi

echo "== ctest (build/)" >&2
cd build
ctest -j"$(nproc)" --output-on-failure --timeout 600
