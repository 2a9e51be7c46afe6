/*
 * launch.c — timestamp injection on every kernel launch, in C on the
 * application's thread (docs/level-zero-loader.md §5.4 "Prologues can replace
 * arguments", §12 "Prior art: kernel device times and signal-event swapping"):
 * the tracing-layer callbacks, the collection state they consult (on/off,
 * runtime start/stop, the launch-count window, serialization), and
 * zl_register, which layer.c calls before it enables the tracer.
 *
 * Per launch the prologue looks up the command list and the signal event
 * (lock-free maps), and, unless the application's own event already
 * carries kernel timestamps, swaps in an event from zestall's per-context
 * pool. The epilogue signals the application's event after the kernel
 * (so its semantics are unchanged), then publishes one slot into this
 * thread's ring. A Go goroutine drains the rings, reads the timestamps
 * when the events have signalled, and writes the launch records. No Go
 * call, no I/O and no allocation happen per launch in the steady state.
 *
 * The rest of the launch path is split by concern (launch_internal.h
 * lists the files); what the callbacks call per launch is inline there.
 */
#include "launch_internal.h"
#include "xpti.h"

#include <level_zero/layers/zel_tracing_register_cb.h>

#include "_cgo_export.h"
#include "separate.h"

/* Off until Go's harvester runs, at exit, and in a forked child: then every
 * callback returns at once, takes no lock and never enters Go (a forked
 * child has only the forking thread;
 * docs/level-zero-loader.md §10 "Hazards", P8). */
atomic_bool zl_enabled;
void zl_set_enabled(int on) {
    atomic_store(&zl_enabled, on != 0);
}

/* Runtime start/stop (control.c, collector/window): one condition
 * word, the set of ZL_BLOCK_* conditions (cgo/abi.h) that block collection
 * now; collection is on while it is 0. Go sets and clears USER and TIMER
 * through zl_block and writes the Window records; a stopped launch costs
 * one relaxed load over the floor. The launch-count window
 * (ZESTALL_LAUNCHES) is decided here, per launch, from one shared counter,
 * so racing threads cannot blur its edges: the launch numbered `from`
 * clears COUNT, the one numbered `to` sets it, and each tells Go (on its
 * thread, before the append) so the stall streamers are read at the edge.
 * The counter is touched only while such a window is set. */
_Atomic uint32_t zl_blocked;
uint32_t zl_block(uint32_t set, uint32_t clear) {
    uint32_t old = atomic_load(&zl_blocked), now;
    do {
        now = (old | set) & ~clear;
    } while (now != old && !atomic_compare_exchange_weak(&zl_blocked, &old, now));
    return now;
}
static atomic_bool zl_count_mode;
static uint64_t zl_count_from, zl_count_to;
static atomic_uint_fast64_t zl_launch_index, zl_stopped_launches;
void zl_set_launch_window(uint64_t from, uint64_t to) {
    zl_count_from = from;
    zl_count_to = to;
    if (from > 0) zl_block(ZL_BLOCK_COUNT, 0);
    atomic_store_explicit(&zl_count_mode, true, memory_order_release);
}
uint64_t zl_launches_while_stopped(void) { return atomic_load(&zl_stopped_launches); }

/* Whether this launch is collected. Within a launch-count window the
 * launch's number decides, not COUNT: a thread that took a number inside
 * the window may run before the thread at the edge has changed the bit. */
static bool collect_this_launch(void) {
    uint32_t blocked = atomic_load_explicit(&zl_blocked, memory_order_relaxed);
    if (!atomic_load_explicit(&zl_count_mode, memory_order_acquire)) return blocked == 0;
    uint64_t n = atomic_fetch_add_explicit(&zl_launch_index, 1, memory_order_relaxed);
    if (n == zl_count_from) {
        zl_block(0, ZL_BLOCK_COUNT);
        zestallLaunchEdge(1, n, zl_now_ns());
    }
    if (n == zl_count_to) {
        zl_block(ZL_BLOCK_COUNT, 0);
        zestallLaunchEdge(0, n, zl_now_ns());
    }
    bool on = (blocked & ~(uint32_t)ZL_BLOCK_COUNT) == 0 && n >= zl_count_from && n < zl_count_to;
    if (!on) atomic_fetch_add_explicit(&zl_stopped_launches, 1, memory_order_relaxed);
    return on;
}

