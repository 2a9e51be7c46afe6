/*
 * separate.c — launch separation by module copies (issue 15).
 *
 * EU stall samples carry an instruction address only. Every zeModuleCreate
 * gets its own ISA allocation, also from an identical native binary, so
 * zestall makes, per eligible module (collector/attribution decides from
 * the zebin), a ring of copies with zeModuleCreate(ZE_MODULE_FORMAT_NATIVE)
 * on the module's context and device with the application's build flags,
 * and per application kernel one kernel in every copy. The launch prologue
 * replaces the launch's hKernel by the next code of the kernel's ring (the
 * original, copy 1, ..., copy n, the original again: one cursor per
 * (module, kernel name), shared by every handle of that kernel, so threads
 * with handles of their own still take distinct codes), after mirroring
 * onto the copy's kernel every piece of state the application set on its
 * own since that copy last ran. The application's kernel handle is never
 * changed: the tracing layer passes the driver whatever the prologue left
 * in the parameter (docs/level-zero-loader.md §5.4 "Prologues can replace
 * arguments"), and the epilogue puts the application's handle back.
 *
 * Calls made here inside a callback are not traced again
 * (docs/level-zero-loader.md §5.5 "Re-entrancy guard").
 *
 * Launch path: a lock-free zmap lookup, one atomic cursor, one atomic
 * exchange; when the application set nothing new, no driver call; no
 * allocation. A setter the copy cannot repeat (a failing
 * zeKernelSetArgumentValue, an unsupported hint) makes the launch keep the
 * original kernel (counted as a fallback), never a launch with other
 * state. Mirrored state: argument values (with their sizes, NULL values:
 * null pointers and SLM sizes), group size, indirect access flags, cache
 * configuration, global offset, scheduling hints. State set through
 * entry points the 1.8.12 tracing layer cannot see (driver extensions) is
 * not mirrored: see README "Launch separation".
 *
 * Lifetimes: copies die with the application's object (a kernel's copies
 * in its zeKernelDestroy epilogue, a module's in its zeModuleDestroy
 * epilogue): the application may destroy an object only when no command
 * list in flight uses it, and its launches ran the copies in its place.
 */
#include "separate.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <level_zero/layers/zel_tracing_register_cb.h>

#include "launch.h"
#include "layer.h"
#include "zmap.h"

#define ZL_TLS _Thread_local __attribute__((tls_model("initial-exec")))

static _Atomic uint32_t sep_copies;  /* 0: mode off */
static _Atomic uint64_t sep_reuse_ns;
static _Atomic uint64_t n_on_copies, n_early, n_fallbacks;

void zsep_configure(uint32_t copies, uint64_t reuse_ns) {
    if (copies > ZSEP_MAX_CODES - 1) copies = ZSEP_MAX_CODES - 1;
    atomic_store(&sep_reuse_ns, reuse_ns);
    atomic_store(&sep_copies, copies);
}

void zsep_counters(uint64_t *on_copies, uint64_t *early_reuses, uint64_t *fallbacks) {
    *on_copies = atomic_load_explicit(&n_on_copies, memory_order_relaxed);
    *early_reuses = atomic_load_explicit(&n_early, memory_order_relaxed);
    *fallbacks = atomic_load_explicit(&n_fallbacks, memory_order_relaxed);
}

/* ---- modules ---------------------------------------------------------------- */

/* One kernel function of a copied module: its ring cursor and when each
 * code was last given out. */
typedef struct zsep_func {
    struct zsep_func *next;
    char *name;
    _Atomic uint32_t cursor;
    _Atomic uint64_t last_use[ZSEP_MAX_CODES];
} zsep_func_t;

typedef struct zsep_module {
    struct zsep_module *next;
    ze_module_handle_t orig;
    ze_context_handle_t ctx;
    char *build_flags;
    uint32_t ncodes;                       /* 1 + copies; 1 until copied */
    ze_module_handle_t mods[ZSEP_MAX_CODES]; /* [0] is the original */
    zsep_func_t *funcs;                    /* under mod_lock */
} zsep_module_t;

static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;
static zsep_module_t *modules; /* under mod_lock; few, and only looked up at creation */

static zsep_module_t *module_find_locked(ze_module_handle_t m) {
    for (zsep_module_t *x = modules; x != NULL; x = x->next)
        if (x->orig == m) return x;
    return NULL;
}

void zsep_module_seen(ze_module_handle_t m, ze_context_handle_t ctx, const char *build_flags) {
    if (atomic_load(&sep_copies) == 0 || m == NULL) return;
    zsep_module_t *x = calloc(1, sizeof *x);
    if (x == NULL) return;
    x->orig = m;
    x->ctx = ctx;
    x->build_flags = build_flags != NULL ? strdup(build_flags) : NULL;
    x->ncodes = 1;
    x->mods[0] = m;
    pthread_mutex_lock(&mod_lock);
    x->next = modules;
    modules = x;
    pthread_mutex_unlock(&mod_lock);
}

