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
# use_tls=0: the driver is dlopen()ed by the loader and uses _Thread_local
# (dynamic TLS); the loader dlclose()s it at exit, and gcc 12's LeakSanitizer
# then crashes scanning the stale DTLS ("Tracer caught signal 11",
# "LeakSanitizer has encountered a fatal error"). Without TLS scanning the
# leak check itself still runs.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build-asan}
cmake -S . -B "$build" -DZESTALL_SANITIZE=ON -DZESTALL_GO=OFF -DCMAKE_BUILD_TYPE=Debug -DZESTALL_WERROR=ON >/dev/null
cmake --build "$build" -j"$(nproc)"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="use_tls=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$build"
ctest -j"$(nproc)" --output-on-failure --timeout 900 "$@"