/* Whether collection was stopped (the API, the signal, ITT, the timer)
 * while this launch waited for room in its ring, after
 * collect_this_launch let it in: its append time is taken after the
 * wait, so it would fall after the window's stop edge. It is then
 * handled as a launch while stopped. A launch-count window's own edge
 * (ZL_BLOCK_COUNT) is decided by launch numbers, not times: such a
 * launch keeps its number's decision. */
static bool stopped_while_waiting(void) {
    uint32_t blocked = atomic_load_explicit(&zl_blocked, memory_order_relaxed);
    if ((blocked & ~(uint32_t)ZL_BLOCK_COUNT) == 0) return false;
    if (atomic_load_explicit(&zl_count_mode, memory_order_acquire))
        atomic_fetch_add_explicit(&zl_stopped_launches, 1, memory_order_relaxed);
    return true;
}

/* ZESTALL_SERIALIZE=1: each launch completes, and the streamers are read,
 * before the next launch of the same device proceeds (exact per-launch
 * stall attribution at the cost of all concurrency). */
atomic_bool zl_serialize;
void zl_set_serialize(int on) { atomic_store(&zl_serialize, on != 0); }
atomic_uint_fast64_t ser_timeouts;
uint64_t zl_serialize_timeouts(void) { return atomic_load(&ser_timeouts); }
pthread_mutex_t ser_locks[ZL_SER_LOCKS] = {
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};

/* ---- callbacks ------------------------------------------------------------------ */

/* Prologue -> epilogue state of this thread's current launch (the tracing
 * layer never nests callbacks on one thread). */
typedef struct {
    pthread_mutex_t *ser; /* held from prologue to epilogue in serialized mode */
    uint64_t t0;
    ze_event_handle_t app;  /* the application's signal event */
    ze_event_handle_t ours; /* swapped in, or NULL */
    uint8_t flags, reason;
    uint64_t ctx, dev;
    uint32_t list_id;
    uint16_t code_copy; /* separate.c: the code the launch ran (0: its own) */
} zl_pending_t;
static ZL_TLS zl_pending_t tl_p;

/* The lists entry of list (false: not known to zestall). The last
 * answer is cached per thread (a thread usually appends to one list),
 * valid until a list is created or destroyed anywhere (a handle can be
 * reused): no hash probe per launch. */
static ZL_TLS ze_command_list_handle_t tl_last_list;
static ZL_TLS unsigned tl_last_gen;
static ZL_TLS bool tl_last_known;
static ZL_TLS uint64_t tl_last_lv[ZMAP_WORDS];
static bool list_lookup(ze_command_list_handle_t list, uint64_t lv[ZMAP_WORDS]) {
    unsigned gen = atomic_load_explicit(&lists_gen, memory_order_acquire);
    if (list != tl_last_list || gen != tl_last_gen || list == NULL) {
        tl_last_known = zmap_get(&lists, (uintptr_t)list, tl_last_lv);
        tl_last_list = list;
        tl_last_gen = gen;
    }
    memcpy(lv, tl_last_lv, sizeof tl_last_lv);
    return tl_last_known;
}

/* Whether list is a regular command list known to zestall. */
static bool regular_list(ze_command_list_handle_t list) {
    uint64_t lv[ZMAP_WORDS];
    return list_lookup(list, lv) && !(lv[2] & 1);
}

