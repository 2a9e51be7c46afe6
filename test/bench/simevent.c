/*
 * zestall-bench-simevent: the simulated driver's own cost per call of the
 * event operations a profiler's harvester makes, in isolation (issue 14;
 * test/sim/README.md "Cost"; BENCHMARKS.md).
 *   zestall-bench-simevent [rounds = 50] [batch = 4096] [cold = 0]
 * One thread, one immediate list, a kernel-timestamp pool of `batch`
 * events. Each round times, per call and on the thread's CPU clock:
 *   append        zeCommandListAppendLaunchKernel without a signal event
 *   append+signal the same launch signalling event i (i = 0 .. batch-1)
 *   ts first      zeEventQueryKernelTimestamp of each event, the first
 *                 access after the appends (what a harvester does)
 *   ts again      the same query again
 *   status        zeEventQueryStatus of each event
 *   reset         zeEventHostReset of each event
 * With cold = 1 the thread writes 16 MiB of other memory (not timed)
 * after the appends and after the first queries, so the queries and the
 * reset meet cold caches, as a profiler's harvester does, which reads
 * events long after they were appended, on a machine running the
 * application (on Intel's driver the first read of an event's memory
 * after the device wrote it misses the cache too).
 * Runs once through the loader (libze_loader, as an application calls) and once
 * straight into the simulator's functions (its DDI tables, taken from the
 * library the loader loaded), so the loader's dispatch shows apart. Prints
 * one JSON line per path with the median over rounds of ns per call.
 * Every query must succeed with end >= start (the kernel never spans a
 * wrap), or the benchmark fails. ZE_ENABLE_ALT_DRIVERS must name the
 * simulated driver (never let the loader open Intel's).
 * It sets ZESIM_TIME_SCALE=0 (kernels take no device time), so every event
 * is signalled by the time it is queried: the cost of reading completed
 * work, which is what a harvester reads almost always.
 */
#include <dlfcn.h>
#include <time.h>

#include <level_zero/ze_ddi.h>

#include "../apps/app_common.h"

enum { OP_APPEND, OP_APPEND_SIGNAL, OP_TS_FIRST, OP_TS_AGAIN, OP_STATUS, OP_RESET, NOPS };
static const char *const op_names[NOPS] = {"append", "append_signal", "ts_first", "ts_again", "status", "reset"};

typedef struct calls {
    ze_result_t(ZE_APICALL *append)(ze_command_list_handle_t, ze_kernel_handle_t, const ze_group_count_t *,
                                     ze_event_handle_t, uint32_t, ze_event_handle_t *);
    ze_result_t(ZE_APICALL *ts)(ze_event_handle_t, ze_kernel_timestamp_result_t *);
    ze_result_t(ZE_APICALL *status)(ze_event_handle_t);
    ze_result_t(ZE_APICALL *reset)(ze_event_handle_t);
} calls_t;

static uint8_t *cold_buf; /* cold = 1: written between the phases */
#define COLD_BYTES (16u << 20)

static void evict(void) {
    if (cold_buf == NULL) return;
    for (size_t i = 0; i < COLD_BYTES; i += 64) cold_buf[i]++;
}

static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void check(ze_result_t r, const char *what) {
    if (r != ZE_RESULT_SUCCESS) {
        fprintf(stderr, "zestall-bench-simevent: %s returned 0x%x\n", what, (unsigned)r);
        exit(1);
    }
}

