/*
 * separate.c — launch separation by module copies (issue 15).
 *
 * EU stall samples carry an instruction address only. Every zeModuleCreate
 * gets its own ISA allocation, also from an identical native binary, so
 * zestall makes, per eligible module (collector/attribution decides from
 * the zebin), copies with zeModuleCreate(ZE_MODULE_FORMAT_NATIVE) on the
 * module's context and device with the application's build flags. The
 * launch prologue replaces the launch's hKernel by the kernel of a code
 * (the original is code 0, copy n code n) whose previous launch's samples
 * can no longer arrive, after mirroring onto it every piece of state the
 * application set on its own kernel since that code last ran. The
 * application's kernel handle is never changed: the tracing layer passes
 * the driver whatever the prologue left in the parameter
 * (docs/level-zero-loader.md §5.4 "Prologues can replace arguments"), and
 * the epilogue puts the application's handle back.
 *
 * Ring size. Each kernel function of a module (all handles of one name
 * share it, so threads with handles of their own take distinct codes)
 * keeps per code a "busy until" host time: the launch that took the code
 * claims it until now + the reuse interval (ZESTALL_STALL_LATENCY + two
 * read intervals: collector/separate.go reuseInterval) + the lag, the
 * time its kernel's launches recently took from append to end (a queue
 * the host runs ahead of). The harvester raises it to the launch's
 * device end + the reuse interval when the launch is timed (zsep_ran)
 * and updates the lag. The prologue takes the lowest code that
 * is free (one CAS claims it, so two threads never take one code); when
 * every code is busy it takes the one free soonest and counts an early
 * reuse (its rows may be SHARED, never wrong). In the automatic ring
 * (ZESTALL_SEPARATE_COPIES unset or auto) a module starts with
 * collector/config's InitialCodeCopies copies, made inside the
 * application's zeModuleCreate, and grows on demand up to
 * ZESTALL_MAX_CODE_COPIES: every launch that finds no free code asks for
 * one more code, and a launch that takes a code in the ring's top
 * quarter asks for twice the ring; the prologue tells the copier thread
 * (an atomic and a sem_post, no lock), which makes the copies off the
 * application's threads. A burst of launches larger than the ring so far
 * reuses codes early (counted) while the copier catches up; the next
 * burst finds the ring it needed. A fixed ring
 * (ZESTALL_SEPARATE_COPIES=n) makes its n copies at module create and
 * never grows.
 *
 * Kernels are created lazily: a handle's kernel in copy n is created
 * (zeKernelCreate, its base address read, registered with the stall
 * reader through zestallCopyKernelCreated) on the application's thread at
 * the handle's first launch that takes code n. That is the one launch
 * path step with driver calls and a call into Go; it happens once per
 * (handle, copy), and only for codes the launch rate needs.
 *
 * Calls made here inside a callback are not traced again
 * (docs/level-zero-loader.md §5.5 "Re-entrancy guard").
 *
 * Launch path (after a handle's kernels exist): a lock-free zmap lookup,
 * a scan of the codes' busy times (one CAS), when the application set
 * nothing new no driver call, no allocation. A setter the copy cannot
 * repeat (a failing zeKernelSetArgumentValue, an unsupported hint) or a
 * copy's kernel that cannot be created makes the launch keep the original
 * kernel (counted as a fallback), never a launch with other state.
 * Mirrored state: argument values (with their sizes, NULL values: null
 * pointers and SLM sizes), group size, indirect access flags, cache
 * configuration, global offset, scheduling hints. State set through entry
 * points the 1.8.12 tracing layer cannot see (driver extensions) is not
 * mirrored: see README "Launch separation".
 *
 * Lifetimes: copies die with the application's object (a kernel's copies
 * in its zeKernelDestroy prologue, a module's in its zeModuleDestroy
 * prologue): the application may destroy an object only when no command
 * list in flight uses it, and its launches ran the copies in its place. A
 * module destroyed while the copier makes one of its copies is freed by
 * the copier when that call returns. zeContextDestroy waits for a copy
 * in the making (one zeModuleCreate at most) and stops growth for the
 * context's modules.
 */
#include "separate.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <level_zero/layers/zel_tracing_register_cb.h>

#include "_cgo_export.h"
#include "launch.h"
#include "layer.h"
#include "zmap.h"

#define ZL_TLS _Thread_local __attribute__((tls_model("initial-exec")))

