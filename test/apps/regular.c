/*
 * zestall-regular: regular command lists executed several times
 * back-to-back before the application waits — the case where a profiler
 * that reads the lists' timestamp events after the fact loses executions.
 *
 *   zestall-regular [launches [lists [execs [rounds [queues [sync]]]]]]
 *
 * Records `lists` regular lists (default 1) of `launches` kernel launches
 * each (default 4, no signal events, cycling through the stream kernels).
 * Each of `rounds` rounds (default 3) submits every list `execs` times
 * (default 8) without waiting in between, then synchronises once: `sync`
 * "queue" (default) waits with zeCommandQueueSynchronize, "fence" with a
 * fence per queue on the last submission. With `queues` 2, list i runs on
 * engine i % 2 of the compute group (two queues, concurrent engines);
 * with 1 and several lists, every submission passes all lists in one
 * zeCommandQueueExecuteCommandLists call. `sync` "alternate" (2 queues)
 * runs every list on queue e % 2 for its e-th submission and waits for
 * that queue each time (a list moving between queues). List 0 also signals an
 * application event without timestamps after its last launch, checked
 * signalled after each round (its semantics must be kept).
 */
#include "app_common.h"

#include <time.h>

static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define N 4096

int main(int argc, char **argv) {
    long launches = argc > 1 ? strtol(argv[1], NULL, 0) : 4;
    long nlists = argc > 2 ? strtol(argv[2], NULL, 0) : 1;
    long execs = argc > 3 ? strtol(argv[3], NULL, 0) : 8;
    long rounds = argc > 4 ? strtol(argv[4], NULL, 0) : 3;
    long nqueues = argc > 5 ? strtol(argv[5], NULL, 0) : 1;
    const char *sync = argc > 6 ? argv[6] : "queue";
    bool use_fence = strcmp(sync, "fence") == 0;
    bool alternate = strcmp(sync, "alternate") == 0;
    if (launches < 1 || launches > 100000 || nlists < 1 || nlists > 64 || execs < 1 || execs > 10000 ||
        rounds < 1 || rounds > 10000 || nqueues < 1 || nqueues > 2 || (!use_fence && !alternate && strcmp(sync, "queue") != 0) || (alternate && nqueues != 2))
        app_die("usage: zestall-regular [launches [lists [execs [rounds [queues(1|2) [queue|fence|alternate]]]]]]");
    app_env_t env;
    app_init(&env);
    if (nqueues > (long)env.compute_queues) app_die("the compute group has fewer queues than asked");

    ze_module_handle_t mod = app_module(&env, "stream");
    char **names;
    uint32_t nk = app_kernel_names(mod, &names);
    if (nk == 0) app_die("module has no kernels");
    ze_command_list_handle_t *lists = calloc((size_t)nlists, sizeof *lists);
    if (!lists) app_die("out of memory");
    const size_t bytes = N * sizeof(float);
    void *bufs[3] = {app_alloc_device(&env, bytes), app_alloc_device(&env, bytes), app_alloc_device(&env, bytes)};
    ze_kernel_handle_t *k = app_kernels(mod, names, nk, bufs);

    ze_command_queue_handle_t q[2] = {NULL, NULL};
    ze_fence_handle_t fence[2] = {NULL, NULL};
    for (long i = 0; i < nqueues; i++) {
        ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, env.compute_ordinal, (uint32_t)i,
                                      0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
        CK(zeCommandQueueCreate(env.context, env.device, &qd, &q[i]));
        ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
        CK(zeFenceCreate(q[i], &fd, &fence[i]));
    }

    /* the application's own event: no timestamps, host visible */
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool;
    CK(zeEventPoolCreate(env.context, &pd, 1, &env.device, &pool));
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t app_ev;
    CK(zeEventCreate(pool, &ed, &app_ev));

    ze_group_count_t groups = {N / 64, 1, 1};
    uint32_t next = 0;
    for (long li = 0; li < nlists; li++) {
        lists[li] = app_list(&env, env.compute_ordinal);
        for (long j = 0; j < launches; j++) {
            ze_event_handle_t sig = (li == 0 && j == launches - 1) ? app_ev : NULL;
            CK(zeCommandListAppendLaunchKernel(lists[li], k[next++ % nk], &groups, sig, 0, NULL));
        }
        CK(zeCommandListClose(lists[li]));
    }

    /* application-thread CPU of the submissions (the per-execution cost of
     * a tool, measured by scripts: not a test) */
    uint64_t submit_ns = 0;
    for (long r = 0; r < rounds; r++) {
        uint64_t c0 = thread_cpu_ns();
        for (long e = 0; e < execs; e++) {
            bool last = e == execs - 1;
            if (alternate) {
                CK(zeCommandQueueExecuteCommandLists(q[e % 2], (uint32_t)nlists, lists, NULL));
                CK(zeCommandQueueSynchronize(q[e % 2], UINT64_MAX));
            } else if (nqueues == 1) {
                CK(zeCommandQueueExecuteCommandLists(q[0], (uint32_t)nlists, lists,
                                                     use_fence && last ? fence[0] : NULL));
            } else {
                for (long li = 0; li < nlists; li++) {
                    long qi = li % 2;
                    /* the fence goes with the queue's last list of the round */
                    bool fenced = use_fence && last && li + 2 >= nlists;
                    CK(zeCommandQueueExecuteCommandLists(q[qi], 1, &lists[li], fenced ? fence[qi] : NULL));
                }
            }
        }
        submit_ns += thread_cpu_ns() - c0;
        for (long i = 0; i < nqueues; i++) {
            if (!use_fence) {
                CK(zeCommandQueueSynchronize(q[i], UINT64_MAX));
            } else if (i == 0 || nlists > 1) {
                CK(zeFenceHostSynchronize(fence[i], UINT64_MAX));
                CK(zeFenceReset(fence[i]));
            }
        }
        if (zeEventQueryStatus(app_ev) != ZE_RESULT_SUCCESS) app_die("the application's event was not signalled");
        CK(zeEventHostReset(app_ev));
    }

    for (long li = 0; li < nlists; li++) CK(zeCommandListDestroy(lists[li]));
    CK(zeEventDestroy(app_ev));
    CK(zeEventPoolDestroy(pool));
    for (long i = 0; i < nqueues; i++) {
        CK(zeFenceDestroy(fence[i]));
        CK(zeCommandQueueDestroy(q[i]));
    }
    for (uint32_t i = 0; i < nk; i++) CK(zeKernelDestroy(k[i]));
    CK(zeModuleDestroy(mod));
    for (int i = 0; i < 3; i++) CK(zeMemFree(env.context, bufs[i]));
    app_fini(&env);
    long subs = execs * rounds * (nqueues == 1 || alternate ? 1 : nlists);
    printf("regular: lists %ld, executions %ld x %ld rounds, queues %ld, sync %s, launches: %ld, "
           "submission cpu_ns: %.0f\n",
           nlists, execs, rounds, nqueues, sync, launches * nlists * execs * rounds, (double)submit_ns / (double)subs);
    app_free_names(names, nk);
    free(k);
    free(lists);
    return 0;
}