/* Common prologue: decide about the signal event. */
static void launch_prologue(ze_command_list_handle_t list, ze_event_handle_t *signal) {
    zl_pending_t *p = &tl_p;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) {
        p->flags = 0x80; /* not collecting: the epilogue does nothing */
        return;
    }
    bool stopped = !collect_this_launch();
    if (stopped && !regular_list(list)) {
        p->flags = 0x80; /* stopped, immediate list: nothing at all */
        return;
    }
    memset(p, 0, sizeof *p);
    int room = ring_has_room();
    if (room == ZL_ROOM_NONE) {
        /* The harvester is behind: this launch is counted as lost and
         * passes untouched. */
        atomic_fetch_add_explicit(&launches_dropped, 1, memory_order_relaxed);
        p->flags = 0x80;
        return;
    }
    if (__builtin_expect(room == ZL_ROOM_AFTER_WAIT, 0) && !stopped && stopped_while_waiting()) {
        stopped = true;
        if (!regular_list(list)) {
            p->flags = 0x80;
            return;
        }
    }
    p->t0 = zl_now_ns();
    uint64_t lv[ZMAP_WORDS];
    if (!list_lookup(list, lv)) {
        /* A list created before zestall was active: no context known. */
        p->flags = ZL_FLAG_NO_EVENT;
        p->reason = ZL_REASON_UNSUPPORTED;
        return;
    }
    p->ctx = lv[0];
    p->dev = lv[1];
    p->list_id = (uint32_t)(lv[2] >> 2);
    if (lv[2] & 1) p->flags |= ZL_FLAG_IMMEDIATE;
    if ((lv[2] & 1) && atomic_load_explicit(&zl_serialize, memory_order_relaxed)) {
        p->ser = ser_lock_of(p->dev);
        pthread_mutex_lock(p->ser);
        p->t0 = zl_now_ns(); /* the append begins once the device is ours */
    }
    if (stopped) {
        /* Stopped, regular list: nothing is substituted, but the launch
         * is announced, so that an execution in a later window is
         * recorded (without times) and its samples are not given to
         * another launch of the same code. */
        p->flags |= ZL_FLAG_NO_EVENT;
        p->reason = ZL_REASON_APPENDED_WHILE_STOPPED;
        return;
    }
    p->app = *signal;
    uint64_t ev[ZMAP_WORDS];
    if (p->app != NULL && zmap_get(&events, (uintptr_t)p->app, ev) && (ev[0] & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP)) {
        /* The application's event already records kernel timestamps:
         * keep it and read it without changing it. */
        p->flags |= ZL_FLAG_APP_EVENT;
        return;
    }
    p->ours = event_get((ze_context_handle_t)(uintptr_t)p->ctx, &p->reason);
    if (p->ours == NULL) {
        p->flags |= ZL_FLAG_NO_EVENT;
        return;
    }
    p->flags |= ZL_FLAG_OURS;
    *signal = p->ours;
}

/* Serialized mode: wait for the launch, have the streamers read, then let
 * the next launch of the device proceed. */
static void serialize_wait(ze_event_handle_t ev) {
    /* Bounded: the launch may wait for something this very thread (or one
     * blocked behind it) signals later; then the application must go on. */
    if (ev != NULL && zeEventHostSynchronize(ev, 2000000000ull) != ZE_RESULT_SUCCESS)
        atomic_fetch_add(&ser_timeouts, 1);
}

static void serialize_end(zl_pending_t *p) {
    if (p->ser == NULL) return;
    zestallSerializedRead();
    pthread_mutex_unlock(p->ser);
    p->ser = NULL;
}

