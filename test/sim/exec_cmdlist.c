/*
 * exec_cmdlist.c — command lists: building commands from the append
 * calls (validation, persistence of caller-owned arguments), regular lists
 * (recording) and immediate lists (submission to an engine).
 */
#include "exec.h"

atomic_uint_fast64_t g_cmdlist_id;

/* ================================================================== */
/* Command construction, persistence, release                          */
/* ================================================================== */

/* Copies the caller-owned parts of c into storage owned by the command,
 * so that it can outlive the API call, and takes the references it needs:
 * its ISAs', and, for a command queued on an engine (how = CMD_QUEUED),
 * one per event it names; a recorded command (CMD_RECORDED) takes none
 * for its events, its command buffer counts itself on their pools
 * (record, cmdbuf_name_events). c->owns must be CMD_BORROWED. Returns
 * false when out of memory (c unchanged). */
static bool cmd_persist(sim_cmd_t *c, cmd_owns_t how) {
    sim_event_t **heap = NULL;
    kparams_t *ks = NULL;
    sim_event_t **evs = NULL;
    size_t *offs = NULL;
    bool refs = how == CMD_QUEUED;
    /* A timestamp query that waits for the very events it copies (as the
     * specification's example, and a profiler's batch, do) keeps one
     * array for both (and, queued, one reference per event): Intel's
     * append reads each event's address for the copy and for the wait,
     * and keeps no copy of its own of the list. */
    bool share = c->type == C_QUERY_TS && c->nwait > INLINE_WAITS && c->nwait == c->u.qts.n &&
                 memcmp(c->waits_tmp, c->u.qts.evs, c->nwait * sizeof(*heap)) == 0;
    if (c->nwait > INLINE_WAITS && !share && (heap = malloc(c->nwait * sizeof(*heap))) == NULL) return false;
    if (c->type == C_KERNELS_MULTI && c->u.multi.max) {
        ks = malloc(c->u.multi.max * sizeof(*ks));
        if (ks == NULL) goto oom;
        memcpy(ks, c->u.multi.ks, c->u.multi.max * sizeof(*ks));
    }
    if (c->type == C_QUERY_TS && c->u.qts.n) {
        evs = malloc(c->u.qts.n * sizeof(*evs));
        if (evs == NULL) goto oom;
        memcpy(evs, c->u.qts.evs, c->u.qts.n * sizeof(*evs));
        if (c->u.qts.offs) {
            offs = malloc(c->u.qts.n * sizeof(*offs));
            if (offs == NULL) goto oom;
            memcpy(offs, c->u.qts.offs, c->u.qts.n * sizeof(*offs));
        }
    }
    const sim_event_t *const *tmp = c->waits_tmp;
    if (share) {
        c->w.heap = evs; /* referenced once (queued), below */
    } else {
        for (uint32_t i = 0; i < c->nwait; i++) {
            sim_event_t *ev = (sim_event_t *)tmp[i];
            if (refs) event_ref(ev);
            if (heap) heap[i] = ev;
            else c->w.inl[i] = ev;
        }
        if (heap) c->w.heap = heap;
    }
    c->waits_tmp = NULL;
    if (c->signal && refs) event_ref(c->signal);
    switch ((cmd_type_t)c->type) {
    case C_KERNEL:
    case C_KERNEL_INDIRECT:
        sim_isa_ref(c->u.kern.k.isa);
        break;
    case C_KERNELS_MULTI:
        c->u.multi.ks = ks;
        for (uint32_t i = 0; i < c->u.multi.max; i++) sim_isa_ref(ks[i].isa);
        break;
    case C_RESET:
        if (refs) event_ref(c->u.reset.ev);
        break;
    case C_QUERY_TS:
        c->u.qts.evs = evs;
        c->u.qts.offs = offs;
        c->u.qts.waits_are_evs = share;
        for (uint32_t i = 0; i < c->u.qts.n && refs; i++) event_ref(evs[i]);
        break;
    default:
        break;
    }
    c->owns = (uint8_t)how;
    return true;
oom:
    free(heap);
    free(ks);
    free(evs);
    free(offs);
    return false;
}

/* Drops what cmd_persist took: a queued command's event references too,
 * a recorded command's arrays and ISA references only. */
