/*
 * zestall-bench-launch: launch-bound micro-benchmark for measuring the
 * profiler's per-launch overhead.
 *   zestall-bench-launch [launches per thread = 100000] [threads = 1] [imm|regular|imm-events|regular-events] [launches/s per thread = 0] [waves = 1] [burst = 0] [idle ms = 0]
 * Each thread has its own command list (immediate, or regular executed on
 * its own queue every BATCH launches), launches one tiny kernel without
 * events, and measures its launch loop with CLOCK_MONOTONIC (wall) and
 * CLOCK_THREAD_CPUTIME_ID (CPU). Prints one line of JSON.
 * With a rate, each thread paces itself to that many launches per second
 * (checked every 64 launches, sleeping while ahead): the sustained-rate
 * benchmark (scripts/bench --sustained) looks for the highest rate a
 * profiler keeps up with. 0 launches as fast as possible.
 * With waves > 1 the threads are created, run and joined that many times
 * one after the other (new threads each time: an application that does
 * not keep a thread pool); the JSON then gives the process's VmSize after
 * the first wave and at the end, so growth per exited thread shows.
 * With a burst, each thread launches in bursts of that many launches
 * (at the rate given, or as fast as it can), sleeping idle ms before each
 * (the first too): bursts after idle periods, the case of a profiler's
 * harvester that slept through the idle period (issue 14, limit (a);
 * test/e2e/scale_test.go TestBurstAfterIdle). The sleeps are not counted
 * in wall_ns_per_launch and cpu_ns_per_launch (total_wall_ns has them).
 * The -events modes make every launch signal a kernel-timestamp event (one
 * of BATCH per thread, each reused after it was read), and give each
 * thread an observer thread that reads every event's timestamps as soon
 * as it is signalled and host-resets it: what a profiler does through the
 * driver, without the profiler, so that the driver's (the simulator's)
 * own cost of a signal event shows. The launching thread's CPU spent
 * waiting for an event to be read before reusing it is not counted; every
 * launch's event must be read with valid timestamps, or the benchmark
 * fails.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "app_common.h"

#define BATCH 4096

static app_env_t env;
static ze_module_handle_t mod;
static char *kname;
static long launches = 100000;
static bool immediate = true;
static bool with_events; /* the -events modes */
static double rate_per_thread; /* launches/s; 0: unpaced */
static long burst;             /* launches per burst; 0: no bursts */
static double idle_ms;         /* sleep before each burst */
static pthread_barrier_t start_barrier;

typedef struct result { double wall_ns, cpu_ns; uint32_t index; long events_read, events_bad; } result_t;

/* The events of one launching thread and its observer. */
typedef struct observed {
    ze_event_handle_t ev[BATCH];
    atomic_int busy[BATCH]; /* signalled or about to be, not yet read and reset */
    atomic_int done;        /* the launcher set its last busy flag */
    atomic_long read, bad;
} observed_t;

static void *observer(void *arg) {
    observed_t *o = arg;
    for (;;) {
        int busy = 0;
        for (int i = 0; i < BATCH; i++) {
            if (!atomic_load_explicit(&o->busy[i], memory_order_acquire)) continue;
            busy = 1;
            ze_kernel_timestamp_result_t ts;
            ze_result_t r = zeEventQueryKernelTimestamp(o->ev[i], &ts);
            if (r == ZE_RESULT_NOT_READY) continue;
            /* a launch of this kernel never spans a wrap of the 32-bit counter */
            if (r != ZE_RESULT_SUCCESS || ts.global.kernelEnd < ts.global.kernelStart) atomic_fetch_add(&o->bad, 1);
            CK(zeEventHostReset(o->ev[i]));
            atomic_fetch_add(&o->read, 1);
            atomic_store_explicit(&o->busy[i], 0, memory_order_release);
        }
        if (!busy && atomic_load(&o->done)) {
            int any = 0;
            for (int i = 0; i < BATCH; i++) any |= atomic_load(&o->busy[i]);
            if (!any) return NULL;
        }
        if (!busy) sched_yield();
    }
}

/* The process's VmSize in KiB (0: unknown). */
static long vm_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) return 0;
    char line[256];
    long kb = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmSize: %ld kB", &kb) == 1) break;
    fclose(f);
    return kb;
}

