/*
 * zestall-separate: launch patterns for launch separation by module copies
 * (issue 15), with the kernel state of every launch printed, so that a
 * test can compare what the device ran with what the application set.
 *
 *   zestall-separate MODE ROUNDS [REPEATS GAP_MS]
 *
 * MODE
 *   imm       one immediate list: ROUNDS launches of mixed_saxpy_loop
 *             back to back (no host wait in between), then ROUNDS of
 *             slm_reduce (SLM argument sizes alternate)
 *   overlap   two immediate lists on two compute engines, appends
 *             alternating: launches of one kernel overlap in time
 *   regular   one regular list with ROUNDS appends of mixed_saxpy_loop,
 *             executed twice
 *   threads   4 threads, each with its own kernel handle and immediate
 *             list, ROUNDS back-to-back launches each; with REPEATS, done
 *             REPEATS times, GAP_MS ms apart (the automatic ring grows
 *             in the first ones)
 *   paced     ROUNDS launches of mixed_saxpy_loop on one immediate list,
 *             each GAP_MS ms after the previous append (REPEATS ignored)
 *   globalvar ROUNDS back-to-back launches of globalvar_count (a module
 *             with a program-scope global: never copied)
 *
 * Between launches the application changes arguments: a (a float, unique
 * per launch: thread * 100000 + launch), reps, x (NULL every 4th launch),
 * the group size (every 5th launch), indirect access flags, cache
 * configuration and global offset (every 3rd, 6th and 7th launch). For
 * every append it prints
 *   expect K A X REPS GSIZE GROUPS SLM INDIRECT CACHE OFFSET
 * K the kernel name, A the bits of a (0 for slm_reduce), X the pointer
 * value, SLM the dynamic SLM bytes, OFFSET the global offset in x; a
 * regular list's appends are printed once per execution. Ends with
 * "separate: launches N".
 */
#include <pthread.h>
#include <time.h>

#include "app_common.h"

#define N 4096
#define THREADS 4

static app_env_t env;
static ze_module_handle_t mod;
static long rounds;
static void *bufs[2];
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct expect {
    uint32_t a_bits;
    void *x;
    int reps;
    uint32_t gsize, groups, slm;
    uint32_t indirect, cache, offset;
} expect_t;

static void print_expect(const char *k, const expect_t *e) {
    pthread_mutex_lock(&out_lock);
    printf("expect %s %u %llu %d %u %u %u %u %u %u\n", k, e->a_bits, (unsigned long long)(uintptr_t)e->x, e->reps,
           e->gsize, e->groups, e->slm, e->indirect, e->cache, e->offset);
    pthread_mutex_unlock(&out_lock);
}

/* Sets mixed_saxpy_loop's state for launch i of thread t. */
static expect_t saxpy_state(ze_kernel_handle_t k, int t, long i) {
    expect_t e = {0};
    float a = (float)(t * 100000 + i);
    memcpy(&e.a_bits, &a, sizeof a);
    e.x = (i % 4 == 3) ? NULL : bufs[1];
    e.reps = 1 + (int)(i % 3);
    e.gsize = (i % 5 == 4) ? 32 : 64;
    e.groups = N / e.gsize;
    e.slm = 0;
    CK(zeKernelSetArgumentValue(k, 0, sizeof(void *), &bufs[0]));
    CK(zeKernelSetArgumentValue(k, 1, sizeof(void *), e.x == NULL ? NULL : &e.x));
    CK(zeKernelSetArgumentValue(k, 2, sizeof a, &a));
    CK(zeKernelSetArgumentValue(k, 3, sizeof e.reps, &e.reps));
    CK(zeKernelSetGroupSize(k, e.gsize, 1, 1));
    e.indirect = (i % 3 == 2) ? ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE : 0;
    CK(zeKernelSetIndirectAccess(k, e.indirect));
    /* The cache configuration is set on some launches only: in between,
     * the kernel keeps the last one (LARGE_DATA at i % 6 == 5, none from
     * the next launch on). */
    e.cache = (i % 6 == 5) ? ZE_CACHE_CONFIG_FLAG_LARGE_DATA : 0;
    if (i % 6 == 5 || i % 6 == 0) CK(zeKernelSetCacheConfig(k, e.cache));
    e.offset = (i % 7 == 6) ? 64 : 0;
    CK(zeKernelSetGlobalOffsetExp(k, e.offset, 0, 0));
    return e;
}