uint32_t zsep_module_copy(ze_module_handle_t m, ze_device_handle_t dev, const void *native, size_t size,
                          uint32_t n, uint64_t *ns, ze_result_t *failed) {
    *ns = 0;
    *failed = ZE_RESULT_SUCCESS;
    if (n > ZSEP_MAX_CODES - 1) n = ZSEP_MAX_CODES - 1;
    pthread_mutex_lock(&mod_lock);
    zsep_module_t *x = module_find_locked(m);
    pthread_mutex_unlock(&mod_lock);
    if (x == NULL || n == 0 || native == NULL || size == 0) return 0;
    uint64_t t0 = zl_now_ns();
    ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_NATIVE, size,
                             (const uint8_t *)native, x->build_flags, NULL};
    uint32_t made = 0;
    for (; made < n; made++) {
        ze_module_handle_t c = NULL;
        ze_result_t r = zeModuleCreate(x->ctx, dev, &desc, &c, NULL);
        if (r != ZE_RESULT_SUCCESS || c == NULL) {
            *failed = r != ZE_RESULT_SUCCESS ? r : ZE_RESULT_ERROR_UNKNOWN;
            break;
        }
        x->mods[1 + made] = c;
    }
    if (made < n) { /* all or none */
        for (uint32_t i = 0; i < made; i++) zeModuleDestroy(x->mods[1 + i]);
        made = 0;
    }
    x->ncodes = 1 + made;
    *ns = zl_now_ns() - t0;
    return made;
}

void zsep_module_destroyed(ze_module_handle_t m) {
    pthread_mutex_lock(&mod_lock);
    zsep_module_t **pp = &modules;
    while (*pp != NULL && (*pp)->orig != m) pp = &(*pp)->next;
    zsep_module_t *x = *pp;
    if (x != NULL) *pp = x->next;
    pthread_mutex_unlock(&mod_lock);
    if (x == NULL) return;
    for (uint32_t i = 1; i < x->ncodes; i++) zeModuleDestroy(x->mods[i]);
    for (zsep_func_t *f = x->funcs, *nx; f != NULL; f = nx) {
        nx = f->next;
        free(f->name);
        free(f);
    }
    free(x->build_flags);
    free(x);
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
    uint32_t ncodes;
    ze_kernel_handle_t k[ZSEP_MAX_CODES]; /* [0] is the original */
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
static void kernels_init(void) { zmap_init(&skernels, 256); }

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
    for (uint32_t i = 1; i < s->ncodes; i++)
        if (s->k[i] != NULL) zeKernelDestroy(s->k[i]);
    for (uint32_t i = 0; i < s->nargs; i++) free(s->args[i].value);
    free(s->args);
    free(s);
}

uint32_t zsep_kernel_created(ze_kernel_handle_t k, ze_module_handle_t m, const char *name, uint64_t *bases,
                             uint32_t cap, ze_result_t *failed) {
    *failed = ZE_RESULT_SUCCESS;
    ze_kernel_flags_t flags = tl_kernel_flags;
    tl_kernel_flags = 0;
    if (atomic_load(&sep_copies) == 0 || k == NULL || name == NULL) return 0;
    pthread_once(&kernels_once, kernels_init);
    pthread_mutex_lock(&mod_lock);
    zsep_module_t *x = module_find_locked(m);
    zsep_func_t *f = NULL;
    if (x != NULL && x->ncodes > 1) {
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
    if (f == NULL) return 0;
    ze_kernel_properties_t props;
    memset(&props, 0, sizeof props);
    props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    ze_result_t r = zeKernelGetProperties(k, &props);
    if (r != ZE_RESULT_SUCCESS) {
        *failed = r;
        return 0;
    }
    zsep_kernel_t *s = calloc(1, sizeof *s);
    if (s == NULL) return 0;
    s->mod = x;
    s->func = f;
    s->orig = k;
    s->k[0] = k;
    s->nargs = props.numKernelArgs;
    s->args = calloc(s->nargs ? s->nargs : 1, sizeof *s->args);
    if (s->args == NULL) {
        free(s);
        return 0;
    }
    ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, flags, name};
    s->ncodes = 1;
    for (uint32_t i = 1; i < x->ncodes; i++) {
        ze_kernel_handle_t c = NULL;
        r = zeKernelCreate(x->mods[i], &desc, &c);
        uint64_t base = 0;
        if (r == ZE_RESULT_SUCCESS && c != NULL) r = zestall_kernel_base_address(c, &base);
        if (r != ZE_RESULT_SUCCESS || c == NULL || i - 1 >= cap) {
            if (c != NULL) zeKernelDestroy(c);
            *failed = r != ZE_RESULT_SUCCESS ? r : ZE_RESULT_ERROR_UNKNOWN;
            shadow_free(s);
            return 0;
        }
        s->k[i] = c;
        s->ncodes = i + 1;
        bases[i - 1] = base;
    }
    uint64_t v[ZMAP_WORDS] = {(uint64_t)(uintptr_t)s, 0, 0};
    if (!zmap_put(&skernels, (uintptr_t)k, v)) {
        shadow_free(s);
        return 0;
    }
    return s->ncodes - 1;
}

void zsep_kernel_destroyed(ze_kernel_handle_t k) {
    zsep_kernel_t *s = shadow_of(k);
    if (s == NULL) return;
    zmap_del(&skernels, (uintptr_t)k);
    shadow_free(s);
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
            s->ncodes = 1;
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
    if (s == NULL || s->ncodes < 2) return;
    zsep_func_t *f = s->func;
    uint32_t code = atomic_fetch_add_explicit(&f->cursor, 1, memory_order_relaxed) % s->ncodes;
    uint64_t now = zl_now_ns();
    uint64_t prev = atomic_exchange_explicit(&f->last_use[code], now, memory_order_relaxed);
    if (prev != 0 && now - prev < atomic_load_explicit(&sep_reuse_ns, memory_order_relaxed))
        atomic_fetch_add_explicit(&n_early, 1, memory_order_relaxed);
    if (code == 0) return;
    if (!mirror(s, code)) {
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