static _Atomic uint32_t sep_copies;     /* copies made at module create; 0: mode off */
static _Atomic uint32_t sep_max_codes;  /* the most codes per module (1 + copies) */
static _Atomic uint64_t sep_reuse_ns;
static _Atomic uint64_t sep_mem_limit, mem_reserved; /* ISA bytes of all copies: limit, taken */
static _Atomic uint64_t n_on_copies, n_early, n_fallbacks, n_copies_made, n_copy_isa_bytes, n_kernels_made,
    n_kernel_create_ns, n_grow_failed;

void zsep_counters(zsep_counters_t *c) {
    c->on_copies = atomic_load_explicit(&n_on_copies, memory_order_relaxed);
    c->early_reuses = atomic_load_explicit(&n_early, memory_order_relaxed);
    c->fallbacks = atomic_load_explicit(&n_fallbacks, memory_order_relaxed);
    c->copies_made = atomic_load_explicit(&n_copies_made, memory_order_relaxed);
    c->copy_isa_bytes = atomic_load_explicit(&n_copy_isa_bytes, memory_order_relaxed);
    c->kernels_made = atomic_load_explicit(&n_kernels_made, memory_order_relaxed);
    c->kernel_create_ns = atomic_load_explicit(&n_kernel_create_ns, memory_order_relaxed);
    c->grow_failed = atomic_load_explicit(&n_grow_failed, memory_order_relaxed);
}

/* Reserves the ISA bytes of n copies of isa_each bytes under the memory
 * limit; returns how many fit (0..n). */
static uint32_t reserve_copies(uint32_t n, uint64_t isa_each) {
    if (isa_each == 0) return n;
    uint64_t limit = atomic_load(&sep_mem_limit);
    uint64_t have = atomic_load(&mem_reserved);
    for (;;) {
        uint64_t room = have < limit ? (limit - have) / isa_each : 0;
        uint32_t k = room < n ? (uint32_t)room : n;
        if (k == 0) return 0;
        if (atomic_compare_exchange_weak(&mem_reserved, &have, have + k * isa_each)) return k;
    }
}

static void release_copies(uint32_t n, uint64_t isa_each) { atomic_fetch_sub(&mem_reserved, n * isa_each); }

/* ---- modules ---------------------------------------------------------------- */

/* One kernel function of a copied module: per code, the host ns until
 * which its last launch's samples may still arrive, and the lag (append to
 * device end) its launches recently had. */
typedef struct zsep_func {
    struct zsep_func *next;
    char *name;
    _Atomic uint64_t lag_ns;
    /* After a scan found every code busy: no code is free before
     * all_busy_until while the ring has all_busy_n codes, so launches
     * until then take codes in turn (rr) without scanning. */
    _Atomic uint64_t all_busy_until;
    _Atomic uint32_t all_busy_n;
    _Atomic uint32_t rr;
    _Atomic uint64_t busy_until[ZSEP_MAX_CODES];
} zsep_func_t;

typedef struct zsep_module {
    struct zsep_module *next;
    ze_module_handle_t orig;
    ze_context_handle_t ctx;
    ze_device_handle_t dev;
    char *build_flags;
    uint8_t *native; /* the native binary, for copies made later */
    size_t native_size;
    uint64_t isa_each;                       /* ISA bytes of one copy */
    _Atomic uint32_t ncodes;                 /* 1 + copies; mods[0..ncodes) valid */
    _Atomic uint32_t want;                   /* codes the copier should make */
    ze_module_handle_t mods[ZSEP_MAX_CODES]; /* [0] is the original */
    zsep_func_t *funcs;                      /* under mod_lock */
    bool busy;    /* the copier makes a copy of it (under mod_lock) */
    bool dead;    /* destroyed while busy: the copier frees it */
    bool nogrow;  /* a copy failed, its context is being destroyed, or the memory limit */
} zsep_module_t;

static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;
static zsep_module_t *modules; /* under mod_lock; few, and only looked up off the launch path */

static zsep_module_t *module_find_locked(ze_module_handle_t m) {
    for (zsep_module_t *x = modules; x != NULL; x = x->next)
        if (x->orig == m) return x;
    return NULL;
}

static void module_free(zsep_module_t *x) {
    for (zsep_func_t *f = x->funcs, *nx; f != NULL; f = nx) {
        nx = f->next;
        free(f->name);
        free(f);
    }
    free(x->native);
    free(x->build_flags);
    free(x);
}

