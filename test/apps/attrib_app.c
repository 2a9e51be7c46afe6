/*
 * zestall-attrib: launch patterns for per-launch EU stall attribution.
 *
 *   zestall-attrib MODE LAUNCHES [GAP_US]
 *
 * MODE
 *   seq         one kernel on one immediate list: launch, wait for it on the
 *               host (zeEventHostSynchronize), launch again, ...
 *   concurrent  two threads, each with its own kernel (stream_triad,
 *               stream_copy) on its own immediate list of its own compute
 *               engine, each doing what seq does: launches of different
 *               kernels run concurrently, launches of one kernel never overlap
 *   overlap     one kernel launched on two immediate lists of two engines at
 *               once, both waited for, again: launches of the same kernel
 *               overlap in time
 * LAUNCHES  rounds (per thread in concurrent; in overlap each round is two
 *           launches)
 * GAP_US    host pause after each wait before the next launch (default 0:
 *           the next launch follows the wait at once)
 *
 * Kernel durations come from the simulated device (ZESIM_KERNEL_COST).
 * Prints "attrib: launches N".
 */
#include <pthread.h>
#include <time.h>

#include "app_common.h"

#define N 4096

static app_env_t env;
static ze_module_handle_t mod;
static long rounds, gap_us;
static void *bufs[3];

static void pause_us(long us) {
    if (us <= 0) return;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

typedef struct seq_arg {
    const char *kernel;
    uint32_t engine;
} seq_arg_t;

/* Launch, wait, (pause), launch, ... of one kernel on one engine. */
static void *seq(void *p) {
    const seq_arg_t *a = p;
    ze_kernel_handle_t k = app_kernel(mod, a->kernel);
    app_set_args(k, a->kernel, bufs, 3, 64, 256);
    uint32_t engine = a->engine % env.compute_queues;
    ze_command_list_handle_t l = app_imm_list_at(&env, env.compute_ordinal, engine, 0);
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t ev = app_event(pool, 0, true);
    ze_group_count_t groups = {N / 64, 1, 1};
    for (long r = 0; r < rounds; r++) {
        CK(zeCommandListAppendLaunchKernel(l, k, &groups, ev, 0, NULL));
        CK(zeEventHostSynchronize(ev, UINT64_MAX));
        CK(zeEventHostReset(ev));
        pause_us(gap_us);
    }
    CK(zeEventDestroy(ev));
    CK(zeEventPoolDestroy(pool));
    CK(zeCommandListDestroy(l));
    CK(zeKernelDestroy(k));
    return NULL;
}

/* The same kernel on two engines at once, both waited for. */
static void overlap(void) {
    ze_kernel_handle_t k = app_kernel(mod, "stream_triad");
    app_set_args(k, "stream_triad", bufs, 3, 64, 256);
    ze_command_list_handle_t l[2];
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2);
    ze_event_handle_t ev[2];
    for (uint32_t i = 0; i < 2; i++) {
        l[i] = app_imm_list_at(&env, env.compute_ordinal, i % env.compute_queues, 0);
        ev[i] = app_event(pool, i, true);
    }
    ze_group_count_t groups = {N / 64, 1, 1};
    for (long r = 0; r < rounds; r++) {
        for (uint32_t i = 0; i < 2; i++) CK(zeCommandListAppendLaunchKernel(l[i], k, &groups, ev[i], 0, NULL));
        for (uint32_t i = 0; i < 2; i++) {
            CK(zeEventHostSynchronize(ev[i], UINT64_MAX));
            CK(zeEventHostReset(ev[i]));
        }
        pause_us(gap_us);
    }
    for (uint32_t i = 0; i < 2; i++) {
        CK(zeEventDestroy(ev[i]));
        CK(zeCommandListDestroy(l[i]));
    }
    CK(zeEventPoolDestroy(pool));
    CK(zeKernelDestroy(k));
}

int main(int argc, char **argv) {
    if (argc < 3) app_die("usage: zestall-attrib seq|concurrent|overlap LAUNCHES [GAP_US]");
    const char *mode = argv[1];
    rounds = strtol(argv[2], NULL, 0);
    gap_us = argc > 3 ? strtol(argv[3], NULL, 0) : 0;
    if (rounds < 1 || rounds > 1000000 || gap_us < 0 || gap_us > 10000000) app_die("bad LAUNCHES or GAP_US");
    app_init(&env);
    mod = app_module(&env, "stream");
    for (int i = 0; i < 3; i++) bufs[i] = app_alloc_device(&env, N * sizeof(float));

    long launches;
    if (strcmp(mode, "seq") == 0) {
        seq_arg_t a = {"stream_triad", 0};
        seq(&a);
        launches = rounds;
    } else if (strcmp(mode, "concurrent") == 0) {
        seq_arg_t a[2] = {{"stream_triad", 0}, {"stream_copy", 1}};
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            if (pthread_create(&th[i], NULL, seq, &a[i]) != 0) app_die("pthread_create");
        for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
        launches = 2 * rounds;
    } else if (strcmp(mode, "overlap") == 0) {
        overlap();
        launches = 2 * rounds;
    } else {
        app_die("unknown mode (seq, concurrent, overlap)");
        return 1;
    }

    for (int i = 0; i < 3; i++) CK(zeMemFree(env.context, bufs[i]));
    CK(zeModuleDestroy(mod));
    app_fini(&env);
    printf("attrib: launches %ld\n", launches);
    return 0;
}
