/*
 * exec_queue.c — command queues (executing regular lists as batches,
 * synchronisation) and fences.
 */
#include "exec.h"

/* ================================================================== */
/* Command queues                                                      */
/* ================================================================== */

static ze_result_t ZE_APICALL sim_zeCommandQueueCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                       const ze_command_queue_desc_t *desc,
                                                       ze_command_queue_handle_t *phCommandQueue) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    sim_device_t *dev = SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phCommandQueue == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = check_queue_desc(desc);
    if (r != ZE_RESULT_SUCCESS) return r;
    sim_engine_t *eng = engine_get(dev, desc->ordinal, desc->index);
    if (eng == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_queue_t *q = calloc(1, sizeof(*q));
    if (q == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_obj_init(&q->obj, SIM_K_CMDQUEUE);
    q->ctx = ctx;
    q->dev = dev;
    q->ordinal = desc->ordinal;
    q->index = desc->index;
    q->synchronous = desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    q->eng = eng;
    pthread_mutex_init(&q->lock, NULL);
    *phCommandQueue = (ze_command_queue_handle_t)q;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandQueueDestroy(ze_command_queue_handle_t hCommandQueue) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&q->obj);
    batch_unref(q->last);
    pthread_mutex_destroy(&q->lock);
    free(q);
    return ZE_RESULT_SUCCESS;
}

static uint64_t probe_batch(void *arg, uint64_t now) {
    (void)now;
    return atomic_load(&((sim_batch_t *)arg)->end_t);
}

static ze_result_t ZE_APICALL sim_zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t hCommandQueue,
                                                                    uint32_t numCommandLists,
                                                                    ze_command_list_handle_t *phCommandLists,
                                                                    ze_fence_handle_t hFence) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phCommandLists == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (numCommandLists == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_fence_t *fence = NULL;
    if (hFence) {
        fence = SIM_OBJ(sim_fence_t, hFence, SIM_K_FENCE);
        if (fence == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (fence->queue != q) return ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT;
    }
    for (uint32_t i = 0; i < numCommandLists; i++) {
        sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, phCommandLists[i], SIM_K_CMDLIST);
        if (l == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (l->immediate) return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
        /* Lists must be built for the queue's group (Intel checks copy vs compute). */
        if (l->ordinal != q->ordinal) return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
        if (!l->closed) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    sim_batch_t *b = calloc(1, sizeof(*b) + numCommandLists * sizeof(b->bufs[0]));
    if (b == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    atomic_init(&b->refs, 2); /* the engine (until the batch end) + the queue */
    atomic_init(&b->end_t, T_NEVER);
    b->nbufs = numCommandLists;
    /* The batch holds each list's command buffer until it is done (and
     * the queue's last batch until the next): the buffer's commands, and
     * its counts on their events' pools, which keep events the commands
     * name if the application destroys them meanwhile (exec_event.c "a
     * recorded command's events"). */
    for (uint32_t i = 0; i < numCommandLists; i++) {
        sim_cmdlist_t *l = (sim_cmdlist_t *)phCommandLists[i];
        b->bufs[i] = l->buf;
        atomic_fetch_add(&l->buf->refs, 1);
    }
    if (fence) {
        atomic_fetch_add(&fence->refs, 1);
        atomic_store(&fence->done_t, T_NEVER);
        b->fence = fence;
    }
    sim_cmd_t bend;
    memset(&bend, 0, sizeof(bend));
    bend.type = C_BATCH_END;
    bend.owns = CMD_RECORDED; /* holds nothing: no wait list, no event */
    bend.u.bend.batch = b;

    sim_engine_t *eng = q->eng;
    uint64_t epoch = atomic_load_explicit(&g_signal_epoch, memory_order_relaxed);
    ze_result_t res = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&eng->lock);
    /* A batch takes one ring slot (a batch-buffer start on hardware): the
     * backpressure check is done once, not per recorded command. */
    uint64_t now = backpressure_locked(eng);
    for (uint32_t i = 0; i <= numCommandLists; i++) {
        sim_cmdlist_t *l = i < numCommandLists ? (sim_cmdlist_t *)phCommandLists[i] : NULL;
        uint32_t n = l ? l->buf->n : 1;
        for (uint32_t j = 0; j < n; j++) {
            const sim_cmd_t *c = l ? &l->buf->cmds[j] : &bend;
            uint64_t x = T_NEVER;
            if (eng->head == NULL) x = cmd_ready_time(c, umax64(eng->free_at, now));
            if (x != T_NEVER) {
                schedule_locked(eng, c, x, l, false, now);
                if (!l) batch_unref(b);
                continue;
            }
            sim_entry_t *e = entry_alloc_locked(eng);
            if (e == NULL) {
                /* Out of memory mid-batch: finish the batch so waiters do not hang. */
                res = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
                break;
            }
            if (l) {
                e->cmd = c;
            } else {
                e->own = bend;
                e->own.owns = CMD_BORROWED; /* nothing to release: the batch is unref'd at execution */
                e->cmd = &e->own;
            }
            e->list = l;
            if (l) atomic_fetch_add(&l->refs, 1);
            e->submit_ns = now;
            e->seq = 0;
            enqueue_locked(eng, e);
        }
        if (res != ZE_RESULT_SUCCESS) break;
    }
    if (res != ZE_RESULT_SUCCESS) {
        /* Complete the batch right away. */
        exec_cmd(eng, &bend, umax64(eng->free_at, sim_now_ns()), NULL, false, sim_now_ns());
        batch_unref(b);
    }
    engine_progress_locked(eng, sim_now_ns());
    pthread_mutex_unlock(&eng->lock);
    progress_after_signal(epoch);

    pthread_mutex_lock(&q->lock);
    sim_batch_t *old = q->last;
    q->last = b;
    atomic_fetch_add(&b->refs, 1); /* for the synchronous wait below */
    pthread_mutex_unlock(&q->lock);
    batch_unref(old);
    if (q->synchronous && res == ZE_RESULT_SUCCESS) wait_for(probe_batch, b, UINT64_MAX);
    batch_unref(b);
    return res;
}

/* wait_for for a probe whose answer does not depend on the time asked
 * (a batch's end, a fence's completion): completed work below the clock
 * floor is a read, without reading the host clock, as on Intel's driver
 * (a read of the queue's or fence's tag in memory). */
static ze_result_t wait_done(probe_fn probe, void *arg, uint64_t timeout) {
    uint64_t t = probe(arg, 0);
    if (t != T_NEVER && t <= clock_floor()) return ZE_RESULT_SUCCESS;
    return wait_for(probe, arg, timeout);
}

static ze_result_t ZE_APICALL sim_zeCommandQueueSynchronize(ze_command_queue_handle_t hCommandQueue,
                                                            uint64_t timeout) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&q->lock);
    sim_batch_t *b = q->last;
    if (b) atomic_fetch_add(&b->refs, 1);
    pthread_mutex_unlock(&q->lock);
    if (b == NULL) return ZE_RESULT_SUCCESS;
    /* Batches of one queue run in order on one engine: the last one
     * completing means all of them did. */
    ze_result_t r = wait_done(probe_batch, b, timeout);
    batch_unref(b);
    return r;
}

