/*
 * exec_engine.c — the virtual-time engines of the simulated device:
 * modelled durations, the engines of each (sub)device, executing and
 * scheduling commands, progress of blocked engines, backpressure (a full
 * ring buffer) and host waits. See exec.h for the execution model.
 */
#include "exec.h"

_Atomic(sim_engine_t *) g_engines;   /* registry of every engine */
atomic_uint g_blocked;               /* engines blocked (or checking) on events */
atomic_uint_fast64_t g_signal_epoch; /* bumped on every event signal */

/* ================================================================== */
/* Durations                                                           */
/* ================================================================== */

/* ns of one device tick, rounded up: a kernel at least this long always
 * spans at least one tick. */
static uint64_t tick_ns(void) {
    uint64_t hz = sim_cfg.timestamp_hz ? sim_cfg.timestamp_hz : 1;
    return (1000000000ull + hz - 1) / hz;
}

static uint64_t scaled(double ns) {
    double d = ns * sim_cfg.time_scale;
    if (!(d > 0)) return 0;
    if (d > 1e15) return 1000000000000000ull; /* 11.6 days: far enough */
    return (uint64_t)d;
}

/* Cache of sim_kernel_cost() results by kernel id (the cost table is
 * fixed after zeInit and its lookup compares strings). One per engine,
 * protected by the engine lock, since durations are computed there. */

uint64_t kernel_duration(cost_slot_t *cache, const sim_isa_t *isa, uint64_t items) {
    if (sim_cfg.time_scale == 0) return 0;
    cost_slot_t *s = &cache[isa->kernel_id % COST_SLOTS];
    if (s->kernel_id != isa->kernel_id || s->kernel_id == 0) {
        sim_kernel_cost(isa->kernel_name, &s->ps, &s->ovh);
        s->kernel_id = isa->kernel_id;
    }
    uint64_t d = scaled((double)s->ovh + (double)items * (double)s->ps / 1000.0);
    if (d < tick_ns()) d = tick_ns();
    return d;
}

static uint64_t mem_duration(size_t bytes) {
    /* 100 GB/s = 100 bytes per ns, plus 1 us of overhead. */
    return scaled(1000.0 + (double)bytes / 100.0);
}

/* ================================================================== */
/* Devices and engines                                                 */
/* ================================================================== */

static uint32_t group_engine_offset(uint32_t ordinal) {
    uint32_t off = 0;
    for (uint32_t g = 0; g < ordinal && g < sim_cfg.num_queue_groups; g++) off += sim_cfg.queue_groups[g].num_queues;
    return off;
}

static sim_devstate_t *devstate_of(sim_device_t *dev) {
    return (sim_devstate_t *)((char *)dev->engines - offsetof(sim_devstate_t, engines));
}

/* The exec state of dev, created on first use (under dev->exec_lock). */
static sim_devstate_t *devstate_get(sim_device_t *dev) {
    pthread_mutex_lock(&dev->exec_lock);
    if (dev->engines != NULL) {
        sim_devstate_t *ds = devstate_of(dev);
        pthread_mutex_unlock(&dev->exec_lock);
        return ds;
    }
    /* Sub-devices first: a COMPOSITE root splits launches onto them. */
    sim_devstate_t **subs = NULL;
    if (dev->num_subdevices > 0 && dev->subdevices != NULL) {
        subs = calloc(dev->num_subdevices, sizeof(*subs));
        if (subs == NULL) goto fail;
        for (uint32_t i = 0; i < dev->num_subdevices; i++) {
            subs[i] = devstate_get(dev->subdevices[i]);
            if (subs[i] == NULL) goto fail;
        }
    }
    uint32_t n = group_engine_offset(sim_cfg.num_queue_groups);
    sim_devstate_t *ds = calloc(1, sizeof(*ds) + (size_t)n * sizeof(sim_engine_t));
    if (ds == NULL) goto fail;
    ds->dev = dev;
    ds->nsubs = subs ? dev->num_subdevices : 0;
    ds->subs = subs;
    ds->nengines = n;
    for (uint32_t g = 0, e = 0; g < sim_cfg.num_queue_groups; g++) {
        for (uint32_t i = 0; i < sim_cfg.queue_groups[g].num_queues; i++, e++) {
            sim_engine_t *eng = &ds->engines[e];
            pthread_mutex_init(&eng->lock, NULL);
            eng->dev = dev;
            eng->ds = ds;
            eng->ordinal = g;
            eng->index = i;
            atomic_init(&eng->npending, 0);
            sim_engine_t *h = atomic_load(&g_engines);
            do {
                eng->all_next = h;
            } while (!atomic_compare_exchange_weak(&g_engines, &h, eng));
        }
    }
    dev->num_engines = n;
    dev->engines = ds->engines;
    pthread_mutex_unlock(&dev->exec_lock);
    return ds;
fail:
    free(subs);
    pthread_mutex_unlock(&dev->exec_lock);
    return NULL;
}

