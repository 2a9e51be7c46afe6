/*
 * zestall-window: the workload of the start/stop tests.
 *
 *   zestall-window MODE [threads] [phases] [launches per thread and phase]
 *
 * Every launch runs on the thread's own immediate list and is followed by a
 * host synchronisation, cycling through three event styles: an app-owned
 * kernel-timestamp event (its timestamps checked), a plain host-visible
 * event, and no event (then a barrier event is waited for). Modes:
 *   api     phase p begins with zestall_stop() (p even) or zestall_start()
 *           (p odd), with every thread joined in between: phases 1, 3, …
 *           are collected.
 *   signal  the same with raise(SIGUSR2) toggles (collection starts on),
 *           each followed by a 150 ms pause (zestall polls every 10 ms, and
 *           an edge waits ZESTALL_STALL_LATENCY, 20 ms, for late samples).
 *   itt     the same with __itt_pause()/__itt_resume(), resolved the way
 *           Intel's ittnotify static part resolves them from a legacy
 *           collector library named by INTEL_LIBITTNOTIFY64 (dlopen, no
 *           __itt_api_init/__itt_api_version, dlsym of each name).
 *   plain   phases without any control call (for ZESTALL_LAUNCHES,
 *           ZESTALL_DELAY/ZESTALL_DURATION and ZESTALL_START=paused).
 *   race    the threads launch without pause (one of them through a regular
 *           list executed on a queue) while the main thread toggles with
 *           zestall_start()/zestall_stop() every 2 ms and raises SIGUSR2
 *           every 7 ms, for `phases` x 20 ms.
 * Prints one line per phase: "phase P collected=0|1 launches=N", then
 * "control start=R stop=R flush=R" with the return values of the control
 * calls (-1 when libzestall.so is not loaded: layer/zestall.h makes them
 * weak no-ops). Exit status 1 on any Level-Zero error or broken event.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "app_common.h"
#include "../../layer/zestall.h"

#define N 1024

static app_env_t env;
static ze_module_handle_t mod;
static char *kname;
static long per_phase = 10;
static atomic_bool racing;

static void check_status(ze_event_handle_t e, ze_result_t want, const char *what) {
    ze_result_t r = zeEventQueryStatus(e);
    if (r != want) {
        fprintf(stderr, "zeEventQueryStatus(%s) = 0x%08x, want 0x%08x\n", what, (unsigned)r, (unsigned)want);
        exit(1);
    }
}

typedef struct worker {
    long id, launches;
    ze_kernel_handle_t k;
    ze_command_list_handle_t imm;
    ze_event_pool_handle_t pts, phost;
    ze_event_handle_t ev_ts, ev_host, ev_done;
    void *bufs[2];
} worker_t;

static void worker_init(worker_t *w, long id) {
    memset(w, 0, sizeof *w);
    w->id = id;
    w->bufs[0] = app_alloc_device(&env, N * sizeof(float));
    w->bufs[1] = app_alloc_shared(&env, N * sizeof(float));
    w->k = app_kernel(mod, kname);
    app_set_args(w->k, kname, w->bufs, 2, 32, 128);
    w->imm = app_imm_list(&env, env.compute_ordinal, 0);
    w->pts = app_pool(&env, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    w->phost = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2);
    w->ev_ts = app_event(w->pts, 0, true);
    w->ev_host = app_event(w->phost, 0, true);
    w->ev_done = app_event(w->phost, 1, true);
}

static void worker_fini(worker_t *w) {
    CK(zeCommandListDestroy(w->imm));
    CK(zeEventDestroy(w->ev_ts));
    CK(zeEventDestroy(w->ev_host));
    CK(zeEventDestroy(w->ev_done));
    CK(zeEventPoolDestroy(w->pts));
    CK(zeEventPoolDestroy(w->phost));
    CK(zeKernelDestroy(w->k));
    CK(zeMemFree(env.context, w->bufs[0]));
    CK(zeMemFree(env.context, w->bufs[1]));
}

/* One launch, synchronised, with the event style of its number. */
static void launch_one(worker_t *w) {
    ze_group_count_t g = {N / 32, 1, 1};
    int style = (int)((w->launches + w->id) % 3);
    ze_event_handle_t ev = style == 0 ? w->ev_ts : style == 1 ? w->ev_host : NULL;
    if (ev) check_status(ev, ZE_RESULT_NOT_READY, "app event before the launch");
    CK(zeCommandListAppendLaunchKernel(w->imm, w->k, &g, ev, 0, NULL));
    if (ev == NULL) {
        CK(zeCommandListAppendBarrier(w->imm, w->ev_done, 0, NULL));
        ev = w->ev_done;
    }
    CK(zeEventHostSynchronize(ev, UINT64_MAX));
    check_status(ev, ZE_RESULT_SUCCESS, "app event after the launch");
    if (ev == w->ev_ts) {
        ze_kernel_timestamp_result_t ts;
        CK(zeEventQueryKernelTimestamp(ev, &ts));
        if ((uint32_t)(ts.global.kernelEnd - ts.global.kernelStart) >= 0x80000000u) {
            fprintf(stderr, "thread %ld: kernel timestamp end < start\n", w->id);
            exit(1);
        }
    }
    CK(zeEventHostReset(ev));
    w->launches++;
}

static void *phase_worker(void *arg) {
    worker_t *w = arg;
    for (long i = 0; i < per_phase; i++) launch_one(w);
    return NULL;
}

/* Race mode: immediate launches until told to stop. */
static void *race_worker(void *arg) {
    worker_t *w = arg;
    while (atomic_load(&racing)) launch_one(w);
    return NULL;
}

