/*
 * zestall-multi: T threads (argument 1, default 4) launch kernels from two
 * modules concurrently, each thread cycling through three submission styles
 * (immediate list, regular list + queue + fence, in-order immediate list)
 * and four event styles per round:
 *   1. module A kernel signalling an app-owned KERNEL_TIMESTAMP|HOST_VISIBLE
 *      event (host-synchronised, status queried, timestamps checked);
 *   2. module B kernel signalling an event of a pool without timestamps and
 *      without HOST_VISIBLE,
 *   3. module A kernel waiting on that event and signalling a host-visible
 *      event of a plain pool (the device-only event is then reset on the
 *      device with zeCommandListAppendEventReset);
 *   4. module B kernel without any event.
 * Rounds per thread: argument 2 (default 8). Launches = T x rounds x 4.
 */
#include <pthread.h>

#include "app_common.h"

#define LAUNCHES_PER_ROUND 4
#define N 1024

static app_env_t env;
static ze_module_handle_t mod_a, mod_b;
static char *name_a, *name_b;
static long rounds = 8;

static ze_module_handle_t module_any(const char *const *hints, size_t n) {
    char path[600];
    for (size_t i = 0; i < n; i++)
        if (app_find_kernel_file(hints[i], "zebin", path, sizeof path)) return app_module(&env, hints[i]);
    app_die("no kernel file found");
    return NULL;
}

static void check_event_done(ze_event_handle_t e, const char *what) {
    ze_result_t r = zeEventQueryStatus(e);
    if (r != ZE_RESULT_SUCCESS) {
        fprintf(stderr, "zeEventQueryStatus(%s) after completion: 0x%08x\n", what, (unsigned)r);
        exit(1);
    }
}

static void check_event_reset(ze_event_handle_t e, const char *what) {
    ze_result_t r = zeEventQueryStatus(e);
    if (r != ZE_RESULT_NOT_READY) {
        fprintf(stderr, "zeEventQueryStatus(%s) after reset: 0x%08x (want NOT_READY)\n", what, (unsigned)r);
        exit(1);
    }
}