ze_result_t check_ordinal_index(uint32_t ordinal, uint32_t index) {
    if (ordinal >= sim_cfg.num_queue_groups) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (index >= sim_cfg.queue_groups[ordinal].num_queues) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    return ZE_RESULT_SUCCESS;
}

sim_engine_t *engine_get(sim_device_t *dev, uint32_t ordinal, uint32_t index) {
    sim_devstate_t *ds = devstate_get(dev);
    if (ds == NULL) return NULL;
    uint32_t e = group_engine_offset(ordinal) + index;
    return e < ds->nengines ? &ds->engines[e] : NULL;
}

bool group_is_compute(uint32_t ordinal) {
    return ordinal < sim_cfg.num_queue_groups &&
           (sim_cfg.queue_groups[ordinal].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) != 0;
}

/* ================================================================== */
/* Command execution                                                   */
/* ================================================================== */


void batch_unref(sim_batch_t *b) {
    if (b == NULL || atomic_fetch_sub(&b->refs, 1) != 1) return;
    for (uint32_t i = 0; i < b->nbufs; i++) cmdbuf_unref(b->bufs[i]);
    if (b->fence) fence_unref(b->fence);
    free(b);
}

static void copy_region(const sim_cmd_t *c) {
    const ze_copy_region_t *dr = &c->u.region.dr, *sr = &c->u.region.sr;
    uint32_t depth = dr->depth ? dr->depth : 1;
    for (uint32_t z = 0; z < depth; z++) {
        for (uint32_t y = 0; y < dr->height; y++) {
            uint8_t *d = c->u.region.dst + (size_t)(dr->originZ + z) * c->u.region.dslice +
                         (size_t)(dr->originY + y) * c->u.region.dpitch + dr->originX;
            const uint8_t *s = c->u.region.src + (size_t)(sr->originZ + z) * c->u.region.sslice +
                               (size_t)(sr->originY + y) * c->u.region.spitch + sr->originX;
            memmove(d, s, dr->width);
        }
    }
}


/* Executes command c at virtual time t on eng (eng->lock held): performs
 * its side effects, signals its event and returns its end time. */