/* ================================================================== */
/* Fences                                                              */
/* ================================================================== */

void fence_unref(sim_fence_t *f) {
    if (f && atomic_fetch_sub(&f->refs, 1) == 1) free(f);
}

static ze_result_t ZE_APICALL sim_zeFenceCreate(ze_command_queue_handle_t hCommandQueue, const ze_fence_desc_t *desc,
                                                ze_fence_handle_t *phFence) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phFence == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags > ZE_FENCE_FLAG_SIGNALED) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    sim_fence_t *f = calloc(1, sizeof(*f));
    if (f == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_obj_init(&f->obj, SIM_K_FENCE);
    f->queue = q;
    atomic_init(&f->refs, 1);
    atomic_init(&f->done_t, (desc->flags & ZE_FENCE_FLAG_SIGNALED) ? 0 : T_NEVER);
    *phFence = (ze_fence_handle_t)f;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeFenceDestroy(ze_fence_handle_t hFence) {
    sim_fence_t *f = SIM_OBJ(sim_fence_t, hFence, SIM_K_FENCE);
    if (f == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&f->obj);
    fence_unref(f);
    return ZE_RESULT_SUCCESS;
}

static uint64_t probe_fence(void *arg, uint64_t now) {
    (void)now;
    return atomic_load(&((sim_fence_t *)arg)->done_t);
}

static ze_result_t ZE_APICALL sim_zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout) {
    sim_fence_t *f = SIM_OBJ(sim_fence_t, hFence, SIM_K_FENCE);
    if (f == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return wait_done(probe_fence, f, timeout);
}

static ze_result_t ZE_APICALL sim_zeFenceQueryStatus(ze_fence_handle_t hFence) {
    return sim_zeFenceHostSynchronize(hFence, 0);
}

static ze_result_t ZE_APICALL sim_zeFenceReset(ze_fence_handle_t hFence) {
    sim_fence_t *f = SIM_OBJ(sim_fence_t, hFence, SIM_K_FENCE);
    if (f == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    atomic_store(&f->done_t, T_NEVER);
    return ZE_RESULT_SUCCESS;
}

/* ================================================================== */
/* Query extensions (zeDriverGetExtensionFunctionAddress)              */
/* ================================================================== */

/* zeCommandQueueGetOrdinal and zeCommandQueueGetIndex (core functions of
 * later specs, which Debian's 1.8.12 loader does not know): Intel's driver
 * returns them through zeDriverGetExtensionFunctionAddress, with the
 * values of the queue's descriptor. */
static ze_result_t ZE_APICALL sim_zeCommandQueueGetOrdinal(ze_command_queue_handle_t hCommandQueue,
                                                           uint32_t *pOrdinal) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pOrdinal == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *pOrdinal = q->ordinal;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandQueueGetIndex(ze_command_queue_handle_t hCommandQueue, uint32_t *pIndex) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pIndex == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *pIndex = q->index;
    return ZE_RESULT_SUCCESS;
}

void *sim_exec_extension(const char *name) {
    if (name == NULL) return NULL;
    if (strcmp(name, "zeCommandQueueGetOrdinal") == 0) return (void *)sim_zeCommandQueueGetOrdinal;
    if (strcmp(name, "zeCommandQueueGetIndex") == 0) return (void *)sim_zeCommandQueueGetIndex;
    return sim_event_extension(name);
}

/* ================================================================== */
/* DDI getters                                                         */
/* ================================================================== */

SIM_EXPORT ze_result_t ZE_APICALL zeGetCommandQueueProcAddrTable(ze_api_version_t version,
                                                                 ze_command_queue_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = sim_zeCommandQueueCreate;
    t->pfnDestroy = sim_zeCommandQueueDestroy;
    t->pfnExecuteCommandLists = sim_zeCommandQueueExecuteCommandLists;
    t->pfnSynchronize = sim_zeCommandQueueSynchronize;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetFenceProcAddrTable(ze_api_version_t version, ze_fence_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = sim_zeFenceCreate;
    t->pfnDestroy = sim_zeFenceDestroy;
    t->pfnHostSynchronize = sim_zeFenceHostSynchronize;
    t->pfnQueryStatus = sim_zeFenceQueryStatus;
    t->pfnReset = sim_zeFenceReset;
    return ZE_RESULT_SUCCESS;
}
