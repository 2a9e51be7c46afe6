/*
 * launch_rings.c — the per-thread rings that carry launch-path slots
 * (zl_slot_t) from the application's threads to Go: a ring is attached on
 * a thread's first launch (adopted from an exited thread, or mapped), and
 * drained by the harvester (collector/timing through cgo/timestamps.go:
 * zl_drain, zl_dropped, zl_launches_dropped). The push itself is
 * push() in launch_internal.h, inlined into the callbacks; a launch that
 * reaches its ring's check mark comes here (ring_check): it wakes a
 * sleeping harvester when the ring fills, and grows a full ring or waits
 * (ring_full, ZESTALL_RING_FULL).
 */
#include "launch_internal.h"

#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

ZL_TLS zl_ring_t *tl_ring;
_Atomic(zl_ring_t *) rings;
atomic_uint_fast64_t ring_dropped, launches_dropped;
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static zl_ring_t *drain_next; /* under drain_lock: where the next pass starts (NULL: the list's head) */

/* ---- a full ring: the launching thread waits (ZESTALL_RING_FULL) ---------
 *
 * When a thread launches faster than the harvester drains its ring, the
 * launch either waits for room (the default: nothing is lost, the
 * application runs at the rate zestall can record) or passes untouched and
 * is counted lost (ZESTALL_RING_FULL=drop). A wait ends when the ring has
 * room; it does not start when no harvester runs in this process (before
 * it starts, after the final drain at exit, in a forked child), and gives
 * up when the harvester drained nothing for ZL_RING_STALL_NS (stuck): the
 * launch is then lost as with drop, and no launch waits again until a
 * drain happens, so a stuck harvester costs the application that interval
 * once. A harvester that is merely slow (its writer waits for the disk, or
 * the machine is loaded) is waited for: that is the point.
 * Nothing is held while waiting: the check runs in the launch's prologue,
 * before any lock of zestall's is taken (docs/level-zero-loader.md §5.4
 * "Prologues can replace arguments"). */
#define ZL_RING_STALL_NS 2000000000ull /* 2 s: far beyond any poll interval (8 ms) or pass */
static atomic_bool ring_wait_on;
static _Atomic pid_t ring_wait_pid; /* the process whose harvester turned waiting on */
static _Atomic uint64_t drain_passes; /* zl_drain calls that saw the rings */
static _Atomic uint64_t ring_stuck_pass = UINT64_MAX; /* drain_passes when a wait gave up */
static atomic_uint_fast64_t ring_waits, ring_wait_ns;