void zsep_module_seen(ze_module_handle_t m, ze_context_handle_t ctx, const char *build_flags) {
    if (atomic_load(&sep_copies) == 0 || m == NULL) return;
    zsep_module_t *x = calloc(1, sizeof *x);
    if (x == NULL) return;
    x->orig = m;
    x->ctx = ctx;
    x->build_flags = build_flags != NULL ? strdup(build_flags) : NULL;
    atomic_init(&x->ncodes, 1);
    x->mods[0] = m;
    pthread_mutex_lock(&mod_lock);
    x->next = modules;
    modules = x;
    pthread_mutex_unlock(&mod_lock);
}

static ze_result_t create_copy(ze_context_handle_t ctx, ze_device_handle_t dev, const uint8_t *native, size_t size,
                               const char *flags, ze_module_handle_t *out) {
    ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_NATIVE, size, native, flags, NULL};
    *out = NULL;
    ze_result_t r = zeModuleCreate(ctx, dev, &desc, out, NULL);
    if (r == ZE_RESULT_SUCCESS && *out == NULL) r = ZE_RESULT_ERROR_UNKNOWN;
    return r;
}

uint32_t zsep_module_copy(ze_module_handle_t m, ze_device_handle_t dev, const void *native, size_t size,
                          uint64_t isa_each, uint64_t *ns, ze_result_t *failed, bool *limited) {
    *ns = 0;
    *failed = ZE_RESULT_SUCCESS;
    *limited = false;
    uint32_t n = atomic_load(&sep_copies);
    if (n > ZSEP_MAX_CODES - 1) n = ZSEP_MAX_CODES - 1;
    pthread_mutex_lock(&mod_lock);
    zsep_module_t *x = module_find_locked(m);
    pthread_mutex_unlock(&mod_lock);
    if (x == NULL || n == 0 || native == NULL || size == 0) return 0;
    /* The application's zeModuleCreate has not returned: nobody else
     * knows x's module yet, so x is filled in without the lock. */
    x->native = malloc(size);
    if (x->native == NULL) return 0;
    memcpy(x->native, native, size);
    x->native_size = size;
    x->dev = dev;
    x->isa_each = isa_each;
    uint32_t fit = reserve_copies(n, isa_each);
    if (fit < n) {
        /* The copies' memory limit: fewer copies, none beyond. */
        x->nogrow = true;
        *failed = ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
        *limited = true;
        if (fit == 0) return 0;
        n = fit;
    }
    uint64_t t0 = zl_now_ns();
    uint32_t made = 0;
    for (; made < n; made++) {
        ze_result_t r = create_copy(x->ctx, dev, x->native, size, x->build_flags, &x->mods[1 + made]);
        if (r != ZE_RESULT_SUCCESS) {
            *failed = r;
            break;
        }
    }
    if (made < n) { /* all or none */
        for (uint32_t i = 0; i < made; i++) zeModuleDestroy(x->mods[1 + i]);
        release_copies(n, isa_each);
        made = 0;
        x->nogrow = true;
    } else if (*limited) {
        *failed = ZE_RESULT_SUCCESS; /* made fewer: the limit, not a failure */
    }
    atomic_store(&x->want, 1 + made);
    atomic_store_explicit(&x->ncodes, 1 + made, memory_order_release);
    atomic_fetch_add(&n_copies_made, made);
    atomic_fetch_add(&n_copy_isa_bytes, isa_each * made);
    *ns = zl_now_ns() - t0;
    return made;
}

void zsep_module_destroyed(ze_module_handle_t m) {
    ze_module_handle_t copies[ZSEP_MAX_CODES];
    uint32_t n = 0;
    pthread_mutex_lock(&mod_lock);
    zsep_module_t **pp = &modules;
    while (*pp != NULL && (*pp)->orig != m) pp = &(*pp)->next;
    zsep_module_t *x = *pp;
    if (x != NULL) {
        *pp = x->next;
        n = atomic_load(&x->ncodes);
        memcpy(copies, x->mods, n * sizeof copies[0]);
        if (x->busy) x->dead = true; /* the copier frees it */
    }
    pthread_mutex_unlock(&mod_lock);
    if (x == NULL) return;
    for (uint32_t i = 1; i < n; i++) zeModuleDestroy(copies[i]);
    if (n > 1) release_copies(n - 1, x->isa_each);
    if (!x->dead) module_free(x);
}

/* ---- the copier: grows rings off the application's threads ------------------ */

static sem_t copier_sem;
/* Set on the copier thread: its zeModuleCreate/zeModuleDestroy calls are
 * traced (docs/level-zero-loader.md §5.5 "Re-entrancy guard": a call from
 * a thread outside a callback is), and layer.c must not take its copies
 * for the application's modules. */
