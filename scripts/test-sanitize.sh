#!/usr/bin/env bash
# Builds the C code (simulated driver, sample apps, conformance suite, C
# unit tests) with AddressSanitizer + UndefinedBehaviorSanitizer in
# build-asan/ (-DZESTALL_SANITIZE=ON, Go parts off) and runs its ctest.
#
#   scripts/test-sanitize.sh [extra ctest arguments, e.g. -R conformance]
#   BUILD_DIR=/elsewhere scripts/test-sanitize.sh   (default: build-asan)
#
# Leak checking is on, without suppressions: Debian's loader and tracing
# layer report no leaks here (checked), and a suppression matching
# libze_loader would hide every leak of the driver too, since every API
# call reaches the driver through a loader frame.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build-asan}
cmake -S . -B "$build" -DZESTALL_SANITIZE=ON -DZESTALL_GO=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$(nproc)"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$build"
ctest -j"$(nproc)" --output-on-failure --timeout 900 "$@"