uint64_t exec_cmd(sim_engine_t *eng, const sim_cmd_t *c, uint64_t t, const sim_cmdlist_t *list,
                         bool immediate, uint64_t now) {
    ev_parts_t parts;
    uint64_t end = t;
    parts.n = 0;
    launch_ctx_t lc = {eng, list, immediate, list ? list->id : 0, c->signal ? c->signal->id : 0, now};
    switch ((cmd_type_t)c->type) {
    case C_KERNEL:
        end = exec_launch(&lc, &c->u.kern.k, t, &parts);
        break;
    case C_KERNEL_INDIRECT: {
        kparams_t k = c->u.kern.k;
        /* Group counts are read from memory at execution time. */
        memcpy(k.groups, c->u.kern.indirect, sizeof(k.groups));
        end = exec_launch(&lc, &k, t, &parts);
        break;
    }
    case C_KERNELS_MULTI: {
        uint32_t n;
        memcpy(&n, c->u.multi.count, sizeof(n));
        if (n > c->u.multi.max) n = c->u.multi.max;
        ev_parts_t first = {0};
        for (uint32_t i = 0; i < n; i++) {
            kparams_t k = c->u.multi.ks[i];
            memcpy(k.groups, &c->u.multi.args[i], sizeof(k.groups));
            end = exec_launch(&lc, &k, end, &parts);
            if (i == 0) first = parts;
        }
        /* The event covers the whole command: first start, last end. */
        if (n > 1)
            for (uint32_t p = 0; p < parts.n && p < first.n; p++) parts.start[p] = first.start[p];
        break;
    }
    case C_COPY:
        if (c->u.copy.size) memmove(c->u.copy.dst, c->u.copy.src, c->u.copy.size);
        end = t + mem_duration(c->u.copy.size);
        exec_builtin(&lc, SIM_BUILTIN_COPY, c->u.copy.size, t, end);
        break;
    case C_FILL: {
        uint8_t *d = c->u.fill.dst;
        size_t ps = c->u.fill.psize;
        if (ps == 1) {
            memset(d, c->u.fill.pat[0], c->u.fill.size);
        } else {
            for (size_t o = 0; o < c->u.fill.size; o += ps) {
                size_t n = c->u.fill.size - o < ps ? c->u.fill.size - o : ps;
                memcpy(d + o, c->u.fill.pat, n);
            }
        }
        end = t + mem_duration(c->u.fill.size);
        exec_builtin(&lc, SIM_BUILTIN_FILL, c->u.fill.size, t, end);
        break;
    }
    case C_COPY_REGION: {
        copy_region(c);
        const ze_copy_region_t *r = &c->u.region.dr;
        end = t + mem_duration((size_t)r->width * r->height * (r->depth ? r->depth : 1));
        exec_builtin(&lc, SIM_BUILTIN_COPY, (uint64_t)r->width * r->height * (r->depth ? r->depth : 1), t, end);
        break;
    }
    case C_RESET:
        event_reset_at(c->u.reset.ev, t);
        break;
    case C_QUERY_TS: {
        /* On Intel's driver a built-in GPU kernel (one work-item per
         * event) reads the events' memory and writes the results: the
         * device's work, which costs the host no CPU and no read across
         * the bus (no ZESIM_EVENT_READ_NS). Here the thread that schedules
         * the command plays it -- the one submitting the list, or
         * whichever thread later unblocks the engine -- so with
         * ZESIM_STATS it is counted as the device's (README.md "Cost",
         * "The device's work, counted"). The signals posted for the events
         * are written first, counted as a batch of their own. */
        posts_apply();
        dev_cost_t cost = dev_cost_begin(c->u.qts.n);
        for (uint32_t i = 0; i < c->u.qts.n; i++) {
            sim_event_t *ev = c->u.qts.evs[i];
            ze_kernel_timestamp_result_t r;
            /* Signalled at the query's time t: a signal scheduled later
             * (another engine, virtual future) or a reset at or before t
             * means the event is not signalled when the query runs. */
            ev_state_t st;
            ev_read(ev, &st, true);
            bool known = ev_state_signalled_at(&st, t);
            if (known) write_kernel_timestamp(&st.parts, &r);
            /* Values of events not signalled are undefined: leave them. */
            if (!known) continue;
            size_t off = c->u.qts.offs ? c->u.qts.offs[i] : (size_t)i * sizeof(r);
            memcpy(c->u.qts.dst + off, &r, sizeof(r));
        }
        dev_cost_end(cost, 0, c->u.qts.n);
        break;
    }
    case C_WRITE_TS: {
        uint64_t v = sim_dev_ticks(eng->dev, t) & mask_bits(sim_cfg.timestamp_valid_bits);
        memcpy(c->u.wts.dst, &v, sizeof(v));
        break;
    }
    case C_BATCH_END: {
        sim_batch_t *b = c->u.bend.batch;
        if (b->fence) atomic_store(&b->fence->done_t, t);
        atomic_store(&b->end_t, t);
        break;
    }
    case C_NOP:
        break;
    }
    if (c->signal) {
        if (parts.n == 0) {
            parts.n = 1;
            parts.start[0] = t;
            parts.end[0] = end;
            parts.dev[0] = eng->dev;
        }
        event_signal_device(eng, c->signal, end, &parts, now);
    }
    return end;
}