void cmd_release(sim_cmd_t *c) {
    if (c->owns == CMD_BORROWED) return;
    bool refs = c->owns == CMD_QUEUED;
    bool shared = c->type == C_QUERY_TS && c->u.qts.waits_are_evs; /* released with the query's events */
    for (uint32_t i = 0; i < c->nwait && !shared && refs; i++) event_unref(cmd_wait(c, i));
    if (c->nwait > INLINE_WAITS && !shared) free(c->w.heap);
    if (refs) event_unref(c->signal);
    switch ((cmd_type_t)c->type) {
    case C_KERNEL:
    case C_KERNEL_INDIRECT:
        sim_isa_unref(c->u.kern.k.isa);
        break;
    case C_KERNELS_MULTI:
        for (uint32_t i = 0; i < c->u.multi.max; i++) sim_isa_unref(c->u.multi.ks[i].isa);
        free(c->u.multi.ks);
        break;
    case C_RESET:
        if (refs) event_unref(c->u.reset.ev);
        break;
    case C_QUERY_TS:
        for (uint32_t i = 0; i < c->u.qts.n && refs; i++) event_unref(c->u.qts.evs[i]);
        free(c->u.qts.evs);
        free(c->u.qts.offs);
        break;
    default:
        break;
    }
    c->owns = CMD_BORROWED;
}

/* ---- a recorded command's events ----------------------------------
 * A recorded command holds no reference to the events it names, as on
 * Intel's driver (exec_event.c "a recorded command's events"): its
 * command buffer counts itself once on each event pool its commands name
 * (pool_cmd_ref: an atomic add on the pool, and a reference to it, the
 * first time; a look-up in the buffer's own set after), and once per pool
 * at its release (pool_cmd_unref), which frees the pools' events
 * destroyed meanwhile that no buffer may name any more. The set is the
 * buffer's own, written by the one thread appending to the list: no lock,
 * and no atomic per append on a line other threads write. */

static inline uint32_t pool_hash(const sim_event_pool_t *p, uint32_t mask) {
    return (uint32_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 32) & mask;
}

/* The set's entry for p: p's, or the empty one where it goes. */
static cmdbuf_pool_t *cmdbuf_pool_slot(cmdbuf_pool_t *set, uint32_t cap, const sim_event_pool_t *p) {
    uint32_t mask = cap - 1;
    for (uint32_t i = pool_hash(p, mask);; i = (i + 1) & mask)
        if (set[i].pool == p || set[i].pool == NULL) return &set[i];
}

/* Counts the command buffer b on p, once. Returns false when out of memory. */
static bool cmdbuf_name_pool(sim_cmdbuf_t *b, sim_event_pool_t *p) {
    if (p == b->last_pool) return true;
    if (b->pools_cap == 0 || 2 * (b->npools + 1) > b->pools_cap) {
        uint32_t cap = b->pools_cap ? 2 * b->pools_cap : 8;
        cmdbuf_pool_t *set = calloc(cap, sizeof(*set));
        if (set == NULL) return false;
        for (uint32_t i = 0; i < b->pools_cap; i++)
            if (b->pools[i].pool) *cmdbuf_pool_slot(set, cap, b->pools[i].pool) = b->pools[i];
        free(b->pools);
        b->pools = set;
        b->pools_cap = cap;
    }
    cmdbuf_pool_t *e = cmdbuf_pool_slot(b->pools, b->pools_cap, p);
    if (e->pool == NULL) {
        e->slot = pool_cmd_ref(p);
        e->pool = p;
        b->npools++;
    }
    b->last_pool = p;
    return true;
}

static inline bool cmdbuf_name_event(sim_cmdbuf_t *b, const sim_event_t *ev) {
    return ev == NULL || ev->pool == b->last_pool || cmdbuf_name_pool(b, ev->pool);
}

/* Counts b on the pool of every event c (not persisted) names. */
static bool cmdbuf_name_events(sim_cmdbuf_t *b, const sim_cmd_t *c) {
    bool ok = cmdbuf_name_event(b, c->signal);
    for (uint32_t i = 0; ok && i < c->nwait; i++) ok = cmdbuf_name_event(b, c->waits_tmp[i]);
    if (ok && c->type == C_RESET) ok = cmdbuf_name_event(b, c->u.reset.ev);
    if (ok && c->type == C_QUERY_TS && c->u.qts.evs != (sim_event_t *const *)c->waits_tmp)
        for (uint32_t i = 0; ok && i < c->u.qts.n; i++) ok = cmdbuf_name_event(b, c->u.qts.evs[i]);
    return ok;
}

/* The last reference: the commands (and every execution of them) are
 * done; then the pools they named are released. */
