#!/usr/bin/env bash
# Sets up, builds and runs every test:
#   1. the build (build/): C with -Wall -Wextra -Werror, Go c-shared + CLI;
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

bash scripts/setup.sh
echo "== build (build/)" >&2
bash scripts/build.sh

echo "== gofmt / go vet / go test -race" >&2
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then echo "gofmt needed: $unformatted" >&2; exit 1; fi
go vet ./...
CGO_ENABLED=0 go build ./collector/... ./proto/... ./cmd/... ./test/groundtruth/...
# test/e2e runs 10^6-launch scale tests (issue 14): more than go test's 10 min default on a loaded 2-vCPU machine
ZESTALL_BUILD_DIR="$ROOT/build" go test -race -count=1 -timeout 30m ./...

echo "== sanitizers (build-asan/)" >&2
bash scripts/test-sanitize.sh

if [ "${FUZZTIME:-10s}" != 0 ]; then
	echo "== fuzzing (scripts/fuzz.sh, ${FUZZTIME:-10s} per target)" >&2
	FUZZTIME=${FUZZTIME:-10s} bash scripts/fuzz.sh
fi

echo "== ctest (build/)" >&2
cd build
ctest -j"$(nproc)" --output-on-failure --timeout 600
