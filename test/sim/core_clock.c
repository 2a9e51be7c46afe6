/*
 * core_clock.c — clocks: host time (CLOCK_MONOTONIC_RAW), sleeping until a
 * host time, conversions between host nanoseconds and device ticks.
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

#include <errno.h>
#include <time.h>

uint64_t sim_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sim_sleep_until(uint64_t t, uint64_t max_ns) {
    /* clock_nanosleep does not accept CLOCK_MONOTONIC_RAW, so sleep
     * relative to a fresh reading. */
    uint64_t now = sim_now_ns();
    if (t <= now) return;
    uint64_t d = t - now;
    if (d > max_ns) d = max_ns;
    if (d == 0) return;
    struct timespec req = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)}, rem;
    while (nanosleep(&req, &rem) != 0 && errno == EINTR) req = rem;
}

/* ticks = offset + floor((host_ns - epoch) * hz / 1e9), exact in 128 bits,
 * floor also for host times before the epoch. */
uint64_t sim_dev_ticks(const sim_device_t *dev, uint64_t host_ns) {
    /* floor(d * hz / 1e9) with d = q * 1e9 + r is q * hz + floor(r * hz /
     * 1e9): 64-bit arithmetic by constants while r * hz fits (hz below
     * 18 GHz), instead of two 128-bit library divisions. The same value. */
    if (host_ns >= dev->epoch_ns && sim_cfg.timestamp_hz < 18000000000ull) {
        uint64_t d = host_ns - dev->epoch_ns;
        return sim_cfg.timestamp_offset_ticks + (d / 1000000000ull) * sim_cfg.timestamp_hz +
               (d % 1000000000ull) * sim_cfg.timestamp_hz / 1000000000ull;
    }
    __int128 d = (__int128)host_ns - (__int128)dev->epoch_ns;
    __int128 num = d * (__int128)sim_cfg.timestamp_hz;
    __int128 q = num / 1000000000;
    if (num % 1000000000 != 0 && num < 0) q -= 1;
    return sim_cfg.timestamp_offset_ticks + (uint64_t)q;
}

/* Inverse: the first host ns at which the device clock reads `ticks`
 * (ceil), so sim_dev_ticks(sim_dev_host_ns(k)) == k for every k. */
uint64_t sim_dev_host_ns(const sim_device_t *dev, uint64_t ticks) {
    __int128 k = (__int128)(int64_t)(ticks - sim_cfg.timestamp_offset_ticks);
    __int128 num = k * 1000000000;
    __int128 hz = (__int128)sim_cfg.timestamp_hz;
    __int128 q = num / hz;
    if (num % hz != 0 && num > 0) q += 1;
    return (uint64_t)((__int128)dev->epoch_ns + q);
}
