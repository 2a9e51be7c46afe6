/*
 * exec_event.c — event pools and events: event state (signal and reset
 * times, kernel timestamps) written in a seqlock section and read
 * lock-free by host observers, commands' signals posted by the engines and
 * applied by the next access to event state, the clock floor that lets
 * observers of completed work decide without reading the host clock,
 * status, host waits, kernel-timestamp queries, and the metrics
 * notification events.
 */
#include "exec.h"

#include <unistd.h>

atomic_uint_fast64_t g_event_id;

/* ================================================================== */
/* Events: state                                                       */
/* ================================================================== */

void event_ref(sim_event_t *ev) { atomic_fetch_add(&ev->refs, 1); }
static void pool_unref(sim_event_pool_t *p);

/* Applies the posted signals when ev has one outstanding (posts_out,
 * below, "posted signals"): an access to ev's state needs only ev's own
 * writes, and a signal posted for ev is applied together with every
 * signal posted before it (posts_apply takes them all, in order). The
 * acquire pairs with the applier's release of posts_out, after its
 * write of ev. */
static inline void posts_apply_for(sim_event_t *ev) {
    if (atomic_load_explicit(&ev->posts_out, memory_order_acquire) != 0) posts_apply();
}

/* Freeing an event applies the posted signals first: a post names its
 * event without holding a reference (below, "posted signals"), so every
 * post of a command that signalled ev -- made while the command existed,
 * and with it what kept ev alive (a queued command's reference, or a
 * recorded command's command buffer counted on ev's pool) -- is written
 * before ev is freed. The posts are seen: each was published (post_tail)
 * before its command was released, and the reference count (or the
 * pool's count of command buffers, "a recorded command's events" below)
 * orders that release before this free. g_post_lock is never held here
 * (appliers take no reference), nor the pool's lock. */
static void event_free(sim_event_t *ev) {
    posts_apply_for(ev);
    free(atomic_load_explicit(&ev->pend, RLX));
    free(ev->completion);
    pthread_mutex_destroy(&ev->streamer_lock);
    sim_event_pool_t *p = ev->pool;
    free(ev);
    pool_unref(p);
}

/* ---- a recorded command's events -----------------------------------
 * On Intel's driver an append to a regular list encodes the event's GPU
 * address into the command buffer; nothing counts references to the
 * event object, and the list's reset or destruction touches no event
 * (test/sim/README.md "A regular list's signals: what Intel's driver
 * does, what changed (session 13)"). A recorded command here holds no
 * reference to its events either (cmd_owns_t CMD_RECORDED): its command
 * buffer counts itself once on each pool its commands' events belong to
 * (exec_cmdlist.c cmdbuf_name_pool: an atomic add on the pool the first
 * time the buffer names it, a subtract per pool at the buffer's release),
 * and an event whose last reference is dropped (zeEventDestroy, usually)
 * while some command buffer counted on its pool may name it is kept, not
 * freed, until every such buffer has been released. So destroying an
 * event that recorded commands still name stays safe (README "Command
 * queues and command lists"), and a kept event's pending posts are
 * applied when it is freed (event_free), as before.
 *
 * Which buffers may name a kept event: only those counted on its pool
 * before it was destroyed (an append naming a destroyed event is the
 * application's error, refused by SIM_OBJ). So the pool counts in two
 * slots, and a buffer counts itself in the slot current when it first
 * names the pool (cur_slot). A kept event waits (`waiting`) until the
 * slot not current is empty; then cur_slot flips to that slot -- new
 * buffers count there from now on -- and the waiting events drain
 * (`draining`) with the slot that was current (kept_slot), which only
 * buffers counted before the flip hold: once it is empty too, every
 * buffer counted before those events were destroyed is gone, and they
 * are freed. Buffers counted after the flip do not hold them back, so
 * a kept event is freed once the buffers that existed at its destruction
 * are released, even if the application always has some recorded list
 * naming the pool (a queue's last batch, a list being re-recorded). A
 * buffer that read cur_slot just before a flip and counts itself in the
 * old slot after it only delays the drain (it names no destroyed event).
 * An event whose pool no buffer counts on is freed at once, as before:
 * the check reads both slots (acquire, pairing with the buffers'
 * releases), without the pool's lock. */

/* p->lock held: moves the kept events along (above); returns the ones
 * that may be freed now, linked through kept_next. */
static sim_event_t *pool_kept_progress_locked(sim_event_pool_t *p) {
    sim_event_t *freed = NULL;
    for (;;) {
        if (p->draining && atomic_load_explicit(&p->cmd_refs[p->kept_slot], memory_order_acquire) == 0) {
            sim_event_t *last = p->draining;
            while (last->kept_next) last = last->kept_next;
            last->kept_next = freed;
            freed = p->draining;
            p->draining = NULL;
        }
        uint32_t cur = atomic_load_explicit(&p->cur_slot, RLX);
        if (p->draining == NULL && p->waiting &&
            atomic_load_explicit(&p->cmd_refs[1 - cur], memory_order_acquire) == 0) {
            p->kept_slot = cur;
            atomic_store_explicit(&p->cur_slot, 1 - cur, RLX);
            p->draining = p->waiting;
            p->waiting = NULL;
            continue;
        }
        return freed;
    }
}

static void events_free_list(sim_event_t *ev) {
    while (ev) {
        sim_event_t *next = ev->kept_next;
        event_free(ev);
        ev = next;
    }
}

uint32_t pool_cmd_ref(sim_event_pool_t *p) {
    atomic_fetch_add_explicit(&p->refs, 1, RLX);
    uint32_t slot = atomic_load_explicit(&p->cur_slot, RLX);
    atomic_fetch_add_explicit(&p->cmd_refs[slot], 1, RLX);
    return slot;
}

void pool_cmd_unref(sim_event_pool_t *p, uint32_t slot) {
    /* Release: the buffer's commands (and their posts) come before the
     * free of the events they name. */
    if (atomic_fetch_sub_explicit(&p->cmd_refs[slot], 1, memory_order_acq_rel) == 1) {
        pthread_mutex_lock(&p->lock);
        sim_event_t *freed = pool_kept_progress_locked(p);
        pthread_mutex_unlock(&p->lock);
        events_free_list(freed);
    }
    pool_unref(p);
}

/* Dropping the last reference frees the event (event_free), or keeps it
 * while recorded commands may name it ("a recorded command's events"). */
void event_unref(sim_event_t *ev) {
    if (ev == NULL || atomic_fetch_sub(&ev->refs, 1) != 1) return;
    sim_event_pool_t *p = ev->pool;
    if (atomic_load_explicit(&p->cmd_refs[0], memory_order_acquire) != 0 ||
        atomic_load_explicit(&p->cmd_refs[1], memory_order_acquire) != 0) {
        pthread_mutex_lock(&p->lock);
        ev->kept_next = p->waiting;
        p->waiting = ev;
        sim_event_t *freed = pool_kept_progress_locked(p);
        pthread_mutex_unlock(&p->lock);
        events_free_list(freed);
        return;
    }
    event_free(ev);
}

/* ---- event state: writers exclusive through seq, lock-free readers -- */

/* Opens a seqlock write section: seq goes from even to odd, which also
 * excludes other writers (they spin until it is even again). One
 * compare-and-swap, no mutex: on Intel's driver a signal is written by
 * the device into the event's memory, and the launching thread takes no
 * lock for the event it appends (test/sim/README.md "Cost"). Sections are
 * a few stores, so a waiting writer yields only if the holder was
 * preempted. */
