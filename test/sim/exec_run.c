/*
 * exec_run.c — kernel runs: where a launch runs (Xe-cores of each
 * (sub)device), the run records that sample generation (metrics) reads,
 * published lock-free by the launching thread, and the "launch" lines of
 * the ground truth.
 */
#include "exec.h"

atomic_uint_fast64_t g_launch_id;
static atomic_uint_fast64_t g_builtin_launch_id = SIM_BUILTIN_LAUNCH_ID_BASE;

/* ================================================================== */
/* Runs                                                                */
/* ================================================================== */

static bool sampling_active(const sim_device_t *dev) {
    if (atomic_load_explicit(&dev->sampling_active, memory_order_relaxed)) return true;
    if (dev->parent && atomic_load_explicit(&dev->parent->sampling_active, memory_order_relaxed)) return true;
    for (uint32_t i = 0; i < dev->num_subdevices && dev->subdevices; i++)
        if (atomic_load_explicit(&dev->subdevices[i]->sampling_active, memory_order_relaxed)) return true;
    return false;
}

/* Publication of runs. The launching thread (engine lock held) appends
 * a compact record to its engine's queue for the device (sim_runq_t in
 * exec.h): plain stores and one release store to a counter of that
 * queue, no read-modify-write on a line another thread writes. The
 * list runs_incoming (one CAS per run) carries other processes' runs
 * (machine.c) and, only if no chunk could be allocated, our own. The
 * launching thread never waits for run_lock, which only sample
 * generation and pruning hold: on Intel's hardware the EU stall unit
 * samples on its own, and nothing the sampler does slows the launching
 * thread. */

static void run_push(_Atomic(sim_run_t *) *list, sim_run_t *first, sim_run_t *last) {
    sim_run_t *h = atomic_load_explicit(list, memory_order_relaxed);
    do {
        last->next = h;
    } while (!atomic_compare_exchange_weak_explicit(list, &h, first, memory_order_release, memory_order_relaxed));
}

void sim_runs_collect_locked(sim_device_t *dev) {
    sim_run_t *r = atomic_exchange_explicit(&dev->runs_incoming, NULL, memory_order_acquire);
    if (r == NULL) return;
    /* Newest first: reverse into publication order. */
    sim_run_t *rev = NULL, *last = r;
    uint32_t n = 0;
    while (r) {
        sim_run_t *next = r->next;
        r->next = rev;
        rev = r;
        r = next;
        n++;
    }
    atomic_fetch_sub_explicit(&dev->runs_incoming_n, n, memory_order_relaxed);
    if (dev->runs_tail) dev->runs_tail->next = rev;
    else dev->runs_head = rev;
    dev->runs_tail = last;
}

/* ---- engine run queues (exec.h, sim_runq_t) ------------------------ */

static uint64_t run_seed(const sim_isa_t *isa, uint64_t launch_id) {
    return sim_mix64(sim_cfg.seed ^ isa->kernel_id ^ launch_id);
}

/* eng->lock held: eng's queue for runs on dev, created at its first run
 * there (then pushed once onto dev->runqs); NULL if out of memory. */
static sim_runq_t *runq_get(sim_engine_t *eng, sim_device_t *dev) {
    for (sim_runq_t *q = eng->runqs; q != NULL; q = q->eng_next)
        if (q->dev == dev) return q;
    sim_runq_t *q = calloc(1, sizeof(*q));
    sim_runchunk_t *c = malloc(sizeof(*c));
    if (q == NULL || c == NULL) {
        free(q);
        free(c);
        return NULL;
    }
    c->next = NULL;
    q->dev = dev;
    q->ptail = q->chead = c;
    atomic_init(&q->published, 0);
    atomic_init(&q->free, NULL);
    q->eng_next = eng->runqs;
    eng->runqs = q;
    sim_runq_t *h = atomic_load_explicit(&dev->runqs, memory_order_relaxed);
    do {
        q->dev_next = h;
    } while (!atomic_compare_exchange_weak_explicit(&dev->runqs, &h, q, memory_order_release, memory_order_relaxed));
    return q;
}

/* eng->lock held: appends a run to q; false if no chunk could be had
 * (the caller then lists the run the old way). */