void zl_set_ring_wait(int on) {
    atomic_store(&ring_wait_pid, getpid());
    atomic_store(&ring_wait_on, on != 0);
}
void zl_ring_waits(uint64_t *launches, uint64_t *ns) {
    *launches = atomic_load(&ring_waits);
    *ns = atomic_load(&ring_wait_ns);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Waits for fewer than limit slots of r in use; false when the wait gave
 * up (or waiting is off). */
static bool ring_wait(zl_ring_t *r, uint64_t h, uint64_t limit) {
    if (!atomic_load_explicit(&ring_wait_on, memory_order_relaxed)) return false;
    /* A forked child inherits the flag, not the harvester thread. */
    if (atomic_load_explicit(&ring_wait_pid, memory_order_relaxed) != getpid()) return false;
    uint64_t pass = atomic_load_explicit(&drain_passes, memory_order_acquire);
    if (pass == atomic_load_explicit(&ring_stuck_pass, memory_order_relaxed)) return false;
    uint64_t t0 = zl_now_ns(), progress = t0, now = t0;
    bool room = false;
    for (unsigned i = 0;; i++) {
        /* Spin briefly (a drain pass takes microseconds), then yield the
         * CPU to the harvester, which on a small machine may need it. */
        if (i < 64) {
            cpu_relax();
        } else if (i < 256) {
            sched_yield();
        } else {
            /* 20 us doubling to 1 ms (the harvester's shortest poll):
             * waiting threads must not take the CPU it needs. */
            unsigned sh = i - 256 < 6 ? i - 256 : 6;
            struct timespec ts = {0, 20000l << sh};
            if (ts.tv_nsec > 1000000) ts.tv_nsec = 1000000;
            nanosleep(&ts, NULL);
        }
        if (!atomic_load_explicit(&ring_wait_on, memory_order_relaxed)) break; /* the harvester stopped */
        if (ring_below(r, h, limit)) {
            room = true;
            break;
        }
        if ((i & 15) != 15 && i < 256) continue;
        now = zl_now_ns();
        uint64_t p = atomic_load_explicit(&drain_passes, memory_order_acquire);
        if (p != pass) {
            pass = p;
            progress = now;
        } else if (now - progress > ZL_RING_STALL_NS) {
            atomic_store_explicit(&ring_stuck_pass, pass, memory_order_relaxed);
            break;
        }
    }
    if (room) now = zl_now_ns();
    atomic_fetch_add_explicit(&ring_waits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&ring_wait_ns, now - t0, memory_order_relaxed);
    return room;
}


/* ---- Ring capacity ---------------------------------------------------
 *
 * The ring used to wrap at 32768 slots, so every launching thread
 * touched all 4 MiB of it after 32768 launches, whatever its rate. A
 * ring now starts at ZL_RING_MIN slots (128 KiB) and doubles, up to
 * ZL_RING, when a launch finds it full: a thread whose launches the
 * harvester keeps up with never touches more.
 *
 * The budget. Every slot a ring can fill is memory twice over: 128 bytes
 * of ring, and one of zestall's events in flight (a driver object: about
 * 1 KB of heap in Intel's driver, and so in the simulated one:
 * test/sim/README.md, "An event's host memory"), and the
 * event pools grow to the most events ever in flight
 * (event_pools.c, pools_take_back). Growing every ring to ZL_RING made
 * the resident memory of a full-rate run grow with its threads (+35 MiB
 * with 1 thread, +88 MiB with 4). So the rings' growth is budgeted: the
 * slots of all rings beyond ZL_RING_MIN each stay within ring_budget
 * (ZL_RING_GROWTH by default; ZESTALL_RING_SLOTS, less ZL_RING_MIN, set
 * by Go through zl_set_ring_budget before collection starts: a larger
 * budget absorbs longer harvester pauses for more memory). A ring
 * doubles only while the budget has room for
 * the doubling; beyond it a launch that finds its ring full waits for
 * the harvester (or is counted lost, ZESTALL_RING_FULL=drop), as at
 * ZL_RING before. A thread's first ZL_RING_MIN slots are its own,
 * outside the budget (a thread must be able to launch, whenever it
 * starts), so all rings hold at most threads x ZL_RING_MIN +
 * ZL_RING_GROWTH slots: 16384 for one thread, 23552 for eight. Slots
 * other than launches (ring_launch_limit's reserve) may grow a ring past
 * the budget rather than be lost: a handful per thousands of launches.
 * Bounding the rings makes the application wait through harvester
 * pauses that larger rings absorbed (the harvester stops draining for
 * tens of ms on a loaded machine; BENCHMARKS.md "Issue 14, session 7"
 * and "session 9"): that is the price of bounded memory, counted in
 * launches_waited and launch_wait_ns. Capacity is never returned: a
 * ring does not shrink, and an exited thread's ring, with its capacity,
 * passes to the next thread that launches. Shrinking was weighed (issue
 * 14, session 10) and left out: push() reads cap without a lock, so only
 * the ring's own thread may change it, on its launch path: a thread that
 * went idle after a burst, the one whose capacity lies unused, never
 * runs the code that would shrink it; what would come back is the ring's
 * 128 bytes a slot, not the events in flight (the larger part), which the
 * event pools keep at their peak; and the next burst would pay the
 * growth's copy under drain_lock again. The budget bounds the peak, so
 * memory does not grow with the run's length either way. */
static _Atomic uint32_t ring_budget = ZL_RING_GROWTH;
static _Atomic uint32_t ring_grown; /* slots of all rings beyond ZL_RING_MIN each */
static _Atomic uint32_t ring_slots; /* slots of all rings */

void zl_set_ring_budget(uint32_t slots) { atomic_store(&ring_budget, slots); }
uint32_t ring_one_thread_most(void) { return ZL_RING_MIN + atomic_load(&ring_budget); }
uint32_t zl_ring_slots(void) { return atomic_load(&ring_slots); }
uint32_t zl_ring_grown(void) { return atomic_load(&ring_grown); }

/* Takes n slots of growth from the budget if it has room for them (or
 * unconditionally with over_budget). */
static bool ring_grown_take(uint32_t n, bool over_budget) {
    uint32_t cur = atomic_load_explicit(&ring_grown, memory_order_relaxed);
    do {
        if (!over_budget && cur + n > atomic_load_explicit(&ring_budget, memory_order_relaxed)) return false;
    } while (!atomic_compare_exchange_weak_explicit(&ring_grown, &cur, cur + n, memory_order_relaxed,
                                                    memory_order_relaxed));
    atomic_fetch_add_explicit(&ring_slots, n, memory_order_relaxed);
    return true;
}

/* Whether r may still double within the budget (an estimate: another
 * thread's ring may take the room first). */
static bool ring_can_grow(const zl_ring_t *r) {
    return r->cap < ZL_RING && atomic_load_explicit(&ring_grown, memory_order_relaxed) + r->cap <=
                                   atomic_load_explicit(&ring_budget, memory_order_relaxed);
}

bool ring_grow(zl_ring_t *r, bool over_budget) {
    uint32_t cap = r->cap;
    if (cap >= ZL_RING || !ring_grown_take(cap, over_budget)) return false;
    /* The drainer reads slots and cap under drain_lock; tail changes
     * only under it. Slots [tail, head) move to where the doubled
     * capacity places them (x & (2cap-1)): those with bit cap set go to
     * the upper half, which no one reads yet. */
    pthread_mutex_lock(&drain_lock);
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    for (uint64_t x = t; x < h; x++)
        if (x & cap) r->slots[x & (2 * (uint64_t)cap - 1)] = r->slots[x & (cap - 1)];
    r->cap = 2 * cap;
    r->launch_limit = ring_launch_limit(2 * cap);
    pthread_mutex_unlock(&drain_lock);
    return true;
}

/* ---- Waking the harvester ---------------------------------------------
 *
 * The harvester sleeps between its passes, up to 16 ms when idle or at a
 * steady low rate (collector/session.go, pollWait). A thread that starts a
 * burst right after it fell asleep fills even the largest ring the budget
 * allows (16384 slots alone: about 11.7 ms at 1.4·10^6 launches/s) before
 * the sleep ends, and its launches wait (limit (a) of issue 14). So the
 * harvester arms a wake-up before it sleeps (zl_ring_wake_arm), the next
 * pass disarms it (zl_drain), and a launch that finds its ring filling
 * while it is armed wakes it: one write to an eventfd (which Go's poller
 * watches, cgo/timestamps.go), by the one launch that takes the armed
 * flag. A launch looks at its ring's fill only at the ring's check mark
 * (check_at), a compare with a value of its own ring's cache line, as the
 * fast path compared with the last tail seen before: no store, no shared
 * line, no syscall per launch.
 *
 * When the ring fills. A ring that can still double within the budget is
 * full at its launch limit, where it grows (as before); the harvester is
 * woken there too: it is behind. A ring that cannot grow is filling at
 * half its launch limit: that leaves the harvester the other half to
 * wake and drain (5.5 ms at 1.4·10^6/s for 16384 slots) before a launch
 * waits; every launch that must wait wakes it first. The pacer's steady
 * state finds about 2048 slots a poll (pollTarget), below the half of any
 * ring that cannot grow past 4096 slots, so a steady rate seldom wakes it.
 * Above the mark the ring is looked at again every ZL_WAKE_STEP launches:
 * a harvester that falls asleep after one look (it was awake, and did not
 * need waking) is woken by a later one. */
#define ZL_WAKE_STEP 256
static int wake_fd = -1;
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static atomic_bool wake_armed;
static _Atomic pid_t wake_pid; /* the process whose harvester armed it */
static atomic_uint_fast64_t wakes;

static void wake_fd_init(void) { wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int zl_ring_wake_fd(void) {
    pthread_once(&wake_once, wake_fd_init);
    return wake_fd;
}

void zl_ring_wake_arm(void) {
    atomic_store_explicit(&wake_pid, getpid(), memory_order_relaxed);
    atomic_store_explicit(&wake_armed, true, memory_order_release);
}

uint64_t zl_ring_wakes(void) { return atomic_load(&wakes); }

/* Wakes the harvester if it armed a wake-up: once per arming, by the
 * launch that takes the flag. Never in a forked child (it inherits the
 * flag and the eventfd, which its parent's harvester reads, not its
 * own: a child has none). */
static void ring_wake(void) {
    if (!atomic_load_explicit(&wake_armed, memory_order_relaxed)) return;
    if (!atomic_exchange_explicit(&wake_armed, false, memory_order_acquire)) return;
    if (wake_fd < 0 || atomic_load_explicit(&wake_pid, memory_order_relaxed) != getpid()) return;
    uint64_t one = 1;
    /* Non-blocking: a counter that cannot take one more (never, at 2^64 - 2)
     * already holds a wake-up. */
    if (write(wake_fd, &one, sizeof one) == sizeof one) atomic_fetch_add_explicit(&wakes, 1, memory_order_relaxed);
}
void ring_wake_harvester(void) { ring_wake(); }

static int ring_full(zl_ring_t *r, uint64_t h) {
    ring_wake();
    if (ring_grow(r, false)) return ZL_ROOM;
    return ring_wait(r, h, r->launch_limit) ? ZL_ROOM_AFTER_WAIT : ZL_ROOM_NONE;
}

int ring_check(zl_ring_t *r, uint64_t h) {
    int room = ZL_ROOM;
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (h - r->tail_seen >= r->launch_limit) room = ring_full(r, h); /* may grow r, or wait (tail_seen moves) */
    uint64_t t = r->tail_seen, used = h - t, limit = r->launch_limit;
    uint64_t mark = ring_can_grow(r) ? limit : limit / 2;
    if (used < mark) {
        r->check_at = t + mark;
        return room;
    }
    if (used < limit) ring_wake();
    r->check_at = h + ZL_WAKE_STEP < t + limit ? h + ZL_WAKE_STEP : t + limit;
    return room;
}

/* Rings outlive their threads (a thread's slots may still be pending when
 * it exits), so they are never unmapped; instead, a thread that exits
 * hands its cached events back and leaves its ring to the next thread
 * that launches for the first time. An application that creates a new
 * thread per task then uses as many rings as it has launching threads at
 * once, not one per thread it ever made. The ring's one producer changes
 * from the dead thread to its adopter: the orphan flag's release/acquire
 * pair orders the dead thread's last push before the adopter's first. */
static pthread_key_t ring_key;
static atomic_bool ring_key_ok;
static pthread_once_t ring_key_once = PTHREAD_ONCE_INIT;

/* Thread-exit destructor of ring_key (never for the thread that calls
 * exit, whose ring nobody could adopt anyway). libzestall.so is never
 * unloaded (NODELETE), so the destructor stays mapped. */
static void ring_exit(void *p) {
    zl_ring_t *r = p;
    event_cache_flush(r);
    atomic_store_explicit(&r->orphan, 1, memory_order_release);
}

static void ring_key_init(void) {
    if (pthread_key_create(&ring_key, ring_exit) == 0) atomic_store(&ring_key_ok, true);
}

/* A ring whose thread exited, now this thread's; NULL if none. */
static zl_ring_t *ring_adopt(void) {
    for (zl_ring_t *r = atomic_load(&rings); r != NULL; r = r->next) {
        uint32_t want = 1;
        if (atomic_load_explicit(&r->orphan, memory_order_relaxed) == 1 &&
            atomic_compare_exchange_strong_explicit(&r->orphan, &want, 0, memory_order_acquire,
                                                    memory_order_relaxed))
            return r;
    }
    return NULL;
}

/* my_ring's slow path: this thread's first launch. */
zl_ring_t *ring_attach(void) {
    pthread_once(&ring_key_once, ring_key_init);
    zl_ring_t *r = ring_adopt();
    if (r == NULL) {
        /* Mapped, not allocated: zero pages the kernel provides as the
         * ring is first written, page aligned (zl_ring_t's cache-line layout
         * needs it), and no 4 MiB memset on the thread's first launch. */
        void *m = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return NULL;
        r = m;
        r->cap = ZL_RING_MIN;
        r->launch_limit = ring_launch_limit(ZL_RING_MIN);
        atomic_fetch_add_explicit(&ring_slots, ZL_RING_MIN, memory_order_relaxed);
        /* Lock-free push onto the list of rings (never removed). */
        zl_ring_t *old = atomic_load(&rings);
        do {
            r->next = old;
        } while (!atomic_compare_exchange_weak(&rings, &old, r));
    }
    /* Without the key (pthread_key_create failed) the ring stays this
     * thread's for the run, as before. */
    if (atomic_load(&ring_key_ok)) pthread_setspecific(ring_key, r);
    tl_ring = r;
    return r;
}

/* Whether this thread has launched kernels under zestall (it owns a
 * ring): an application thread, never one of zestall's own (layer.c parks
 * such threads while the process exits). */
int zl_thread_launched(void) { return tl_ring != NULL; }

/* Whether some thread's ring holds at least ZL_BACKLOG_SLOTS slots not
 * drained yet: work that zestall's goroutine should get to before
 * anything that can wait, such as creating events ahead of need
 * (event_pools.c, pools_grow_ahead). Reads each ring's head and tail
 * only (both atomic; the list of rings only grows), no lock. */
bool ring_backlog(void) {
    for (zl_ring_t *r = atomic_load(&rings); r != NULL; r = r->next) {
        uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
        if (h > t && h - t >= ZL_BACKLOG_SLOTS) return true;
    }
    return false;
}

uint32_t zl_drain(zl_slot_t *dst, uint32_t cap, uint64_t *oldest_left) {
    uint32_t n = 0;
    uint64_t oldest = UINT64_MAX;
    /* A pass runs: the wake-up armed before the sleep is no longer wanted. */
    atomic_store_explicit(&wake_armed, false, memory_order_relaxed);
    pthread_mutex_lock(&drain_lock);
    /* A pass starts at the ring after the last one the previous pass
     * took slots from, around the list: when the batch fills before every
     * ring is empty, each thread's ring gets its turn (the first rings of
     * the list would otherwise be drained first every time, and the
     * others' launches wait or are lost: ZESTALL_RING_FULL). */
    zl_ring_t *first = atomic_load(&rings), *start = drain_next != NULL ? drain_next : first, *last = NULL;
    zl_ring_t *r = start;
    for (bool wrapped = false; r != NULL && !(wrapped && r == start);) {
        uint64_t mask = r->cap - 1;
        uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
        if (t < h && n < cap) last = r;
        while (t < h && n < cap) dst[n++] = r->slots[t++ & mask];
        atomic_store_explicit(&r->tail, t, memory_order_release);
        /* A ring's slots are in its thread's order: the first one left
         * is its oldest (host_ns taken before the append). */
        if (t < h && r->slots[t & mask].host_ns < oldest) oldest = r->slots[t & mask].host_ns;
        r = r->next;
        if (r == NULL && !wrapped && start != first) {
            r = first;
            wrapped = true;
        }
    }
    drain_next = last != NULL && n == cap ? (last->next != NULL ? last->next : first) : NULL;
    /* The progress a waiting launch watches (ring_wait). */
    atomic_fetch_add_explicit(&drain_passes, 1, memory_order_release);
    pthread_mutex_unlock(&drain_lock);
    *oldest_left = oldest;
    return n;
}

uint64_t zl_dropped(void) { return atomic_load(&ring_dropped); }
uint64_t zl_launches_dropped(void) { return atomic_load(&launches_dropped); }