static ZL_TLS bool tl_internal;
bool zsep_internal_thread(void) { return tl_internal; }
static pthread_mutex_t copier_lock = PTHREAD_MUTEX_INITIALIZER; /* held across one copy's creation */
static atomic_bool copier_started, copier_stop;

/* Makes one copy of a module that wants more; false when none does. */
static bool copier_step(void) {
    pthread_mutex_lock(&copier_lock);
    pthread_mutex_lock(&mod_lock);
    zsep_module_t *x = modules;
    uint32_t n = 0;
    for (; x != NULL; x = x->next) {
        n = atomic_load(&x->ncodes);
        if (!x->nogrow && n > 1 && n < ZSEP_MAX_CODES && atomic_load(&x->want) > n) break;
    }
    if (x == NULL || atomic_load(&copier_stop)) {
        pthread_mutex_unlock(&mod_lock);
        pthread_mutex_unlock(&copier_lock);
        return false;
    }
    if (reserve_copies(1, x->isa_each) == 0) {
        x->nogrow = true; /* the copies' memory limit */
        pthread_mutex_unlock(&mod_lock);
        pthread_mutex_unlock(&copier_lock);
        return true;
    }
    x->busy = true;
    pthread_mutex_unlock(&mod_lock);
    ze_module_handle_t c = NULL;
    uint64_t t0 = zl_now_ns();
    ze_result_t r = create_copy(x->ctx, x->dev, x->native, x->native_size, x->build_flags, &c);
    (void)t0;
    pthread_mutex_lock(&mod_lock);
    x->busy = false;
    bool dead = x->dead;
    if (!dead && r == ZE_RESULT_SUCCESS) {
        x->mods[n] = c;
        atomic_store_explicit(&x->ncodes, n + 1, memory_order_release);
        atomic_fetch_add(&n_copies_made, 1);
        atomic_fetch_add(&n_copy_isa_bytes, x->isa_each);
        c = NULL;
    } else if (r != ZE_RESULT_SUCCESS) {
        x->nogrow = true;
        atomic_fetch_add(&n_grow_failed, 1);
    }
    pthread_mutex_unlock(&mod_lock);
    if (c != NULL) zeModuleDestroy(c);
    if (r != ZE_RESULT_SUCCESS || dead) release_copies(1, x->isa_each); /* a dead module's others were released */
    if (dead) module_free(x);
    pthread_mutex_unlock(&copier_lock);
    return true;
}

static void *copier_main(void *arg) {
    (void)arg;
    tl_internal = true;
    while (!atomic_load(&copier_stop)) {
        if (sem_wait(&copier_sem) != 0 && errno != EINTR) break;
        while (copier_step()) {
        }
    }
    return NULL;
}

void zsep_configure(uint32_t copies, uint32_t max_copies, uint64_t reuse_ns, uint64_t mem_limit) {
    atomic_store(&sep_mem_limit, mem_limit);
    if (copies > ZSEP_MAX_CODES - 1) copies = ZSEP_MAX_CODES - 1;
    if (max_copies > ZSEP_MAX_CODES - 1) max_copies = ZSEP_MAX_CODES - 1;
    if (max_copies < copies) max_copies = copies;
    atomic_store(&sep_reuse_ns, reuse_ns);
    atomic_store(&sep_max_codes, max_copies + 1);
    if (copies > 0 && max_copies > copies && !atomic_exchange(&copier_started, true)) {
        pthread_t t;
        pthread_attr_t a;
        sem_init(&copier_sem, 0, 0);
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &a, copier_main, NULL) != 0) atomic_store(&sep_max_codes, copies + 1);
        pthread_attr_destroy(&a);
    }
    atomic_store(&sep_copies, copies);
}

bool zsep_stop(uint64_t timeout_ns) {
    if (!atomic_load(&copier_started) || atomic_exchange(&copier_stop, true)) return true;
    atomic_store(&sep_max_codes, 0);
    sem_post(&copier_sem);
    /* Wait for a copy in the making: the driver is torn down after us. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(timeout_ns / 1000000000u);
    ts.tv_nsec += (long)(timeout_ns % 1000000000u);
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    if (pthread_mutex_timedlock(&copier_lock, &ts) != 0) return false;
    pthread_mutex_unlock(&copier_lock);
    return true;
}

void zsep_context_destroying(uint64_t ctx) {
    pthread_mutex_lock(&mod_lock);
    for (zsep_module_t *x = modules; x != NULL; x = x->next)
        if ((uint64_t)(uintptr_t)x->ctx == ctx) x->nogrow = true;
    pthread_mutex_unlock(&mod_lock);
    if (!atomic_load(&copier_started)) return;
    pthread_mutex_lock(&copier_lock); /* one zeModuleCreate in the making at most */
    pthread_mutex_unlock(&copier_lock);
}