static void launch(ze_command_list_handle_t l, ze_kernel_handle_t k, const expect_t *e, ze_event_handle_t ev) {
    ze_group_count_t g = {e->groups, 1, 1};
    CK(zeCommandListAppendLaunchKernel(l, k, &g, ev, 0, NULL));
}

static void sync_list(ze_command_list_handle_t l) {
    /* Waits for everything appended so far (in-order immediate list). */
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t ev = app_event(pool, 0, true);
    CK(zeCommandListAppendBarrier(l, ev, 0, NULL));
    CK(zeEventHostSynchronize(ev, UINT64_MAX));
    CK(zeEventDestroy(ev));
    CK(zeEventPoolDestroy(pool));
}

typedef struct thread_arg {
    int t;
    uint32_t engine;
} thread_arg_t;

static void *back_to_back(void *p) {
    const thread_arg_t *ta = p;
    ze_kernel_handle_t k = app_kernel(mod, "mixed_saxpy_loop");
    ze_command_list_handle_t l = app_imm_list_at(&env, env.compute_ordinal, ta->engine % env.compute_queues, 0);
    for (long i = 0; i < rounds; i++) {
        expect_t e = saxpy_state(k, ta->t, i);
        launch(l, k, &e, NULL);
        print_expect("mixed_saxpy_loop", &e);
    }
    sync_list(l);
    CK(zeCommandListDestroy(l));
    CK(zeKernelDestroy(k));
    return NULL;
}

static void slm_phase(void) {
    ze_module_handle_t m = app_module(&env, "slm");
    ze_kernel_handle_t k = app_kernel(m, "slm_reduce");
    ze_command_list_handle_t l = app_imm_list_at(&env, env.compute_ordinal, 0, 0);
    for (long i = 0; i < rounds; i++) {
        expect_t e = {0, NULL, 0, 64, N / 64, (uint32_t)((i % 2 ? 128 : 64) * sizeof(float)), 0, 0, 0};
        CK(zeKernelSetArgumentValue(k, 0, sizeof(void *), &bufs[0]));
        CK(zeKernelSetArgumentValue(k, 1, sizeof(void *), &bufs[1]));
        CK(zeKernelSetArgumentValue(k, 2, e.slm, NULL));
        CK(zeKernelSetGroupSize(k, e.gsize, 1, 1));
        launch(l, k, &e, NULL);
        print_expect("slm_reduce", &e);
    }
    sync_list(l);
    CK(zeCommandListDestroy(l));
    CK(zeKernelDestroy(k));
    CK(zeModuleDestroy(m));
}

static void overlap(void) {
    ze_kernel_handle_t k = app_kernel(mod, "mixed_saxpy_loop");
    ze_command_list_handle_t l[2];
    for (uint32_t i = 0; i < 2; i++) l[i] = app_imm_list_at(&env, env.compute_ordinal, i % env.compute_queues, 0);
    for (long i = 0; i < rounds; i++) {
        expect_t e = saxpy_state(k, 0, i);
        launch(l[i % 2], k, &e, NULL);
        print_expect("mixed_saxpy_loop", &e);
    }
    for (uint32_t i = 0; i < 2; i++) {
        sync_list(l[i]);
        CK(zeCommandListDestroy(l[i]));
    }
    CK(zeKernelDestroy(k));
}