static uint64_t now_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg) {
    result_t *res = arg;
    void *bufs[1] = {app_alloc_device(&env, 4096)};
    ze_kernel_handle_t k = app_kernel(mod, kname);
    app_set_args(k, kname, bufs, 1, 1, 64);
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t done = app_event(pool, 0, true);
    ze_command_queue_handle_t q = NULL;
    ze_command_list_handle_t l;
    if (immediate) {
        /* One engine per thread where the device has enough: threads do
         * not contend for one engine's lock. */
        l = app_imm_list_at(&env, env.compute_ordinal, res->index % env.compute_queues, 0);
    } else {
        q = app_queue(&env, env.compute_ordinal);
        l = app_list(&env, env.compute_ordinal);
    }
    ze_group_count_t g = {1, 1, 1};
    observed_t *obs = NULL;
    ze_event_pool_handle_t tpool = NULL;
    pthread_t obs_thread;
    if (with_events) {
        obs = calloc(1, sizeof *obs);
        if (obs == NULL) app_die("out of memory");
        tpool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, BATCH);
        for (uint32_t i = 0; i < BATCH; i++) obs->ev[i] = app_event(tpool, i, true);
        if (pthread_create(&obs_thread, NULL, observer, obs) != 0) app_die("pthread_create");
    }
    uint64_t wait_cpu = 0; /* CPU spent waiting for the observer: not the driver's */
    pthread_barrier_wait(&start_barrier);
    uint64_t w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    uint64_t idle_ns = 0; /* slept between bursts: not the launches' time */
    for (long i = 0; i < launches; i++) {
        if (burst > 0 && i % burst == 0 && idle_ms > 0) {
            uint64_t a = now_ns(CLOCK_MONOTONIC), ns = (uint64_t)(idle_ms * 1e6);
            struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
            nanosleep(&ts, NULL);
            idle_ns += now_ns(CLOCK_MONOTONIC) - a;
        }
        if (rate_per_thread > 0 && i % 64 == 0) {
            uint64_t due = w0 + idle_ns + (uint64_t)((double)i * 1e9 / rate_per_thread);
            uint64_t now = now_ns(CLOCK_MONOTONIC);
            if (now < due) {
                struct timespec ts = {(time_t)((due - now) / 1000000000ull), (long)((due - now) % 1000000000ull)};
                nanosleep(&ts, NULL);
            }
        }
        ze_event_handle_t sig = NULL;
        if (obs) {
            int e = (int)(i % BATCH);
            /* immediate: the event's last launch must have been read */
            if (immediate && atomic_load_explicit(&obs->busy[e], memory_order_acquire)) {
                uint64_t a = now_ns(CLOCK_THREAD_CPUTIME_ID);
                while (atomic_load_explicit(&obs->busy[e], memory_order_acquire)) sched_yield();
                wait_cpu += now_ns(CLOCK_THREAD_CPUTIME_ID) - a;
            }
            sig = obs->ev[e];
            if (immediate) atomic_store_explicit(&obs->busy[e], 1, memory_order_release);
        }
        CK(zeCommandListAppendLaunchKernel(l, k, &g, sig, 0, NULL));
        if (!immediate && ((i + 1) % BATCH == 0 || i + 1 == launches)) {
            CK(zeCommandListClose(l));
            if (obs) {
                /* regular: the previous execution's events must have been read */
                uint64_t a = now_ns(CLOCK_THREAD_CPUTIME_ID);
                for (int e = 0; e < BATCH; e++)
                    while (atomic_load_explicit(&obs->busy[e], memory_order_acquire)) sched_yield();
                wait_cpu += now_ns(CLOCK_THREAD_CPUTIME_ID) - a;
            }
            CK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
            CK(zeCommandQueueSynchronize(q, UINT64_MAX));
            if (obs)
                for (long e = 0; e <= i % BATCH; e++) atomic_store_explicit(&obs->busy[e], 1, memory_order_release);
            CK(zeCommandListReset(l));
        }
    }
    uint64_t w1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_THREAD_CPUTIME_ID) - wait_cpu;
    if (immediate) {
        CK(zeCommandListAppendBarrier(l, done, 0, NULL));
        CK(zeEventHostSynchronize(done, UINT64_MAX));
    }
    if (obs) {
        atomic_store(&obs->done, 1);
        pthread_join(obs_thread, NULL);
        res->events_read = atomic_load(&obs->read);
        res->events_bad = atomic_load(&obs->bad);
        for (uint32_t e = 0; e < BATCH; e++) CK(zeEventDestroy(obs->ev[e]));
        CK(zeEventPoolDestroy(tpool));
        free(obs);
    }
    res->wall_ns = (double)(w1 - w0 - idle_ns) / (double)launches;
    res->cpu_ns = (double)(c1 - c0) / (double)launches;
    CK(zeCommandListDestroy(l));
    if (q) CK(zeCommandQueueDestroy(q));
    CK(zeEventDestroy(done));
    CK(zeEventPoolDestroy(pool));
    CK(zeKernelDestroy(k));
    CK(zeMemFree(env.context, bufs[0]));
    return NULL;
}

/* Prints ,"field":{"a":N,"b":N,"c":N} from zestall's exported function
 * fn(uint64_t[3]), when it is there. */