static void ev_write_begin(sim_event_t *ev) {
    for (unsigned spins = 0;; spins++) {
        unsigned s = atomic_load_explicit(&ev->seq, RLX);
        if ((s & 1) == 0 &&
            atomic_compare_exchange_weak_explicit(&ev->seq, &s, s + 1, memory_order_acquire, RLX))
            break;
        if (spins > 16) sched_yield();
    }
    atomic_thread_fence(memory_order_release);
}

static void ev_write_end(sim_event_t *ev) {
    atomic_store_explicit(&ev->seq, atomic_load_explicit(&ev->seq, RLX) + 1, memory_order_release);
}

/* flags: 0 or EV_NPARTS_RESIGNALLED (the pending writes are set). */
static void ev_store_parts(sim_event_t *ev, const ev_parts_t *p, uint32_t flags) {
    uint32_t n = p->n < SIM_MAX_PARTS ? p->n : SIM_MAX_PARTS;
    for (uint32_t i = 0; i < n; i++) {
        atomic_store_explicit(&ev->part[i].start, p->start[i], RLX);
        atomic_store_explicit(&ev->part[i].end, p->end[i], RLX);
        atomic_store_explicit(&ev->part[i].dev, p->dev[i], RLX);
    }
    atomic_store_explicit(&ev->nparts, n | flags, RLX);
}

/* The event's current timestamps into p (p->n of them, at most
 * SIM_MAX_PARTS): for ev_read's snapshot and a writer's copy. */
static void ev_load_parts(sim_event_t *ev, ev_parts_t *p) {
    for (uint32_t i = 0; i < p->n && i < SIM_MAX_PARTS; i++) {
        p->start[i] = atomic_load_explicit(&ev->part[i].start, RLX);
        p->end[i] = atomic_load_explicit(&ev->part[i].end, RLX);
        p->dev[i] = atomic_load_explicit(&ev->part[i].dev, RLX);
    }
}

/* The pending writes, in a snapshot (ev_read; the seqlock validates). */
static void ev_read_pending(sim_event_t *ev, ev_state_t *st) {
    struct ev_pending *pp = atomic_load_explicit(&ev->pend, memory_order_acquire);
    if (pp == NULL) return; /* torn: the seqlock retries */
    st->base_t = atomic_load_explicit(&pp->base_t, RLX);
    uint32_t n = atomic_load_explicit(&pp->npend, RLX), off = 0;
    if (n > EV_PEND_SLOTS) n = EV_PEND_SLOTS; /* torn: the seqlock retries */
    for (uint32_t i = 0; i < n; i++) {
        st->pend_t[i] = atomic_load_explicit(&pp->pend_t[i], RLX);
        st->pend_n[i] = atomic_load_explicit(&pp->pend_n[i], RLX);
        off += st->pend_n[i];
    }
    if (off > EV_PEND_PARTS) n = 0, off = 0; /* torn: the seqlock retries */
    for (uint32_t i = 0; i < off; i++) {
        st->pend_start[i] = atomic_load_explicit(&pp->pend_part[i].start, RLX);
        st->pend_end[i] = atomic_load_explicit(&pp->pend_part[i].end, RLX);
        st->pend_dev[i] = atomic_load_explicit(&pp->pend_part[i].dev, RLX);
    }
    st->npend = n;
}

/* Lock-free snapshot of the event's state (parts only when asked, and
 * with them the writes still to come, which ev_state_settle resolves). A
 * writer's section is a few stores, so the retry loop is short; it yields
 * if a writer was preempted inside one. Posted signals are applied first. */
void ev_read(sim_event_t *ev, ev_state_t *st, bool parts) {
    posts_apply_for(ev);
    for (unsigned spins = 0;; spins++) {
        unsigned s1 = atomic_load_explicit(&ev->seq, memory_order_acquire);
        if ((s1 & 1) == 0) {
            st->sig_t = atomic_load_explicit(&ev->sig_t, RLX);
            st->reset_t = atomic_load_explicit(&ev->reset_t, RLX);
            uint32_t np = atomic_load_explicit(&ev->nparts, RLX);
            st->parts.n = np & EV_NPARTS_MASK;
            if (parts) {
                st->base_t = st->sig_t;
                st->npend = 0;
                ev_load_parts(ev, &st->parts);
                if (np & EV_NPARTS_RESIGNALLED) ev_read_pending(ev, st);
            }
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(&ev->seq, RLX) == s1) return;
        }
        if (spins > 16) sched_yield();
    }
}

/* The timestamps visible at host time t: those of the last write at or
 * before t ("re-signalled events" below). Leaves no write pending in st. */
static void ev_state_settle(ev_state_t *st, uint64_t t) {
    uint32_t pick = UINT32_MAX, pick_off = 0, off = 0;
    for (uint32_t i = 0; i < st->npend; i++) {
        if (st->pend_t[i] <= t) pick = i, pick_off = off; /* increasing times: the last one wins */
        off += st->pend_n[i];
    }
    if (pick != UINT32_MAX) {
        st->parts.n = st->pend_n[pick];
        for (uint32_t j = 0; j < st->parts.n; j++) {
            st->parts.start[j] = st->pend_start[pick_off + j];
            st->parts.end[j] = st->pend_end[pick_off + j];
            st->parts.dev[j] = st->pend_dev[pick_off + j];
        }
        st->base_t = st->pend_t[pick];
    }
    st->npend = 0;
}

/* Signalled (with timestamps) as seen at host time t; st's timestamps
 * become those visible at t. */
bool ev_state_signalled_at(ev_state_t *st, uint64_t t) {
    ev_state_settle(st, t);
    return st->sig_t != T_NEVER && st->sig_t <= t && (st->reset_t == T_NEVER || t < st->reset_t) && st->parts.n > 0;
}

/* ---- re-signalled events -------------------------------------------
 * An event signalled again before anyone reset it: a regular list
 * executed twice without resetting its events, two executions of one list
 * on two queues, a host signal over a device signal. On Intel's hardware
 * a command's signal is the post-sync write of the event's memory, which
 * lands when the command completes: until then a query reads the memory
 * as the previous command left it (still signalled, its timestamps), from
 * then on the later command's (test/sim/README.md "Re-signalled events").
 * Here a signal's write is applied before its time (the engine schedules
 * commands ahead, and posted signals are applied by the next observer),
 * so the event keeps every write whose time may still be ahead of some
 * observer: part[] holds the earliest (base_t), pend_* the later ones in
 * increasing time, and a read shows the last write at or before its time
 * (ev_state_settle). Signalled state is as before: from the first signal
 * (sig_t, the earliest write) until a reset.
 *
 * Bounded: a writer drops the writes a later write has superseded for
 * every observer -- one at or before a lower bound of the host clock
 * (lb: the clock floor, or the submission clock of the command being
 * applied; at ZESIM_TIME_SCALE=0 the write itself) that is followed by
 * another at or before it, and an earlier write at the same time. When
 * still more than EV_PEND_SLOTS writes (or EV_PEND_PARTS parts) are ahead,
 * it reads the clock and drops again; still more (a regular list executed
 * more than EV_PEND_SLOTS + 1 times back to back, nobody reading), it
 * drops the latest write but one: until the next kept write's time the
 * event shows the one before it -- stale timestamps, never a command's
 * before its end -- and the last write is always kept. Dropping the
 * latest but one keeps the earlier writes, which become visible first:
 * as each one's time passes it is promoted and frees its slot for a
 * write arriving then, so under a steady stream the kept writes spread
 * over the time ahead and a read lags by a fraction of it. (Dropping the
 * earliest kept only the newest writes, all ahead: a stream of 70000
 * launches showed a write from the stream's start until it ended.) A write
 * with more parts than EV_PEND_PARTS (a COMPOSITE root's launch on more
 * than four tiles) that cannot wait is shown at once, as before. */
typedef struct ev_write {
    uint64_t t;
    ev_parts_t p;
} ev_write_t;