/* Earliest start of c given ready time x, or T_NEVER when a wait event
 * has no known signal time yet. */
uint64_t cmd_ready_time(const sim_cmd_t *c, uint64_t x) {
    for (uint32_t i = 0; i < c->nwait; i++) {
        uint64_t s = event_wait_time(cmd_wait(c, i), x);
        if (s == T_NEVER) return T_NEVER;
        x = umax64(x, s);
    }
    return x;
}

/* eng->lock held: schedules c, which is ready at t. */
uint64_t schedule_locked(sim_engine_t *eng, const sim_cmd_t *c, uint64_t t, const sim_cmdlist_t *list,
                                bool immediate, uint64_t now) {
    uint64_t end = exec_cmd(eng, c, t, list, immediate, now);
    eng->free_at = umax64(eng->free_at, end);
    if (t > now && eng->ring_count < ENGINE_MAX_UNSTARTED) {
        eng->ring[(eng->ring_head + eng->ring_count) % ENGINE_MAX_UNSTARTED] = t;
        eng->ring_count++;
    }
    return end;
}


static void entry_free_locked(sim_engine_t *eng, sim_entry_t *e) {
    if (e->cmd == &e->own) cmd_release(&e->own);
    e->next = eng->free_entries;
    eng->free_entries = e;
}


/* eng->lock held: schedules queued commands in FIFO order until the head
 * waits for an event without a known signal time. Returns true if
 * anything was scheduled. (Dropping the last reference of a list, a
 * command buffer or an event here is fine: freeing them, and the events
 * a command buffer's pools kept, takes no engine lock.) */
bool engine_progress_locked(sim_engine_t *eng, uint64_t now) {
    bool did = false;
    while (eng->head) {
        sim_entry_t *e = eng->head;
        const sim_cmd_t *c = e->cmd;
        uint64_t x = umax64(eng->free_at, e->submit_ns);
        if (c->nwait) {
            /* Count ourselves as blocked *before* looking at the events, so
             * that a concurrent signaller sees g_blocked != 0 (see
             * progress_after_signal). */
            if (!eng->blocked) atomic_fetch_add(&g_blocked, 1);
            x = cmd_ready_time(c, x);
            if (x == T_NEVER) {
                eng->blocked = true;
                return did;
            }
            atomic_fetch_sub(&g_blocked, 1);
            eng->blocked = false;
        }
        bool imm = e->list && e->list->immediate;
        uint64_t end = schedule_locked(eng, c, x, e->list, imm, now);
        if (e->list && imm) {
            atomic_store(&e->list->last_end, end);
            atomic_store(&e->list->seq_done, e->seq);
        }
        if (c->type == C_BATCH_END) batch_unref(c->u.bend.batch);
        eng->head = e->next;
        if (eng->head == NULL) eng->tail = NULL;
        atomic_fetch_sub(&eng->npending, 1);
        if (e->list) cmdlist_unref(e->list);
        entry_free_locked(eng, e);
        did = true;
    }
    if (eng->blocked) {
        eng->blocked = false;
        atomic_fetch_sub(&g_blocked, 1);
    }
    return did;
}

/* Advances every engine until none can make progress (blocked heads may
 * be released by commands of other engines). */
void progress_all(void) {
    bool any;
    do {
        any = false;
        for (sim_engine_t *eng = atomic_load(&g_engines); eng; eng = eng->all_next) {
            if (atomic_load_explicit(&eng->npending, memory_order_acquire) == 0) continue;
            pthread_mutex_lock(&eng->lock);
            any |= engine_progress_locked(eng, sim_now_ns());
            pthread_mutex_unlock(&eng->lock);
        }
    } while (any);
}

/* Engines progress as soon as what they wait for is known (every signal
 * is followed by progress_after_signal), so an engine with queued commands
 * is always blocked on an event nobody has signalled: host observers need
 * to advance engines only when one is blocked. Returns whether it did. */
