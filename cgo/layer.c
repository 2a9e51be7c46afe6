/*
 * layer.c — zestall's C glue to the Level-Zero loader (1.8.12) and its
 * tracing layer.
 *
 * Activation (docs/level-zero-loader.md §5 "The tracing layer", §7
 * "Interposing zeInit", and §10 "Hazards", P2, P3, P16):
 *   - zestall never calls zeInit itself: a constructor-time zeInit would
 *     freeze the application's ZE_* configuration before main
 *     (docs/level-zero-loader.md §10 "Hazards", P3).
 *   - It interposes zeInit: the application's own call reaches the loader
 *     first; only after it *succeeded* is the tracer created. After a failed
 *     zeInit no Level-Zero call is made at all
 *     (docs/level-zero-loader.md §10 "Hazards", P2).
 *   - Without ZE_ENABLE_TRACING_LAYER=1, zelTracerCreate fails; zestall
 *     says so once on stderr and stays out of the way
 *     (docs/level-zero-loader.md §10 "Hazards", P16).
 *
 * Trampolines stay in C; Go is called only for rare events (module and
 * kernel creation). A forked child never enters Go
 * (docs/level-zero-loader.md §10 "Hazards", P8), and nothing
 * here ever exits or aborts the process.
 */
#include "layer.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <level_zero/zet_api.h>
#include <level_zero/layers/zel_tracing_api.h>
#include <level_zero/layers/zel_tracing_register_cb.h>
#include <level_zero/loader/ze_loader.h>

#include "_cgo_export.h"
#include "launch.h"
#include "separate.h"
#include "xpti.h"

static atomic_int layer_state = ZESTALL_STATE_IDLE;
static atomic_bool in_fork_child = false;
static atomic_bool init_seen = false;
static zel_tracer_handle_t tracer;

typedef ze_result_t (*zex_kernel_get_base_address_t)(ze_kernel_handle_t, uint64_t *);
typedef ze_result_t (*ze_intel_kernel_get_binary_t)(ze_kernel_handle_t, size_t *, char *);
static zex_kernel_get_base_address_t pfn_base_address;
static ze_intel_kernel_get_binary_t pfn_kernel_binary;

int zestall_state(void) { return atomic_load(&layer_state); }
int zestall_in_fork_child(void) { return atomic_load(&in_fork_child); }

static int go_allowed(void) {
    return !atomic_load_explicit(&in_fork_child, memory_order_relaxed) &&
           atomic_load_explicit(&layer_state, memory_order_relaxed) == ZESTALL_STATE_ACTIVE;
}

/* ---- trampolines -------------------------------------------------------- */

static void ZE_APICALL on_module_create(ze_module_create_params_t *p, ze_result_t r,
                                        void *user, void **inst) {
    (void)user;
    (void)inst;
    if (r != ZE_RESULT_SUCCESS || !go_allowed() || p->pphModule == NULL || *p->pphModule == NULL) return;
    if (zsep_internal_thread()) return; /* a module copy of zestall's (separate.c) */
    zsep_module_seen(**p->pphModule, *p->phContext, *p->pdesc != NULL ? (*p->pdesc)->pBuildFlags : NULL);
    zestallModuleCreated(**p->pphModule, *p->phDevice);
}

/* The destroy callbacks are prologues: in an epilogue the driver has
 * freed the handle already, and a module or kernel created meanwhile on
 * another thread (or by zestall's own copies, separate.c) may have the same
 * address, whose entries the epilogue would then forget
 * (docs/level-zero-loader.md §10 "Hazards", P17). A destroy that fails
 * (the application destroys a module still in use) is then forgotten all
 * the same: the application may not use the object afterwards anyway. */
static void ZE_APICALL on_module_destroy(ze_module_destroy_params_t *p, ze_result_t r,
                                         void *user, void **inst) {
    (void)r;
    (void)user;
    (void)inst;
    if (!go_allowed() || zsep_internal_thread()) return;
    zestallModuleDestroyed(*p->phModule);
    zsep_module_destroyed(*p->phModule);
}