/* Drops w[i] from the n writes. */
static void ev_writes_drop(ev_write_t *w, uint32_t *n, uint32_t i) {
    memmove(&w[i], &w[i + 1], (*n - i - 1) * sizeof(*w));
    (*n)--;
}

/* Drops the writes superseded for every observer whose clock is at least
 * x: all but the last at or before x, and earlier writes at the same time
 * as a later one (the last writer wins). */
static void ev_writes_compact(ev_write_t *w, uint32_t *n, uint64_t x) {
    for (uint32_t i = *n - 1; i > 0; i--)
        if (w[i - 1].t == w[i].t) ev_writes_drop(w, n, i - 1);
    while (*n > 1 && w[1].t <= x) ev_writes_drop(w, n, 0);
}

static bool ev_writes_fit(const ev_write_t *w, uint32_t n) {
    uint32_t parts = 0;
    for (uint32_t i = 1; i < n; i++) parts += w[i].p.n;
    return n - 1 <= EV_PEND_SLOTS && parts <= EV_PEND_PARTS;
}

/* In a write section, the event signalled and not reset (sig_t = sig): a
 * write at t ("re-signalled events" above). lb: a lower bound of the host
 * clock (0: none known). */
static void ev_resignal_locked(sim_event_t *ev, uint64_t sig, uint64_t t, const ev_parts_t *parts, uint64_t lb) {
    ev_write_t w[EV_PEND_SLOTS + 2];
    uint32_t np = atomic_load_explicit(&ev->nparts, RLX), n = 1;
    struct ev_pending *pp = atomic_load_explicit(&ev->pend, RLX);
    if (pp == NULL) {
        /* The event's first re-signal. malloc's lock is a leaf (see the
         * locking order in exec.h). Out of memory: the write is shown at
         * once, as before the pending writes existed. */
        pp = calloc(1, sizeof(*pp));
        if (pp == NULL) {
            ev_store_parts(ev, parts, 0);
            return;
        }
        atomic_store_explicit(&ev->pend, pp, memory_order_release);
        np &= ~EV_NPARTS_RESIGNALLED;
    }
    w[0].t = (np & EV_NPARTS_RESIGNALLED) ? atomic_load_explicit(&pp->base_t, RLX) : sig;
    w[0].p.n = np & EV_NPARTS_MASK;
    ev_load_parts(ev, &w[0].p);
    if (np & EV_NPARTS_RESIGNALLED) {
        uint32_t npend = atomic_load_explicit(&pp->npend, RLX), off = 0;
        for (uint32_t i = 0; i < npend; i++, n++) {
            w[n].t = atomic_load_explicit(&pp->pend_t[i], RLX);
            w[n].p.n = atomic_load_explicit(&pp->pend_n[i], RLX);
            for (uint32_t j = 0; j < w[n].p.n; j++, off++) {
                w[n].p.start[j] = atomic_load_explicit(&pp->pend_part[off].start, RLX);
                w[n].p.end[j] = atomic_load_explicit(&pp->pend_part[off].end, RLX);
                w[n].p.dev[j] = atomic_load_explicit(&pp->pend_part[off].dev, RLX);
            }
        }
    }
    /* The new write goes after every write at or before its time. */
    uint32_t at = n;
    while (at > 0 && w[at - 1].t > t) at--;
    memmove(&w[at + 1], &w[at], (n - at) * sizeof(*w));
    w[at].t = t;
    w[at].p = *parts;
    if (w[at].p.n > SIM_MAX_PARTS) w[at].p.n = SIM_MAX_PARTS;
    n++;
    uint64_t floor = clock_floor();
    ev_writes_compact(w, &n, lb > floor ? lb : floor);
    if (!ev_writes_fit(w, n)) {
        uint64_t now = sim_now_ns();
        clock_floor_raise(now);
        ev_writes_compact(w, &n, now);
    }
    while (!ev_writes_fit(w, n)) {
        if (n > 2) ev_writes_drop(w, &n, n - 2); /* the latest but one: stale, never early */
        else ev_writes_drop(w, &n, 0);           /* one write too large to wait: shown at once */
    }
    ev_store_parts(ev, &w[0].p, EV_NPARTS_RESIGNALLED);
    atomic_store_explicit(&pp->base_t, w[0].t, RLX);
    uint32_t off = 0;
    for (uint32_t i = 1; i < n; i++) {
        atomic_store_explicit(&pp->pend_t[i - 1], w[i].t, RLX);
        atomic_store_explicit(&pp->pend_n[i - 1], (uint8_t)w[i].p.n, RLX);
        for (uint32_t j = 0; j < w[i].p.n; j++, off++) {
            atomic_store_explicit(&pp->pend_part[off].start, w[i].p.start[j], RLX);
            atomic_store_explicit(&pp->pend_part[off].end, w[i].p.end[j], RLX);
            atomic_store_explicit(&pp->pend_part[off].dev, w[i].p.dev[j], RLX);
        }
    }
    atomic_store_explicit(&pp->npend, n - 1, RLX);
}

/* Writes a signal at host time t with the given timestamps, without
 * applying posted signals first and without the handshake below (the
 * caller makes it once for all the signals it writes). lb: a lower bound
 * of the host clock, 0 if none (ev_resignal_locked). */
static void ev_signal_write(sim_event_t *ev, uint64_t t, const ev_parts_t *parts, bool host, uint64_t lb) {
    ev_write_begin(ev);
    if (host && atomic_load_explicit(&ev->reset_t, RLX) != T_NEVER) atomic_store_explicit(&ev->sig_t, T_NEVER, RLX);
    uint64_t sig = atomic_load_explicit(&ev->sig_t, RLX), rst = atomic_load_explicit(&ev->reset_t, RLX);
    if (sig == T_NEVER || (rst != T_NEVER && t >= rst)) {
        /* The first signal, or one after a reset (on the device at
         * reset_t): it starts anew, and nothing is pending. */
        atomic_store_explicit(&ev->sig_t, t, RLX);
        atomic_store_explicit(&ev->reset_t, T_NEVER, RLX);
        ev_store_parts(ev, parts, 0);
    } else if (rst == T_NEVER) {
        /* Signalled again: the write lands at t, the event stays
         * signalled from the earliest signal. */
        ev_resignal_locked(ev, sig, t, parts, lb);
        if (t < sig) atomic_store_explicit(&ev->sig_t, t, RLX);
    }
    /* Else a signal before a device reset applied already: the reset wins. */
    ev_write_end(ev);
}

/* The handshake with engines blocked on events (exec_engine.c,
 * progress_after_signal), after one or more signals were written: an
 * engine counts itself in g_blocked before it reads an event, and both
 * sides order that with a full fence. When nobody is blocked -- the common
 * case -- the signals touch no shared counter: an engine that blocks later
 * reads them itself. */
static void ev_signals_written(void) {
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&g_blocked, RLX) != 0) atomic_fetch_add(&g_signal_epoch, 1);
}

/* Signal at host time t with the given timestamps, without applying
 * posted signals first (event_signal). */
static void ev_signal_apply(sim_event_t *ev, uint64_t t, const ev_parts_t *parts, bool host, uint64_t lb) {
    ev_signal_write(ev, t, parts, host, lb);
    ev_signals_written();
}

/* Signal at host time t with the given timestamps (engine or host), now.
 * A host signal always takes effect now, even after a device reset. */
void event_signal(sim_event_t *ev, uint64_t t, const ev_parts_t *parts, bool host) {
    posts_apply_for(ev);
    ev_signal_apply(ev, t, parts, host, host ? t : 0); /* a host signal's time is a clock read */
}

/* ---- the clock floor ---------------------------------------------- */