/* Asks the copier for a ring of `codes` codes (launch path: no lock). */
static void grow(zsep_module_t *x, uint32_t codes) {
    uint32_t max = atomic_load_explicit(&sep_max_codes, memory_order_relaxed);
    if (codes > max) codes = max;
    uint32_t w = atomic_load_explicit(&x->want, memory_order_relaxed);
    while (w < codes) {
        if (atomic_compare_exchange_weak_explicit(&x->want, &w, codes, memory_order_relaxed, memory_order_relaxed)) {
            sem_post(&copier_sem);
            return;
        }
    }
}

/* ---- kernels and their state ----------------------------------------------- */

/* One argument as the application last set it. gen 0: never set. */
typedef struct zsep_arg {
    uint32_t gen;
    uint32_t cap;
    size_t size;
    bool null;      /* pArgValue was NULL (null pointer, or SLM of size bytes) */
    uint8_t *value; /* size bytes when !null */
} zsep_arg_t;

typedef struct zsep_kernel {
    zsep_module_t *mod;
    zsep_func_t *func;
    ze_kernel_handle_t orig;
    uint32_t id;           /* the application kernel's id (launch records) */
    ze_kernel_flags_t flags; /* its creation flags, for the copies' kernels */
    bool broken;           /* its state could not be recorded: copies never run */
    ze_kernel_handle_t k[ZSEP_MAX_CODES]; /* [0] the original; NULL: not created yet */
    uint32_t applied[ZSEP_MAX_CODES];     /* gen each code's kernel has */
    /* The application's state; each item with the gen that set it last.
     * Written by the setter epilogues and read by the launch prologue on
     * the application's threads: the specification forbids concurrent
     * use of one kernel handle, so no lock is needed. */
    uint32_t gen;
    uint32_t nargs;
    zsep_arg_t *args;
    uint32_t group_gen, group[3];
    uint32_t indirect_gen;
    ze_kernel_indirect_access_flags_t indirect;
    uint32_t cache_gen;
    ze_cache_config_flags_t cache;
    uint32_t offset_gen, offset[3];
    uint32_t hint_gen;
    ze_scheduling_hint_exp_flags_t hint;
} zsep_kernel_t;

static pthread_once_t kernels_once = PTHREAD_ONCE_INIT;
static zmap_t skernels; /* application kernel -> zsep_kernel_t* */
static zmap_t sids;     /* its id + ID_KEY -> zsep_kernel_t*, for the harvester's zsep_ran */
#define ID_KEY 16       /* zmap keys 0 and 1 are reserved */
static void kernels_init(void) {
    zmap_init(&skernels, 256);
    zmap_init(&sids, 256);
}

static ZL_TLS ze_kernel_flags_t tl_kernel_flags;
void zsep_kernel_flags(ze_kernel_flags_t flags) { tl_kernel_flags = flags; }

static zsep_kernel_t *shadow_of(ze_kernel_handle_t k) {
    uint64_t v[ZMAP_WORDS];
    if (atomic_load_explicit(&sep_copies, memory_order_relaxed) == 0) return NULL;
    pthread_once(&kernels_once, kernels_init);
    if (!zmap_get(&skernels, (uintptr_t)k, v)) return NULL;
    return (zsep_kernel_t *)(uintptr_t)v[0];
}

static void shadow_free(zsep_kernel_t *s) {
    for (uint32_t i = 1; i < ZSEP_MAX_CODES; i++)
        if (s->k[i] != NULL) zeKernelDestroy(s->k[i]);
    for (uint32_t i = 0; i < s->nargs; i++) free(s->args[i].value);
    free(s->args);
    free(s);
}

