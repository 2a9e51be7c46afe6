#!/usr/bin/env python3
"""CPU per launch of zestall's own threads, by stage, from a perf profile.

    perf record -F 4000 --call-graph dwarf,16384 -o perf.data \\
        build/bin/zestall-bench-launch 1000000 1 imm      # under zestall
    scripts/perf_stages.py perf.data 1000000 [TOP]

DWARF call graphs are needed: the simulator and cgo/ are C without frame
pointers, and a Go frame-pointer walk stops at the cgo boundary. A sample
belongs to the application when its thread ran the launch path (more than
a fifth of its samples under launch_prologue/launch_epilogue or
zeCommandListAppendLaunchKernel) or is the process's first thread; every
other thread is zestall's (its goroutines' threads and the Go runtime's).
A sample of zestall's threads goes to the first stage below whose
patterns one of its frames contains, so a stage is inclusive of what it
calls and exclusive of the stages listed before it (the simulated device's
writes are taken out of the reads and resets that apply them, the growth
of zestall's event pools out of the releases that make it). Each
sample stands for its period (250 us at -F 4000); the figures are ns per
launch (total / N). With TOP, the TOP functions by self time on
zestall's threads follow. BENCHMARKS.md, "zestall's CPU per launch, by
stage", has the figures and how to read them.
"""
import collections
import re
import subprocess
import sys

STAGES = [
    # The device's post-sync writes, which the simulator plays on the
    # thread that observes events next (test/sim/README.md "Cost").
    ("simulated device (posts_apply)", ["posts_apply"]),
    # zestall's pools growing ahead of need (cgo/event_pools.c), inside
    # the release of read events: the driver's zeEventCreate, whose heap
    # growth and first touch of fresh pages (page faults) are most of it.
    # As many events as were in flight at the peak, not a cost per launch:
    # taken out of the resets so that those show the per-launch work.
    ("event creation (grow_events: zeEventCreate, heap growth, page faults)", ["grow_events"]),
    ("drain (zl_drain)", ["cgo.(*source).Drain", "zl_drain"]),
    ("compression (zstd)", ["klauspost/compress", "Writer).compress"]),
    ("timestamp reads (KernelTimestamps: cgo, zestall's C, the driver)",
     ["KernelTimestamps", "zl_kernel_timestamps", "read_timestamps", "QueryKernelTimestamp"]),
    ("resets and release (ReleaseEvents: cgo, zestall's C, the driver)",
     ["ReleaseEvents", "ReturnEvents", "zl_release_events", "zl_return_events", "reset_events", "pools_take_back",
      "EventHostReset"]),
    ("encoding (Writer.WriteLaunch)", ["WriteLaunch", "writeLaunches"]),
    # With EU stall sampling: the harvester's hand-off of finished launch
    # records to the stall reader and its attributors (under the
    # harvester's pass, so listed before the records), then the reader's
    # own goroutine (reads, calculation, attribution of the windows).
    ("stall hand-off (Reader.Launches, attributors)",
     ["sampling.(*Reader).Launch", "attribution.(*Attributor).Launch", "samplingAttributor.Launch",
      "attribution.(*Attributor).launch", "Session).onLaunch"]),
    ("stall reader (Reader.Run)", ["sampling.(*Reader).Run"]),
    ("records (collector/timing)", ["collector/timing."]),
    ("GC", ["gcBgMarkWorker", "gcDrain", "markroot", "bgsweep", "bgscavenge", "gcAssist", "mallocgc"]),
    # The runtime's monitor thread: it sleeps 20 µs at a time while it
    # keeps taking Ps back from goroutines in long cgo calls, up to 10 ms
    # when it has nothing to do; each sleep is a system call.
    ("Go runtime's sysmon", ["runtime.sysmon"]),
    ("scheduler, sleeps and wake-ups", ["runtime.schedule", "runtime.findRunnable", "runtime.park_m",
                                        "runtime.mcall", "runtime.futex", "runtime.notesleep", "runtime.sysmon",
                                        "runtime.usleep", "runtime.goready", "runtime.mstart"]),
]

APP_FRAMES = ("launch_epilogue", "launch_prologue", "zeCommandListAppendLaunchKernel")


def samples(path):
    out = subprocess.run(["perf", "script", "-i", path, "-F", "pid,tid,period,ip,sym"],
                         capture_output=True, text=True, check=True).stdout
    cur = None
    for line in out.splitlines():
        if not line.strip():
            if cur:
                yield cur
            cur = None
            continue
        m = re.match(r"^\s*(\d+)/(\d+)\s+(\d+)\s*$", line)
        if m:
            cur = (int(m.group(1)), int(m.group(2)), int(m.group(3)), [])
        elif cur:
            f = line.strip().split(None, 1)
            cur[3].append(f[1] if len(f) > 1 else "?")
    if cur:
        yield cur


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, n = sys.argv[1], int(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    ss = list(samples(path))
    if not ss:
        sys.exit("no samples in " + path)
    hits, count = collections.Counter(), collections.Counter()
    for _, tid, _, st in ss:
        count[tid] += 1
        if any(a in f for f in st for a in APP_FRAMES):
            hits[tid] += 1
    first = ss[0][1]
    app = {t for t in count if hits[t] > 0.2 * count[t] or t == first}
    threads, stage, selfc = collections.Counter(), collections.Counter(), collections.Counter()
    for _, tid, period, st in ss:
        if tid in app:
            threads["application threads (the app and the launch path)"] += period
            continue
        threads["zestall's threads"] += period
        if st:
            selfc[st[0]] += period
        for name, pats in STAGES:
            if any(p in f for f in st for p in pats):
                stage[name] += period
                break
        else:
            stage["other"] += period
    for k, v in threads.items():
        print("%-66s %7.1f ns/launch" % (k, v / n))
    for k, v in sorted(stage.items(), key=lambda x: -x[1]):
        print("  %-64s %7.1f" % (k, v / n))
    if top:
        print("self time on zestall's threads (ns/launch):")
        for k, v in selfc.most_common(top):
            print("  %7.1f %s" % (v / n, k[:110]))


if __name__ == "__main__":
    main()