static void ZE_APICALL on_kernel_create(ze_kernel_create_params_t *p, ze_result_t r,
                                        void *user, void **inst) {
    (void)user;
    (void)inst;
    if (r != ZE_RESULT_SUCCESS || !go_allowed() || p->pphKernel == NULL || *p->pphKernel == NULL) return;
    ze_kernel_handle_t k = **p->pphKernel;
    zsep_kernel_flags(*p->pdesc != NULL ? (*p->pdesc)->flags : 0);
    zestallKernelCreated(k, *p->phModule, zl_kernel_created(k));
}

static void ZE_APICALL on_kernel_destroy(ze_kernel_destroy_params_t *p, ze_result_t r,
                                         void *user, void **inst) {
    (void)r;
    (void)user;
    (void)inst;
    if (!go_allowed()) return;
    zl_kernel_destroyed(*p->phKernel);
    zestallKernelDestroyed(*p->phKernel);
    zsep_kernel_destroyed(*p->phKernel);
}

/* ---- activation --------------------------------------------------------- */

static void resolve_extensions(void) {
    uint32_t n = 0;
    if (zeDriverGet(&n, NULL) != ZE_RESULT_SUCCESS || n == 0) return;
    ze_driver_handle_t drivers[8];
    if (n > 8) n = 8;
    if (zeDriverGet(&n, drivers) != ZE_RESULT_SUCCESS) return;
    /* One lookup per process for now: the first driver that has it. */
    for (uint32_t i = 0; i < n && pfn_base_address == NULL; i++) {
        void *f = NULL;
        if (zeDriverGetExtensionFunctionAddress(drivers[i], "zexKernelGetBaseAddress", &f) == ZE_RESULT_SUCCESS)
            pfn_base_address = (zex_kernel_get_base_address_t)f;
        f = NULL;
        if (zeDriverGetExtensionFunctionAddress(drivers[i], "zeIntelKernelGetBinaryExp", &f) == ZE_RESULT_SUCCESS)
            pfn_kernel_binary = (ze_intel_kernel_get_binary_t)f;
    }
}

#define MAX_DEVICES 64
static zestall_device_info_t devices[MAX_DEVICES];
static int num_devices;

int zestall_device_count(void) { return num_devices; }
const zestall_device_info_t *zestall_device(int i) {
    return (i >= 0 && i < num_devices) ? &devices[i] : NULL;
}

static void add_device(ze_device_handle_t h, int parent) {
    if (num_devices == MAX_DEVICES) return;
    zestall_device_info_t *d = &devices[num_devices];
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    if (zeDeviceGetProperties(h, &p) != ZE_RESULT_SUCCESS) return;
    memset(d, 0, sizeof *d);
    d->handle = h;
    d->parent = parent;
    d->sub_index = (p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) ? (int)p.subdeviceId : -1;
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->device_id = p.deviceId;
    memcpy(d->uuid, p.uuid.id, sizeof d->uuid);
    d->xe_cores = p.numSlices * p.numSubslicesPerSlice;
    d->timer_hz = p.timerResolution; /* cycles/s with the 1.2 stype */
    d->timestamp_bits = p.timestampValidBits;
    d->kernel_timestamp_bits = p.kernelTimestampValidBits;
    num_devices++;
}

/* Enumerate every device before the tracer is enabled, so these calls are
 * not traced. */
