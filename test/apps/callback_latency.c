/*
 * zestall-callback-latency: how long an application thread's Level-Zero
 * call waits when a profiler answers it in its own runtime while other
 * threads launch at full rate. zestall's zeKernelCreate epilogue and
 * zeKernelDestroy prologue call into Go on the application's thread
 * (cgo/export.go): the call needs one of the Go runtime's Ps, which the
 * profiler's own goroutines (harvester, writer, compressor) may hold.
 *
 *   zestall-callback-latency [creates = 2000] [launching threads = 1] [interval us = 500] [launches/s per thread = 0]
 *
 * `launching threads` threads launch one tiny kernel on their own
 * immediate list as fast as they can (or paced to the given rate, checked
 * every 64 launches) while the main thread, every
 * `interval` microseconds, creates a kernel and destroys it, timing each
 * pair with CLOCK_MONOTONIC. Prints one line of JSON: the pairs' median,
 * 99th percentile and maximum in microseconds, and the launches made.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "app_common.h"

static app_env_t env;
static ze_module_handle_t mod;
static char *kname;
static atomic_int stop;
static double rate_per_thread; /* launches/s; 0: unpaced */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *launcher(void *arg) {
    long *launched = arg;
    void *bufs[1] = {app_alloc_device(&env, 4096)};
    ze_kernel_handle_t k = app_kernel(mod, kname);
    app_set_args(k, kname, bufs, 1, 1, 64);
    ze_command_list_handle_t l = app_imm_list(&env, env.compute_ordinal, 0);
    ze_group_count_t g = {1, 1, 1};
    long n = 0;
    uint64_t t0 = now_ns();
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        if (rate_per_thread > 0 && n % 64 == 0) {
            uint64_t due = t0 + (uint64_t)((double)n * 1e9 / rate_per_thread), now = now_ns();
            if (now < due) {
                struct timespec ts = {(time_t)((due - now) / 1000000000ull), (long)((due - now) % 1000000000ull)};
                nanosleep(&ts, NULL);
            }
        }
        CK(zeCommandListAppendLaunchKernel(l, k, &g, NULL, 0, NULL));
        n++;
    }
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t done = app_event(pool, 0, true);
    CK(zeCommandListAppendBarrier(l, done, 0, NULL));
    CK(zeEventHostSynchronize(done, UINT64_MAX));
    CK(zeEventDestroy(done));
    CK(zeEventPoolDestroy(pool));
    CK(zeCommandListDestroy(l));
    CK(zeKernelDestroy(k));
    CK(zeMemFree(env.context, bufs[0]));
    *launched = n;
    return NULL;
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long creates = 2000, threads = 1, interval_us = 500;
    if (argc > 1) creates = strtol(argv[1], NULL, 0);
    if (argc > 2) threads = strtol(argv[2], NULL, 0);
    if (argc > 3) interval_us = strtol(argv[3], NULL, 0);
    if (argc > 4) rate_per_thread = strtod(argv[4], NULL);
    if (creates < 1 || threads < 0 || threads > 64 || interval_us < 0 || rate_per_thread < 0)
        app_die("usage: zestall-callback-latency [creates] [launching threads] [interval us] [launches/s per thread]");
    app_init(&env);
    mod = app_module(&env, "stream");
    char **names;
    uint32_t nk;
    kname = app_first_kernel_name(mod, &names, &nk);
    pthread_t *t = calloc((size_t)threads + 1, sizeof *t);
    long *launched = calloc((size_t)threads + 1, sizeof *launched);
    uint64_t *lat = calloc((size_t)creates, sizeof *lat);
    if (!t || !launched || !lat) app_die("out of memory");
    for (long i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, launcher, &launched[i]) != 0) app_die("pthread_create");
    struct timespec gap = {interval_us / 1000000, (interval_us % 1000000) * 1000};
    for (long i = 0; i < creates; i++) {
        uint64_t a = now_ns();
        ze_kernel_desc_t d = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = kname};
        ze_kernel_handle_t k;
        CK(zeKernelCreate(mod, &d, &k));
        CK(zeKernelDestroy(k));
        lat[i] = now_ns() - a;
        if (interval_us > 0) nanosleep(&gap, NULL);
    }
    atomic_store(&stop, 1);
    long total = 0;
    for (long i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        total += launched[i];
    }
    qsort(lat, (size_t)creates, sizeof *lat, by_value);
    printf("{\"bench\":\"callback-latency\",\"creates\":%ld,\"threads\":%ld,\"median_us\":%.1f,\"p99_us\":%.1f,"
           "\"max_us\":%.1f,\"launches\":%ld}\n",
           creates, threads, lat[creates / 2] / 1e3, lat[creates * 99 / 100] / 1e3, lat[creates - 1] / 1e3, total);
    CK(zeModuleDestroy(mod));
    app_fini(&env);
    app_free_names(names, nk);
    free(t);
    free(launched);
    free(lat);
    return 0;
}
