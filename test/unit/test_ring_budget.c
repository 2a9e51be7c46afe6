/*
 * Unit tests of cgo/launch_rings.c, the launch path's per-thread rings,
 * and the budget on their growth (launch_rings.c, "Ring capacity"):
 * rings start at ZL_RING_MIN and double while all rings' slots beyond
 * ZL_RING_MIN each fit the budget; a launch that finds its ring full beyond that waits for
 * the drainer (ZESTALL_RING_FULL=wait) or is refused (drop); other slots
 * use the reserve and may grow a ring past the budget; an exited
 * thread's ring and its capacity pass to the next launching thread;
 * under racing threads with a draining thread every slot arrives once, in
 * its thread's order, while the rings' growth stays within the budget;
 * and a launch wakes an armed harvester once when its ring fills
 * (launch_rings.c, "Waking the harvester": at half the launch limit of a
 * ring that cannot grow, at the limit of one that can, before a wait),
 * never below the mark, never after a drain disarmed it, never from a
 * forked child.
 *
 *   unit_ring_budget
 *
 * Built from launch_rings.c and host_clock.c, with the function it calls
 * from the rest of the launch path stubbed below (no driver, no Go). The last
 * line of output is "N passed, N failed".
 */
#include "../../cgo/launch_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* Stubs of what launch_rings.c calls elsewhere in the launch path
 * (host_clock.c is linked for zl_now_ns; host_ns is the sequence number
 * below). */
void event_cache_flush(zl_ring_t *r) { (void)r; }

/* A launch as the callbacks make it: room first, then the push. host_ns
 * carries the thread's sequence number, list the thread's id. */
static bool launch(uint64_t thread, uint64_t seq) {
    if (ring_has_room() == ZL_ROOM_NONE) return false;
    zl_slot_t s = {.host_ns = seq, .list = thread, .kind = ZL_SLOT_LAUNCH};
    return push(&s);
}

static bool other_slot(uint64_t thread, uint64_t seq) {
    zl_slot_t s = {.host_ns = seq, .list = thread, .kind = ZL_SLOT_EXEC};
    return push(&s);
}

static zl_slot_t batch[4096];

/* Drains every ring; checks that thread's slots come in order from
 * *next on; returns how many slots were drained. */
static uint64_t drain_all(uint64_t thread, uint64_t *next) {
    uint64_t total = 0, disorder = 0, oldest;
    uint32_t n;
    while ((n = zl_drain(batch, sizeof batch / sizeof batch[0], &oldest)) > 0) {
        for (uint32_t i = 0; i < n; i++) {
            if (batch[i].list != thread) continue;
            if (batch[i].host_ns != *next) disorder++;
            *next = batch[i].host_ns + 1;
        }
        total += n;
    }
    check(disorder == 0, "thread %llu: %llu slots drained out of order", (unsigned long long)thread,
          (unsigned long long)disorder);
    return total;
}

/* ---- one thread, no drainer: the budget stops its ring's growth ---- */

typedef struct fill {
    uint64_t thread;
    uint64_t admitted, others;
    uint32_t cap_after_launches, cap_after_others;
    uint32_t grown_after_launches; /* zl_ring_grown() */
} fill_t;

/* Launches until refused (waiting is off), then pushes other slots. */
static void *fill_ring(void *arg) {
    fill_t *f = arg;
    uint64_t seq = 0;
    while (f->admitted < 2 * ZL_RING && launch(f->thread, seq)) {
        seq++;
        f->admitted++;
    }
    f->cap_after_launches = tl_ring->cap;
    f->grown_after_launches = zl_ring_grown();
    while (f->others < 2 * ZL_RING_RESERVE && other_slot(f->thread, seq)) {
        seq++;
        f->others++;
    }
    f->cap_after_others = tl_ring->cap;
    return NULL;
}

static void run(void *(*fn)(void *), void *arg) {
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg) != 0) {
        perror("pthread_create");
        exit(2);
    }
    pthread_join(t, NULL);
}

static void test_budget_stops_growth(void) {
    /* Doubling from ZL_RING_MIN to 8192 grows the ring by 8192 -
     * ZL_RING_MIN; to 16384 would need 8192 more. */
    zl_set_ring_budget(8192 - ZL_RING_MIN + 4096);
    fill_t f = {.thread = 1};
    run(fill_ring, &f);
    /* A launch is admitted while the reserve is left free. */
    check(f.cap_after_launches == 8192, "one thread: ring grew to %u slots, want 8192 (the budget)", f.cap_after_launches);
    check(f.admitted == ring_launch_limit(8192), "ring of 8192: %llu launches admitted, want %u",
          (unsigned long long)f.admitted, ring_launch_limit(8192));
    check(f.grown_after_launches == 8192 - ZL_RING_MIN, "rings grown by %u slots, want %u", f.grown_after_launches,
          8192 - ZL_RING_MIN);
    /* The reserve takes other slots; past it the ring grows over the
     * budget rather than lose one. */
    check(f.others == 2 * ZL_RING_RESERVE, "%llu of %d other slots pushed", (unsigned long long)f.others, 2 * ZL_RING_RESERVE);
    check(f.cap_after_others == 16384, "after the reserve: ring of %u slots, want 16384 (past the budget)", f.cap_after_others);
    check(zl_ring_slots() == 16384 && zl_ring_grown() == 16384 - ZL_RING_MIN,
          "rings' slots %u, grown by %u; want 16384, %u", zl_ring_slots(), zl_ring_grown(), 16384 - ZL_RING_MIN);
    check(zl_dropped() == 0, "%llu other slots dropped", (unsigned long long)zl_dropped());
    uint64_t next = 0;
    uint64_t n = drain_all(1, &next);
    check(n == f.admitted + f.others && next == n, "drained %llu slots (next %llu), want %llu",
          (unsigned long long)n, (unsigned long long)next, (unsigned long long)(f.admitted + f.others));
}