static bool runq_push(sim_runq_t *q, sim_isa_t *isa, uint64_t launch_id, uint64_t start, uint64_t end,
                      uint32_t first, uint32_t num) {
    if (q->pn == RUNQ_CHUNK) {
        sim_runchunk_t *c = q->pfree;
        if (c == NULL) c = q->pfree = atomic_exchange_explicit(&q->free, NULL, memory_order_acquire);
        if (c != NULL) q->pfree = c->next;
        else if ((c = malloc(sizeof(*c))) == NULL) return false;
        c->next = NULL;
        q->ptail->next = c; /* published with the chunk's first record */
        q->ptail = c;
        q->pn = 0;
    }
    /* The ISA is referenced once for a stretch of records naming it. */
    if (isa != q->pprev_isa) {
        sim_isa_ref(isa);
        q->pprev_isa = isa;
    }
    sim_runrec_t *r = &q->ptail->rec[q->pn++];
    r->launch_id = launch_id;
    r->isa = isa;
    r->start_ns = start;
    r->end_ns = end;
    r->first_xecore = first;
    r->num_xecores = num;
    atomic_store_explicit(&q->published, ++q->pcount, memory_order_release);
    return true;
}

/* run_lock held: prunes q's records from the oldest on while they ended
 * by `before` (a queue is in launch order; a run left behind a later one
 * that has not ended is skipped by every reader, whose window starts
 * after `before`). */
static void runq_prune_locked(sim_runq_t *q, uint64_t before) {
    uint64_t pub = atomic_load_explicit(&q->published, memory_order_acquire);
    sim_runchunk_t *freed = NULL, *flast = NULL;
    while (q->consumed < pub) {
        if (q->consumed - q->chead_base == RUNQ_CHUNK) {
            /* chead is done and the next chunk has a published record. */
            sim_runchunk_t *c = q->chead;
            q->chead = c->next;
            q->chead_base += RUNQ_CHUNK;
            c->next = freed;
            freed = c;
            if (flast == NULL) flast = c;
        }
        const sim_runrec_t *r = &q->chead->rec[q->consumed - q->chead_base];
        if (r->end_ns > before) break;
        if (r->isa != q->held) {
            sim_isa_unref(q->held);
            q->held = r->isa;
        }
        q->consumed++;
    }
    if (freed != NULL) {
        sim_runchunk_t *h = atomic_load_explicit(&q->free, memory_order_relaxed);
        do {
            flast->next = h;
        } while (!atomic_compare_exchange_weak_explicit(&q->free, &h, freed, memory_order_release,
                                                        memory_order_relaxed));
    }
}

void sim_runs_foreach_locked(sim_device_t *dev, void (*fn)(void *ctx, const sim_run_t *r), void *ctx) {
    for (sim_run_t *r = dev->runs_head; r != NULL; r = r->next) fn(ctx, r);
    for (sim_runq_t *q = atomic_load_explicit(&dev->runqs, memory_order_acquire); q != NULL; q = q->dev_next) {
        uint64_t pub = atomic_load_explicit(&q->published, memory_order_acquire);
        const sim_runchunk_t *c = q->chead;
        uint64_t base = q->chead_base;
        for (uint64_t i = q->consumed; i < pub; i++) {
            if (i - base == RUNQ_CHUNK) {
                c = c->next;
                base += RUNQ_CHUNK;
            }
            const sim_runrec_t *rr = &c->rec[i - base];
            sim_run_t r = {.launch_id = rr->launch_id, .device = dev, .isa = rr->isa, .start_ns = rr->start_ns,
                           .end_ns = rr->end_ns, .first_xecore = rr->first_xecore, .num_xecores = rr->num_xecores,
                           .seed = run_seed(rr->isa, rr->launch_id), .pid = 0};
            fn(ctx, &r);
        }
    }
}

/* run_lock held. Removes runs with end <= before onto dev->runs_free. */
static void prune_locked(sim_device_t *dev, uint64_t before) {
    for (sim_runq_t *q = atomic_load_explicit(&dev->runqs, memory_order_acquire); q != NULL; q = q->dev_next)
        runq_prune_locked(q, before);
    sim_run_t **pp = &dev->runs_head, *prev = NULL, *ffirst = NULL, *flast = NULL;
    while (*pp) {
        sim_run_t *r = *pp;
        if (r->end_ns <= before) {
            *pp = r->next;
            sim_isa_unref(r->isa);
            r->isa = NULL;
            r->next = ffirst;
            ffirst = r;
            if (flast == NULL) flast = r;
        } else {
            prev = r;
            pp = &r->next;
        }
    }
    dev->runs_tail = prev;
    if (ffirst) run_push(&dev->runs_free, ffirst, flast);
}

