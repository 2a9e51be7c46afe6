#!/usr/bin/env bash
# Sets up, builds, and profiles a sample application on the simulated
# Level-Zero device through Debian's real loader and tracing layer, then
# prints zestall's report.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="/usr/local/go/bin:$PATH"

bash scripts/setup.sh
bash scripts/build.sh

OUT=$(mktemp -d "${TMPDIR:-/tmp}/zestall-demo.XXXXXX")
echo "== profiling build/bin/zestall-multi (4 threads) on the simulated PVC device" >&2
# ZE_ENABLE_ALT_DRIVERS points the loader at the simulated driver only
# (never at Debian's libze_intel_gpu.so.1, which crashes without a GPU).
# ZESIM_KERNEL_COST gives the simulated kernels their cost (ps per
# work-item / fixed ns; test/sim/README.md). The demo's one burst of 64
# launches per kernel is over before the automatic ring could grow
# (README, "Ring size"), so it asks for a fixed ring of 64 copies.
env ZE_ENABLE_ALT_DRIVERS="$ROOT/build/lib/libze_zestall_sim.so" \
    ZE_ENABLE_TRACING_LAYER=1 \
    ZET_ENABLE_METRICS=1 \
    ZESTALL_KERNELS="$ROOT/test/kernels" \
    ZESIM_KERNEL_COST="compute_poly=4000/3000,stream_triad=300" \
    ZESTALL_SAMPLING_PERIOD_NS=10000 \
    ZESTALL_SEPARATE_LAUNCHES=copies \
    ZESTALL_SEPARATE_COPIES=64 \
    ZESTALL_OUTPUT="$OUT/demo.%p.zst" \
    LD_PRELOAD="$ROOT/build/lib/libzestall.so" \
    "$ROOT/build/bin/zestall-multi" 4

echo "== zestall report" >&2
"$ROOT/build/bin/zestall" report "$OUT"/demo.*.zst
# Launch separation by module copies: the 64 back-to-back launches of
# compute_poly ran on 64 copies of its code, so every sample names its launch.
echo "== zestall report --launches --kernel compute_poly (each launch's own stall samples)" >&2
"$ROOT/build/bin/zestall" report --launches --kernel compute_poly "$OUT"/demo.*.zst
echo "(output kept in $OUT)" >&2