/* ---- an exited thread's ring passes on with its capacity ----------- */

static void test_adoption_keeps_capacity(void) {
    uint32_t before = zl_ring_grown();
    fill_t f = {.thread = 2};
    run(fill_ring, &f);
    check(f.grown_after_launches == before,
          "a thread adopting an exited thread's ring changed the rings' growth: %u -> %u", before,
          f.grown_after_launches);
    check(f.cap_after_launches == 16384 && f.admitted == ring_launch_limit(16384),
          "adopted ring: %u slots, %llu launches admitted; want 16384, %u", f.cap_after_launches,
          (unsigned long long)f.admitted, ring_launch_limit(16384));
    uint64_t next = 0;
    drain_all(2, &next);
    check(next == f.admitted + f.others, "adopted ring: %llu of %llu slots drained in order", (unsigned long long)next,
          (unsigned long long)(f.admitted + f.others));
}

/* ---- racing threads, a drainer, waiting on --------------------------- */

#define RACE_THREADS 6
#define RACE_LAUNCHES 150000
#define RACE_BUDGET 16384

static atomic_int launchers_done;
static atomic_uint_fast64_t refused;
static atomic_uint max_grown;

static void *race_launcher(void *arg) {
    uint64_t thread = (uint64_t)(uintptr_t)arg;
    for (uint64_t i = 0; i < RACE_LAUNCHES; i++)
        if (!launch(thread, i)) atomic_fetch_add(&refused, 1);
    atomic_fetch_add(&launchers_done, 1);
    return NULL;
}

static void test_race_within_budget(void) {
    /* One ring of 32768 is left over from the tests above (the second
     * one's reserve grew it past the budget); one of the new threads
     * adopts it, the others map rings of ZL_RING_MIN: the budget is
     * RACE_BUDGET over that ring's growth. */
    uint32_t start = zl_ring_grown();
    zl_set_ring_budget(RACE_BUDGET + start);
    zl_set_ring_wait(1);
    pthread_t t[RACE_THREADS];
    for (uintptr_t i = 0; i < RACE_THREADS; i++)
        if (pthread_create(&t[i], NULL, race_launcher, (void *)(10 + i)) != 0) {
            perror("pthread_create");
            exit(2);
        }
    uint64_t next[RACE_THREADS] = {0}, seen = 0, disorder = 0, oldest;
    for (;;) {
        bool done = atomic_load(&launchers_done) == RACE_THREADS;
        uint32_t n = zl_drain(batch, sizeof batch / sizeof batch[0], &oldest);
        uint32_t g = zl_ring_grown();
        if (g > atomic_load(&max_grown)) atomic_store(&max_grown, g);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t th = batch[i].list - 10;
            if (th >= RACE_THREADS || batch[i].host_ns != next[th]) {
                disorder++;
                continue;
            }
            next[th]++;
            seen++;
        }
        if (done && n == 0) break;
        /* A drainer that falls behind, as the harvester does: rings fill. */
        usleep(300);
    }
    for (int i = 0; i < RACE_THREADS; i++) pthread_join(t[i], NULL);
    zl_set_ring_wait(0);
    uint64_t waited, wait_ns;
    zl_ring_waits(&waited, &wait_ns);
    check(disorder == 0, "race: %llu slots out of their thread's order", (unsigned long long)disorder);
    check(refused == 0 && seen == (uint64_t)RACE_THREADS * RACE_LAUNCHES,
          "race: %llu of %d launches seen, %llu refused (waiting on: none may be)", (unsigned long long)seen,
          RACE_THREADS * RACE_LAUNCHES, (unsigned long long)refused);
    check(zl_ring_grown() <= RACE_BUDGET + start && atomic_load(&max_grown) <= RACE_BUDGET + start,
          "race: the rings grew by %u slots, budget %u", zl_ring_grown(), RACE_BUDGET + start);
    check(zl_ring_grown() > start, "race: no ring grew (the drainer was meant to fall behind)");
    check(waited > 0, "race: no launch waited (the drainer was meant to fall behind)");
    printf("race: %d threads x %d launches, %llu waited %.1f ms, rings grown by %u of %u slots, %u slots in all\n",
           RACE_THREADS, RACE_LAUNCHES, (unsigned long long)waited, wait_ns / 1e6, zl_ring_grown() - start, RACE_BUDGET,
           zl_ring_slots());
}