/* A lower bound of the host clock: the largest reading some thread has
 * published (any value ever stored is a CLOCK_MONOTONIC_RAW reading
 * taken before the store, so every later reader's clock is at least it).
 * An observer asks "has the event signalled by now?": with the signal
 * time at or below the floor the answer is yes without reading the clock,
 * as on Intel's driver, where a query reads the event's memory and no
 * clock (test/sim/README.md "Cost"). The floor is raised by the appliers
 * of posted signals (with the submission time of the commands they apply:
 * at ZESIM_TIME_SCALE=0 a command ends at its submission time or before,
 * so observers of completed work read no clock at all) and by the
 * observers' own clock reads; never by an appending thread (a shared line
 * written at every append). Stores without read-modify-write: a racing
 * smaller store leaves a smaller, still valid, bound. */
static _Atomic uint64_t g_clock_floor;

void clock_floor_raise(uint64_t now) {
    if (now > atomic_load_explicit(&g_clock_floor, RLX)) atomic_store_explicit(&g_clock_floor, now, RLX);
}

uint64_t clock_floor(void) { return atomic_load_explicit(&g_clock_floor, RLX); }

/* The host clock, read by an observer; raises the floor. */
static uint64_t observer_now(void) {
    uint64_t now = sim_now_ns();
    clock_floor_raise(now);
    return now;
}

/* Whether st is signalled as seen now (the rule of ev_state_signalled_at;
 * with parts, the timestamps must be there too, and st's become those
 * visible now), reading the host clock
 * only when the floor cannot decide: the signal time above the floor, or
 * a device-side reset (signalled only before it). */
static bool ev_state_signalled_now(ev_state_t *st, bool parts) {
    if (st->sig_t == T_NEVER || (parts && st->parts.n == 0)) return false;
    if (!parts || st->npend == 0) {
        if (st->reset_t == T_NEVER && st->sig_t <= clock_floor()) return true;
        uint64_t now = observer_now();
        return st->sig_t <= now && (st->reset_t == T_NEVER || now < st->reset_t);
    }
    /* Writes pending (read only with the parts): the floor decides only
     * if all of them are at or below it (README.md "Re-signalled events"). */
    uint64_t floor = clock_floor();
    if (st->reset_t == T_NEVER && st->sig_t <= floor && st->pend_t[st->npend - 1] <= floor) {
        ev_state_settle(st, floor);
        return true;
    }
    uint64_t now = observer_now();
    ev_state_settle(st, now);
    return st->sig_t <= now && (st->reset_t == T_NEVER || now < st->reset_t);
}

/* ---- posted signals ----------------------------------------------- */

/* A command's signal as Intel's driver and device do it: the append
 * encodes a post-sync write into the command buffer, and the GPU writes
 * the event's memory when the command has run. The appending thread
 * never writes the event's memory, takes no lock and reads no clock for
 * it; it only updates the event object (compute-runtime,
 * level_zero/core/source/cmdlist/cmdlist_hw.inl,
 * CommandListCoreFamily::appendLaunchKernel: the event's kernel and
 * packet counts). Here the engine computes the command's times when it is
 * scheduled, and its signal -- the write of the event's memory -- is
 * posted to the engine's ring (the engine's own memory, like a command
 * buffer), and the event object counts it (posts_out: the append
 * updates the object, as Intel's does). The next thread that reads or
 * writes the state of an event with a signal outstanding applies every
 * posted signal first, in order (posts_apply_for): that thread plays the
 * device's post-sync write, usually the observer (a status or timestamp
 * query, a host wait or reset), which on Intel's driver reads memory the
 * device has written. An event with none outstanding has all its writes:
 * its observer applies nothing, so a harvester that reads events one
 * after the other applies the signals in batches of thousands, not the
 * few appended since its previous query (test/sim/README.md "Cost", "Why
 * per event"). Every observer sees an event's writes in the order they
 * would have had, with the same times: behaviour and ground truth do not
 * change.
 * A post takes no reference to its event: on Intel's driver the command
 * buffer's post-sync write names the event's memory, and neither the
 * submission nor the device's write touches the event object's count.
 * What keeps the event alive is its command: a recorded command's
 * command buffer, counted on the event's pool from the append until the
 * list's reset or destroy and the end of its executions ("a recorded
 * command's events" above), or a queued immediate command's reference to
 * the event, dropped after it ran; event_free applies the posted signals
 * before it frees an event, so no post outlives its event. A reference
 * per post cost the submitting thread two atomics per command on the
 * event's line, which the observer reads and resets (test/sim/README.md
 * "Cost"). */
typedef struct ev_post {
    sim_event_t *ev;
    uint64_t t;          /* signal time: the command's end */
    uint64_t start, end; /* its one timestamp part */
    uint64_t submitted;  /* the host clock read at the command's submission */
    sim_device_t *dev;
} ev_post_t;

#define POST_PREFETCH 8 /* signals fetched ahead by an applier */

static _Atomic(sim_engine_t *) g_posting; /* engines that ever posted; never shrinks */
static pthread_mutex_t g_post_lock = PTHREAD_MUTEX_INITIALIZER; /* serialises appliers */

/* ---- the device's cost, counted (ZESIM_STATS) ----------------------
 * Writing a finished command's signal into the event's memory is the
 * device's work: on Intel's hardware the post-sync write costs the host
 * no CPU. Here some host thread plays it (usually the observer that
 * applies posted signals, often a tool's harvester), so with ZESIM_STATS
 * the simulator counts what playing the device cost, for whoever
 * measures a tool's CPU to take it out (scripts/bench, the device_cpu
 * column), per batch of signals written, not per signal. A batch of
 * DEV_CPU_CLOCK_MIN signals or more is timed with the thread's CPU clock
 * (a system call, 1.4 us on this VM: under 1 ns per signal there, and
 * exact whether or not the thread was preempted); a smaller one with the
 * host clock (CLOCK_MONOTONIC_RAW, vDSO, ~26 ns), which cannot tell CPU
 * from a preemption (below). Counted: the writes, from the appliers' lock
 * taken (waiting for it is not CPU) to its release; the posts_pending
 * check, the lock, the handshake and clock floor after the writes and the
 * clock reads stay in the observer's account. Without ZESIM_STATS nothing
 * is read or counted. */
static _Atomic uint64_t g_dev_ns, g_dev_signals, g_dev_batches, g_dev_skipped, g_dev_queried;

#define DEV_CPU_CLOCK_MIN 256

/* The thread is counting a batch (dev_cost_t, exec.h): a nested begin --
 * posted signals applied while a device-side timestamp query reads its
 * events -- counts nothing of its own. */
static _Thread_local bool t_dev_counting;

static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + 1; /* never 0 */
}

/* Starts counting a batch of about n signals (or timestamps copied). */
dev_cost_t dev_cost_begin(uint64_t n) {
    dev_cost_t c = {0, false};
    if (sim_cfg.stats == NULL || t_dev_counting) return c;
    t_dev_counting = true;
    c.cpu = n >= DEV_CPU_CLOCK_MIN;
    c.t0 = c.cpu ? thread_cpu_ns() : sim_now_ns();
    return c;
}

/* A host-clock batch that took longer than this was preempted (a
 * signal's write is a few cache misses, 0.03-0.3 us): the host clock
 * cannot tell its CPU from the wait, so it counts as skipped and its time
 * stays in the observer's account. Under load (2 vCPUs, other processes)
 * about one batch in 10^4 is preempted, for a timeslice of ms: counted,
 * those doubled the total when every batch was timed this way. */
#define DEV_BATCH_MAX_NS(n) (5000 + 1000 * (n))