bool zsep_kernel_created(ze_kernel_handle_t k, ze_module_handle_t m, const char *name, uint32_t id,
                         ze_result_t *failed) {
    *failed = ZE_RESULT_SUCCESS;
    ze_kernel_flags_t flags = tl_kernel_flags;
    tl_kernel_flags = 0;
    if (atomic_load(&sep_copies) == 0 || k == NULL || name == NULL || id == 0) return false;
    pthread_once(&kernels_once, kernels_init);
    pthread_mutex_lock(&mod_lock);
    zsep_module_t *x = module_find_locked(m);
    zsep_func_t *f = NULL;
    if (x != NULL && atomic_load(&x->ncodes) > 1) {
        for (f = x->funcs; f != NULL && strcmp(f->name, name) != 0; f = f->next) {
        }
        if (f == NULL && (f = calloc(1, sizeof *f)) != NULL) {
            if ((f->name = strdup(name)) == NULL) {
                free(f);
                f = NULL;
            } else {
                f->next = x->funcs;
                x->funcs = f;
            }
        }
    }
    pthread_mutex_unlock(&mod_lock);
    if (f == NULL) return false;
    ze_kernel_properties_t props;
    memset(&props, 0, sizeof props);
    props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    ze_result_t r = zeKernelGetProperties(k, &props);
    if (r != ZE_RESULT_SUCCESS) {
        *failed = r;
        return false;
    }
    zsep_kernel_t *s = calloc(1, sizeof *s);
    if (s == NULL) return false;
    s->mod = x;
    s->func = f;
    s->orig = k;
    s->id = id;
    s->flags = flags;
    s->k[0] = k;
    s->nargs = props.numKernelArgs;
    s->args = calloc(s->nargs ? s->nargs : 1, sizeof *s->args);
    uint64_t v[ZMAP_WORDS] = {(uint64_t)(uintptr_t)s, 0, 0};
    if (s->args == NULL || !zmap_put(&sids, (uintptr_t)id + ID_KEY, v)) {
        free(s->args);
        free(s);
        return false;
    }
    if (!zmap_put(&skernels, (uintptr_t)k, v)) {
        zmap_del(&sids, (uintptr_t)id + ID_KEY);
        shadow_free(s);
        return false;
    }
    return true;
}

void zsep_kernel_destroyed(ze_kernel_handle_t k) {
    zsep_kernel_t *s = shadow_of(k);
    if (s == NULL) return;
    pthread_mutex_lock(&mod_lock); /* zsep_ran reads s under it */
    zmap_del(&sids, (uintptr_t)s->id + ID_KEY);
    zmap_del(&skernels, (uintptr_t)k);
    pthread_mutex_unlock(&mod_lock);
    shadow_free(s);
}

void zsep_ran(uint32_t id, uint32_t code, uint64_t append_ns, uint64_t end_ns, bool immediate) {
    uint64_t v[ZMAP_WORDS];
    if (atomic_load_explicit(&sep_copies, memory_order_relaxed) == 0 || code >= ZSEP_MAX_CODES) return;
    pthread_once(&kernels_once, kernels_init);
    pthread_mutex_lock(&mod_lock);
    if (zmap_get(&sids, (uintptr_t)id + ID_KEY, v)) {
        zsep_func_t *f = ((zsep_kernel_t *)(uintptr_t)v[0])->func;
        uint64_t until = end_ns + atomic_load_explicit(&sep_reuse_ns, memory_order_relaxed);
        uint64_t t = atomic_load_explicit(&f->busy_until[code], memory_order_relaxed);
        while (t < until && !atomic_compare_exchange_weak_explicit(&f->busy_until[code], &t, until,
                                                                    memory_order_relaxed, memory_order_relaxed)) {
        }
        /* The lag of immediate lists only: a regular list's append is
         * not when it runs. It decays by 1/8 per launch towards what the
         * launches take now. */
        if (immediate && end_ns > append_ns) {
            uint64_t lag = end_ns - append_ns, old = atomic_load_explicit(&f->lag_ns, memory_order_relaxed);
            uint64_t dec = old - old / 8;
            atomic_store_explicit(&f->lag_ns, lag > dec ? lag : dec, memory_order_relaxed);
        }
    }
    pthread_mutex_unlock(&mod_lock);
}

/* ---- setter epilogues: record what the application set ---------------------- */

static void ZE_APICALL epi_set_arg(ze_kernel_set_argument_value_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r != ZE_RESULT_SUCCESS) return;
    zsep_kernel_t *s = shadow_of(*p->phKernel);
    if (s == NULL || *p->pargIndex >= s->nargs) return;
    zsep_arg_t *a = &s->args[*p->pargIndex];
    size_t size = *p->pargSize;
    const void *val = *p->ppArgValue;
    if (val != NULL && size > a->cap) {
        uint8_t *nv = realloc(a->value, size);
        if (nv == NULL) {
            /* Cannot remember it: no copy of this kernel may run again. */
            s->broken = true;
            return;
        }
        a->value = nv;
        a->cap = (uint32_t)size;
    }
    a->size = size;
    a->null = val == NULL;
    if (val != NULL) memcpy(a->value, val, size);
    a->gen = ++s->gen;
}