/* One path: rounds × batch calls of each operation; per[op][round] = ns per call. */
static void run(const char *path, const calls_t *c, ze_command_list_handle_t l, ze_kernel_handle_t k,
                ze_event_handle_t *ev, uint32_t batch, int rounds) {
    double *per[NOPS];
    for (int o = 0; o < NOPS; o++)
        if ((per[o] = calloc((size_t)rounds, sizeof(double))) == NULL) app_die("out of memory");
    ze_group_count_t g = {1, 1, 1};
    ze_kernel_timestamp_result_t ts;
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = cpu_ns();
        for (uint32_t i = 0; i < batch; i++) check(c->append(l, k, &g, NULL, 0, NULL), "append");
        uint64_t t1 = cpu_ns();
        for (uint32_t i = 0; i < batch; i++) check(c->append(l, k, &g, ev[i], 0, NULL), "append with signal");
        uint64_t t2 = cpu_ns();
        evict();
        uint64_t t2c = cpu_ns();
        for (uint32_t i = 0; i < batch; i++) {
            check(c->ts(ev[i], &ts), "zeEventQueryKernelTimestamp (first)");
            if (ts.global.kernelEnd < ts.global.kernelStart) app_die("kernel end before start");
        }
        uint64_t t3 = cpu_ns();
        for (uint32_t i = 0; i < batch; i++) check(c->ts(ev[i], &ts), "zeEventQueryKernelTimestamp (again)");
        uint64_t t4 = cpu_ns();
        for (uint32_t i = 0; i < batch; i++) check(c->status(ev[i]), "zeEventQueryStatus");
        uint64_t t5 = cpu_ns();
        evict();
        uint64_t t5c = cpu_ns();
        for (uint32_t i = 0; i < batch; i++) check(c->reset(ev[i]), "zeEventHostReset");
        uint64_t t6 = cpu_ns();
        /* the phases, without the eviction between them */
        uint64_t start[] = {t0, t1, t2c, t3, t4, t5c}, stop[] = {t1, t2, t3, t4, t5, t6};
        for (int o = 0; o < NOPS; o++) per[o][r] = (double)(stop[o] - start[o]) / batch;
        if (c->status(ev[0]) != ZE_RESULT_NOT_READY) app_die("an event is signalled after its host reset");
    }
    printf("{\"path\":\"%s\",\"rounds\":%d,\"batch\":%u,\"cold\":%d", path, rounds, batch, cold_buf != NULL);
    for (int o = 0; o < NOPS; o++) {
        qsort(per[o], (size_t)rounds, sizeof(double), cmp_double);
        printf(",\"%s_ns\":%.1f", op_names[o], per[o][rounds / 2]);
        free(per[o]);
    }
    printf("}\n");
    fflush(stdout);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 50;
    long batch = argc > 2 ? strtol(argv[2], NULL, 0) : 4096;
    int cold = argc > 3 ? atoi(argv[3]) : 0;
    if (rounds < 1 || batch < 1 || batch > 65536 || cold < 0 || cold > 1)
        app_die("usage: zestall-bench-simevent [rounds] [batch <= 65536] [cold 0|1]");
    if (cold && (cold_buf = calloc(1, COLD_BYTES)) == NULL) app_die("out of memory");
    const char *sim = getenv("ZE_ENABLE_ALT_DRIVERS");
    if (sim == NULL || *sim == 0 || strchr(sim, ',') != NULL)
        app_die("ZE_ENABLE_ALT_DRIVERS must name the simulated driver (one library)");
    setenv("ZESIM_TIME_SCALE", "0", 1);
    app_env_t env;
    app_init(&env);
    ze_module_handle_t mod = app_module(&env, "stream");
    char **names;
    uint32_t nk;
    char *kname = app_first_kernel_name(mod, &names, &nk);
    void *bufs[1] = {app_alloc_device(&env, 4096)};
    ze_kernel_handle_t k = app_kernel(mod, kname);
    app_set_args(k, kname, bufs, 1, 1, 64);
    ze_command_list_handle_t l = app_imm_list(&env, env.compute_ordinal, 0);
    ze_event_pool_handle_t pool =
        app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, (uint32_t)batch);
    ze_event_handle_t *ev = calloc((size_t)batch, sizeof *ev);
    if (ev == NULL) app_die("out of memory");
    for (uint32_t i = 0; i < (uint32_t)batch; i++) ev[i] = app_event(pool, i, true);

    calls_t loader = {zeCommandListAppendLaunchKernel, zeEventQueryKernelTimestamp, zeEventQueryStatus,
                      zeEventHostReset};
    /* The simulator's own functions: the library the loader has loaded
     * (RTLD_NOLOAD: never a second copy), through its DDI getters. */
    void *lib = dlopen(sim, RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL) app_die("the simulated driver is not loaded (ZE_ENABLE_ALT_DRIVERS)");
    ze_pfnGetEventProcAddrTable_t get_ev = (ze_pfnGetEventProcAddrTable_t)dlsym(lib, "zeGetEventProcAddrTable");
    ze_pfnGetCommandListProcAddrTable_t get_cl =
        (ze_pfnGetCommandListProcAddrTable_t)dlsym(lib, "zeGetCommandListProcAddrTable");
    if (get_ev == NULL || get_cl == NULL) app_die("the simulated driver has no DDI getters");
    ze_event_dditable_t et;
    ze_command_list_dditable_t ct;
    memset(&et, 0, sizeof et);
    memset(&ct, 0, sizeof ct);
    check(get_ev(ZE_API_VERSION_CURRENT, &et), "zeGetEventProcAddrTable");
    check(get_cl(ZE_API_VERSION_CURRENT, &ct), "zeGetCommandListProcAddrTable");
    calls_t direct = {ct.pfnAppendLaunchKernel, et.pfnQueryKernelTimestamp, et.pfnQueryStatus, et.pfnHostReset};

    /* Warm-up (first touches, the engine's rings), then both paths twice,
     * alternating, so that neither has the warm caches alone. */
    run("warmup", &loader, l, k, ev, (uint32_t)batch, 2);
    for (int rep = 0; rep < 2; rep++) {
        run("loader", &loader, l, k, ev, (uint32_t)batch, rounds);
        run("direct", &direct, l, k, ev, (uint32_t)batch, rounds);
    }

    for (uint32_t i = 0; i < (uint32_t)batch; i++) CK(zeEventDestroy(ev[i]));
    CK(zeEventPoolDestroy(pool));
    CK(zeCommandListDestroy(l));
    CK(zeKernelDestroy(k));
    app_free_names(names, nk);
    CK(zeMemFree(env.context, bufs[0]));
    CK(zeModuleDestroy(mod));
    app_fini(&env);
    dlclose(lib);
    return 0;
}