void dev_cost_end(dev_cost_t c, uint64_t signals, uint64_t queried) {
    if (c.t0 == 0) return;
    uint64_t d = (c.cpu ? thread_cpu_ns() : sim_now_ns()) - c.t0;
    t_dev_counting = false;
    if (!c.cpu && d > DEV_BATCH_MAX_NS(signals + queried)) {
        atomic_fetch_add_explicit(&g_dev_skipped, 1, RLX);
        return;
    }
    atomic_fetch_add_explicit(&g_dev_ns, d, RLX);
    atomic_fetch_add_explicit(&g_dev_signals, signals, RLX);
    if (queried) atomic_fetch_add_explicit(&g_dev_queried, queried, RLX);
    atomic_fetch_add_explicit(&g_dev_batches, 1, RLX);
}

/* At exit: one line, "zesim-stats pid=P device_ns=N signals=S
 * batches=B skipped=K queried=Q" (S signals and Q timestamps copied by
 * device-side queries in B batches took N ns; K batches were preempted,
 * not counted), to stderr (ZESIM_STATS=1) or appended to the file
 * ZESIM_STATS names. */
__attribute__((destructor)) static void dev_cost_report(void) {
    const char *to = sim_cfg.stats;
    if (to == NULL) return;
    FILE *f = strcmp(to, "1") == 0 ? stderr : fopen(to, "a");
    if (f == NULL) return;
    fprintf(f, "zesim-stats pid=%ld device_ns=%llu signals=%llu batches=%llu skipped=%llu queried=%llu\n",
            (long)getpid(), (unsigned long long)atomic_load(&g_dev_ns), (unsigned long long)atomic_load(&g_dev_signals),
            (unsigned long long)atomic_load(&g_dev_batches), (unsigned long long)atomic_load(&g_dev_skipped),
            (unsigned long long)atomic_load(&g_dev_queried));
    if (f != stderr) fclose(f);
    else fflush(f);
}

/* g_post_lock held: applies eng's posted signals in order; returns the
 * latest submission clock reading among them (0: none), and adds how
 * many it applied to *n. */
static uint64_t posts_apply_engine_locked(sim_engine_t *eng, uint64_t *n) {
    uint32_t h = atomic_load_explicit(&eng->post_head, RLX);
    uint32_t t = atomic_load_explicit(&eng->post_tail, memory_order_acquire);
    uint32_t mask = eng->post_cap - 1;
    uint64_t submitted = 0;
    for (; h != t; h++) {
        /* The events' memory was last touched by whoever reset them, long
         * ago: fetch a few signals ahead so that their cache misses
         * overlap instead of stalling one after the other (the device's
         * writes cost the host no CPU on Intel's hardware). */
        if (t - h > POST_PREFETCH) __builtin_prefetch(&eng->posts[(h + POST_PREFETCH) & mask].ev->seq, 1);
        const ev_post_t *p = &eng->posts[h & mask];
        ev_parts_t parts;
        parts.n = 1;
        parts.start[0] = p->start;
        parts.end[0] = p->end;
        parts.dev[0] = p->dev;
        if (p->submitted > submitted) submitted = p->submitted;
        ev_signal_write(p->ev, p->t, &parts, false, p->submitted);
        /* The last access to the event: once none is outstanding it may
         * be freed (event_unref) or read without applying. */
        atomic_fetch_sub_explicit(&p->ev->posts_out, 1, memory_order_release);
    }
    *n += h - atomic_load_explicit(&eng->post_head, RLX);
    /* Release: the slots were read before the producer may reuse them. */
    atomic_store_explicit(&eng->post_head, h, memory_order_release);
    return submitted;
}

/* g_post_lock held: how many signals are posted (a batch's size, known
 * before it is applied; ZESIM_STATS only). */
static uint64_t posts_count_locked(void) {
    uint64_t n = 0;
    for (sim_engine_t *e = atomic_load_explicit(&g_posting, memory_order_acquire); e; e = e->post_next)
        n += atomic_load_explicit(&e->post_tail, memory_order_acquire) - atomic_load_explicit(&e->post_head, RLX);
    return n;
}

static bool posts_pending(void) {
    for (sim_engine_t *e = atomic_load_explicit(&g_posting, memory_order_acquire); e; e = e->post_next)
        if (atomic_load_explicit(&e->post_tail, memory_order_acquire) !=
            atomic_load_explicit(&e->post_head, memory_order_acquire))
            return true;
    return false;
}

/* Applies every posted signal. Without any, a read of two lines per
 * engine that ever posted. Takes no engine lock (engine lock ->
 * g_post_lock). The handshake with blocked engines is made once for all
 * the signals applied, and the latest submission time among them raises
 * the clock floor (clock_floor_raise). */
void posts_apply(void) {
    if (!posts_pending()) return;
    uint64_t submitted = 0, n = 0;
    pthread_mutex_lock(&g_post_lock);
    /* Counted from here: waiting for another applier is no CPU. */
    dev_cost_t cost = dev_cost_begin(sim_cfg.stats != NULL ? posts_count_locked() : 0);
    for (sim_engine_t *e = atomic_load_explicit(&g_posting, memory_order_acquire); e; e = e->post_next) {
        uint64_t s = posts_apply_engine_locked(e, &n);
        if (s > submitted) submitted = s;
    }
    dev_cost_end(cost, n, 0); /* before the unlock, which may wake a waiting applier */
    pthread_mutex_unlock(&g_post_lock);
    ev_signals_written();
    clock_floor_raise(submitted);
}

/* eng->lock held, eng's ring full (tail - post_head >= post_cap): doubles
 * it, keeping every pending post at its index. Appliers read the ring only
 * under g_post_lock, so it is swapped under that lock; the producer is the
 * only one to swap it. Returns false at POST_RING_MAX or when memory runs
 * out (the caller then applies the posts). Each doubling copies the pending
 * posts once: the submitting thread pays it log2(POST_RING_MAX/POST_RING)
 * times per engine at most. */
static bool posts_grow(sim_engine_t *eng, uint32_t tail) {
    uint32_t cap = eng->post_cap;
    if (cap >= POST_RING_MAX) return false;
    ev_post_t *bigger = malloc(2 * (size_t)cap * sizeof(*bigger));
    if (bigger == NULL) return false;
    pthread_mutex_lock(&g_post_lock);
    uint32_t h = atomic_load_explicit(&eng->post_head, memory_order_acquire);
    for (uint32_t i = h; i != tail; i++) bigger[i & (2 * cap - 1)] = eng->posts[i & (cap - 1)];
    ev_post_t *old = eng->posts;
    eng->posts = bigger;
    eng->post_cap = 2 * cap;
    pthread_mutex_unlock(&g_post_lock);
    eng->post_head_seen = h;
    free(old);
    return true;
}

/* eng->lock held: the signal of a command eng has scheduled (ending at t).
 * Posted (above), or written at once when posting does not fit: several
 * timestamp parts (a COMPOSITE root's launch), a metrics notification
 * event, or an engine blocked on events (then the write, followed by the
 * caller's progress_after_signal, releases it at once, as before). The
 * caller keeps ev alive for the call (a queued command's reference, a
 * recorded command's buffer counted on ev's pool, or the application's
 * handle of a command not persisted); the post takes nothing (event_free
 * applies it). submitted: the host clock read at the command's
 * submission (raises the clock floor when applied). */