void cmdbuf_unref(sim_cmdbuf_t *b) {
    if (b == NULL || atomic_fetch_sub(&b->refs, 1) != 1) return;
    for (uint32_t i = 0; i < b->n; i++) cmd_release(&b->cmds[i]);
    free(b->cmds);
    for (uint32_t i = 0; i < b->pools_cap; i++)
        if (b->pools[i].pool) pool_cmd_unref(b->pools[i].pool, b->pools[i].slot);
    free(b->pools);
    free(b);
}

static sim_cmdbuf_t *cmdbuf_new(void) {
    sim_cmdbuf_t *b = calloc(1, sizeof(*b));
    if (b) atomic_init(&b->refs, 1);
    return b;
}

/* ================================================================== */
/* Command lists                                                       */
/* ================================================================== */

/* ---- what a timestamp query's append writes ----------------------
 * Intel's zeCommandListAppendQueryKernelTimestamps writes, at append, each
 * event's address and packet count into a new driver allocation of 64 KiB
 * that its built-in kernel reads, freed only at the list's reset or
 * destruction. That allocation (gpuTimestampDeviceBuffer) is placed in the
 * device's memory on a discrete GPU such as PVC, mapped for the CPU: it is
 * not in the process's resident set (as an event pool's slots are not:
 * README.md "An event's host memory"). So the simulator makes the host's
 * writes (QTS_ENTRY_BYTES per event, on the appending thread) into a
 * staging buffer of the thread's own that it reuses, not an allocation
 * per append that would count in the resident set. Its packet count is 1
 * (the simulator tracks no packets in the event object); nothing reads it. */
static pthread_key_t qts_key;
static pthread_once_t qts_once = PTHREAD_ONCE_INIT;
static _Thread_local uint64_t *t_qts;
static _Thread_local size_t t_qts_cap; /* entries */
static void qts_key_make(void) { pthread_key_create(&qts_key, free); }

static bool qts_stage(sim_event_t *const *evs, uint32_t n) {
    if (t_qts_cap < n) {
        size_t cap = n < QTS_MIN_ENTRIES ? QTS_MIN_ENTRIES : n;
        uint64_t *b = realloc(t_qts, cap * QTS_ENTRY_BYTES);
        if (b == NULL) return false;
        pthread_once(&qts_once, qts_key_make);
        pthread_setspecific(qts_key, b); /* freed when the thread exits */
        t_qts = b;
        t_qts_cap = cap;
    }
    for (uint32_t i = 0; i < n; i++) {
        t_qts[2 * i] = (uint64_t)(uintptr_t)&evs[i]->seq; /* the event's memory */
        t_qts[2 * i + 1] = 1;
    }
    return true;
}

void cmdlist_unref(sim_cmdlist_t *l) {
    if (l == NULL || atomic_fetch_sub(&l->refs, 1) != 1) return;
    cmdbuf_unref(l->buf);
    free(l);
}

/* Waits until host time t (known) has passed. */
static void sleep_until_passed(uint64_t t) {
    uint64_t now;
    while ((now = sim_now_ns()) < t) {
        if (t - now <= SPIN_NS) sched_yield();
        else sim_sleep_until(t - SPIN_NS / 2, SLEEP_CAP_NS);
    }
}

