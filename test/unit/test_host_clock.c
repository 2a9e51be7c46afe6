/*
 * Unit tests of cgo/host_clock.c, the launch path's host stamps
 * (docs/level-zero-loader.md §8.5 "Host time stamps on the launch
 * path"): the map from TSC ticks to CLOCK_MONOTONIC_RAW ns across pairs
 * (interpolation between pairs, extrapolation outside them, the history's
 * spacing and its limit, pairs that go back), the fallback to the clock
 * when the TSC is not used, and the error of the whole conversion against
 * clock_gettime on this machine, stamps taken on one thread and converted
 * at "drains" on another as the harvester does (printed; checked to stay
 * well under a microsecond).
 *
 *   unit_host_clock
 *
 * Built from host_clock.c alone (no Go, no loader, no driver). The last
 * line of output is "N passed, N failed".
 */
#include "../../cgo/launch_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

/* ---- the map, on synthetic pairs ------------------------------------- */

/* A TSC of hz ticks per second whose tick 0 is at ns0. */
typedef struct {
    double hz;
    uint64_t ns0;
} line_t;
static uint64_t ns_at(line_t l, uint64_t tsc) { return l.ns0 + (uint64_t)((double)tsc * 1e9 / l.hz + 0.5); }
static int64_t diff(uint64_t a, uint64_t b) { return (int64_t)(a - b); }

typedef struct {
    const char *name;
    double hz;
    uint64_t first_tsc, step;  /* pairs at first_tsc + k·step */
    int pairs;
    int64_t noise;             /* each pair's ns off by ±noise, alternating */
    uint64_t spacing_ns;
    int64_t tol;               /* allowed error (ns) of a stamp between pairs */
} map_case_t;

static void test_map_table(void) {
    static const map_case_t cases[] = {
        {"exact, 2.4 GHz, 1 ms apart", 2.4e9, 1000000, 2400000, 50, 0, 0, 1},
        {"exact, 3.1 GHz, 10 ms apart, large tsc", 3.1e9, 1ull << 50, 31000000, 30, 0, 0, 1},
        {"exact, 1 GHz, 100 us apart", 1e9, 5, 100000, 400, 0, 10000000, 1},
        {"noisy ±20 ns, 2.4 GHz, 1 ms apart", 2.4e9, 1000, 2400000, 40, 20, 0, 21},
        {"noisy ±20 ns, spaced 10 ms, pairs every 1 ms", 2.4e9, 1000, 2400000, 600, 20, 10000000, 21},
        {"noisy ±30 ns, 2.0 GHz, 50 us apart (short spans)", 2.0e9, 77, 100000, 200, 30, 0, 31},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const map_case_t *k = &cases[c];
        line_t l = {k->hz, 123456789ull};
        static zl_clockmap_t m;
        memset(&m, 0, sizeof m);
        for (int i = 0; i < k->pairs; i++) {
            uint64_t t = k->first_tsc + (uint64_t)i * k->step;
            zl_pair_t p = {t, ns_at(l, t) + (uint64_t)((i & 1) ? k->noise : -k->noise)};
            zl_clockmap_add(&m, &p, k->spacing_ns);
        }
        check(m.n >= 2 && m.n <= ZL_CLOCK_PAIRS, "%s: %u pairs kept", k->name, m.n);
        /* Stamps between the oldest pair kept and the newest. */
        uint64_t lo = m.p[0].tsc, hi = m.p[m.n - 1].tsc;
        int64_t worst = 0;
        for (int i = 0; i <= 1000; i++) {
            uint64_t t = lo + (uint64_t)((double)(hi - lo) * i / 1000.0);
            int64_t e = diff(zl_clockmap_ns(&m, t), ns_at(l, t));
            if (e < 0) e = -e;
            if (e > worst) worst = e;
        }
        check(worst <= k->tol, "%s: between pairs, error %lld ns > %lld", k->name, (long long)worst,
              (long long)k->tol);
        /* After the newest pair (a stamp drained later) and before the
         * oldest kept (a stamp that waited in a ring): the long span's
         * slope; its error grows with the distance by noise/span. */
        uint64_t span = hi - (k->first_tsc);
        for (int s = -1; s <= 1; s += 2) {
            uint64_t d = span / 4;
            uint64_t t = s > 0 ? hi + d : (lo > d ? lo - d : 0);
            int64_t e = diff(zl_clockmap_ns(&m, t), ns_at(l, t));
            if (e < 0) e = -e;
            int64_t bound = k->tol + 2 * k->noise + 2;
            check(e <= bound, "%s: %s the pairs by a quarter span, error %lld ns > %lld", k->name,
                  s > 0 ? "after" : "before", (long long)e, (long long)bound);
        }
        /* Monotone: later stamps never map earlier (interpolation between
         * increasing pairs). */
        uint64_t prev = 0;
        bool mono = true;
        for (uint64_t t = lo; t < hi; t += (hi - lo) / 997 + 1) {
            uint64_t v = zl_clockmap_ns(&m, t);
            if (v < prev) mono = false;
            prev = v;
        }
        check(mono, "%s: the map is not monotone", k->name);
    }
}