void event_signal_device(sim_engine_t *eng, sim_event_t *ev, uint64_t t, const ev_parts_t *parts,
                         uint64_t submitted) {
    if (parts->n != 1 || atomic_load_explicit(&ev->has_streamer, RLX) || atomic_load_explicit(&g_blocked, RLX) != 0) {
        /* Written at once (event_signal): the device's work too, counted
         * as a batch of one (posts_apply counts its own). */
        posts_apply();
        dev_cost_t cost = dev_cost_begin(1);
        ev_signal_apply(ev, t, parts, false, submitted);
        dev_cost_end(cost, 1, 0);
        return;
    }
    if (eng->posts == NULL) {
        eng->posts = malloc(POST_RING * sizeof(*eng->posts));
        eng->post_cap = POST_RING;
        if (eng->posts == NULL) {
            event_signal(ev, t, parts, false);
            return;
        }
        sim_engine_t *h = atomic_load_explicit(&g_posting, RLX);
        do {
            eng->post_next = h;
        } while (!atomic_compare_exchange_weak_explicit(&g_posting, &h, eng, memory_order_release, RLX));
    }
    uint32_t tail = atomic_load_explicit(&eng->post_tail, RLX);
    /* The appliers' post_head is read only when the copy says the ring is
     * full (it only grows), so that the appending thread does not read
     * their line at every append. Full: nobody has looked at events for
     * post_cap commands (a profiler that reads its events in batches of
     * thousands, behind a full-rate application). On Intel's hardware the
     * device writes every event itself, however long nobody looks, so the
     * ring grows (posts_grow) rather than have the submitting thread write
     * the device's signals; only beyond POST_RING_MAX are they applied
     * here (order is kept: they are all applied before this one;
     * test/sim/README.md "Cost"). */
    if (tail - eng->post_head_seen >= eng->post_cap) {
        eng->post_head_seen = atomic_load_explicit(&eng->post_head, memory_order_acquire);
        if (tail - eng->post_head_seen >= eng->post_cap && !posts_grow(eng, tail)) {
            posts_apply();
            eng->post_head_seen = atomic_load_explicit(&eng->post_head, memory_order_acquire);
        }
    }
    /* Before the post is published: an applier that sees the post sees
     * the count (the tail's release orders it). */
    atomic_fetch_add_explicit(&ev->posts_out, 1, RLX);
    ev_post_t *p = &eng->posts[tail & (eng->post_cap - 1)];
    p->ev = ev;
    p->t = t;
    p->start = parts->start[0];
    p->end = parts->end[0];
    p->dev = parts->dev[0];
    p->submitted = submitted;
    atomic_store_explicit(&eng->post_tail, tail + 1, memory_order_release);
}

/* Device-side reset at time t. */
void event_reset_at(sim_event_t *ev, uint64_t t) {
    posts_apply_for(ev);
    ev_write_begin(ev);
    uint64_t sig = atomic_load_explicit(&ev->sig_t, RLX);
    if (sig != T_NEVER && sig <= t && atomic_load_explicit(&ev->reset_t, RLX) == T_NEVER) {
        atomic_store_explicit(&ev->reset_t, t, RLX);
        /* Writes pending after the reset are lost, as before the pending
         * writes existed (one interval [sig_t, reset_t) is kept); those
         * before it stay visible until it. */
        struct ev_pending *pp = atomic_load_explicit(&ev->pend, RLX);
        if (pp != NULL && (atomic_load_explicit(&ev->nparts, RLX) & EV_NPARTS_RESIGNALLED)) {
            uint32_t k = atomic_load_explicit(&pp->npend, RLX);
            while (k > 0 && atomic_load_explicit(&pp->pend_t[k - 1], RLX) > t) k--;
            atomic_store_explicit(&pp->npend, k, RLX);
        }
    }
    ev_write_end(ev);
}

/* Host reset: unsignalled, no timestamps. */
static void event_host_reset(sim_event_t *ev) {
    posts_apply_for(ev);
    ev_write_begin(ev);
    atomic_store_explicit(&ev->sig_t, T_NEVER, RLX);
    atomic_store_explicit(&ev->reset_t, T_NEVER, RLX);
    atomic_store_explicit(&ev->nparts, 0, RLX); /* and no write pending */
    ev_write_end(ev);
}

/* Time at which a command that becomes ready at time x may pass a wait on
 * ev, or T_NEVER when that is not known yet (nobody signalled, or the
 * event was reset before x and not signalled again). Device side, read
 * lock-free like a host observer's; an engine that may block counted
 * itself in g_blocked first (engine_progress_locked), and the fence
 * orders that before this read (the other half is in event_signal). */
uint64_t event_wait_time(sim_event_t *ev, uint64_t x) {
    atomic_thread_fence(memory_order_seq_cst);
    ev_state_t st;
    ev_read(ev, &st, false);
    uint64_t r = st.sig_t;
    if (r != T_NEVER && st.reset_t != T_NEVER && x >= st.reset_t) r = T_NEVER;
    return r;
}

/* For host observers, lock-free: the time the event is (or will be)
 * signalled as seen at `now`, or T_NEVER. */
static uint64_t event_host_time(sim_event_t *ev, uint64_t now) {
    ev_state_t st;
    ev_read(ev, &st, false);
    uint64_t r = st.sig_t;
    if (r != T_NEVER && st.reset_t != T_NEVER && now >= st.reset_t) r = T_NEVER;
    return r;
}

/* ================================================================== */
/* Event pools and events                                              */
/* ================================================================== */

/* The last reference: no event of the pool is left (kept ones hold one
 * each) and no command buffer counts on it. */
static void pool_unref(sim_event_pool_t *p) {
    if (p == NULL || atomic_fetch_sub(&p->refs, 1) != 1) return;
    pthread_mutex_destroy(&p->lock);
    free(p->used);
    free(p);
}