static void ZE_APICALL epi_set_indirect(ze_kernel_set_indirect_access_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    zsep_kernel_t *s = r == ZE_RESULT_SUCCESS ? shadow_of(*p->phKernel) : NULL;
    if (s == NULL) return;
    s->indirect = *p->pflags;
    s->indirect_gen = ++s->gen;
}

static void ZE_APICALL epi_set_cache(ze_kernel_set_cache_config_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    zsep_kernel_t *s = r == ZE_RESULT_SUCCESS ? shadow_of(*p->phKernel) : NULL;
    if (s == NULL) return;
    s->cache = *p->pflags;
    s->cache_gen = ++s->gen;
}

static void ZE_APICALL epi_set_offset(ze_kernel_set_global_offset_exp_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    zsep_kernel_t *s = r == ZE_RESULT_SUCCESS ? shadow_of(*p->phKernel) : NULL;
    if (s == NULL) return;
    s->offset[0] = *p->poffsetX;
    s->offset[1] = *p->poffsetY;
    s->offset[2] = *p->poffsetZ;
    s->offset_gen = ++s->gen;
}

static void ZE_APICALL epi_hint(ze_kernel_scheduling_hint_exp_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    zsep_kernel_t *s = r == ZE_RESULT_SUCCESS ? shadow_of(*p->phKernel) : NULL;
    if (s == NULL || *p->ppHint == NULL) return;
    s->hint = (*p->ppHint)->flags;
    s->hint_gen = ++s->gen;
}

void zsep_group_size(ze_kernel_handle_t k, uint32_t x, uint32_t y, uint32_t z) {
    zsep_kernel_t *s = shadow_of(k);
    if (s == NULL) return;
    s->group[0] = x, s->group[1] = y, s->group[2] = z;
    s->group_gen = ++s->gen;
}

void zsep_register(zel_tracer_handle_t t) {
    zelTracerKernelSetArgumentValueRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_set_arg);
    zelTracerKernelSetIndirectAccessRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_set_indirect);
    zelTracerKernelSetCacheConfigRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_set_cache);
    zelTracerKernelSetGlobalOffsetExpRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_set_offset);
    zelTracerKernelSchedulingHintExpRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_hint);
}

/* ---- the launch path -------------------------------------------------------- */

/* Creates the handle's kernel in copy c (first launch on it): once per
 * (handle, copy), on the application's thread. */
static bool create_kernel(zsep_kernel_t *s, uint32_t c) {
    if (zestall_state() != ZESTALL_STATE_ACTIVE || zestall_in_fork_child()) return false;
    uint64_t t0 = zl_now_ns();
    ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, s->flags, s->func->name};
    ze_kernel_handle_t k = NULL;
    uint64_t base = 0;
    ze_result_t r = zeKernelCreate(s->mod->mods[c], &desc, &k);
    if (r == ZE_RESULT_SUCCESS && k != NULL) r = zestall_kernel_base_address(k, &base);
    if (r != ZE_RESULT_SUCCESS || k == NULL) {
        if (k != NULL) zeKernelDestroy(k);
        return false;
    }
    s->k[c] = k;
    s->applied[c] = 0;
    /* The stall reader knows the copy's addresses before its first
     * launch is appended, so before any of its samples. */
    zestallCopyKernelCreated(s->id, c, base);
    atomic_fetch_add_explicit(&n_kernels_made, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_kernel_create_ns, zl_now_ns() - t0, memory_order_relaxed);
    return true;
}

/* Brings code c's kernel up to the application's state: only what changed
 * since it last ran. False: some setter failed (the copy must not run). */
static bool mirror(zsep_kernel_t *s, uint32_t c) {
    uint32_t have = s->applied[c];
    if (have == s->gen) return true;
    ze_kernel_handle_t k = s->k[c];
    for (uint32_t i = 0; i < s->nargs; i++) {
        const zsep_arg_t *a = &s->args[i];
        if (a->gen > have && zeKernelSetArgumentValue(k, i, a->size, a->null ? NULL : a->value) != ZE_RESULT_SUCCESS)
            return false;
    }
    if (s->group_gen > have && zeKernelSetGroupSize(k, s->group[0], s->group[1], s->group[2]) != ZE_RESULT_SUCCESS)
        return false;
    if (s->indirect_gen > have && zeKernelSetIndirectAccess(k, s->indirect) != ZE_RESULT_SUCCESS) return false;
    if (s->cache_gen > have && zeKernelSetCacheConfig(k, s->cache) != ZE_RESULT_SUCCESS) return false;
    if (s->offset_gen > have &&
        zeKernelSetGlobalOffsetExp(k, s->offset[0], s->offset[1], s->offset[2]) != ZE_RESULT_SUCCESS)
        return false;
    if (s->hint_gen > have) {
        ze_scheduling_hint_exp_desc_t h = {ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_DESC, NULL, s->hint};
        if (zeKernelSchedulingHintExp(k, &h) != ZE_RESULT_SUCCESS) return false;
    }
    s->applied[c] = s->gen;
    return true;
}