static void test_map_edges(void) {
    static zl_clockmap_t m;
    memset(&m, 0, sizeof m);
    check(zl_clockmap_ns(&m, 42) == 42, "no pair: the stamp is returned as it is");
    zl_pair_t a = {1000, 5000};
    zl_clockmap_add(&m, &a, 0);
    check(zl_clockmap_ns(&m, 3000) == 5000, "one pair: no slope, its ns");
    zl_pair_t b = {3000, 6000}; /* 0.5 ns per tick */
    zl_clockmap_add(&m, &b, 0);
    check(zl_clockmap_ns(&m, 2000) == 5500, "two pairs: midpoint %llu", (unsigned long long)zl_clockmap_ns(&m, 2000));
    check(zl_clockmap_ns(&m, 5000) == 7000, "after the newest: %llu", (unsigned long long)zl_clockmap_ns(&m, 5000));
    check(zl_clockmap_ns(&m, 0) == 4500, "before the first: %llu", (unsigned long long)zl_clockmap_ns(&m, 0));
    /* A pair that goes back in either coordinate is ignored. */
    zl_pair_t back = {2500, 7000}, back2 = {4000, 5999};
    zl_clockmap_add(&m, &back, 0);
    zl_clockmap_add(&m, &back2, 0);
    check(m.n == 2, "pairs going back were kept: %u", m.n);
    /* Far before the first pair: clamped at 0, no wrap. */
    static zl_clockmap_t z;
    memset(&z, 0, sizeof z);
    zl_pair_t c = {1ull << 40, 10}, d = {(1ull << 40) + 1000, 1010};
    zl_clockmap_add(&z, &c, 0);
    zl_clockmap_add(&z, &d, 0);
    check(zl_clockmap_ns(&z, 0) == 0, "a stamp mapping before ns 0 gives 0");
    /* The history's limit: the older half goes, the first pair's slope
     * remains for stamps before what is kept. */
    static zl_clockmap_t h;
    memset(&h, 0, sizeof h);
    line_t l = {2.5e9, 1000};
    for (int i = 0; i < 3 * ZL_CLOCK_PAIRS; i++) {
        uint64_t t = 100 + (uint64_t)i * 25000000ull; /* 10 ms */
        zl_pair_t p = {t, ns_at(l, t)};
        zl_clockmap_add(&h, &p, 10000000);
    }
    check(h.n <= ZL_CLOCK_PAIRS && h.first.tsc == 100, "history: %u pairs, first %llu", h.n,
          (unsigned long long)h.first.tsc);
    /* 7.7 s before what is kept: the 32.32 slope's rounding adds up to
     * 2^-32 ns per tick. */
    int64_t e = diff(zl_clockmap_ns(&h, 200), ns_at(l, 200));
    check(e >= -6 && e <= 6, "a stamp older than the history: error %lld", (long long)e);
}

/* ---- the fallback ----------------------------------------------------- */

static void test_fallback(void) {
    zl_host_clock_init(ZL_CLOCK_GETTIME);
    check(!zl_stamp_tsc, "ZL_CLOCK_GETTIME uses the TSC");
    uint64_t a = zl_now_ns(), s = zl_stamp(), b = zl_now_ns();
    check(a <= s && s <= b, "fallback stamp %llu not between clock reads %llu, %llu", (unsigned long long)s,
          (unsigned long long)a, (unsigned long long)b);
    zl_slot_t slot[2] = {{.host_ns = 17}, {.host_ns = 99}};
    uint64_t oldest = 5;
    zl_host_clock_convert(slot, 2, &oldest);
    check(slot[0].host_ns == 17 && slot[1].host_ns == 99 && oldest == 5, "the fallback converts stamps");
    zl_host_clock_init(ZL_CLOCK_AUTO);
#if defined(__x86_64__)
    check(zl_stamp_tsc == zl_tsc_invariant(), "auto: TSC %d, invariant %d", zl_stamp_tsc, zl_tsc_invariant());
#else
    check(!zl_stamp_tsc, "auto uses the TSC off x86-64");
#endif
    printf("invariant TSC: %s\n", zl_tsc_invariant() ? "yes" : "no");
}