static ze_result_t ZE_APICALL sim_zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc,
                                                    uint32_t numDevices, ze_device_handle_t *phDevices,
                                                    ze_event_pool_handle_t *phEventPool) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    if (ctx == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phEventPool == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags > 0xFu) return ZE_RESULT_ERROR_INVALID_ENUMERATION; /* up to KERNEL_MAPPED_TIMESTAMP */
    if (desc->count == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    if (numDevices && phDevices == NULL) return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_device_t *dev = NULL;
    for (uint32_t i = 0; i < numDevices; i++) {
        sim_device_t *d = SIM_OBJ(sim_device_t, phDevices[i], SIM_K_DEVICE);
        if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (dev == NULL) dev = d;
    }
    if (dev == NULL && sim_driver && sim_driver->num_devices) dev = sim_driver->devices[0];
    sim_event_pool_t *p = calloc(1, sizeof(*p));
    uint8_t *used = calloc(desc->count, 1);
    if (p == NULL || used == NULL) {
        free(p);
        free(used);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    sim_obj_init(&p->obj, SIM_K_EVENTPOOL);
    p->ctx = ctx;
    p->flags = desc->flags;
    p->count = desc->count;
    p->dev = dev;
    p->used = used;
    atomic_init(&p->refs, 1);
    atomic_init(&p->cmd_refs[0], 0);
    atomic_init(&p->cmd_refs[1], 0);
    atomic_init(&p->cur_slot, 0);
    pthread_mutex_init(&p->lock, NULL);
    *phEventPool = (ze_event_pool_handle_t)p;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventPoolDestroy(ze_event_pool_handle_t hEventPool) {
    sim_event_pool_t *p = SIM_OBJ(sim_event_pool_t, hEventPool, SIM_K_EVENTPOOL);
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Events still alive (or kept for recorded commands that may name
     * them) and command buffers naming the pool keep its memory (Intel's
     * driver does not check either; the application must destroy them
     * first). */
    sim_obj_kill(&p->obj);
    pool_unref(p);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventPoolGetIpcHandle(ze_event_pool_handle_t hEventPool,
                                                          ze_ipc_event_pool_handle_t *phIpc) {
    if (SIM_OBJ(sim_event_pool_t, hEventPool, SIM_K_EVENTPOOL) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phIpc == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

static ze_result_t ZE_APICALL sim_zeEventPoolOpenIpcHandle(ze_context_handle_t hContext,
                                                           ze_ipc_event_pool_handle_t hIpc,
                                                           ze_event_pool_handle_t *phEventPool) {
    (void)hIpc;
    if (SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phEventPool == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

static ze_result_t ZE_APICALL sim_zeEventPoolCloseIpcHandle(ze_event_pool_handle_t hEventPool) {
    if (SIM_OBJ(sim_event_pool_t, hEventPool, SIM_K_EVENTPOOL) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

static ze_result_t ZE_APICALL sim_zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc,
                                                ze_event_handle_t *phEvent) {
    sim_event_pool_t *p = SIM_OBJ(sim_event_pool_t, hEventPool, SIM_K_EVENTPOOL);
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phEvent == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->signal > 0x7u || desc->wait > 0x7u) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->index >= p->count) return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* as Intel's driver */
    /* Intel's host memory for an event, written as its create writes it
     * (exec.h SIM_EVENT_OBJECT_BYTES; calloc may leave fresh memory
     * unwritten). */
    sim_event_t *ev = malloc(SIM_EVENT_OBJECT_BYTES);
    void *completion = malloc(SIM_EVENT_COMPLETION_BYTES);
    if (ev == NULL || completion == NULL) {
        free(ev);
        free(completion);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    memset(ev, 0, SIM_EVENT_OBJECT_BYTES);
    memset(completion, 0, SIM_EVENT_COMPLETION_BYTES);
    ev->completion = completion;
    pthread_mutex_lock(&p->lock);
    bool taken = p->used[desc->index] != 0;
    if (!taken) p->used[desc->index] = 1;
    pthread_mutex_unlock(&p->lock);
    if (taken) {
        /* The spec makes this the application's error; Intel's driver
         * silently aliases the two events. Refuse, to make it visible. */
        free(completion);
        free(ev);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    sim_obj_init(&ev->obj, SIM_K_EVENT);
    ev->pool = p;
    atomic_fetch_add(&p->refs, 1);
    ev->index = desc->index;
    ev->timestamps = (p->flags & (ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | SIM_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP)) != 0;
    ev->mapped = (p->flags & SIM_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP) != 0;
    ev->id = atomic_fetch_add(&g_event_id, 1) + 1;
    atomic_init(&ev->refs, 1);
    pthread_mutex_init(&ev->streamer_lock, NULL);
    atomic_init(&ev->seq, 0);
    atomic_init(&ev->sig_t, T_NEVER);
    atomic_init(&ev->reset_t, T_NEVER);
    atomic_init(&ev->nparts, 0);
    atomic_init(&ev->has_streamer, false);
    *phEvent = (ze_event_handle_t)ev;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventDestroy(ze_event_handle_t hEvent) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&ev->obj);
    pthread_mutex_lock(&ev->pool->lock);
    ev->pool->used[ev->index] = 0;
    pthread_mutex_unlock(&ev->pool->lock);
    /* Queued commands still referencing it, and recorded ones that may
     * name it, keep the memory alive; the event's free applies the posted
     * signals that name it (event_unref, event_free). */
    event_unref(ev);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventHostSignal(ze_event_handle_t hEvent) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    uint64_t epoch = atomic_load(&g_signal_epoch);
    uint64_t now = sim_now_ns();
    ev_parts_t parts;
    parts.n = 1;
    parts.start[0] = parts.end[0] = now;
    parts.dev[0] = ev->pool->dev;
    event_signal(ev, now, &parts, true);
    progress_after_signal(epoch);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventHostReset(ze_event_handle_t hEvent) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Settle the engines first, so a command that was due to signal the
     * event before this reset does not signal it afterwards. */
    progress_if_blocked();
    event_host_reset(ev);
    return ZE_RESULT_SUCCESS;
}

static uint64_t probe_event(void *arg, uint64_t now) { return event_host_time((sim_event_t *)arg, now); }

/* Metrics notification event: state re-evaluated on every query. */
static int notify_state(sim_event_t *ev) {
    if (!atomic_load(&ev->has_streamer)) return -1;
    int r = -1;
    pthread_mutex_lock(&ev->streamer_lock);
    if (ev->streamer) r = sim_metrics_notify_state(ev->streamer) ? 1 : 0;
    pthread_mutex_unlock(&ev->streamer_lock);
    return r;
}

static ze_result_t ZE_APICALL sim_zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (atomic_load(&ev->has_streamer)) {
        uint64_t deadline = timeout == UINT64_MAX ? T_NEVER : sat_add(sim_now_ns(), timeout);
        uint64_t poll = POLL_MIN_NS;
        for (;;) {
            int s = notify_state(ev);
            if (s < 0) break; /* detached meanwhile: an ordinary event again */
            if (s > 0) return ZE_RESULT_SUCCESS;
            uint64_t now = sim_now_ns();
            if (timeout == 0 || now >= deadline) return ZE_RESULT_NOT_READY;
            sim_sleep_until(umin64(now + poll, deadline), poll);
            poll = umin64(poll * 2, POLL_MAX_NS);
        }
    }
    /* Completed work: one clock read (Intel's driver reads the clock for
     * its timeout before the first status query, event_impl.inl
     * EventImp::hostSynchronize) and a read of the event's state. */
    uint64_t now = observer_now();
    ev_state_t st;
    ev_read(ev, &st, false);
    if (st.sig_t != T_NEVER && st.sig_t <= now && (st.reset_t == T_NEVER || now < st.reset_t))
        return ZE_RESULT_SUCCESS;
    return wait_for(probe_event, ev, timeout);
}

/* Whether ev is signalled now, as a host observer sees it: a lock-free
 * read of its state, and the clock only when the floor cannot decide
 * (ev_state_signalled_now). When it is not, engines blocked on events are
 * advanced once (they may be about to signal it) and the state is read
 * again. parts: the timestamps must be there (the timestamp queries). */
static bool ev_host_signalled(sim_event_t *ev, ev_state_t *st, bool parts) {
    ev_read(ev, st, parts);
    if (ev_state_signalled_now(st, parts)) return true;
    if (!progress_if_blocked()) return false;
    ev_read(ev, st, parts);
    return ev_state_signalled_now(st, parts);
}

/* ZESIM_EVENT_READ_NS (README.md "Configuration"; "Differences from
 * Intel's driver (execution)", where an event's timestamps live): the
 * CPU stall of a host query that reads an event's memory when that memory
 * is the device's, read across PCIe. Spent on the querying thread's CPU,
 * as a load that waits for the bus. */
static void event_memory_read(void) {
    uint64_t ns = sim_cfg.event_read_ns;
    if (ns == 0) return;
    uint64_t t0 = sim_now_ns();
    while (sim_now_ns() - t0 < ns) {
    }
}

static ze_result_t ZE_APICALL sim_zeEventQueryStatus(ze_event_handle_t hEvent) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    int s = notify_state(ev);
    if (s >= 0) return s ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
    event_memory_read();
    ev_state_t st;
    return ev_host_signalled(ev, &st, false) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

/* Global = earliest start / latest end of the parts, in device ticks
 * masked to kernelTimestampValidBits (a kernel crossing the wrap has
 * end < start, as on hardware). Context = global. */
void write_kernel_timestamp(const ev_parts_t *p, ze_kernel_timestamp_result_t *out) {
    uint64_t mask = mask_bits(sim_cfg.kernel_timestamp_valid_bits);
    uint64_t s = T_NEVER, e = 0;
    sim_device_t *sd = p->dev[0], *ed = p->dev[0];
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->start[i] < s) s = p->start[i], sd = p->dev[i];
        if (p->end[i] >= e) e = p->end[i], ed = p->dev[i];
    }
    out->global.kernelStart = sd ? sim_dev_ticks(sd, s) & mask : 0;
    out->global.kernelEnd = ed ? sim_dev_ticks(ed, e) & mask : 0;
    out->context = out->global;
}

static ze_result_t ZE_APICALL sim_zeEventQueryKernelTimestamp(ze_event_handle_t hEvent,
                                                              ze_kernel_timestamp_result_t *dstptr) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (dstptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Undefined by the spec for other pools (Intel returns whatever the
     * event memory holds); refuse to make the mistake visible. */
    if (!ev->timestamps) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    /* A read of the event's memory: no engine or event lock, and no
     * clock read for completed work (see "Cost" in README.md). Engines are
     * advanced only when one is blocked. */
    event_memory_read();
    ev_state_t st;
    if (!ev_host_signalled(ev, &st, true)) return ZE_RESULT_NOT_READY;
    write_kernel_timestamp(&st.parts, dstptr);
    return ZE_RESULT_SUCCESS;
}

/* The part the per-part timestamp queries share: checks the handles,
 * reads the event lock-free (advancing a blocked engine once if it has
 * not signalled), and settles *pCount at one result per (sub)device the
 * signalling command ran on (Intel: one per timestamp packet in use, at
 * least 1). Returns ZE_RESULT_SUCCESS with *fill set when the caller
 * fills *pCount results from *st; otherwise the result to return (a count
 * query's SUCCESS, NOT_READY, or an error). */
static ze_result_t ev_parts_query(ze_event_handle_t hEvent, ze_device_handle_t hDevice, uint32_t *pCount,
                                  bool have_out, sim_event_t **evp, ev_state_t *st, bool *fill) {
    *fill = false;
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL || SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!ev->timestamps) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    event_memory_read();
    bool signalled = ev_host_signalled(ev, st, true);
    uint32_t avail = st->parts.n ? st->parts.n : 1;
    if (*pCount == 0 || *pCount > avail) {
        *pCount = avail;
        if (!have_out) return ZE_RESULT_SUCCESS;
    }
    if (!have_out) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!signalled) return ZE_RESULT_NOT_READY;
    *evp = ev;
    *fill = true;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventQueryTimestampsExp(ze_event_handle_t hEvent, ze_device_handle_t hDevice,
                                                            uint32_t *pCount,
                                                            ze_kernel_timestamp_result_t *pTimestamps) {
    sim_event_t *ev;
    ev_state_t st;
    bool fill;
    ze_result_t r = ev_parts_query(hEvent, hDevice, pCount, pTimestamps != NULL, &ev, &st, &fill);
    if (!fill) return r;
    uint64_t mask = mask_bits(sim_cfg.kernel_timestamp_valid_bits);
    for (uint32_t i = 0; i < *pCount; i++) {
        sim_device_t *d = st.parts.dev[i];
        pTimestamps[i].global.kernelStart = d ? sim_dev_ticks(d, st.parts.start[i]) & mask : 0;
        pTimestamps[i].global.kernelEnd = d ? sim_dev_ticks(d, st.parts.end[i]) & mask : 0;
        pTimestamps[i].context = pTimestamps[i].global;
    }
    return ZE_RESULT_SUCCESS;
}

/* zeEventQueryKernelTimestampsExt (ZE_extension_event_query_kernel_timestamps,
 * spec 1.6): one result per (sub)device part, as zeEventQueryTimestampsExp;
 * pKernelTimestampsBuffer gets the device ticks; for events of a pool
 * with KERNEL_MAPPED_TIMESTAMP, pSynchronizedTimestampsBuffer gets them
 * in the host's time domain: host CLOCK_MONOTONIC_RAW ns, the clock of
 * zeDeviceGetGlobalTimestamps' host value, exact (the ground truth's
 * start_ns/end_ns). A lock-free read like the other queries. */
static ze_result_t ZE_APICALL sim_zeEventQueryKernelTimestampsExt(
    ze_event_handle_t hEvent, ze_device_handle_t hDevice, uint32_t *pCount,
    sim_event_query_kernel_timestamps_results_ext_properties_t *pResults) {
    sim_event_t *ev;
    ev_state_t st;
    bool fill;
    ze_result_t r = ev_parts_query(hEvent, hDevice, pCount, pResults != NULL, &ev, &st, &fill);
    if (!fill) return r;
    uint64_t mask = mask_bits(sim_cfg.kernel_timestamp_valid_bits);
    for (uint32_t i = 0; i < *pCount; i++) {
        sim_device_t *d = st.parts.dev[i];
        if (pResults->pKernelTimestampsBuffer) {
            ze_kernel_timestamp_result_t *k = &pResults->pKernelTimestampsBuffer[i];
            k->global.kernelStart = d ? sim_dev_ticks(d, st.parts.start[i]) & mask : 0;
            k->global.kernelEnd = d ? sim_dev_ticks(d, st.parts.end[i]) & mask : 0;
            k->context = k->global;
        }
        if (pResults->pSynchronizedTimestampsBuffer && ev->mapped) {
            sim_synchronized_timestamp_result_ext_t *y = &pResults->pSynchronizedTimestampsBuffer[i];
            y->global.kernelStart = st.parts.start[i];
            y->global.kernelEnd = st.parts.end[i];
            y->context = y->global;
        }
    }
    return ZE_RESULT_SUCCESS;
}

void *sim_event_extension(const char *name) {
    if (name != NULL && strcmp(name, "zeEventQueryKernelTimestampsExt") == 0)
        return (void *)sim_zeEventQueryKernelTimestampsExt;
    return NULL;
}

/* ---- metrics integration ---------------------------------------- */

sim_event_t *sim_event_from_handle(ze_event_handle_t h) { return SIM_OBJ(sim_event_t, h, SIM_K_EVENT); }

void sim_event_attach_streamer(sim_event_t *ev, struct sim_streamer *s) {
    if (ev == NULL) return;
    pthread_mutex_lock(&ev->streamer_lock);
    struct sim_streamer *old = ev->streamer;
    ev->streamer = s;
    atomic_store(&ev->has_streamer, s != NULL);
    pthread_mutex_unlock(&ev->streamer_lock);
    /* The streamer holds a reference while attached, so that detaching
     * after zeEventDestroy is safe. */
    if (s && !old) event_ref(ev);
    if (!s && old) event_unref(ev);
}

/* ================================================================== */
/* DDI getters                                                         */
/* ================================================================== */

SIM_EXPORT ze_result_t ZE_APICALL zeGetEventPoolProcAddrTable(ze_api_version_t version, ze_event_pool_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = sim_zeEventPoolCreate;
    t->pfnDestroy = sim_zeEventPoolDestroy;
    t->pfnGetIpcHandle = sim_zeEventPoolGetIpcHandle;
    t->pfnOpenIpcHandle = sim_zeEventPoolOpenIpcHandle;
    t->pfnCloseIpcHandle = sim_zeEventPoolCloseIpcHandle;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetEventProcAddrTable(ze_api_version_t version, ze_event_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = sim_zeEventCreate;
    t->pfnDestroy = sim_zeEventDestroy;
    t->pfnHostSignal = sim_zeEventHostSignal;
    t->pfnHostSynchronize = sim_zeEventHostSynchronize;
    t->pfnQueryStatus = sim_zeEventQueryStatus;
    t->pfnHostReset = sim_zeEventHostReset;
    t->pfnQueryKernelTimestamp = sim_zeEventQueryKernelTimestamp;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetEventExpProcAddrTable(ze_api_version_t version, ze_event_exp_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnQueryTimestampsExp = sim_zeEventQueryTimestampsExp;
    return ZE_RESULT_SUCCESS;
}