static void *worker(void *arg) {
    long id = (long)(intptr_t)arg;
    void *bufs[2] = {app_alloc_device(&env, N * sizeof(float)), app_alloc_shared(&env, N * sizeof(float))};
    ze_kernel_handle_t ka = app_kernel(mod_a, name_a), kb = app_kernel(mod_b, name_b);
    app_set_args(ka, name_a, bufs, 2, 32, 128);
    app_set_args(kb, name_b, bufs, 2, 32, 128);

    ze_event_pool_handle_t pts = app_pool(&env, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_pool_handle_t phost = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2);
    ze_event_pool_handle_t pdev = app_pool(&env, 0, 1);
    ze_event_handle_t ev_ts = app_event(pts, 0, true), ev_host = app_event(phost, 0, true);
    ze_event_handle_t ev_done = app_event(phost, 1, true), ev_dev = app_event(pdev, 0, false);

    ze_command_queue_handle_t q = app_queue(&env, env.compute_ordinal);
    ze_command_list_handle_t reg = app_list(&env, env.compute_ordinal);
    ze_command_list_handle_t imm = app_imm_list(&env, env.compute_ordinal, 0);
    ze_command_list_handle_t imm_io = app_imm_list(&env, env.compute_ordinal, APP_COMMAND_QUEUE_FLAG_IN_ORDER);
    ze_command_list_handle_t reg_io = app_list_flags(&env, env.compute_ordinal, APP_COMMAND_LIST_FLAG_IN_ORDER);
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t fence;
    CK(zeFenceCreate(q, &fd, &fence));

    ze_group_count_t g = {N / 32, 1, 1};
    long launches = 0;
    for (long r = 0; r < rounds; r++) {
        int style = (int)((r + id) % 4);
        ze_command_list_handle_t l = style == 0 ? imm : style == 1 ? reg : style == 2 ? imm_io : reg_io;
        bool regular = style == 1 || style == 3;
        check_event_reset(ev_ts, "timestamp event");
        check_event_reset(ev_host, "host-visible event");
        CK(zeCommandListAppendLaunchKernel(l, ka, &g, ev_ts, 0, NULL));
        CK(zeCommandListAppendLaunchKernel(l, kb, &g, ev_dev, 0, NULL));
        CK(zeCommandListAppendLaunchKernel(l, ka, &g, ev_host, 1, &ev_dev));
        CK(zeCommandListAppendLaunchKernel(l, kb, &g, NULL, 0, NULL));
        /* the device-only event is reset on the device, after its waiter */
        CK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
        CK(zeCommandListAppendEventReset(l, ev_dev));
        launches += LAUNCHES_PER_ROUND;
        if (regular) {
            CK(zeCommandListClose(l));
            CK(zeCommandQueueExecuteCommandLists(q, 1, &l, fence));
            CK(zeEventHostSynchronize(ev_host, UINT64_MAX));
            CK(zeFenceHostSynchronize(fence, UINT64_MAX));
            CK(zeFenceReset(fence));
            CK(zeCommandListReset(l));
        } else {
            /* the barrier orders the event-less launch too */
            CK(zeCommandListAppendBarrier(l, ev_done, 0, NULL));
            CK(zeEventHostSynchronize(ev_done, UINT64_MAX));
            check_event_done(ev_done, "barrier event");
        }
        CK(zeEventHostSynchronize(ev_ts, UINT64_MAX));
        check_event_done(ev_ts, "timestamp event");
        check_event_done(ev_host, "host-visible event");
        ze_kernel_timestamp_result_t ts;
        CK(zeEventQueryKernelTimestamp(ev_ts, &ts));
        /* device counters are 32 bits wide here: compare modulo 2^32 */
        if ((uint32_t)(ts.global.kernelEnd - ts.global.kernelStart) >= 0x80000000u ||
            (uint32_t)(ts.context.kernelEnd - ts.context.kernelStart) >= 0x80000000u) {
            fprintf(stderr, "thread %ld: kernel timestamp end < start: global %#llx..%#llx context %#llx..%#llx\n", id,
                    (unsigned long long)ts.global.kernelStart, (unsigned long long)ts.global.kernelEnd,
                    (unsigned long long)ts.context.kernelStart, (unsigned long long)ts.context.kernelEnd);
            exit(1);
        }
        CK(zeEventHostReset(ev_ts));
        CK(zeEventHostReset(ev_host));
        CK(zeEventHostReset(ev_done));
    }

    CK(zeFenceDestroy(fence));
    CK(zeCommandListDestroy(imm_io));
    CK(zeCommandListDestroy(reg_io));
    CK(zeCommandListDestroy(imm));
    CK(zeCommandListDestroy(reg));
    CK(zeCommandQueueDestroy(q));
    CK(zeEventDestroy(ev_ts));
    CK(zeEventDestroy(ev_host));
    CK(zeEventDestroy(ev_done));
    CK(zeEventDestroy(ev_dev));
    CK(zeEventPoolDestroy(pts));
    CK(zeEventPoolDestroy(phost));
    CK(zeEventPoolDestroy(pdev));
    CK(zeKernelDestroy(ka));
    CK(zeKernelDestroy(kb));
    CK(zeMemFree(env.context, bufs[0]));
    CK(zeMemFree(env.context, bufs[1]));
    return (void *)(intptr_t)launches;
}

int main(int argc, char **argv) {
    long threads = argc > 1 ? strtol(argv[1], NULL, 0) : 4;
    if (argc > 2) rounds = strtol(argv[2], NULL, 0);
    if (threads < 1 || threads > 256 || rounds < 1 || rounds > 1000000) app_die("usage: zestall-multi [threads] [rounds]");
    app_init(&env);
    static const char *const ha[] = {"stream"}, *const hb[] = {"compute", "branchy", "stream"};
    mod_a = module_any(ha, 1);
    mod_b = module_any(hb, 3);
    char **na, **nb;
    uint32_t cna = app_kernel_names(mod_a, &na), cnb = app_kernel_names(mod_b, &nb);
    if (cna == 0 || cnb == 0) app_die("module without kernels");
    name_a = na[0];
    name_b = nb[cnb - 1];

    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!t) app_die("out of memory");
    for (long i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) != 0) app_die("pthread_create");
    long total = 0;
    for (long i = 0; i < threads; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        total += (long)(intptr_t)ret;
    }
    if (total != threads * rounds * LAUNCHES_PER_ROUND) app_die("launch count mismatch");
    CK(zeModuleDestroy(mod_a));
    CK(zeModuleDestroy(mod_b));
    app_fini(&env);
    printf("multi: threads %ld, rounds %ld, kernels %s %s\nlaunches: %ld\n", threads, rounds, name_a, name_b, total);
    app_free_names(na, cna);
    app_free_names(nb, cnb);
    free(t);
    return 0;
}
