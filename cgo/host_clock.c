/*
 * host_clock.c — the host time stamps the launch path writes into its
 * ring slots (zl_slot_t.host_ns), and their conversion to
 * CLOCK_MONOTONIC_RAW nanoseconds at drain time, on zestall's harvester
 * thread (docs/level-zero-loader.md §8.5 "Host time stamps on the launch
 * path").
 *
 * Why: clock_gettime through the vDSO costs 30–35 ns per call under KVM,
 * a tenth of a launch's whole cost on the application thread; the TSC
 * costs 10–19 ns. So on x86-64 with an invariant TSC (CPUID 0x80000007
 * EDX bit 8: constant rate in every P-, C- and T-state) the launch path
 * reads the TSC (zl_stamp, launch_internal.h), and zl_drain maps each
 * slot's ticks to CLOCK_MONOTONIC_RAW before Go sees it: Go's Slot.HostNs
 * keeps its meaning. Elsewhere (no invariant TSC, not x86-64) the stamps
 * are CLOCK_MONOTONIC_RAW already and nothing is converted.
 *
 * The mapping: pairs (tsc, ns), each a CLOCK_MONOTONIC_RAW read between
 * two TSC reads (the tightest of a few tries, the TSC taken at the
 * middle), taken on zestall's threads only: one when collection is
 * turned on, then one per drain pass. A stamp between two pairs is
 * interpolated linearly between them; one outside them is extrapolated
 * with the slope of the longest span (the first pair to the newest).
 * With the TSC as the kernel's clocksource, CLOCK_MONOTONIC_RAW is a
 * fixed linear function of the TSC, so the interpolation's error is
 * bounded by the pairs' own (half their read window), whatever their
 * spacing; the docs give the measured error.
 *
 * State: the history of pairs is used under drain_lock only
 * (launch_rings.c, zl_drain) and at zl_host_clock_start, which runs
 * before collection is turned on.
 */
#include "launch_internal.h"

#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

bool zl_stamp_tsc;

uint64_t zl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool zl_tsc_invariant(void) {
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u) return false;
    __cpuid(0x80000007u, a, b, c, d);
    (void)a, (void)b, (void)c;
    return (d >> 8) & 1;
#else
    return false;
#endif
}

void zl_host_clock_init(int mode) {
    zl_stamp_tsc = mode == ZL_CLOCK_TSC || (mode == ZL_CLOCK_AUTO && zl_tsc_invariant());
}

/* ---- pairs ----------------------------------------------------------- */

/* One CLOCK_MONOTONIC_RAW read bracketed by two TSC reads; the tightest
 * bracket of ZL_PAIR_TRIES. *window is its width in ticks: the pair's TSC
 * is within window/2 of the tick the clock read. */
#define ZL_PAIR_TRIES 5
bool zl_pair_take(zl_pair_t *out, uint64_t *window) {
#if defined(__x86_64__)
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < ZL_PAIR_TRIES; i++) {
        /* lfence: the TSC is read after earlier loads (zl_drain's reads of
         * the rings' heads) and before the clock read starts. */
        __builtin_ia32_lfence();
        uint64_t t1 = __builtin_ia32_rdtsc();
        __builtin_ia32_lfence();
        uint64_t ns = zl_now_ns();
        __builtin_ia32_lfence();
        uint64_t t2 = __builtin_ia32_rdtsc();
        if (t2 < t1 || t2 - t1 >= best) continue;
        best = t2 - t1;
        out->tsc = t1 + (t2 - t1) / 2;
        out->ns = ns;
    }
    if (window != NULL) *window = best;
    return best != UINT64_MAX;
#else
    (void)out, (void)window;
    return false;
#endif
}

/* ns per tick in 32.32 fixed point from a to b (b after a in both). */
static uint64_t slope(const zl_pair_t *a, const zl_pair_t *b) {
    return (uint64_t)((((unsigned __int128)(b->ns - a->ns)) << 32) / (b->tsc - a->tsc));
}

static uint64_t apply(const zl_pair_t *a, uint64_t mult, uint64_t x) {
    if (x >= a->tsc) return a->ns + (uint64_t)(((unsigned __int128)(x - a->tsc) * mult) >> 32);
    uint64_t back = (uint64_t)(((unsigned __int128)(a->tsc - x) * mult) >> 32);
    return back < a->ns ? a->ns - back : 0;
}

/* Appends p to c's history unless it is not after the newest pair in
 * both coordinates (then it is useless: a clock read cannot go back). */