/* Common epilogue: restore the app's semantics and publish the slot. */
static void launch_epilogue(ze_result_t result, ze_command_list_handle_t list, ze_event_handle_t *signal,
                            ze_kernel_handle_t kernel, const ze_group_count_t *groups, uint8_t launch_kind) {
    zl_pending_t *p = &tl_p;
    if (p->flags & 0x80) return;
    if (p->flags & ZL_FLAG_OURS) {
        if (result != ZE_RESULT_SUCCESS) {
            event_put((ze_context_handle_t)(uintptr_t)p->ctx, p->ours);
            *signal = p->app;
            serialize_end(p);
            return;
        }
        /* Signal the application's event after the kernel, on the same
         * list: verified to keep its semantics
         * (docs/level-zero-loader.md §5.4 "Prologues can replace arguments"). */
        if (p->app != NULL && zeCommandListAppendSignalEvent(list, p->app) != ZE_RESULT_SUCCESS) {
            p->flags |= ZL_FLAG_NO_EVENT;
            p->reason = ZL_REASON_EVENT_ERROR;
        }
    } else if (result != ZE_RESULT_SUCCESS) {
        serialize_end(p);
        return;
    }
    zl_slot_t s;
    memset(&s, 0, sizeof s);
    s.kind = ZL_SLOT_LAUNCH;
    s.host_ns = p->t0;
    s.list = (uint64_t)(uintptr_t)list;
    s.event = (uint64_t)(uintptr_t)((p->flags & ZL_FLAG_OURS) ? p->ours : (p->flags & ZL_FLAG_APP_EVENT) ? p->app : NULL);
    s.device = p->dev;
    s.context = p->ctx;
    s.list_id = p->list_id;
    s.flags = p->flags;
    s.reason = p->reason;
    s.launch_kind = launch_kind;
    /* The SYCL task open on this thread, if any (docs/xpti.md §9
     * "Correlating a SYCL task with its Level-Zero launch"). */
    s.sycl_task = zx_tag.task;
    s.sycl_location = zx_tag.location;
    s.code_copy = p->code_copy;
    uint64_t kv[ZMAP_WORDS];
    if (zmap_get(&kernels, (uintptr_t)kernel, kv)) {
        s.kernel_id = (uint32_t)kv[0];
        s.group_size[0] = (uint16_t)(kv[1] & 0x1fffff);
        s.group_size[1] = (uint16_t)((kv[1] >> 21) & 0x1fffff);
        s.group_size[2] = (uint16_t)((kv[1] >> 42) & 0x1fffff);
    }
    if (groups != NULL) {
        s.group_count[0] = groups->groupCountX;
        s.group_count[1] = groups->groupCountY;
        s.group_count[2] = groups->groupCountZ;
    }
    /* A regular list: its launches are counted per execution (a lost
     * execution slot counts them as lost, see epi_execute in
     * regular_lists.c). Not a list zestall does not track (list id 0):
     * none of its executions is published. */
    zl_listev_t *x = (p->flags & ZL_FLAG_IMMEDIATE) || p->list_id == 0 ? NULL : listev_cached(list);
    if (x != NULL && (p->flags & ZL_FLAG_OURS)) s.ev_index = listev_add(x, p->ours);
    if (p->ser != NULL) {
        /* Wait before the slot is published: once the harvester sees it,
         * it may read and recycle the event. */
        s.flags |= ZL_FLAG_SERIALIZED;
        serialize_wait((ze_event_handle_t)(uintptr_t)s.event);
    }
    if (push(&s) && x != NULL) x->appended++;
    serialize_end(p);
}