void sim_runs_prune(sim_device_t *dev, uint64_t before_ns) {
    if (dev == NULL) return;
    pthread_mutex_lock(&dev->run_lock);
    sim_runs_collect_locked(dev);
    prune_locked(dev, before_ns);
    pthread_mutex_unlock(&dev->run_lock);
}

/* eng->lock held: a run for a launch of eng, recycled if possible. */
static sim_run_t *run_alloc(sim_engine_t *eng, sim_device_t *dev) {
    sim_run_t *r = eng->free_runs;
    if (r == NULL) r = atomic_exchange_explicit(&dev->runs_free, NULL, memory_order_acquire);
    if (r) {
        eng->free_runs = r->next;
        return r;
    }
    return malloc(sizeof(*r));
}


static uint32_t div_up32(uint64_t a, uint64_t b) {
    uint64_t r = b ? (a + b - 1) / b : a;
    return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

/* One part of a launch on one (sub)device: run + ground truth. */
static void launch_part(const launch_ctx_t *lc, sim_devstate_t *ds, int sub, const kparams_t *k,
                        uint64_t groups, uint64_t launch_id, uint64_t start, uint64_t end, bool builtin) {
    sim_device_t *dev = ds->dev;
    uint64_t gitems = (uint64_t)k->gsize[0] * k->gsize[1] * k->gsize[2];
    uint32_t simd = k->simd ? k->simd : 16;
    uint64_t threads = groups * (uint64_t)div_up32(gitems, simd);
    uint64_t cap = (uint64_t)sim_cfg.eus_per_xecore * sim_cfg.threads_per_eu;
    uint32_t num = div_up32(threads, cap ? cap : 1);
    uint32_t xec = dev->xecores ? dev->xecores : 1;
    if (num < 1) num = 1;
    if (num > xec) num = xec;
    bool keep = end > lc->now || sampling_active(dev);
    bool gt = sim_gt_enabled();
    /* Rotates on every launch, kept or not, so placement depends only on
     * the launch sequence. */
    uint32_t first = (uint32_t)(atomic_fetch_add_explicit(&ds->rot, num, memory_order_relaxed) % xec);
    uint64_t seed = run_seed(k->isa, launch_id);
    if (keep) {
        /* What ran where, for the EU stall sampler: one record on this
         * engine's queue (test/sim/README.md, "Cost"). */
        sim_runq_t *q = runq_get(lc->eng, dev);
        bool pushed = false;
        if (q != NULL) {
            if (q->pn == RUNQ_CHUNK && !sampling_active(dev) && pthread_mutex_trylock(&dev->run_lock) == 0) {
                /* Without a stream nobody collects: bound the queue, but
                 * only if run_lock is free (a reader holding it prunes). */
                sim_runs_collect_locked(dev);
                prune_locked(dev, lc->now);
                pthread_mutex_unlock(&dev->run_lock);
            }
            pushed = runq_push(q, k->isa, launch_id, start, end, first, num);
        }
        sim_run_t *r = pushed ? NULL : run_alloc(lc->eng, dev);
        if (r) {
            /* No chunk could be had: listed the way other processes' runs are. */
            r->launch_id = launch_id;
            r->device = dev;
            r->isa = sim_isa_ref(k->isa);
            r->start_ns = start;
            r->end_ns = end;
            r->first_xecore = first;
            r->num_xecores = num;
            r->seed = seed;
            r->pid = 0;
            run_push(&dev->runs_incoming, r, r);
            atomic_fetch_add_explicit(&dev->runs_incoming_n, 1, memory_order_relaxed);
        }
    }
    /* Other processes' streams on this tile sample it too (ZESIM_MACHINE). */
    sim_run_t pub = {.launch_id = launch_id, .device = dev, .isa = k->isa, .start_ns = start, .end_ns = end,
                     .first_xecore = first, .num_xecores = num, .seed = seed};
    sim_machine_publish(&pub, builtin);
    if (gt) {
        char name[512];
        sim_device_t *root = sim_root(dev);
        sim_gt_printf("{\"type\":\"launch\",\"launch\":%" PRIu64 ",\"kernel\":%" PRIu64 ",\"name\":\"%s\","
                      "\"base\":%" PRIu64 ",\"device\":%u,\"subdevice\":%d,\"engine\":\"%u.%u\","
                      "\"cmdlist\":%" PRIu64 ",\"immediate\":%s,\"groups\":[%u,%u,%u],\"group_size\":[%u,%u,%u],"
                      "\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"start_ticks\":%" PRIu64
                      ",\"end_ticks\":%" PRIu64 ",\"xecores\":[%u,%u],\"signal_event\":%" PRIu64
                      ",\"state\":{\"nargs\":%u,\"args\":[%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                      ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "],\"slm\":%u,\"indirect\":%u,\"cache\":%u,"
                      "\"offset\":[%u,%u,%u]}%s}",
                      launch_id, k->isa->kernel_id, sim_json_str(k->isa->kernel_name, name, sizeof(name)),
                      k->isa->gpu_va, root->index, sub, lc->eng->ordinal, lc->eng->index, lc->list_id,
                      lc->immediate ? "true" : "false", k->groups[0], k->groups[1], k->groups[2], k->gsize[0],
                      k->gsize[1], k->gsize[2], start, end, sim_dev_ticks(dev, start), sim_dev_ticks(dev, end),
                      first, num, lc->signal_id, k->nargs, k->args[0], k->args[1], k->args[2], k->args[3],
                      k->args[4], k->args[5], k->args[6], k->args[7], k->slm, k->indirect, k->cache, k->offset[0],
                      k->offset[1], k->offset[2], builtin ? ",\"builtin\":true" : "");
    }
}