static void enumerate_devices(void) {
    uint32_t nd = 0;
    if (zeDriverGet(&nd, NULL) != ZE_RESULT_SUCCESS || nd == 0) return;
    ze_driver_handle_t drivers[8];
    if (nd > 8) nd = 8;
    if (zeDriverGet(&nd, drivers) != ZE_RESULT_SUCCESS) return;
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t n = 0;
        if (zeDeviceGet(drivers[i], &n, NULL) != ZE_RESULT_SUCCESS || n == 0) continue;
        ze_device_handle_t roots[MAX_DEVICES];
        if (n > MAX_DEVICES) n = MAX_DEVICES;
        if (zeDeviceGet(drivers[i], &n, roots) != ZE_RESULT_SUCCESS) continue;
        for (uint32_t r = 0; r < n; r++) {
            int root = num_devices;
            add_device(roots[r], -1);
            if (root == num_devices) continue;
            uint32_t ns = 0;
            if (zeDeviceGetSubDevices(roots[r], &ns, NULL) != ZE_RESULT_SUCCESS || ns == 0) continue;
            ze_device_handle_t subs[16];
            if (ns > 16) ns = 16;
            if (zeDeviceGetSubDevices(roots[r], &ns, subs) != ZE_RESULT_SUCCESS) continue;
            for (uint32_t s = 0; s < ns; s++) add_device(subs[s], root);
        }
    }
}

/* Writer-preferring, so that a fork is not starved by a stream of reads. */
static pthread_rwlock_t driver_lock;

static void driver_lock_init(void) {
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&driver_lock, &a);
    pthread_rwlockattr_destroy(&a);
}

void zestall_driver_enter(void) { pthread_rwlock_rdlock(&driver_lock); }
void zestall_driver_leave(void) { pthread_rwlock_unlock(&driver_lock); }

/* Registered at activation, after the driver's own fork handlers:
 * prepare handlers run in reverse order of registration, so zestall's
 * threads leave the driver before the driver takes its locks for the fork
 * (the simulated driver takes its ground-truth lock, which a read needs). */
static void driver_fork_prepare(void) { pthread_rwlock_wrlock(&driver_lock); }
static void driver_fork_parent(void) { pthread_rwlock_unlock(&driver_lock); }
/* The child's thread has another id than the writer that took the lock:
 * glibc would not unlock it as the writer. Nothing else runs: start anew. */
static void driver_fork_child(void) { driver_lock_init(); }

static void create_tracer(void) {
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, NULL};
    ze_result_t r = zelTracerCreate(&desc, &tracer);
    if (r != ZE_RESULT_SUCCESS) {
        atomic_store(&layer_state, r == ZE_RESULT_ERROR_UNINITIALIZED ? ZESTALL_STATE_NO_TRACING
                                                                      : ZESTALL_STATE_ERROR);
        zestallReport(atomic_load(&layer_state), (uint32_t)r);
        return;
    }
    /* Per-API registration only (the table setters would erase it:
     * docs/level-zero-loader.md §10 "Hazards", P6). */
    zelTracerModuleCreateRegisterCallback(tracer, ZEL_REGISTER_EPILOGUE, on_module_create);
    zelTracerModuleDestroyRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_module_destroy);
    zelTracerKernelCreateRegisterCallback(tracer, ZEL_REGISTER_EPILOGUE, on_kernel_create);
    zelTracerKernelDestroyRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_kernel_destroy);
    zl_register(tracer);
    resolve_extensions();
    enumerate_devices();
    pthread_atfork(driver_fork_prepare, driver_fork_parent, driver_fork_child);
    atomic_store(&layer_state, ZESTALL_STATE_ACTIVE);
    r = zelTracerSetEnabled(tracer, 1);
    if (r != ZE_RESULT_SUCCESS) {
        atomic_store(&layer_state, ZESTALL_STATE_ERROR);
        zestallReport(ZESTALL_STATE_ERROR, (uint32_t)r);
        return;
    }
    zestallReport(ZESTALL_STATE_ACTIVE, 0);
}

/* The interposer. Applications that link libze_loader resolve zeInit here
 * first because libzestall.so is preloaded. */
