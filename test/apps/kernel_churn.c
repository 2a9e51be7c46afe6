/*
 * zestall-kernel-churn: threads that create, launch and destroy kernels
 * (and now and then their modules) at once, so that the driver gives one
 * thread's freed handle to another thread's new object while the first
 * thread is still inside zeKernelDestroy or zeModuleDestroy. A tool that
 * forgets a handle's entries after the driver freed it (in a destroy
 * epilogue) then forgets the new object's entries instead
 * (docs/level-zero-loader.md §10 "Hazards", P17).
 *
 *   zestall-kernel-churn [iterations [threads [module_every]]]
 *
 * Each of `threads` threads (default 3, at most 8) runs `iterations`
 * iterations (default 3000) on its own immediate command list: it creates
 * one kernel of its current module, sets its arguments and group size (64),
 * launches it with the group count {1 + name index, 1 + thread, 1},
 * synchronises (a barrier signalling an event) and destroys the kernel.
 * Every `module_every` iterations (default 4; 0: never) it destroys its
 * module and creates the next one, stream and compute in turn (the binaries
 * are read once). The name index is the kernel's position in the line
 *   names N0 N1 ...
 * printed first (every kernel of the modules used, stream's then
 * compute's), so a reader of the profile knows which kernel each launch ran.
 *
 * Handle reuse is counted as the application sees it: a new kernel (or
 * module) whose handle another thread destroyed last is a cross-thread
 * reuse; one whose handle another thread is destroying right now (its
 * zeKernelDestroy or zeModuleDestroy has not returned) is a reuse during a
 * destroy, the race of P17. Glibc keeps freed memory per thread (tcache,
 * arenas): run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0:
 * glibc.malloc.arena_max=1 so the driver's freed objects go to any thread,
 * and with ZESIM_DESTROY_PAUSE_NS=20000 so the simulated driver's destroys
 * return late enough for other threads to create objects meanwhile
 * (thousands of kernels and about a hundred modules per run, against none
 * or a handful without; test/e2e/churn_test.go). The last line:
 *   kernel-churn threads T iterations I launches L kernels K modules M
 *   kernel_reuse_cross A kernel_reuse_during_destroy B
 *   module_reuse_cross C module_reuse_during_destroy D
 */
#include "app_common.h"

#include <pthread.h>
#include <stdatomic.h>

#define N 1024
#define MAX_THREADS 8
#define MAX_NAMES 16
#define SEEN_SLOTS 65536 /* handles remembered with their last destroyer */

static const char *const hints[2] = {"stream", "compute"};
static uint8_t *bins[2];
static size_t bin_sizes[2];
static char *names[MAX_NAMES];
static uint32_t nnames;

static app_env_t env;
static void *bufs[3];
static long iterations, module_every;
static int nthreads;

/* Per kind (0 kernel, 1 module): the handle each thread is destroying. */
static _Atomic uintptr_t destroying[2][MAX_THREADS];
/* Per kind: handle -> 1 + the thread that destroyed it last. */
static struct {
    uintptr_t handle;
    int thread;
} seen[2][SEEN_SLOTS];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_long reuse_cross[2], reuse_during[2], kernels_made, modules_made;

static size_t slot_of(int kind, uintptr_t h) {
    size_t i = (size_t)((h >> 4) * 0x9E3779B97F4A7C15ull >> 48) % SEEN_SLOTS;
    for (size_t n = 0; n < SEEN_SLOTS; n++, i = (i + 1) % SEEN_SLOTS)
        if (seen[kind][i].handle == h || seen[kind][i].handle == 0) return i;
    return SIZE_MAX; /* full: not remembered */
}

/* A thread made an object of `kind` with handle h: count reuses. */
static void made(int kind, int self, uintptr_t h) {
    for (int u = 0; u < nthreads; u++)
        if (u != self && atomic_load(&destroying[kind][u]) == h) {
            atomic_fetch_add(&reuse_during[kind], 1);
            break;
        }
    pthread_mutex_lock(&seen_lock);
    size_t i = slot_of(kind, h);
    if (i != SIZE_MAX && seen[kind][i].handle == h && seen[kind][i].thread != self)
        atomic_fetch_add(&reuse_cross[kind], 1);
    pthread_mutex_unlock(&seen_lock);
}

/* A thread is about to destroy the object of `kind` with handle h. */
static void destroying_begin(int kind, int self, uintptr_t h) {
    pthread_mutex_lock(&seen_lock);
    size_t i = slot_of(kind, h);
    if (i != SIZE_MAX) {
        seen[kind][i].handle = h;
        seen[kind][i].thread = self;
    }
    pthread_mutex_unlock(&seen_lock);
    atomic_store(&destroying[kind][self], h);
}

static ze_module_handle_t module_create(int which, int self) {
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_NATIVE, bin_sizes[which], bins[which],
                           "", NULL};
    ze_module_handle_t m = NULL;
    CK(zeModuleCreate(env.context, env.device, &md, &m, NULL));
    atomic_fetch_add(&modules_made, 1);
    if (self >= 0) made(1, self, (uintptr_t)m);
    return m;
}