/* ---- the error on this machine --------------------------------------- */

/* A stamping thread takes (TSC, clock, TSC) triples; a draining thread
 * converts their TSC midpoints every millisecond through
 * zl_host_clock_convert, as zl_drain does, and compares with the clock. */
#define SAMPLES 200000
static uint64_t s_tsc[SAMPLES], s_ns[SAMPLES], s_win[SAMPLES];
static _Atomic uint32_t s_n;
static atomic_bool s_done;

static void *stamper(void *arg) {
    (void)arg;
#if defined(__x86_64__)
    struct timespec pause = {0, 20000};
    for (uint32_t i = 0; i < SAMPLES; i++) {
        uint64_t t1 = __builtin_ia32_rdtsc();
        uint64_t ns = zl_now_ns();
        uint64_t t2 = __builtin_ia32_rdtsc();
        s_tsc[i] = t1 + (t2 - t1) / 2;
        s_ns[i] = ns;
        s_win[i] = t2 - t1;
        atomic_store_explicit(&s_n, i + 1, memory_order_release);
        if (i % 64 == 63) nanosleep(&pause, NULL); /* about 0.5 s in all */
    }
#endif
    atomic_store(&s_done, true);
    return NULL;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_error_here(void) {
#if defined(__x86_64__)
    if (!zl_tsc_invariant()) {
        printf("no invariant TSC: the error is not measured\n");
        return;
    }
    zl_host_clock_init(ZL_CLOCK_TSC);
    zl_host_clock_start();
    pthread_t th;
    pthread_create(&th, NULL, stamper, NULL);
    static zl_slot_t batch[SAMPLES];
    static int64_t err[SAMPLES];
    uint32_t done = 0, good = 0;
    uint64_t drains = 0;
    for (;;) {
        bool last = atomic_load(&s_done);
        uint32_t n = atomic_load_explicit(&s_n, memory_order_acquire);
        for (uint32_t i = done; i < n; i++) batch[i - done].host_ns = s_tsc[i];
        uint64_t oldest = UINT64_MAX;
        zl_host_clock_convert(batch, n - done, &oldest);
        drains++;
        for (uint32_t i = done; i < n; i++) {
            /* A triple whose reads are far apart (an interrupt between
             * them) says little about the conversion: only those read
             * within 400 ticks (100–200 ns) count. */
            if (s_win[i] > 400) continue;
            err[good++] = diff(batch[i - done].host_ns, s_ns[i]);
        }
        done = n;
        if (last && done == atomic_load(&s_n)) break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    pthread_join(th, NULL);
    check(good > SAMPLES / 2, "only %u of %u samples usable", good, SAMPLES);
    if (good == 0) return;
    int64_t *abs_err = malloc(good * sizeof *abs_err);
    for (uint32_t i = 0; i < good; i++) abs_err[i] = err[i] < 0 ? -err[i] : err[i];
    qsort(err, good, sizeof *err, cmp_i64);
    qsort(abs_err, good, sizeof *abs_err, cmp_i64);
    printf("TSC -> CLOCK_MONOTONIC_RAW over %u stamps, %llu drains: error median %lld ns, |error| p50 %lld p99 "
           "%lld p99.9 %lld max %lld ns; widest pair window %llu ticks\n",
           good, (unsigned long long)drains, (long long)err[good / 2], (long long)abs_err[good / 2],
           (long long)abs_err[(uint64_t)good * 99 / 100], (long long)abs_err[(uint64_t)good * 999 / 1000],
           (long long)abs_err[good - 1], (unsigned long long)zl_host_clock_window());
    check(abs_err[(uint64_t)good * 999 / 1000] < 500, "p99.9 error %lld ns >= 500",
          (long long)abs_err[(uint64_t)good * 999 / 1000]);
    check(abs_err[good - 1] < 1000, "max error %lld ns >= 1 us", (long long)abs_err[good - 1]);
    free(abs_err);
#endif
}

int main(void) {
    test_map_table();
    test_map_edges();
    test_fallback();
    test_error_here();
    return check_summary();
}