/* ---- waking the harvester when a ring fills ------------------------- */

/* The wake-ups written to the eventfd since the last read (0: none). */
static uint64_t wakes_pending(void) {
    uint64_t v = 0;
    if (read(zl_ring_wake_fd(), &v, sizeof v) != sizeof v) {
        check(errno == EAGAIN, "eventfd read: %s", strerror(errno));
        return 0;
    }
    return v;
}

/* Launches until the ring holds used slots (from empty, waiting off). */
static uint64_t wake_seq;
static bool fill_to(uint64_t used) {
    zl_ring_t *r = my_ring();
    while (atomic_load(&r->head) - atomic_load(&r->tail) < used)
        if (!launch(99, wake_seq++)) return false;
    return true;
}

static void drain_quiet(void) {
    uint64_t oldest;
    while (zl_drain(batch, sizeof batch / sizeof batch[0], &oldest) > 0) {
    }
}

static void *wake_thread(void *arg) {
    (void)arg;
    check(zl_ring_wake_fd() >= 0, "no eventfd: %s", strerror(errno));
    /* A ring that cannot grow (no budget): launch limit 768, mark 384. */
    zl_set_ring_budget(0);
    uint64_t w0 = zl_ring_wakes();
    zl_ring_wake_arm();
    check(fill_to(383), "below the mark: a launch refused");
    check(zl_ring_wakes() == w0 && wakes_pending() == 0, "woken below the mark (%llu wake-ups)",
          (unsigned long long)(zl_ring_wakes() - w0));
    /* Past the mark a launch looks again within ZL_WAKE_STEP (256). */
    check(fill_to(384 + 256), "past the mark: a launch refused");
    check(zl_ring_wakes() == w0 + 1 && wakes_pending() == 1, "past the mark: %llu wake-ups, want 1",
          (unsigned long long)(zl_ring_wakes() - w0));
    /* Once per arming. */
    uint32_t limit = tl_ring->launch_limit;
    check(limit == 768 && fill_to(limit), "up to the limit (%u): a launch refused", limit);
    check(zl_ring_wakes() == w0 + 1 && wakes_pending() == 0, "woken again without arming");
    /* A launch that finds the ring full wakes it before waiting (here
     * waiting is off: refused). */
    zl_ring_wake_arm();
    check(!launch(99, wake_seq), "a launch past the limit admitted");
    check(zl_ring_wakes() == w0 + 2 && wakes_pending() == 1, "a full ring did not wake the harvester");
    /* A drain disarms: the pass it woke for runs. */
    drain_quiet();
    zl_ring_wake_arm();
    drain_quiet();
    check(fill_to(limit), "after the drain: a launch refused");
    check(zl_ring_wakes() == w0 + 2 && wakes_pending() == 0, "woken after a drain disarmed it");
    drain_quiet();
    /* A forked child inherits the flag and the eventfd, not the
     * harvester: its launches never write to its parent's eventfd. */
    zl_ring_wake_arm();
    pid_t pid = fork();
    if (pid == 0) _exit(fill_to(limit) ? 0 : 1);
    int st = 0;
    waitpid(pid, &st, 0);
    check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the forked child's launches failed");
    check(wakes_pending() == 0, "a forked child woke its parent's harvester");
    /* ... while the parent's own arming still stands. */
    check(fill_to(384 + 256) && wakes_pending() == 1, "the parent's arming did not survive its child");
    drain_quiet();
    /* A ring that can grow is full at its limit: it grows, and wakes. */
    zl_set_ring_budget(ZL_RING_MIN);
    zl_ring_wake_arm();
    check(fill_to(limit - 1) && wakes_pending() == 0, "a ring that can grow woke below its limit");
    check(fill_to(limit + 1) && tl_ring->cap == 2 * ZL_RING_MIN, "the ring did not grow (%u slots)", tl_ring->cap);
    check(wakes_pending() == 1, "a ring that grew did not wake the harvester");
    drain_quiet();
    /* ring_backlog: true once a ring holds ZL_BACKLOG_SLOTS undrained
     * slots (what stops the events created ahead of need), false below
     * and after a drain. */
    check(!ring_backlog(), "a backlog with every ring drained");
    check(fill_to(ZL_BACKLOG_SLOTS - 1) && !ring_backlog(), "a backlog below %d slots", ZL_BACKLOG_SLOTS);
    check(fill_to(ZL_BACKLOG_SLOTS) && ring_backlog(), "no backlog at %d slots", ZL_BACKLOG_SLOTS);
    drain_quiet();
    check(!ring_backlog(), "a backlog after the drain");
    return NULL;
}

/* Runs first, on a fresh ring, which it leaves grown to 2048 slots and
 * empty: the budget test's thread adopts it, and its figures (all rings'
 * slots, and their growth beyond ZL_RING_MIN) come out as from a fresh
 * ring. */
static void test_wake_on_fill(void) { run(wake_thread, NULL); }

int main(void) {
    test_wake_on_fill();
    test_budget_stops_growth();
    test_adoption_keeps_capacity();
    test_race_within_budget();
    return check_summary();
}