static void paced(long gap_ms) {
    ze_kernel_handle_t k = app_kernel(mod, "mixed_saxpy_loop");
    ze_command_list_handle_t l = app_imm_list_at(&env, env.compute_ordinal, 0, 0);
    for (long i = 0; i < rounds; i++) {
        expect_t e = saxpy_state(k, 0, i);
        launch(l, k, &e, NULL);
        print_expect("mixed_saxpy_loop", &e);
        struct timespec ts = {gap_ms / 1000, (gap_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    sync_list(l);
    CK(zeCommandListDestroy(l));
    CK(zeKernelDestroy(k));
}

static void regular(void) {
    ze_kernel_handle_t k = app_kernel(mod, "mixed_saxpy_loop");
    ze_command_queue_handle_t q = app_queue(&env, env.compute_ordinal);
    ze_command_list_handle_t l = app_list(&env, env.compute_ordinal);
    expect_t *es = calloc((size_t)rounds, sizeof *es);
    if (es == NULL) app_die("out of memory");
    for (long i = 0; i < rounds; i++) {
        es[i] = saxpy_state(k, 0, i);
        launch(l, k, &es[i], NULL);
    }
    CK(zeCommandListClose(l));
    for (int x = 0; x < 2; x++) {
        CK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
        CK(zeCommandQueueSynchronize(q, UINT64_MAX));
        for (long i = 0; i < rounds; i++) print_expect("mixed_saxpy_loop", &es[i]);
    }
    free(es);
    CK(zeCommandListDestroy(l));
    CK(zeCommandQueueDestroy(q));
    CK(zeKernelDestroy(k));
}

static void globalvar(void) {
    ze_module_handle_t m = app_module(&env, "globalvar");
    ze_kernel_handle_t k = app_kernel(m, "globalvar_count");
    ze_command_list_handle_t l = app_imm_list_at(&env, env.compute_ordinal, 0, 0);
    for (long i = 0; i < rounds; i++) {
        float x = (float)i;
        expect_t e = {0, NULL, 0, 64, N / 64, 0, 0, 0, 0};
        memcpy(&e.a_bits, &x, sizeof x);
        CK(zeKernelSetArgumentValue(k, 0, sizeof(void *), &bufs[0]));
        CK(zeKernelSetArgumentValue(k, 1, sizeof x, &x));
        CK(zeKernelSetGroupSize(k, e.gsize, 1, 1));
        launch(l, k, &e, NULL);
        print_expect("globalvar_count", &e);
    }
    sync_list(l);
    CK(zeCommandListDestroy(l));
    CK(zeKernelDestroy(k));
    CK(zeModuleDestroy(m));
}

int main(int argc, char **argv) {
    if (argc < 3) app_die("usage: zestall-separate imm|overlap|regular|threads|paced|globalvar ROUNDS [REPEATS GAP_MS]");
    const char *mode = argv[1];
    rounds = strtol(argv[2], NULL, 0);
    if (rounds < 1 || rounds > 100000) app_die("bad ROUNDS");
    long repeats = argc > 3 ? strtol(argv[3], NULL, 0) : 1;
    long gap_ms = argc > 4 ? strtol(argv[4], NULL, 0) : 0;
    if (repeats < 1 || repeats > 100 || gap_ms < 0 || gap_ms > 10000) app_die("bad REPEATS or GAP_MS");
    app_init(&env);
    mod = app_module(&env, "mixed");
    for (int i = 0; i < 2; i++) bufs[i] = app_alloc_device(&env, N * sizeof(float));
    long launches = rounds;
    if (strcmp(mode, "imm") == 0) {
        thread_arg_t a = {0, 0};
        back_to_back(&a);
        slm_phase();
        launches = 2 * rounds;
    } else if (strcmp(mode, "overlap") == 0) {
        overlap();
    } else if (strcmp(mode, "regular") == 0) {
        regular();
        launches = 2 * rounds;
    } else if (strcmp(mode, "threads") == 0) {
        for (long r = 0; r < repeats; r++) {
            thread_arg_t a[THREADS];
            pthread_t th[THREADS];
            for (int i = 0; i < THREADS; i++) {
                a[i] = (thread_arg_t){i, (uint32_t)i};
                if (pthread_create(&th[i], NULL, back_to_back, &a[i]) != 0) app_die("pthread_create");
            }
            for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
            struct timespec ts = {gap_ms / 1000, (gap_ms % 1000) * 1000000L};
            if (r + 1 < repeats) nanosleep(&ts, NULL);
        }
        launches = THREADS * rounds * repeats;
    } else if (strcmp(mode, "paced") == 0) {
        paced(gap_ms);
    } else if (strcmp(mode, "globalvar") == 0) {
        globalvar();
    } else {
        app_die("unknown mode");
    }
    for (int i = 0; i < 2; i++) CK(zeMemFree(env.context, bufs[i]));
    CK(zeModuleDestroy(mod));
    app_fini(&env);
    printf("separate: launches %ld\n", launches);
    return 0;
}