static void ZE_APICALL pro_launch(ze_command_list_append_launch_kernel_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    launch_prologue(*p->phCommandList, p->phSignalEvent);
    zsep_prologue(p->phKernel, !(tl_p.flags & 0x80));
}
static void ZE_APICALL epi_launch(ze_command_list_append_launch_kernel_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    tl_p.code_copy = zsep_epilogue(p->phKernel);
    launch_epilogue(r, *p->phCommandList, p->phSignalEvent, *p->phKernel, *p->ppLaunchFuncArgs, 0);
}
static void ZE_APICALL pro_coop(ze_command_list_append_launch_cooperative_kernel_params_t *p, ze_result_t r, void *u,
                                void **i) {
    (void)r, (void)u, (void)i;
    launch_prologue(*p->phCommandList, p->phSignalEvent);
    zsep_prologue(p->phKernel, !(tl_p.flags & 0x80));
}
static void ZE_APICALL epi_coop(ze_command_list_append_launch_cooperative_kernel_params_t *p, ze_result_t r, void *u,
                                void **i) {
    (void)u, (void)i;
    tl_p.code_copy = zsep_epilogue(p->phKernel);
    launch_epilogue(r, *p->phCommandList, p->phSignalEvent, *p->phKernel, *p->ppLaunchFuncArgs, 1);
}
static void ZE_APICALL pro_indirect(ze_command_list_append_launch_kernel_indirect_params_t *p, ze_result_t r, void *u,
                                    void **i) {
    (void)r, (void)u, (void)i;
    launch_prologue(*p->phCommandList, p->phSignalEvent);
    zsep_prologue(p->phKernel, !(tl_p.flags & 0x80));
}
static void ZE_APICALL epi_indirect(ze_command_list_append_launch_kernel_indirect_params_t *p, ze_result_t r, void *u,
                                    void **i) {
    (void)u, (void)i;
    /* Group counts live in device memory, read when the kernel runs. */
    tl_p.code_copy = zsep_epilogue(p->phKernel);
    launch_epilogue(r, *p->phCommandList, p->phSignalEvent, *p->phKernel, NULL, 2);
}
static void ZE_APICALL pro_multi(ze_command_list_append_launch_multiple_kernels_indirect_params_t *p, ze_result_t r,
                                 void *u, void **i) {
    (void)r, (void)u, (void)i;
    launch_prologue(*p->phCommandList, p->phSignalEvent);
    zsep_prologue(NULL, false); /* several kernels in one call: never substituted */
}
static void ZE_APICALL epi_multi(ze_command_list_append_launch_multiple_kernels_indirect_params_t *p, ze_result_t r,
                                 void *u, void **i) {
    (void)u, (void)i;
    /* One signal event covers every kernel of the call: recorded as one
     * launch of the first kernel whose times span the whole batch. */
    ze_kernel_handle_t k = (*p->pnumKernels > 0 && *p->pphKernels != NULL) ? (*p->pphKernels)[0] : NULL;
    tl_p.code_copy = zsep_epilogue(NULL);
    launch_epilogue(r, *p->phCommandList, p->phSignalEvent, k, NULL, 3);
}

static void ZE_APICALL epi_set_group_size(ze_kernel_set_group_size_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    if (r != ZE_RESULT_SUCCESS) return;
    zsep_group_size(*p->phKernel, *p->pgroupSizeX, *p->pgroupSizeY, *p->pgroupSizeZ);
    uint64_t v[ZMAP_WORDS];
    if (!zmap_get(&kernels, (uintptr_t)*p->phKernel, v)) return;
    v[1] = pack_size(*p->pgroupSizeX, *p->pgroupSizeY, *p->pgroupSizeZ);
    zmap_put(&kernels, (uintptr_t)*p->phKernel, v);
}