/* Submits c (not persisted) to the immediate list l. */
static ze_result_t submit_immediate(sim_cmdlist_t *l, sim_cmd_t *c) {
    sim_engine_t *eng = l->eng;
    uint64_t epoch = atomic_load_explicit(&g_signal_epoch, memory_order_relaxed);
    uint64_t end = T_NEVER, seq = 0;
    pthread_mutex_lock(&eng->lock);
    uint64_t now = backpressure_locked(eng);
    uint64_t x = T_NEVER;
    if (eng->head == NULL) x = cmd_ready_time(c, umax64(eng->free_at, now));
    if (x != T_NEVER) {
        /* Fast path: nothing queued and every dependency known. */
        end = schedule_locked(eng, c, x, l, true, now);
    } else {
        sim_entry_t *e = entry_alloc_locked(eng);
        if (e == NULL) {
            pthread_mutex_unlock(&eng->lock);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        e->own = *c;
        if (!cmd_persist(&e->own, CMD_QUEUED)) {
            e->next = eng->free_entries;
            eng->free_entries = e;
            pthread_mutex_unlock(&eng->lock);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        e->cmd = &e->own;
        e->list = l;
        atomic_fetch_add(&l->refs, 1);
        e->submit_ns = now;
        seq = e->seq = atomic_fetch_add(&l->seq_submitted, 1) + 1;
        enqueue_locked(eng, e);
        engine_progress_locked(eng, now);
    }
    pthread_mutex_unlock(&eng->lock);
    progress_after_signal(epoch);
    if (l->synchronous) {
        /* Synchronous immediate list: the append returns after completion. */
        if (end == T_NEVER) {
            uint64_t poll = POLL_MIN_NS;
            while (atomic_load(&l->seq_done) < seq) {
                progress_all();
                if (atomic_load(&l->seq_done) >= seq) break;
                sim_sleep_until(sim_now_ns() + poll, poll);
                poll = umin64(poll * 2, POLL_MAX_NS);
            }
            end = atomic_load(&l->last_end);
        }
        sleep_until_passed(end);
    }
    return ZE_RESULT_SUCCESS;
}

/* Records c (not persisted) into the regular list l. */
static ze_result_t record(sim_cmdlist_t *l, sim_cmd_t *c) {
    sim_cmdbuf_t *b = l->buf;
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 16;
        sim_cmd_t *n = realloc(b->cmds, (size_t)cap * sizeof(*n));
        if (n == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        b->cmds = n;
        b->cap = cap;
    }
    /* Pools named stay counted if the command cannot be recorded: they
     * are released with the buffer. */
    if (!cmdbuf_name_events(b, c)) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_cmd_t *dst = &b->cmds[b->n];
    *dst = *c;
    if (!cmd_persist(dst, CMD_RECORDED)) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    b->n++;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t submit(sim_cmdlist_t *l, sim_cmd_t *c) {
    return l->immediate ? submit_immediate(l, c) : record(l, c);
}

/* Validates the common (signal, wait list) arguments and fills them into c. */
static ze_result_t cmd_init(sim_cmd_t *c, cmd_type_t type, ze_event_handle_t hSignal, uint32_t numWait,
                            ze_event_handle_t *phWait) {
    c->type = (uint8_t)type;
    c->owns = CMD_BORROWED;
    c->signal = NULL;
    c->nwait = 0;
    c->waits_tmp = NULL;
    if (hSignal) {
        c->signal = SIM_OBJ(sim_event_t, hSignal, SIM_K_EVENT);
        if (c->signal == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (numWait) {
        if (phWait == NULL) return ZE_RESULT_ERROR_INVALID_SIZE;
        for (uint32_t i = 0; i < numWait; i++)
            if (SIM_OBJ(sim_event_t, phWait[i], SIM_K_EVENT) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        /* Handles are the sim_event_t pointers themselves. */
        c->waits_tmp = (const sim_event_t *const *)phWait;
        c->nwait = numWait;
    }
    return ZE_RESULT_SUCCESS;
}

static sim_cmdlist_t *list_for_append(ze_command_list_handle_t h, ze_result_t *res) {
    sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, h, SIM_K_CMDLIST);
    if (l == NULL) {
        *res = ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        return NULL;
    }
    if (!l->immediate && l->closed) {
        /* Recorded commands may be executing; the list must be reset first. */
        *res = ZE_RESULT_ERROR_INVALID_ARGUMENT;
        return NULL;
    }
    *res = ZE_RESULT_SUCCESS;
    return l;
}

static ze_result_t cmdlist_new(sim_context_t *ctx, sim_device_t *dev, uint32_t ordinal, bool immediate,
                               sim_cmdlist_t **out) {
    sim_cmdlist_t *l = calloc(1, sizeof(*l));
    if (l == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_obj_init(&l->obj, SIM_K_CMDLIST);
    l->ctx = ctx;
    l->dev = dev;
    l->ordinal = ordinal;
    l->immediate = immediate;
    l->compute = group_is_compute(ordinal);
    l->id = atomic_fetch_add(&g_cmdlist_id, 1) + 1;
    atomic_init(&l->refs, 1);
    if (!immediate && (l->buf = cmdbuf_new()) == NULL) {
        free(l);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = l;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                      const ze_command_list_desc_t *desc,
                                                      ze_command_list_handle_t *phCommandList) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    sim_device_t *dev = SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phCommandList == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* 0x7 in spec 1.4, plus IN_ORDER (bit 3, spec 1.9). */
    if (desc->flags > (0x7u | SIM_COMMAND_LIST_FLAG_IN_ORDER)) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->commandQueueGroupOrdinal >= sim_cfg.num_queue_groups) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    sim_cmdlist_t *l;
    ze_result_t r = cmdlist_new(ctx, dev, desc->commandQueueGroupOrdinal, false, &l);
    if (r != ZE_RESULT_SUCCESS) return r;
    *phCommandList = (ze_command_list_handle_t)l;
    return ZE_RESULT_SUCCESS;
}

ze_result_t check_queue_desc(const ze_command_queue_desc_t *d) {
    /* flags: EXPLICIT_ONLY, plus IN_ORDER (bit 1, spec 1.7). */
    if (d->flags > 0x3u) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if ((uint32_t)d->mode > (uint32_t)ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if ((uint32_t)d->priority > (uint32_t)ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return check_ordinal_index(d->ordinal, d->index);
}

static ze_result_t ZE_APICALL sim_zeCommandListCreateImmediate(ze_context_handle_t hContext,
                                                               ze_device_handle_t hDevice,
                                                               const ze_command_queue_desc_t *altdesc,
                                                               ze_command_list_handle_t *phCommandList) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    sim_device_t *dev = SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (altdesc == NULL || phCommandList == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = check_queue_desc(altdesc);
    if (r != ZE_RESULT_SUCCESS) return r;
    sim_engine_t *eng = engine_get(dev, altdesc->ordinal, altdesc->index);
    if (eng == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_cmdlist_t *l;
    r = cmdlist_new(ctx, dev, altdesc->ordinal, true, &l);
    if (r != ZE_RESULT_SUCCESS) return r;
    l->eng = eng;
    l->synchronous = altdesc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    *phCommandList = (ze_command_list_handle_t)l;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListDestroy(ze_command_list_handle_t hCommandList) {
    sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST);
    if (l == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&l->obj);
    /* Queued commands keep the list (and executing batches its
     * recorded commands) alive until they are processed. */
    cmdlist_unref(l);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListClose(ze_command_list_handle_t hCommandList) {
    sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST);
    if (l == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!l->immediate) l->closed = true;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListReset(ze_command_list_handle_t hCommandList) {
    sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST);
    if (l == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (l->immediate) return ZE_RESULT_SUCCESS;
    sim_cmdbuf_t *b = cmdbuf_new();
    if (b == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cmdbuf_unref(l->buf);
    l->buf = b;
    l->closed = false;
    return ZE_RESULT_SUCCESS;
}

/* ---- appends ----------------------------------------------------- */

static ze_result_t append_simple(ze_command_list_handle_t h, cmd_type_t type, ze_event_handle_t hSignal,
                                 uint32_t numWait, ze_event_handle_t *phWait) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(h, &r);
    if (l == NULL) return r;
    sim_cmd_t c;
    if ((r = cmd_init(&c, type, hSignal, numWait, phWait)) != ZE_RESULT_SUCCESS) return r;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                                             ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                             ze_event_handle_t *phWaitEvents) {
    /* An engine executes in order, so a barrier only orders against the
     * given events: a zero-duration command. */
    return append_simple(hCommandList, C_NOP, hSignalEvent, numWaitEvents, phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryRangesBarrier(
    ze_command_list_handle_t hCommandList, uint32_t numRanges, const size_t *pRangeSizes, const void **pRanges,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (numRanges && (pRangeSizes == NULL || pRanges == NULL)) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return append_simple(hCommandList, C_NOP, hSignalEvent, numWaitEvents, phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendSignalEvent(ze_command_list_handle_t hCommandList,
                                                                 ze_event_handle_t hEvent) {
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL || hEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return append_simple(hCommandList, C_NOP, hEvent, 0, NULL);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList,
                                                                  uint32_t numEvents, ze_event_handle_t *phEvents) {
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phEvents == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return append_simple(hCommandList, C_NOP, NULL, numEvents, phEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendEventReset(ze_command_list_handle_t hCommandList,
                                                                ze_event_handle_t hEvent) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_cmd_t c;
    cmd_init(&c, C_RESET, NULL, 0, NULL);
    c.u.reset.ev = ev;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList,
                                                                void *dstptr, const void *srcptr, size_t size,
                                                                ze_event_handle_t hSignalEvent,
                                                                uint32_t numWaitEvents,
                                                                ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (dstptr == NULL || srcptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_COPY, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.copy.dst = dstptr;
    c.u.copy.src = srcptr;
    c.u.copy.size = size;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryCopyFromContext(
    ze_command_list_handle_t hCommandList, void *dstptr, ze_context_handle_t hContextSrc, const void *srcptr,
    size_t size, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    if (SIM_OBJ(sim_context_t, hContextSrc, SIM_K_CONTEXT) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return sim_zeCommandListAppendMemoryCopy(hCommandList, dstptr, srcptr, size, hSignalEvent, numWaitEvents,
                                             phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void *ptr,
                                                                const void *pattern, size_t pattern_size,
                                                                size_t size, ze_event_handle_t hSignalEvent,
                                                                uint32_t numWaitEvents,
                                                                ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (ptr == NULL || pattern == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Power of two, at most the group's maxMemoryFillPatternSize (128
     * on compute groups, 4 on copy-only ones, like Intel's driver). */
    size_t maxp = l->compute ? FILL_PATTERN_MAX : 4;
    if (pattern_size == 0 || (pattern_size & (pattern_size - 1)) != 0 || pattern_size > maxp)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_FILL, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.fill.dst = ptr;
    c.u.fill.size = size;
    c.u.fill.psize = pattern_size;
    memcpy(c.u.fill.pat, pattern, pattern_size);
    return submit(l, &c);
}

static bool regions_overlap(const uint8_t *dst, const ze_copy_region_t *d, uint32_t dp, uint32_t ds,
                            const uint8_t *src, const ze_copy_region_t *s, uint32_t sp, uint32_t ss) {
    /* Conservative: compare the byte extents the two regions span. */
    uint32_t depth = d->depth ? d->depth : 1;
    uint64_t d0 = (uint64_t)d->originZ * ds + (uint64_t)d->originY * dp + d->originX;
    uint64_t d1 = (uint64_t)(d->originZ + depth - 1) * ds + (uint64_t)(d->originY + d->height - 1) * dp +
                  d->originX + d->width;
    uint64_t s0 = (uint64_t)s->originZ * ss + (uint64_t)s->originY * sp + s->originX;
    uint64_t s1 = (uint64_t)(s->originZ + depth - 1) * ss + (uint64_t)(s->originY + d->height - 1) * sp +
                  s->originX + d->width;
    uintptr_t a0 = (uintptr_t)dst + d0, a1 = (uintptr_t)dst + d1, b0 = (uintptr_t)src + s0, b1 = (uintptr_t)src + s1;
    return a0 < b1 && b0 < a1;
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryCopyRegion(
    ze_command_list_handle_t hCommandList, void *dstptr, const ze_copy_region_t *dstRegion, uint32_t dstPitch,
    uint32_t dstSlicePitch, const void *srcptr, const ze_copy_region_t *srcRegion, uint32_t srcPitch,
    uint32_t srcSlicePitch, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (dstptr == NULL || dstRegion == NULL || srcptr == NULL || srcRegion == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (dstRegion->width != srcRegion->width || dstRegion->height != srcRegion->height ||
        dstRegion->depth != srcRegion->depth)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (dstRegion->width > dstPitch || srcRegion->width > srcPitch) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (dstRegion->width && dstRegion->height &&
        regions_overlap(dstptr, dstRegion, dstPitch, dstSlicePitch, srcptr, srcRegion, srcPitch, srcSlicePitch))
        return ZE_RESULT_ERROR_OVERLAPPING_REGIONS;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_COPY_REGION, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.region.dst = dstptr;
    c.u.region.src = srcptr;
    c.u.region.dr = *dstRegion;
    c.u.region.sr = *srcRegion;
    c.u.region.dpitch = dstPitch;
    c.u.region.dslice = dstSlicePitch;
    c.u.region.spitch = srcPitch;
    c.u.region.sslice = srcSlicePitch;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t hCommandList,
                                                                    const void *ptr, size_t size) {
    (void)size;
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_SUCCESS; /* a hint: host memory is already "resident" */
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemAdvise(ze_command_list_handle_t hCommandList,
                                                               ze_device_handle_t hDevice, const void *ptr,
                                                               size_t size, ze_memory_advice_t advice) {
    (void)size;
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL ||
        SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((uint32_t)advice > (uint32_t)ZE_MEMORY_ADVICE_BIAS_UNCACHED) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t hCommandList,
                                                                          uint64_t *dstptr,
                                                                          ze_event_handle_t hSignalEvent,
                                                                          uint32_t numWaitEvents,
                                                                          ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (dstptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_WRITE_TS, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.wts.dst = dstptr;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendQueryKernelTimestamps(
    ze_command_list_handle_t hCommandList, uint32_t numEvents, ze_event_handle_t *phEvents, void *dstptr,
    const size_t *pOffsets, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (phEvents == NULL || dstptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numEvents; i++)
        if (SIM_OBJ(sim_event_t, phEvents[i], SIM_K_EVENT) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_QUERY_TS, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.qts.n = numEvents;
    c.u.qts.evs = (sim_event_t **)phEvents;
    c.u.qts.dst = dstptr;
    c.u.qts.offs = (size_t *)pOffsets;
    if (!qts_stage(c.u.qts.evs, numEvents)) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    return submit(l, &c);
}

/* Captures a kernel's launch parameters (the group size is the one set
 * at append time, as on hardware). */
static ze_result_t kernel_params(ze_kernel_handle_t hKernel, kparams_t *k) {
    sim_kernel_t *kn = SIM_OBJ(sim_kernel_t, hKernel, SIM_K_KERNEL);
    if (kn == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&kn->lock);
    k->isa = kn->isa;
    memcpy(k->gsize, kn->group_size, sizeof(k->gsize));
    k->simd = kn->simd_size;
    k->nargs = kn->num_args;
    for (uint32_t i = 0; i < KPARAMS_ARGS; i++) k->args[i] = i < kn->num_args ? kn->arg_values[i] : 0;
    k->slm = kn->slm_bytes;
    k->indirect = kn->indirect_flags;
    k->cache = kn->cache_config;
    memcpy(k->offset, kn->global_offset, sizeof(k->offset));
    pthread_mutex_unlock(&kn->lock);
    if (k->isa == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t append_launch(ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
                                 const ze_group_count_t *groups, bool indirect, ze_event_handle_t hSignalEvent,
                                 uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    sim_cmd_t c;
    if ((r = kernel_params(hKernel, &c.u.kern.k)) != ZE_RESULT_SUCCESS) return r;
    if (groups == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!l->compute) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if ((r = cmd_init(&c, indirect ? C_KERNEL_INDIRECT : C_KERNEL, hSignalEvent, numWaitEvents, phWaitEvents)) !=
        ZE_RESULT_SUCCESS)
        return r;
    if (indirect) {
        c.u.kern.indirect = groups;
        memset(c.u.kern.k.groups, 0, sizeof(c.u.kern.k.groups));
    } else {
        c.u.kern.k.groups[0] = groups->groupCountX;
        c.u.kern.k.groups[1] = groups->groupCountY;
        c.u.kern.k.groups[2] = groups->groupCountZ;
    }
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendLaunchKernel(ze_command_list_handle_t hCommandList,
                                                                  ze_kernel_handle_t hKernel,
                                                                  const ze_group_count_t *pLaunchFuncArgs,
                                                                  ze_event_handle_t hSignalEvent,
                                                                  uint32_t numWaitEvents,
                                                                  ze_event_handle_t *phWaitEvents) {
    return append_launch(hCommandList, hKernel, pLaunchFuncArgs, false, hSignalEvent, numWaitEvents, phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendLaunchCooperativeKernel(
    ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel, const ze_group_count_t *pLaunchFuncArgs,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return append_launch(hCommandList, hKernel, pLaunchFuncArgs, false, hSignalEvent, numWaitEvents, phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendLaunchKernelIndirect(
    ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel, const ze_group_count_t *pLaunchArgumentsBuffer,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return append_launch(hCommandList, hKernel, pLaunchArgumentsBuffer, true, hSignalEvent, numWaitEvents,
                         phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendLaunchMultipleKernelsIndirect(
    ze_command_list_handle_t hCommandList, uint32_t numKernels, ze_kernel_handle_t *phKernels,
    const uint32_t *pCountBuffer, const ze_group_count_t *pLaunchArgumentsBuffer, ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (phKernels == NULL || pCountBuffer == NULL || pLaunchArgumentsBuffer == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!l->compute) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    kparams_t stackks[8];
    kparams_t *ks = numKernels <= 8 ? stackks : malloc((size_t)numKernels * sizeof(*ks));
    if (ks == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < numKernels && r == ZE_RESULT_SUCCESS; i++) r = kernel_params(phKernels[i], &ks[i]);
    sim_cmd_t c;
    if (r == ZE_RESULT_SUCCESS) r = cmd_init(&c, C_KERNELS_MULTI, hSignalEvent, numWaitEvents, phWaitEvents);
    if (r == ZE_RESULT_SUCCESS) {
        c.u.multi.max = numKernels;
        c.u.multi.ks = ks;
        c.u.multi.count = pCountBuffer;
        c.u.multi.args = pLaunchArgumentsBuffer;
        r = submit(l, &c);
    }
    if (ks != stackks) free(ks);
    return r;
}

static ze_result_t ZE_APICALL sim_zeImageUnsupported(void) { return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; }

static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopy(ze_command_list_handle_t a, ze_image_handle_t b,
                                                               ze_image_handle_t c, ze_event_handle_t d, uint32_t e,
                                                               ze_event_handle_t *f) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyRegion(ze_command_list_handle_t a,
                                                                     ze_image_handle_t b, ze_image_handle_t c,
                                                                     const ze_image_region_t *d,
                                                                     const ze_image_region_t *e, ze_event_handle_t f,
                                                                     uint32_t g, ze_event_handle_t *h) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyToMemory(ze_command_list_handle_t a, void *b,
                                                                       ze_image_handle_t c,
                                                                       const ze_image_region_t *d,
                                                                       ze_event_handle_t e, uint32_t f,
                                                                       ze_event_handle_t *g) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyFromMemory(ze_command_list_handle_t a,
                                                                         ze_image_handle_t b, const void *c,
                                                                         const ze_image_region_t *d,
                                                                         ze_event_handle_t e, uint32_t f,
                                                                         ze_event_handle_t *g) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyToMemoryExt(
    ze_command_list_handle_t a, void *b, ze_image_handle_t c, const ze_image_region_t *d, uint32_t e, uint32_t f,
    ze_event_handle_t g, uint32_t h, ze_event_handle_t *i) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyFromMemoryExt(
    ze_command_list_handle_t a, ze_image_handle_t b, const void *c, const ze_image_region_t *d, uint32_t e,
    uint32_t f, ze_event_handle_t g, uint32_t h, ze_event_handle_t *i) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i;
    return sim_zeImageUnsupported();
}

/* ================================================================== */
/* DDI getters                                                         */
/* ================================================================== */

SIM_EXPORT ze_result_t ZE_APICALL zeGetCommandListProcAddrTable(ze_api_version_t version,
                                                                ze_command_list_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = sim_zeCommandListCreate;
    t->pfnCreateImmediate = sim_zeCommandListCreateImmediate;
    t->pfnDestroy = sim_zeCommandListDestroy;
    t->pfnClose = sim_zeCommandListClose;
    t->pfnReset = sim_zeCommandListReset;
    t->pfnAppendWriteGlobalTimestamp = sim_zeCommandListAppendWriteGlobalTimestamp;
    t->pfnAppendBarrier = sim_zeCommandListAppendBarrier;
    t->pfnAppendMemoryRangesBarrier = sim_zeCommandListAppendMemoryRangesBarrier;
    t->pfnAppendMemoryCopy = sim_zeCommandListAppendMemoryCopy;
    t->pfnAppendMemoryFill = sim_zeCommandListAppendMemoryFill;
    t->pfnAppendMemoryCopyRegion = sim_zeCommandListAppendMemoryCopyRegion;
    t->pfnAppendMemoryCopyFromContext = sim_zeCommandListAppendMemoryCopyFromContext;
    t->pfnAppendImageCopy = sim_zeCommandListAppendImageCopy;
    t->pfnAppendImageCopyRegion = sim_zeCommandListAppendImageCopyRegion;
    t->pfnAppendImageCopyToMemory = sim_zeCommandListAppendImageCopyToMemory;
    t->pfnAppendImageCopyFromMemory = sim_zeCommandListAppendImageCopyFromMemory;
    t->pfnAppendMemoryPrefetch = sim_zeCommandListAppendMemoryPrefetch;
    t->pfnAppendMemAdvise = sim_zeCommandListAppendMemAdvise;
    t->pfnAppendSignalEvent = sim_zeCommandListAppendSignalEvent;
    t->pfnAppendWaitOnEvents = sim_zeCommandListAppendWaitOnEvents;
    t->pfnAppendEventReset = sim_zeCommandListAppendEventReset;
    t->pfnAppendQueryKernelTimestamps = sim_zeCommandListAppendQueryKernelTimestamps;
    t->pfnAppendLaunchKernel = sim_zeCommandListAppendLaunchKernel;
    t->pfnAppendLaunchCooperativeKernel = sim_zeCommandListAppendLaunchCooperativeKernel;
    t->pfnAppendLaunchKernelIndirect = sim_zeCommandListAppendLaunchKernelIndirect;
    t->pfnAppendLaunchMultipleKernelsIndirect = sim_zeCommandListAppendLaunchMultipleKernelsIndirect;
    t->pfnAppendImageCopyToMemoryExt = sim_zeCommandListAppendImageCopyToMemoryExt;
    t->pfnAppendImageCopyFromMemoryExt = sim_zeCommandListAppendImageCopyFromMemoryExt;
    return ZE_RESULT_SUCCESS;
}