static void hist_add(zl_clockmap_t *c, const zl_pair_t *p) {
    if (c->n > 0) {
        const zl_pair_t *l = &c->p[c->n - 1];
        if (p->tsc <= l->tsc || p->ns <= l->ns) return;
        if (c->n == ZL_CLOCK_PAIRS) {
            /* Full: the older half goes (the first pair stays, in c->first). */
            memmove(c->p, c->p + ZL_CLOCK_PAIRS / 2, (ZL_CLOCK_PAIRS / 2) * sizeof *c->p);
            memmove(c->mult, c->mult + ZL_CLOCK_PAIRS / 2, (ZL_CLOCK_PAIRS / 2) * sizeof *c->mult);
            c->n = ZL_CLOCK_PAIRS / 2;
            l = &c->p[c->n - 1];
        }
        c->mult[c->n - 1] = slope(l, p);
    } else {
        c->first = *p;
    }
    c->p[c->n++] = *p;
    c->mult[c->n - 1] = 0;
    if (c->n > 1 || c->first.tsc < p->tsc) c->span_mult = slope(&c->first, p);
}

void zl_clockmap_add(zl_clockmap_t *c, const zl_pair_t *p, uint64_t spacing_ns) {
    /* Kept only every spacing_ns: the newest pair otherwise replaces the
     * last one kept, so the history spans ZL_CLOCK_PAIRS × spacing_ns
     * (stamps older than that are extrapolated from its oldest pair). */
    if (c->n >= 2 && p->ns - c->p[c->n - 2].ns < spacing_ns && p->tsc > c->p[c->n - 1].tsc &&
        p->ns > c->p[c->n - 1].ns) {
        c->n--;
    }
    hist_add(c, p);
}

uint64_t zl_clockmap_ns(const zl_clockmap_t *c, uint64_t x) {
    if (c->n == 0) return x;
    if (c->n == 1 || c->span_mult == 0) return c->p[0].ns; /* no slope yet */
    uint32_t i = c->n - 1;
    if (x >= c->p[i].tsc) return apply(&c->p[i], c->span_mult, x);
    while (i > 0 && x < c->p[i - 1].tsc) i--;
    if (i == 0) return apply(&c->p[0], c->span_mult, x);
    return apply(&c->p[i - 1], c->mult[i - 1], x);
}

/* ---- the launch path's map ------------------------------------------- */

/* Pairs are kept 10 ms apart at least (256 span 2.5 s): stamps wait in
 * the rings for less than that unless the harvester is stuck. */
#define ZL_PAIR_SPACING_NS 10000000ull

static zl_clockmap_t drain_map;
static uint64_t drain_max_window; /* the widest pair's read window, ticks */
uint64_t zl_host_clock_window(void) { return drain_max_window; }

/* A pair is kept only when its read window is at most ZL_PAIR_WINDOW_MAX
 * ticks or 4 × the narrowest window any take has had (a clock read that
 * is a system call rather than the vDSO has wide windows throughout): a
 * pair whose reads were preempted (a loaded machine, a VM's stolen time)
 * has a window of up to a time slice, and its error, half of it, would
 * move every stamp interpolated against it by as much (a launch's append
 * time then lands after its execution's, or its execution's reference
 * after its device start). Without a good pair a drain adds none: its
 * stamps are converted from the pairs kept (docs/level-zero-loader.md
 * §8.5). Up to ZL_PAIR_ROUNDS takes per drain. */
#define ZL_PAIR_WINDOW_MAX 2048u
#define ZL_PAIR_ROUNDS 4
static uint64_t narrowest_window = UINT64_MAX;
static bool good_pair(zl_pair_t *p, uint64_t *w) {
    for (int i = 0; i < ZL_PAIR_ROUNDS; i++) {
        if (!zl_pair_take(p, w)) return false;
        if (*w < narrowest_window) narrowest_window = *w;
        uint64_t limit = narrowest_window < UINT64_MAX / 4 ? 4 * narrowest_window : UINT64_MAX;
        if (limit < ZL_PAIR_WINDOW_MAX) limit = ZL_PAIR_WINDOW_MAX;
        if (*w <= limit) return true;
    }
    return false;
}

void zl_host_clock_start(void) {
    if (!zl_stamp_tsc) return;
    zl_pair_t p;
    uint64_t w;
    if (good_pair(&p, &w)) zl_clockmap_add(&drain_map, &p, ZL_PAIR_SPACING_NS);
}

void zl_host_clock_convert(zl_slot_t *dst, uint32_t n, uint64_t *oldest) {
    if (!zl_stamp_tsc) return;
    zl_pair_t p;
    uint64_t w;
    if (good_pair(&p, &w)) {
        if (w > drain_max_window) drain_max_window = w;
        zl_clockmap_add(&drain_map, &p, ZL_PAIR_SPACING_NS);
    }
    /* A slope needs two pairs: the first drain normally brings the
     * second (the first was taken when collection was turned on). */
    for (int i = 0; drain_map.n < 2 && i < 100; i++) {
        uint64_t t = zl_now_ns();
        while (zl_now_ns() - t < 10000) {
        }
        if (good_pair(&p, &w)) zl_clockmap_add(&drain_map, &p, ZL_PAIR_SPACING_NS);
    }
    for (uint32_t i = 0; i < n; i++) dst[i].host_ns = zl_clockmap_ns(&drain_map, dst[i].host_ns);
    if (*oldest != UINT64_MAX) *oldest = zl_clockmap_ns(&drain_map, *oldest);
}