bool progress_if_blocked(void) {
    if (atomic_load(&g_blocked) == 0) return false;
    progress_all();
    return true;
}

/* After scheduling something that may have signalled events: release
 * engines blocked on them. */
void progress_after_signal(uint64_t epoch_before) {
    if (atomic_load(&g_blocked) != 0 && atomic_load(&g_signal_epoch) != epoch_before) progress_all();
}

void sim_exec_progress(sim_device_t *dev, uint64_t now_ns) {
    (void)dev;
    (void)now_ns;
    /* Commands are scheduled as soon as their dependencies are known, so
     * "progress up to now" is progress of the blocked engines (events may
     * link engines of different devices); others have nothing queued. */
    progress_if_blocked();
}

sim_entry_t *entry_alloc_locked(sim_engine_t *eng) {
    sim_entry_t *e = eng->free_entries;
    if (e) {
        eng->free_entries = e->next;
        return e;
    }
    return malloc(sizeof(*e));
}

void enqueue_locked(sim_engine_t *eng, sim_entry_t *e) {
    e->next = NULL;
    if (eng->tail) eng->tail->next = e;
    else eng->head = e;
    eng->tail = e;
    atomic_fetch_add_explicit(&eng->npending, 1, memory_order_release);
}

/* eng->lock held: waits (unlocking meanwhile) while the engine already has
 * ENGINE_MAX_UNSTARTED commands that have not started, like a full ring
 * buffer. Returns the current time. */
uint64_t backpressure_locked(sim_engine_t *eng) {
    uint64_t now = sim_now_ns();
    uint64_t poll = POLL_MIN_NS;
    for (;;) {
        while (eng->ring_count && eng->ring[eng->ring_head] <= now) {
            eng->ring_head = (eng->ring_head + 1) % ENGINE_MAX_UNSTARTED;
            eng->ring_count--;
        }
        uint32_t pending = atomic_load_explicit(&eng->npending, memory_order_relaxed);
        if (eng->ring_count + pending < ENGINE_MAX_UNSTARTED) return now;
        uint64_t wake = eng->ring_count ? eng->ring[eng->ring_head] : now + poll;
        pthread_mutex_unlock(&eng->lock);
        if (!eng->ring_count) {
            progress_all();
            poll = umin64(poll * 2, POLL_MAX_NS);
        }
        sim_sleep_until(wake, SLEEP_CAP_NS);
        pthread_mutex_lock(&eng->lock);
        now = sim_now_ns();
    }
}

/* ================================================================== */
/* Host waits                                                          */
/* ================================================================== */


ze_result_t wait_for(probe_fn probe, void *arg, uint64_t timeout) {
    uint64_t start = sim_now_ns();
    clock_floor_raise(start);
    uint64_t deadline = timeout == UINT64_MAX ? T_NEVER : sat_add(start, timeout);
    uint64_t poll = POLL_MIN_NS;
    for (;;) {
        /* Probe first: waiting on something that has completed is a read
         * of host-visible state, without any lock (Intel's driver reads
         * the event's memory). */
        uint64_t now = sim_now_ns();
        uint64_t t = probe(arg, now);
        if (t == T_NEVER && progress_if_blocked()) {
            now = sim_now_ns();
            t = probe(arg, now);
        }
        if (t != T_NEVER && t <= now) return ZE_RESULT_SUCCESS;
        if (timeout == 0 || now >= deadline) return ZE_RESULT_NOT_READY;
        uint64_t wake;
        if (t != T_NEVER) {
            if (t - now <= SPIN_NS) {
                /* nanosleep overshoots by tens of us: yield-spin the tail
                 * (Intel's driver busy-polls the whole wait). */
                sched_yield();
                continue;
            }
            wake = t - SPIN_NS / 2;
        } else {
            /* Nobody has signalled it yet: poll with growing sleeps. */
            wake = now + poll;
            poll = umin64(poll * 2, POLL_MAX_NS);
        }
        sim_sleep_until(umin64(wake, deadline), SLEEP_CAP_NS);
    }
}

