#!/usr/bin/env bash
# Runs every Go fuzz target of the module (every `func FuzzXxx` in a
# _test.go file) for a bounded time each, one after the other:
#
#   scripts/fuzz.sh                 # FUZZTIME=10s per target (CI)
#   FUZZTIME=3m scripts/fuzz.sh     # a longer run
#   scripts/fuzz.sh FuzzParse       # only targets matching a regexp
#
# A finding fails the script; Go writes the failing input to the package's
# testdata/fuzz/<target>/ directory (commit it with the fix: it then runs
# as a regression test in every `go test`). New coverage found while
# fuzzing is kept in the Go build cache only (-fuzzminimizetime is short:
# minimizing each new input would otherwise eat most of a short budget).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
fuzztime=${FUZZTIME:-10s}
filter=${1:-.}

targets=$(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . |
	sed -E 's|^\./(.*)/[^/]*_test\.go:[0-9]+:func (Fuzz[A-Za-z0-9_]*)\(.*|\1 \2|' | sort -u)
n=0
start=$SECONDS
while read -r pkg target; do
	[ -n "$target" ] || continue
	[[ $target =~ $filter ]] || continue
	n=$((n + 1))
	echo "== fuzz ./$pkg $target ($fuzztime)" >&2
	log=$(mktemp)
	for try in 1 2; do
		status=0
		go test "./$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s >"$log" 2>&1 || status=$?
		# The progress lines but the last (total executions, corpus size).
		{ grep -v '^fuzz: elapsed: ' "$log" | tail -n 30; grep '^fuzz: elapsed: ' "$log" | tail -n 1; } >&2 || true
		# A finding is always written out ("Failing input written to
		# testdata/fuzz/..."). Go's fuzzing engine can also fail at the end
		# of -fuzztime with only "context deadline exceeded" and no input:
		# that is the engine, not the code under test. Run such a target
		# once more; a second engine failure fails the script all the same.
		if [ "$status" -eq 0 ] || grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
			break
		fi
		echo "fuzz: ./$pkg $target: the fuzzing engine stopped with \"context deadline exceeded\" and no failing input; running it again" >&2
	done
	rm -f "$log"
	if [ "$status" -ne 0 ]; then
		echo "fuzz: ./$pkg $target failed (a finding is saved under ./$pkg/testdata/fuzz/$target/)" >&2
		exit 1
	fi
done <<<"$targets"
echo "fuzz: $n targets, ${fuzztime} each, no findings ($((SECONDS - start)) s)" >&2