/* Takes a code for a launch at host ns now: the lowest free one (claimed
 * with a CAS), else the one free soonest (an early reuse). */
static uint32_t take_code(zsep_func_t *f, zsep_module_t *x, uint32_t n, uint64_t now) {
    uint64_t hold = now + atomic_load_explicit(&sep_reuse_ns, memory_order_relaxed) +
                    atomic_load_explicit(&f->lag_ns, memory_order_relaxed);
    uint32_t soonest = 0;
    uint64_t soonest_t = UINT64_MAX;
    if (now < atomic_load_explicit(&f->all_busy_until, memory_order_relaxed) &&
        atomic_load_explicit(&f->all_busy_n, memory_order_relaxed) == n) {
        /* Every code is still busy (a burst larger than the ring): the
         * codes in turn, the one claimed longest ago first. */
        soonest = atomic_fetch_add_explicit(&f->rr, 1, memory_order_relaxed) % n;
    } else {
        for (uint32_t c = 0; c < n; c++) {
            uint64_t t = atomic_load_explicit(&f->busy_until[c], memory_order_relaxed);
            while (t <= now) {
                if (atomic_compare_exchange_weak_explicit(&f->busy_until[c], &t, hold, memory_order_relaxed,
                                                          memory_order_relaxed)) {
                    if (c >= n - n / 4) grow(x, 2 * n); /* the ring fills up: grow ahead */
                    return c;
                }
            }
            if (t < soonest_t) soonest_t = t, soonest = c;
        }
        /* busy_until only rises (claims, zsep_ran), so no code is free
         * before soonest_t while the ring keeps n codes. */
        atomic_store_explicit(&f->all_busy_n, n, memory_order_relaxed);
        atomic_store_explicit(&f->all_busy_until, soonest_t, memory_order_relaxed);
        atomic_store_explicit(&f->rr, soonest + 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&n_early, 1, memory_order_relaxed);
    uint64_t t = atomic_load_explicit(&f->busy_until[soonest], memory_order_relaxed);
    while (t < hold && !atomic_compare_exchange_weak_explicit(&f->busy_until[soonest], &t, hold,
                                                              memory_order_relaxed, memory_order_relaxed)) {
    }
    /* One more code for every launch that found none free: a burst of
     * launches asks for as many codes as it had launches. */
    uint32_t w = atomic_load_explicit(&x->want, memory_order_relaxed);
    if (w <= n || w < atomic_load_explicit(&sep_max_codes, memory_order_relaxed)) grow(x, (w > n ? w : n) + 1);
    return soonest;
}

typedef struct {
    ze_kernel_handle_t app; /* the application's kernel while a copy's is in the parameter */
    uint16_t code;
} zsep_pending_t;
static ZL_TLS zsep_pending_t tl_sep;

void zsep_prologue(ze_kernel_handle_t *phKernel, bool record) {
    tl_sep.app = NULL;
    tl_sep.code = 0;
    if (!record || phKernel == NULL) return;
    zsep_kernel_t *s = shadow_of(*phKernel);
    if (s == NULL || s->broken) return;
    uint32_t n = atomic_load_explicit(&s->mod->ncodes, memory_order_acquire);
    if (n < 2) return;
    uint32_t code = take_code(s->func, s->mod, n, zl_now_ns());
    if (code == 0) return;
    if ((s->k[code] == NULL && !create_kernel(s, code)) || !mirror(s, code)) {
        atomic_fetch_add_explicit(&n_fallbacks, 1, memory_order_relaxed);
        return;
    }
    tl_sep.app = *phKernel;
    tl_sep.code = (uint16_t)code;
    *phKernel = s->k[code];
    atomic_fetch_add_explicit(&n_on_copies, 1, memory_order_relaxed);
}

uint16_t zsep_epilogue(ze_kernel_handle_t *phKernel) {
    uint16_t code = tl_sep.code;
    if (tl_sep.app != NULL && phKernel != NULL) *phKernel = tl_sep.app;
    tl_sep.app = NULL;
    tl_sep.code = 0;
    return code;
}