/* Race mode: a regular list of two launches, executed again and again. */
static void *race_regular(void *arg) {
    long *count = arg;
    worker_t w;
    worker_init(&w, 99);
    ze_command_queue_handle_t q = app_queue(&env, env.compute_ordinal);
    ze_command_list_handle_t l = app_list(&env, env.compute_ordinal);
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t fence;
    CK(zeFenceCreate(q, &fd, &fence));
    ze_group_count_t g = {N / 32, 1, 1};
    while (atomic_load(&racing)) {
        /* re-recorded now and then, so appends race the toggles too */
        CK(zeCommandListReset(l));
        CK(zeCommandListAppendLaunchKernel(l, w.k, &g, NULL, 0, NULL));
        CK(zeCommandListAppendLaunchKernel(l, w.k, &g, w.ev_host, 0, NULL));
        CK(zeCommandListClose(l));
        for (int r = 0; r < 4 && atomic_load(&racing); r++) {
            CK(zeCommandQueueExecuteCommandLists(q, 1, &l, fence));
            CK(zeFenceHostSynchronize(fence, UINT64_MAX));
            check_status(w.ev_host, ZE_RESULT_SUCCESS, "regular-list app event");
            CK(zeEventHostReset(w.ev_host));
            CK(zeFenceReset(fence));
            *count += 2;
        }
    }
    CK(zeFenceDestroy(fence));
    CK(zeCommandListDestroy(l));
    CK(zeCommandQueueDestroy(q));
    worker_fini(&w);
    return NULL;
}

typedef void (*itt_fn_t)(void);
static itt_fn_t itt_pause_fn, itt_resume_fn;

static void itt_init(void) {
    const char *lib = getenv("INTEL_LIBITTNOTIFY64");
    if (lib == NULL || *lib == 0) app_die("itt mode needs INTEL_LIBITTNOTIFY64");
    void *h = dlopen(lib, RTLD_LAZY);
    if (h == NULL) app_die(dlerror());
    if (dlsym(h, "__itt_api_init") != NULL || dlsym(h, "__itt_api_version") != NULL)
        app_die("the collector is not a legacy ITT collector");
    itt_pause_fn = (itt_fn_t)dlsym(h, "__itt_pause");
    itt_resume_fn = (itt_fn_t)dlsym(h, "__itt_resume");
    if (itt_pause_fn == NULL || itt_resume_fn == NULL) app_die("the collector lacks __itt_pause/__itt_resume");
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "plain";
    long threads = argc > 2 ? strtol(argv[2], NULL, 0) : 2;
    long phases = argc > 3 ? strtol(argv[3], NULL, 0) : 4;
    if (argc > 4) per_phase = strtol(argv[4], NULL, 0);
    bool api = strcmp(mode, "api") == 0, sig = strcmp(mode, "signal") == 0, race = strcmp(mode, "race") == 0;
    bool itt = strcmp(mode, "itt") == 0;
    if (!api && !sig && !race && !itt && strcmp(mode, "plain") != 0)
        app_die("usage: zestall-window api|signal|itt|plain|race [threads] [phases] [launches]");
    if (itt) itt_init();
    if (threads < 1 || threads > 64 || phases < 1 || phases > 10000 || per_phase < 0) app_die("bad arguments");
    app_init(&env);
    mod = app_module(&env, "stream");
    char **names;
    uint32_t nk;
    kname = app_first_kernel_name(mod, &names, &nk);

    worker_t *ws = calloc((size_t)threads, sizeof *ws);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    if (!ws || !tids) app_die("out of memory");
    for (long t = 0; t < threads; t++) worker_init(&ws[t], t);

    int rc_start = 0, rc_stop = 0, rc_flush = zestall_flush();
    if (race) {
        long regular = 0;
        pthread_t reg;
        atomic_store(&racing, true);
        for (long t = 0; t < threads; t++) pthread_create(&tids[t], NULL, race_worker, &ws[t]);
        pthread_create(&reg, NULL, race_regular, &regular);
        for (long ms = 0; ms < phases * 20; ms++) {
            if (ms % 2 == 0) rc_start = (ms / 2) % 2 ? zestall_start() : zestall_stop();
            if (ms % 7 == 0) raise(SIGUSR2);
            sleep_ms(1);
        }
        atomic_store(&racing, false);
        for (long t = 0; t < threads; t++) pthread_join(tids[t], NULL);
        pthread_join(reg, NULL);
        long total = regular;
        for (long t = 0; t < threads; t++) total += ws[t].launches;
        printf("race launches=%ld regular=%ld\n", total, regular);
    } else {
        for (long p = 0; p < phases; p++) {
            int collected = 1;
            if (api) {
                if (p % 2 == 0) rc_stop = zestall_stop();
                else rc_start = zestall_start();
                collected = p % 2;
            } else if (itt) {
                if (p % 2 == 0) itt_pause_fn();
                else itt_resume_fn();
                collected = p % 2;
            } else if (sig) {
                raise(SIGUSR2);
                sleep_ms(150);
                collected = p % 2;
            }
            long before = 0, after = 0;
            for (long t = 0; t < threads; t++) before += ws[t].launches;
            for (long t = 0; t < threads; t++) pthread_create(&tids[t], NULL, phase_worker, &ws[t]);
            for (long t = 0; t < threads; t++) pthread_join(tids[t], NULL);
            for (long t = 0; t < threads; t++) after += ws[t].launches;
            printf("phase %ld collected=%d launches=%ld\n", p, collected, after - before);
        }
    }
    printf("control start=%d stop=%d flush=%d\n", rc_start, rc_stop, rc_flush);
    for (long t = 0; t < threads; t++) worker_fini(&ws[t]);
    CK(zeModuleDestroy(mod));
    app_free_names(names, nk);
    app_fini(&env);
    free(ws);
    free(tids);
    return 0;
}
