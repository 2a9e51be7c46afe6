#!/usr/bin/env bash
# Disassembles a real kernel (stream_triad of test/kernels/stream.zebin,
# compiled by Debian's ocloc for PVC) with zestall-iga and checks the
# response against the zebin itself: one line per instruction, offsets
# contiguous from 0 with sizes 8 (compacted) or 16, ending exactly at the
# FUNC symbol's size, the last instruction the EOT send. Then checks that a
# platform IGA cannot decode yields an error response and that the helper
# carries on with the next request.
#   test_disasm.sh HELPER ZEBIN
# Exit 77 (ctest: skipped) when IGA (libiga64.so.1, Debian libigc1) cannot
# be loaded.
set -euo pipefail
helper=$1 zebin=$2 kernel=stream_triad
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$helper" --version >"$tmp/version" 2>&1; then
	if [ $? -eq 3 ]; then echo "skipped: $(cat "$tmp/version")"; exit 77; fi
	cat "$tmp/version"; exit 1
fi
# Section offset (hex) and the FUNC symbol's size (decimal) from readelf.
off=$(readelf -SW "$zebin" | awk -v s=".text.$kernel" '{for (i = 1; i <= NF; i++) if ($i == s) print $(i + 3)}')
size=$(readelf -sW "$zebin" | awk -v k="$kernel" '$4 == "FUNC" && $8 == k {print $3}')
[ -n "$off" ] && [ -n "$size" ] || { echo "no .text.$kernel / FUNC $kernel in $zebin"; exit 1; }
dd if="$zebin" of="$tmp/isa" bs=1 skip=$((16#$off)) count="$size" status=none

{
	printf '0x01000004 %d\n' "$size"; cat "$tmp/isa"   # XE_HPC: PVC
	printf '0x7f000000 %d\n' "$size"; cat "$tmp/isa"   # no such platform
	printf '0x01000004 %d\n' "$size"; cat "$tmp/isa"
} | "$helper" >"$tmp/out"

awk -v want="$size" '
	BEGIN { FS = "\t"; resp = 1; pc = 0; n = 0 }
	$0 == "." {
		if (resp == 2) { if (!err) { print "response 2: no error for a bad platform"; bad = 1 } }
		else {
			if (pc != want) { printf "response %d: instructions end at %d, want %d\n", resp, pc, want; bad = 1 }
			if (last !~ /EOT/) { printf "response %d: last instruction %s is not the EOT send\n", resp, last; bad = 1 }
			if (n < want / 16 || n > want / 8) { printf "response %d: %d instructions for %d bytes\n", resp, n, want; bad = 1 }
		}
		resp++; pc = 0; n = 0; err = 0; next
	}
	$1 == "error" { err = 1; next }
	{
		if ($1 != pc) { printf "response %d: instruction at %s, want %d\n", resp, $1, pc; bad = 1 }
		if ($2 != 8 && $2 != 16) { printf "response %d: instruction size %s\n", resp, $2; bad = 1 }
		pc += $2; n++; last = $3
	}
	END { if (resp != 4) { printf "%d responses, want 3\n", resp - 1; bad = 1 }; exit bad }
' "$tmp/out" || { cat "$tmp/out"; exit 1; }
echo "ok: $(grep -c $'^[0-9]' "$tmp/out") instruction lines in 2 responses, IGA $(cat "$tmp/version")"