static void zestall_counts(const char *fn, const char *field, const char *a, const char *b, const char *c) {
    void (*get)(uint64_t[3]) = (void (*)(uint64_t[3]))dlsym(RTLD_DEFAULT, fn);
    if (get == NULL) return;
    uint64_t v[3];
    get(v);
    printf(",\"%s\":{\"%s\":%llu,\"%s\":%llu,\"%s\":%llu}", field, a, (unsigned long long)v[0], b,
           (unsigned long long)v[1], c, (unsigned long long)v[2]);
}

int main(int argc, char **argv) {
    long threads = 1;
    if (argc > 1) launches = strtol(argv[1], NULL, 0);
    if (argc > 2) threads = strtol(argv[2], NULL, 0);
    if (argc > 3) {
        if (strcmp(argv[3], "imm") == 0) immediate = true;
        else if (strcmp(argv[3], "regular") == 0) immediate = false;
        else if (strcmp(argv[3], "imm-events") == 0) immediate = true, with_events = true;
        else if (strcmp(argv[3], "regular-events") == 0) immediate = false, with_events = true;
        else app_die("mode must be imm, regular, imm-events or regular-events");
    }
    if (argc > 4) rate_per_thread = strtod(argv[4], NULL);
    long waves = 1;
    if (argc > 5) waves = strtol(argv[5], NULL, 0);
    if (argc > 6) burst = strtol(argv[6], NULL, 0);
    if (argc > 7) idle_ms = strtod(argv[7], NULL);
    if (launches < 1 || threads < 1 || threads > 256 || rate_per_thread < 0 || waves < 1 || burst < 0 || idle_ms < 0 ||
        idle_ms > 60000)
        app_die("usage: zestall-bench-launch [launches per thread] [threads] [imm|regular|imm-events|regular-events] [launches/s per thread] [waves] [burst] [idle ms]");
    app_init(&env);
    mod = app_module(&env, "stream");
    char **names;
    uint32_t nk;
    kname = app_first_kernel_name(mod, &names, &nk);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    result_t *res = calloc((size_t)threads, sizeof *res);
    if (!t || !res) app_die("out of memory");
    pthread_barrier_init(&start_barrier, NULL, (unsigned)threads);
    uint64_t w0 = now_ns(CLOCK_MONOTONIC);
    long vm_first = 0;
    for (long w = 0; w < waves; w++) {
        for (long i = 0; i < threads; i++) {
            res[i].index = (uint32_t)i;
            if (pthread_create(&t[i], NULL, worker, &res[i]) != 0) app_die("pthread_create");
        }
        for (long i = 0; i < threads; i++) pthread_join(t[i], NULL);
        if (w == 0) vm_first = vm_kb();
    }
    uint64_t w1 = now_ns(CLOCK_MONOTONIC);
    long vm_end = vm_kb();
    pthread_barrier_destroy(&start_barrier);
    CK(zeModuleDestroy(mod));
    app_fini(&env);

    double wall = 0, cpu = 0;
    long read = 0, bad = 0;
    for (long i = 0; i < threads; i++) read += res[i].events_read, bad += res[i].events_bad;
    printf("{\"bench\":\"launch\",\"mode\":\"%s%s\",\"threads\":%ld,\"launches_per_thread\":%ld,\"kernel\":\"%s\",\"per_thread\":[",
           immediate ? "imm" : "regular", with_events ? "-events" : "", threads, launches, kname);
    for (long i = 0; i < threads; i++) {
        printf("%s{\"wall_ns_per_launch\":%.1f,\"cpu_ns_per_launch\":%.1f}", i ? "," : "", res[i].wall_ns, res[i].cpu_ns);
        wall += res[i].wall_ns;
        cpu += res[i].cpu_ns;
    }
    printf("],\"wall_ns_per_launch\":%.1f,\"cpu_ns_per_launch\":%.1f,\"aggregate_ns_per_launch\":%.1f,\"waves\":%ld,"
           "\"vm_kb_first_wave\":%ld,\"vm_kb_end\":%ld,\"total_wall_ns\":%llu",
           wall / threads, cpu / threads, (double)(w1 - w0) / (double)(threads * launches * waves), waves, vm_first, vm_end,
           (unsigned long long)(w1 - w0));
    /* zestall's own counts, when it is preloaded (found with dlsym): its
     * zeEventCreate calls by where they ran (cgo/event_pools.c), and its
     * device-side timestamp copies (cgo/timestamp_copies.c). */
    zestall_counts("zl_events_created", "zestall_events_created", "launching_threads", "first_list", "ahead");
    zestall_counts("zl_copies", "zestall_copies", "copies", "events", "host_batches");
    printf("}\n");
    if (with_events) {
        printf("{\"events_read\":%ld,\"events_bad\":%ld,\"events_expected\":%ld}\n", read, bad, threads * launches * waves);
        if (read != threads * launches * waves || bad != 0) app_die("not every launch's event was read with valid timestamps");
    }
    app_free_names(names, nk);
    free(t);
    free(res);
    return 0;
}
