/*
 * host_clock.c — the host clock of the launch path: every slot of a launch
 * ring carries CLOCK_MONOTONIC_RAW nanoseconds (zl_slot_t.host_ns), the
 * host clock of zeDeviceGetGlobalTimestamps on Linux, in which zestall
 * converts device times.
 *
 * Why clock_gettime and not the TSC: the harvester decides which
 * execution of a regular list a reading of a shared event belongs to by
 * comparing the reading's device times, converted to host time, with the
 * next execution's host stamp (collector/timing, previousExec), so a
 * stamp an error of about a microsecond late gives one execution another's
 * times. TSC stamps converted at drain time carry the error of the
 * (TSC, ns) pairs they are converted against, up to half a read window,
 * and were measured to cost as much as they saved
 * (docs/level-zero-loader.md §8.5 "Host time stamps on the launch path").
 */
#include "launch_internal.h"

#include <time.h>

uint64_t zl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