ZE_APIEXPORT ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags) {
    typedef ze_result_t(ZE_APICALL * init_fn_t)(ze_init_flags_t);
    static _Atomic(init_fn_t) real_init;
    if (real_init == NULL) real_init = (init_fn_t)dlsym(RTLD_NEXT, "zeInit");
    if (real_init == NULL) return ZE_RESULT_ERROR_UNINITIALIZED;
    ze_result_t r = real_init(flags);
    if (atomic_load(&in_fork_child)) return r;
    if (r != ZE_RESULT_SUCCESS) {
        /* A failed zeInit is cached by the loader forever: never touch L0. */
        int expected = ZESTALL_STATE_IDLE;
        if (atomic_compare_exchange_strong(&layer_state, &expected, ZESTALL_STATE_INIT_FAILED))
            zestallReport(ZESTALL_STATE_INIT_FAILED, (uint32_t)r);
        return r;
    }
    bool first = false;
    if (atomic_compare_exchange_strong(&init_seen, &first, true)) {
        if (atomic_load(&layer_state) == ZESTALL_STATE_IDLE) create_tracer();
    }
    return r;
}

/* ---- dlsym interposer ---------------------------------------------------- */

/* Applications and runtimes that dlopen the loader and resolve zeInit with
 * dlsym would bypass the zeInit interposer (docs/level-zero-loader.md §7
 * "Interposing zeInit"). zestall also
 * interposes dlsym and answers "zeInit" with its own interposer, which
 * forwards to the same loader: libzestall.so links libze_loader, so the
 * application's dlopen returns that very instance. Every other lookup goes
 * to glibc's dlsym unchanged. */
typedef void *(*dlsym_fn_t)(void *, const char *);
static _Atomic(dlsym_fn_t) real_dlsym;

static dlsym_fn_t get_real_dlsym(void) {
    dlsym_fn_t f = atomic_load(&real_dlsym);
    if (f == NULL) {
        f = (dlsym_fn_t)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (f == NULL) f = (dlsym_fn_t)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        atomic_store(&real_dlsym, f);
    }
    return f;
}

ZE_APIEXPORT void *dlsym(void *handle, const char *symbol) {
    dlsym_fn_t real = get_real_dlsym();
    if (real == NULL) return NULL;
    if (handle != RTLD_NEXT && strcmp(symbol, "zeInit") == 0 && !atomic_load(&in_fork_child)) {
        void *found = real(handle, symbol);
        /* Only redirect a lookup that would have found the loader's zeInit. */
        if (found != NULL && found == real(RTLD_NEXT, "zeInit")) return (void *)zeInit;
        return found;
    }
    return real(handle, symbol);
}

/* ---- helpers called from Go --------------------------------------------- */

ze_result_t zestall_module_native_binary(ze_module_handle_t m, void *buf, size_t *size) {
    return zeModuleGetNativeBinary(m, size, (uint8_t *)buf);
}

ze_result_t zestall_module_debug_info(ze_module_handle_t m, void *buf, size_t *size) {
    return zetModuleGetDebugInfo((zet_module_handle_t)m, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, size,
                                 (uint8_t *)buf);
}

ze_result_t zestall_kernel_base_address(ze_kernel_handle_t k, uint64_t *base) {
    if (pfn_base_address == NULL) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    /* Extension entry points get raw driver handles (intercept mode,
     * docs/level-zero-loader.md §6 "Intercept mode and
     * zelLoaderTranslateHandle"). */
    void *drv = k;
    if (zelLoaderTranslateHandle(ZEL_HANDLE_KERNEL, k, &drv) != ZE_RESULT_SUCCESS) drv = k;
    return pfn_base_address((ze_kernel_handle_t)drv, base);
}

ze_result_t zestall_kernel_binary(ze_kernel_handle_t k, void *buf, size_t *size) {
    if (pfn_kernel_binary == NULL) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    void *drv = k;
    if (zelLoaderTranslateHandle(ZEL_HANDLE_KERNEL, k, &drv) != ZE_RESULT_SUCCESS) drv = k;
    return pfn_kernel_binary((ze_kernel_handle_t)drv, size, (char *)buf);
}

ze_result_t zestall_kernel_name(ze_kernel_handle_t k, char *buf, size_t *size) {
    return zeKernelGetName(k, size, buf);
}

/* ---- process lifetime ---------------------------------------------------- */


static void atfork_child(void) {
    /* The child has one thread; Go code that allocates would hang
     * (docs/level-zero-loader.md §10 "Hazards", P8). */
    atomic_store(&in_fork_child, true);
    zl_set_enabled(0);
    zx_stop_draining(); /* no Go here to drain the XPTI ring: never wait for it */
}