/* Executes one kernel launch starting at t; returns its end and fills
 * the per-(sub)device timestamp parts. */
uint64_t exec_launch(const launch_ctx_t *lc, const kparams_t *k, uint64_t t, ev_parts_t *parts) {
    sim_devstate_t *ds = lc->eng->ds;
    uint64_t groups = (uint64_t)k->groups[0] * k->groups[1] * k->groups[2];
    uint64_t gitems = (uint64_t)k->gsize[0] * k->gsize[1] * k->gsize[2];
    uint64_t launch_id = atomic_fetch_add(&g_launch_id, 1) + 1;
    uint64_t end = t;
    parts->n = 0;
    if (ds->nsubs > 0) {
        /* Implicit scaling: the groups are split evenly over the tiles. */
        uint32_t n = ds->nsubs;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t g = groups / n + (i < groups % n ? 1 : 0);
            uint64_t e = t + kernel_duration(lc->eng->cost, k->isa, g * gitems);
            launch_part(lc, ds->subs[i], (int)i, k, g, launch_id, t, e, false);
            if (parts->n < SIM_MAX_PARTS) {
                parts->start[parts->n] = t;
                parts->end[parts->n] = e;
                parts->dev[parts->n] = ds->subs[i]->dev;
                parts->n++;
            }
            end = umax64(end, e);
        }
    } else {
        end = t + kernel_duration(lc->eng->cost, k->isa, groups * gitems);
        launch_part(lc, ds, ds->dev->parent ? (int)ds->dev->index : -1, k, groups, launch_id, t, end, false);
        parts->n = 1;
        parts->start[0] = t;
        parts->end[0] = end;
        parts->dev[0] = ds->dev;
    }
    return end;
}


/* A copy or fill on a compute engine, as Intel's driver runs it: a
 * built-in kernel on the EUs (ZESIM_BUILTIN_KERNELS=1), taking the command's
 * engine time [start, end) and Xe-cores by size (a work-item per 16 bytes,
 * groups of 1024), so that EU stall sampling sees it at its driver-owned
 * address. Copy engines run no kernel. A COMPOSITE root's copy runs on its
 * first tile. Built-in launches have their own id range and a "builtin"
 * field in the ground truth. */
void exec_builtin(const launch_ctx_t *lc, sim_builtin_t which, uint64_t bytes, uint64_t start, uint64_t end) {
    if (!sim_cfg.builtin_kernels || !group_is_compute(lc->eng->ordinal)) return;
    sim_isa_t *isa = sim_builtin_isa(which);
    if (isa == NULL) return;
    uint64_t items = bytes / 16 + 1;
    uint64_t groups = items / 1024 + (items % 1024 != 0);
    kparams_t k = {.isa = isa, .groups = {(uint32_t)(groups > UINT32_MAX ? UINT32_MAX : groups), 1, 1},
                   .gsize = {1024, 1, 1}, .simd = 16};
    sim_devstate_t *ds = lc->eng->ds;
    int sub = ds->dev->parent ? (int)ds->dev->index : -1;
    if (ds->nsubs > 0) {
        ds = ds->subs[0];
        sub = 0;
    }
    uint64_t id = atomic_fetch_add(&g_builtin_launch_id, 1);
    launch_part(lc, ds, sub, &k, k.groups[0], id, start, end, true);
}
