#!/bin/sh
# The simulated driver exports only Level-Zero DDI getters: the 46 that the
# 1.8.12 loader requires plus the 7 optional ones it knows
# (docs/level-zero-loader.md §3.1 "Mandatory DDI getters (46)", §3.2 "Optional
# getters (7)"), and must not depend on the loader
# (docs/level-zero-loader.md §10 "Hazards", P5).
#   check_exports.sh <path of libze_zestall_sim.so>
set -u
lib=${1:?usage: check_exports.sh <driver .so>}
fail=0
pass=0

mandatory="zeGetGlobalProcAddrTable zeGetDriverProcAddrTable zeGetDeviceProcAddrTable zeGetContextProcAddrTable
zeGetCommandQueueProcAddrTable zeGetCommandListProcAddrTable zeGetEventProcAddrTable zeGetEventPoolProcAddrTable
zeGetFenceProcAddrTable zeGetImageProcAddrTable zeGetKernelProcAddrTable zeGetMemProcAddrTable
zeGetModuleProcAddrTable zeGetModuleBuildLogProcAddrTable zeGetPhysicalMemProcAddrTable zeGetSamplerProcAddrTable
zeGetVirtualMemProcAddrTable
zetGetDeviceProcAddrTable zetGetContextProcAddrTable zetGetCommandListProcAddrTable zetGetKernelProcAddrTable
zetGetModuleProcAddrTable zetGetDebugProcAddrTable zetGetMetricProcAddrTable zetGetMetricGroupProcAddrTable
zetGetMetricQueryProcAddrTable zetGetMetricQueryPoolProcAddrTable zetGetMetricStreamerProcAddrTable
zetGetTracerExpProcAddrTable
zesGetDeviceProcAddrTable zesGetDriverProcAddrTable zesGetDiagnosticsProcAddrTable zesGetEngineProcAddrTable
zesGetFabricPortProcAddrTable zesGetFanProcAddrTable zesGetFirmwareProcAddrTable zesGetFrequencyProcAddrTable
zesGetLedProcAddrTable zesGetMemoryProcAddrTable zesGetPerformanceFactorProcAddrTable zesGetPowerProcAddrTable
zesGetPsuProcAddrTable zesGetRasProcAddrTable zesGetSchedulerProcAddrTable zesGetStandbyProcAddrTable
zesGetTemperatureProcAddrTable"
optional="zeGetDeviceExpProcAddrTable zeGetEventExpProcAddrTable zeGetImageExpProcAddrTable zeGetKernelExpProcAddrTable
zeGetFabricEdgeExpProcAddrTable zeGetFabricVertexExpProcAddrTable zetGetMetricGroupExpProcAddrTable"
# required for EU-stall calculation through the loader
# (docs/level-zero-loader.md §3.2 "Optional getters (7)")
required_optional="zetGetMetricGroupExpProcAddrTable"

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL [exports] $*"; fail=$((fail + 1)); }

[ -f "$lib" ] || { echo "FAIL [exports] $lib does not exist"; echo "0 passed, 1 failed"; exit 1; }
syms=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)

n=0
for s in $mandatory; do
    n=$((n + 1))
    if echo "$syms" | grep -qx "$s"; then ok; else bad "mandatory getter $s not exported"; fi
done
[ "$n" -eq 46 ] && ok || bad "internal: mandatory list has $n entries, not 46"
for s in $required_optional; do
    if echo "$syms" | grep -qx "$s"; then ok; else bad "$s not exported (Exp calculation unreachable)"; fi
done
for s in $syms; do
    if echo "$mandatory $optional" | tr ' ' '\n' | grep -qx "$s"; then ok; else bad "unexpected exported symbol $s"; fi
done
if readelf -d "$lib" | grep NEEDED | grep -q libze_loader; then
    bad "libze_loader in DT_NEEDED (docs/level-zero-loader.md §10 \"Hazards\", P5)"
else
    ok
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