__attribute__((constructor)) static void zestall_ctor(void) {
    driver_lock_init();
    pthread_atfork(NULL, NULL, atfork_child);
}

/* ---- threads still calling Level-Zero while the process exits ----------- */

/* The loader's tracing layer crashes when a thread calls through it while
 * the process exits: its destructor frees its global tracer state, and a
 * thread still inside a traced call then faults in libze_tracing_layer.so.1
 * (docs/level-zero-loader.md §10 "Hazards", P1; it happens with no tracer
 * at all: test/e2e TestExitFromThread measures both). Destructors run on
 * the thread that called exit(); every other thread keeps running.
 * zestall's destructor runs before the tracing layer's (we link the
 * loader, P10), and its shutdown takes milliseconds, so it keeps the
 * application's launching threads away from the layer's teardown: before
 * the shutdown it enables one more tracer whose prologue and epilogue, for
 * every core API, park a thread that has launched kernels (one that owns a
 * launch ring: never one of zestall's own, whose calls the shutdown needs,
 * and never the exiting thread, whose calls are not traced anyway: docs/level-zero-loader.md §10 "Hazards", P7).
 * Such a thread reaches one of them at its next call and stays there until
 * exit_group ends it; the layer's state is then freed under none of them.
 * A park is bounded (EXIT_PARK_LIMIT_MS): should a later destructor wait
 * for a parked thread, exit is delayed, never hung. Threads that never
 * launched, or are blocked inside a call when the layer is torn down, are
 * not protected: the defect is the layer's. */
#define EXIT_PARK_LIMIT_MS 2000

static atomic_bool exit_parking;
static pthread_t exit_thread;

static void ZE_APICALL exit_park(void *params, ze_result_t r, void *user, void **instance) {
    (void)params, (void)r, (void)user, (void)instance;
    if (!atomic_load_explicit(&exit_parking, memory_order_acquire) || pthread_equal(pthread_self(), exit_thread) ||
        !zl_thread_launched())
        return;
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < EXIT_PARK_LIMIT_MS; i++) nanosleep(&ms, NULL);
}

static void park_launchers_until_exit(void) {
    zel_tracer_handle_t guard;
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, NULL};
    if (zelTracerCreate(&desc, &guard) != ZE_RESULT_SUCCESS) return;
    /* Every entry of the core table is a callback of the same shape
     * (params, result, tracer data, instance data). A fresh tracer: the
     * table setters erase nothing of ours: docs/level-zero-loader.md §10 "Hazards", P6. */
    static zel_core_callbacks_t cbs;
    void (*park)(void *, ze_result_t, void *, void **) = exit_park;
    void **slot = (void **)&cbs;
    for (size_t i = 0; i < sizeof cbs / sizeof(void *); i++) memcpy(&slot[i], &park, sizeof park);
    exit_thread = pthread_self();
    atomic_store_explicit(&exit_parking, true, memory_order_release);
    zelTracerSetPrologues(guard, &cbs);
    zelTracerSetEpilogues(guard, &cbs);
    zelTracerSetEnabled(guard, 1);
    /* Never destroyed: it must outlive this destructor. */
}

__attribute__((destructor)) static void zestall_dtor(void) {
    if (atomic_load(&in_fork_child)) return;
    int st = atomic_exchange(&layer_state, ZESTALL_STATE_SHUTDOWN);
    if (st == ZESTALL_STATE_ACTIVE) {
        /* The loader is still alive here (docs/level-zero-loader.md §10 "Hazards", P10:
         * we link it, so our
         * destructor runs first). Calls made now are not traced
         * (docs/level-zero-loader.md §10 "Hazards", P7). */
        zl_set_enabled(0);
        zelTracerSetEnabled(tracer, 0);
        park_launchers_until_exit();
        zx_stop_draining(); /* the last drain is Shutdown's: threads still notifying never wait */
        zestallShutdown();
        zelTracerDestroy(tracer);
    }
}