static void list_created(ze_command_list_handle_t l, ze_context_handle_t ctx, ze_device_handle_t dev, bool imm,
                         uint32_t ordinal) {
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed) || tl_own_calls) return;
    uint32_t id = list_id_take();
    /* Past 2^32-1 lists, no id: the list stays unknown, as one created
     * before zestall was active (its launches are recorded without times,
     * UNSUPPORTED; its executions are not), never given another list's
     * id, which would merge the two lists' launches in the harvester. */
    if (id == 0) return;
    /* word 2: id << 2 | immediate, queue group ordinal at bits 40..55 */
    uint64_t v[ZMAP_WORDS] = {(uint64_t)(uintptr_t)ctx, (uint64_t)(uintptr_t)dev,
                              ((uint64_t)id << 2) | (imm ? 1 : 0) | ((uint64_t)(ordinal & 0xffff) << 40)};
    zmap_put(&lists, (uintptr_t)l, v);
    atomic_fetch_add_explicit(&lists_gen, 1, memory_order_release);
    /* The context's first pool of events is created with its first
     * command list, not by its first launches (each of which would
     * otherwise stop for a batch while the harvester has none to give),
     * and zestall's goroutine is asked to create, before the first burst,
     * as many as a thread's ring can hold in flight (event_pools.c,
     * "events created ahead of need"). */
    zl_ctxpool_t *p = ctxpool_of(ctx, true);
    if (p == NULL) return;
    pthread_mutex_lock(&p->lock);
    bool first = p->npools == 0 && !p->failed;
    bool wake = pools_ahead_request_locked(p, pools_first_request());
    pthread_mutex_unlock(&p->lock);
    if (first) atomic_fetch_add_explicit(&events_created_list, grow_events(p, ZL_POOL_EVENTS), memory_order_relaxed);
    if (wake) ring_wake_harvester();
}
static void ZE_APICALL epi_list_create(ze_command_list_create_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r == ZE_RESULT_SUCCESS)
        list_created(**p->pphCommandList, *p->phContext, *p->phDevice, false,
                     *p->pdesc ? (*p->pdesc)->commandQueueGroupOrdinal : 0);
}
static void ZE_APICALL epi_list_create_imm(ze_command_list_create_immediate_params_t *p, ze_result_t r, void *u,
                                           void **i) {
    (void)u, (void)i;
    if (r == ZE_RESULT_SUCCESS)
        list_created(**p->pphCommandList, *p->phContext, *p->phDevice, true, *p->paltdesc ? (*p->paltdesc)->ordinal : 0);
}
static void list_event(ze_command_list_handle_t l, uint8_t kind) {
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    uint64_t v[ZMAP_WORDS];
    if (!zmap_get(&lists, (uintptr_t)l, v)) return;
    zl_slot_t s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.host_ns = zl_now_ns();
    s.list = (uint64_t)(uintptr_t)l;
    s.list_id = (uint32_t)(v[2] >> 2);
    s.context = v[0];
    s.device = v[1];
    push(&s);
}
static void ZE_APICALL epi_list_reset(ze_command_list_reset_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r != ZE_RESULT_SUCCESS || tl_own_calls) return;
    listev_clear(*p->phCommandList);
    list_event(*p->phCommandList, ZL_SLOT_RESET);
}
static void ZE_APICALL pro_list_destroy(ze_command_list_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    listev_destroy_snapshots(*p->phCommandList);
    list_event(*p->phCommandList, ZL_SLOT_DESTROY);
    /* The record of zestall's events in the list goes with it (memory
     * bounded by the lists alive). Here, before the
     * driver frees the handle: once it has, another thread may create a
     * list at the same address, whose record must not be this one. If
     * the destroy fails, the list's later launches start a new record
     * (its events were forgotten here either way). The same for the
     * list's entry: zestall's goroutine destroys its own snapshot lists
     * (traced calls), and an application thread that creates a list
     * meanwhile may get the freed handle; an epilogue would then remove
     * the application's new list. */
    /* Not while off (a forked child: no lock of zestall's is taken). */
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    listev_free(*p->phCommandList);
    uint64_t v[ZMAP_WORDS];
    if (zmap_get(&lists, (uintptr_t)*p->phCommandList, v)) {
        zmap_del(&lists, (uintptr_t)*p->phCommandList);
        atomic_fetch_add_explicit(&lists_gen, 1, memory_order_release);
    }
}
static void ZE_APICALL epi_pool_create(ze_event_pool_create_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed) || tl_own_calls) return;
    if (r != ZE_RESULT_SUCCESS || *p->pdesc == NULL) return;
    uint64_t v[ZMAP_WORDS] = {(*p->pdesc)->flags, 0, 0};
    zmap_put(&pools, (uintptr_t)**p->pphEventPool, v);
}
/* In the prologue, as for lists and events (pro_list_destroy): once the
 * driver freed the pool, a pool created meanwhile on another thread may
 * have its handle, whose entry an epilogue would remove
 * (docs/level-zero-loader.md §10 "Hazards", P17). */
static void ZE_APICALL pro_pool_destroy(ze_event_pool_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    zmap_del(&pools, (uintptr_t)*p->phEventPool);
}
static void ZE_APICALL epi_event_create(ze_event_create_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed) || tl_own_calls) return;
    uint64_t v[ZMAP_WORDS];
    if (r != ZE_RESULT_SUCCESS || !zmap_get(&pools, (uintptr_t)*p->phEventPool, v)) return;
    zmap_put(&events, (uintptr_t)**p->pphEvent, v);
}
/* Application timestamp events are read only on the application's own
 * thread, at its synchronisation points and just before it resets or
 * destroys them: zestall's goroutine never touches an event the
 * application may have destroyed. */