static void module_destroy(ze_module_handle_t m, int self) {
    destroying_begin(1, self, (uintptr_t)m);
    CK(zeModuleDestroy(m));
    atomic_store(&destroying[1][self], 0);
}

static uint32_t name_index(const char *name) {
    for (uint32_t i = 0; i < nnames; i++)
        if (strcmp(names[i], name) == 0) return i;
    app_die("kernel name not in the names line");
    return 0;
}

static void *worker(void *arg) {
    int self = (int)(intptr_t)arg;
    ze_command_list_handle_t imm = app_imm_list(&env, env.compute_ordinal, 0);
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t done = app_event(pool, 0, true);
    int which = self % 2;
    ze_module_handle_t mod = module_create(which, self);
    char **mnames;
    uint32_t mn = app_kernel_names(mod, &mnames);
    for (long i = 0; i < iterations; i++) {
        if (module_every > 0 && i > 0 && i % module_every == 0) {
            module_destroy(mod, self);
            app_free_names(mnames, mn);
            which ^= 1;
            mod = module_create(which, self);
            mn = app_kernel_names(mod, &mnames);
        }
        const char *name = mnames[(uint32_t)(i + self) % mn];
        ze_kernel_handle_t k = app_kernel(mod, name);
        atomic_fetch_add(&kernels_made, 1);
        made(0, self, (uintptr_t)k);
        app_set_args(k, name, bufs, 3, 64, 256);
        ze_group_count_t g = {1 + name_index(name), 1 + (uint32_t)self, 1};
        CK(zeCommandListAppendLaunchKernel(imm, k, &g, NULL, 0, NULL));
        CK(zeCommandListAppendBarrier(imm, done, 0, NULL));
        CK(zeEventHostSynchronize(done, UINT64_MAX));
        CK(zeEventHostReset(done));
        destroying_begin(0, self, (uintptr_t)k);
        CK(zeKernelDestroy(k));
        atomic_store(&destroying[0][self], 0);
    }
    module_destroy(mod, self);
    app_free_names(mnames, mn);
    CK(zeEventDestroy(done));
    CK(zeEventPoolDestroy(pool));
    CK(zeCommandListDestroy(imm));
    return NULL;
}

int main(int argc, char **argv) {
    iterations = argc > 1 ? strtol(argv[1], NULL, 0) : 3000;
    nthreads = argc > 2 ? (int)strtol(argv[2], NULL, 0) : 3;
    module_every = argc > 3 ? strtol(argv[3], NULL, 0) : 4;
    if (iterations < 1 || iterations > 100000000 || nthreads < 2 || nthreads > MAX_THREADS || module_every < 0)
        app_die("usage: zestall-kernel-churn [iterations [threads(2-8) [module_every]]]");
    app_init(&env);
    for (int b = 0; b < 2; b++) {
        char path[600];
        if (!app_find_kernel_file(hints[b], "zebin", path, sizeof path)) {
            fprintf(stderr, "error: no kernel file %s*.zebin in %s (set ZESTALL_KERNELS)\n", hints[b], app_kernel_dir());
            return 1;
        }
        bins[b] = app_read_file(path, &bin_sizes[b]);
        if (bins[b] == NULL) app_die("cannot read a kernel file");
        /* the names line: every kernel of both modules, in order */
        ze_module_handle_t m = module_create(b, -1);
        char **mn;
        uint32_t n = app_kernel_names(m, &mn);
        for (uint32_t i = 0; i < n && nnames < MAX_NAMES; i++) names[nnames++] = strdup(mn[i]);
        app_free_names(mn, n);
        CK(zeModuleDestroy(m));
    }
    printf("names");
    for (uint32_t i = 0; i < nnames; i++) printf(" %s", names[i]);
    printf("\n");
    fflush(stdout);
    for (int i = 0; i < 3; i++) bufs[i] = app_alloc_device(&env, N * sizeof(float));

    pthread_t th[MAX_THREADS];
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) != 0) app_die("pthread_create");
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);

    for (int i = 0; i < 3; i++) CK(zeMemFree(env.context, bufs[i]));
    for (uint32_t i = 0; i < nnames; i++) free(names[i]);
    for (int b = 0; b < 2; b++) free(bins[b]);
    app_fini(&env);
    printf("kernel-churn threads %d iterations %ld launches %ld kernels %ld modules %ld kernel_reuse_cross %ld "
           "kernel_reuse_during_destroy %ld module_reuse_cross %ld module_reuse_during_destroy %ld\n",
           nthreads, iterations, (long)nthreads * iterations, atomic_load(&kernels_made), atomic_load(&modules_made),
           atomic_load(&reuse_cross[0]), atomic_load(&reuse_during[0]), atomic_load(&reuse_cross[1]),
           atomic_load(&reuse_during[1]));
    return 0;
}