static ZL_TLS uint64_t tl_last_ev, tl_last_ts;
static void app_event_read(ze_event_handle_t ev, bool gone) {
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    uint64_t v[ZMAP_WORDS];
    if (!zmap_get(&events, (uintptr_t)ev, v) || !(v[0] & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP)) return;
    zl_slot_t s;
    memset(&s, 0, sizeof s);
    s.host_ns = zl_now_ns();
    s.event = (uint64_t)(uintptr_t)ev;
    ze_kernel_timestamp_result_t ts;
    if (zeEventQueryStatus(ev) == ZE_RESULT_SUCCESS && zeEventQueryKernelTimestamp(ev, &ts) == ZE_RESULT_SUCCESS) {
        s.kind = ZL_SLOT_APP_TS;
        s.list = ts.global.kernelStart; /* APP_TS reuses these fields */
        s.device = ts.global.kernelEnd;
        s.context = ts.context.kernelStart;
        s.queue = ts.context.kernelEnd;
        /* Spinning on zeEventQueryStatus must not flood the ring. */
        if (!gone && tl_last_ev == s.event && tl_last_ts == (s.list ^ (s.device << 1))) return;
        tl_last_ev = s.event;
        tl_last_ts = s.list ^ (s.device << 1);
        push(&s);
    }
    if (gone) {
        s.kind = ZL_SLOT_APP_GONE;
        push(&s);
    }
}
static void sync_point(ze_result_t r);
static void ZE_APICALL epi_event_sync(ze_event_host_synchronize_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r == ZE_RESULT_SUCCESS) app_event_read(*p->phEvent, false);
    sync_point(r);
}
static void ZE_APICALL epi_event_query(ze_event_query_status_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r == ZE_RESULT_SUCCESS) app_event_read(*p->phEvent, false);
}
static void ZE_APICALL pro_event_reset(ze_event_host_reset_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    zl_batch_t *b = batch_take(true);
    if (b != NULL && b->grow != NULL) { /* events created ahead (zl_pools_ahead) */
        pools_grow_ahead(b->grow);
        b->done = true;
        return;
    }
    if (b != NULL) { /* zestall's own resets (zl_release_events, zl_return_events) */
        if (!b->reset_done) reset_events(b->refs, b->n);
        /* Back to their pools from inside the callback, so that the
         * pools grown there (zeEventCreate, zeEventPoolCreate) are not
         * traced calls either; not the trigger event, which the driver
         * resets after this prologue (see zl_release_events). */
        pools_take_back(b->refs + b->first + 1, b->n - b->first - 1);
        b->done = true;
        return;
    }
    app_event_read(*p->phEvent, false);
}
/* zestall's own timestamp reads (zl_kernel_timestamps) and other batches
 * (run_in_batch); nothing for the application's calls. */
static void ZE_APICALL pro_event_timestamp(ze_event_query_kernel_timestamp_params_t *p, ze_result_t r, void *u,
                                           void **i) {
    (void)p, (void)r, (void)u, (void)i;
    zl_batch_t *b = batch_take(false);
    if (b == NULL) return;
    if (b->run != NULL) {
        b->run(b->arg);
    } else {
        read_timestamps(b->events, b->n, b->out, b->reset_final);
    }
    b->done = true;
}
static void ZE_APICALL pro_event_destroy(ze_event_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    app_event_read(*p->phEvent, true);
    /* Forgotten here, before the driver frees the handle, not in an
     * epilogue: zestall's goroutine destroys its own events (traced
     * calls), and an event the application creates meanwhile may get the
     * freed handle (see pro_list_destroy). Not while off (a forked
     * child: no lock of zestall's is taken). */
    uint64_t v[ZMAP_WORDS];
    if (atomic_load_explicit(&zl_enabled, memory_order_relaxed) && zmap_get(&events, (uintptr_t)*p->phEvent, v))
        zmap_del(&events, (uintptr_t)*p->phEvent);
}

/* A new context: zestall's goroutine is asked to create its events
 * ahead of need, before the first launches (usually modules are built in
 * between; event_pools.c, "events created ahead of need"). Not for
 * zestall's own context (cgo/stall.c marks it). */
static void ZE_APICALL epi_context_create(ze_context_create_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r != ZE_RESULT_SUCCESS || !atomic_load_explicit(&zl_enabled, memory_order_relaxed) || tl_own_calls) return;
    zl_ctxpool_t *c = ctxpool_of(**p->pphContext, true);
    if (c == NULL) return;
    pthread_mutex_lock(&c->lock);
    bool wake = pools_ahead_request_locked(c, pools_first_request());
    pthread_mutex_unlock(&c->lock);
    if (wake) ring_wake_harvester();
}
static void ZE_APICALL pro_context_destroy(ze_context_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    if (ctxpool_of(*p->phContext, false) == NULL) return;
    zestallContextDestroying((uint64_t)(uintptr_t)*p->phContext);
}

/* The application's synchronisation points: the device has just finished
 * work this thread waited for — a good moment for a streamer read, so read
 * windows fall between launches. Only when sampling is on (Go sets it). */
static atomic_bool zl_sync_wake;
void zl_set_sync_wake(int on) { atomic_store(&zl_sync_wake, on != 0); }
static void sync_point(ze_result_t r) {
    if (r == ZE_RESULT_SUCCESS && !tl_own_calls && atomic_load_explicit(&zl_sync_wake, memory_order_relaxed) &&
        atomic_load_explicit(&zl_enabled, memory_order_relaxed))
        zestallSyncPoint();
}
static void ZE_APICALL epi_queue_sync(ze_command_queue_synchronize_params_t *p, ze_result_t r, void *u, void **i) {
    (void)p, (void)u, (void)i;
    sync_point(r);
}
static void ZE_APICALL epi_fence_sync(ze_fence_host_synchronize_params_t *p, ze_result_t r, void *u, void **i) {
    (void)p, (void)u, (void)i;
    sync_point(r);
}

void zl_register(zel_tracer_handle_t t) {
    maps_init_once();
    zelTracerCommandListAppendLaunchKernelRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_launch);
    zelTracerCommandListAppendLaunchKernelRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_launch);
    zelTracerCommandListAppendLaunchCooperativeKernelRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_coop);
    zelTracerCommandListAppendLaunchCooperativeKernelRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_coop);
    zelTracerCommandListAppendLaunchKernelIndirectRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_indirect);
    zelTracerCommandListAppendLaunchKernelIndirectRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_indirect);
    zelTracerCommandListAppendLaunchMultipleKernelsIndirectRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_multi);
    zelTracerCommandListAppendLaunchMultipleKernelsIndirectRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_multi);
    zelTracerKernelSetGroupSizeRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_set_group_size);
    zsep_register(t);
    zelTracerCommandListCreateRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_list_create);
    zelTracerCommandListCreateImmediateRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_list_create_imm);
    zelTracerCommandListResetRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_list_reset);
    zelTracerCommandListDestroyRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_list_destroy);
    zelTracerCommandQueueExecuteCommandListsRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_execute);
    zelTracerCommandQueueExecuteCommandListsRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_execute);
    zelTracerEventPoolCreateRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_pool_create);
    zelTracerEventPoolDestroyRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_pool_destroy);
    zelTracerEventCreateRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_event_create);
    zelTracerEventDestroyRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_event_destroy);
    zelTracerEventHostSynchronizeRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_event_sync);
    zelTracerEventQueryStatusRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_event_query);
    zelTracerEventHostResetRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_event_reset);
    zelTracerEventQueryKernelTimestampRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_event_timestamp);
    zelTracerContextCreateRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_context_create);
    zelTracerContextDestroyRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_context_destroy);
    zelTracerCommandQueueSynchronizeRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_queue_sync);
    zelTracerFenceHostSynchronizeRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_fence_sync);
}

