/*
 * zestall-simple: the smallest complete Level-Zero workload. One device,
 * one context, one module (the stream kernels), a regular command list
 * executed on a compute queue with a fence. Copies input to device memory,
 * launches every kernel of the module `iterations` times (argument,
 * default 10), copies back and verifies the copies and a fill (the
 * simulated device runs no ISA, so kernel results are not checked).
 */
#include "app_common.h"

#define N 4096

int main(int argc, char **argv) {
    long iters = argc > 1 ? strtol(argv[1], NULL, 0) : 10;
    long reexec = argc > 2 ? strtol(argv[2], NULL, 0) : 0; /* extra executions of the list */
    if (iters < 1 || iters > 1000000) app_die("usage: zestall-simple [iterations]");
    app_env_t env;
    app_init(&env);

    ze_module_handle_t mod = app_module(&env, "stream");
    char **names;
    uint32_t nk = app_kernel_names(mod, &names);
    if (nk == 0) app_die("module has no kernels");

    const size_t bytes = N * sizeof(float);
    float *host_in = malloc(bytes), *host_out = malloc(bytes);
    if (!host_in || !host_out) app_die("out of memory");
    for (int i = 0; i < N; i++) host_in[i] = (float)i * 0.5f;
    void *a = app_alloc_device(&env, bytes), *b = app_alloc_device(&env, bytes), *c = app_alloc_device(&env, bytes);
    float *shared = app_alloc_shared(&env, bytes);
    void *bufs[3] = {a, b, c};
    ze_kernel_handle_t *k = app_kernels(mod, names, nk, bufs);

    ze_command_queue_handle_t q = app_queue(&env, env.compute_ordinal);
    ze_command_list_handle_t l = app_list(&env, env.compute_ordinal);
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t fence;
    CK(zeFenceCreate(q, &fd, &fence));

    ze_group_count_t groups = {N / 64, 1, 1};
    CK(zeCommandListAppendMemoryCopy(l, b, host_in, bytes, NULL, 0, NULL));
    CK(zeCommandListAppendMemoryCopy(l, c, host_in, bytes, NULL, 0, NULL));
    CK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    for (long it = 0; it < iters; it++)
        for (uint32_t i = 0; i < nk; i++) CK(zeCommandListAppendLaunchKernel(l, k[i], &groups, NULL, 0, NULL));
    CK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    /* b is only read by the kernels, so its round trip is verifiable */
    CK(zeCommandListAppendMemoryCopy(l, shared, b, bytes, NULL, 0, NULL));
    CK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    CK(zeCommandListAppendMemoryCopy(l, host_out, shared, bytes, NULL, 0, NULL));
    CK(zeCommandListClose(l));
    CK(zeCommandQueueExecuteCommandLists(q, 1, &l, fence));
    CK(zeFenceHostSynchronize(fence, UINT64_MAX));
    if (memcmp(host_out, host_in, bytes) != 0) app_die("copy verification failed");
    /* optional: execute the same closed list again, synchronising each
     * time (a regular list is a recording that may be replayed) */
    for (long r = 0; r < reexec; r++) {
        CK(zeFenceReset(fence));
        CK(zeCommandQueueExecuteCommandLists(q, 1, &l, fence));
        CK(zeFenceHostSynchronize(fence, UINT64_MAX));
    }

    /* a fill, verified through shared memory */
    CK(zeCommandListReset(l));
    CK(zeFenceReset(fence));
    uint32_t pattern = 0xA5C3E1F7u;
    CK(zeCommandListAppendMemoryFill(l, shared, &pattern, sizeof pattern, bytes, NULL, 0, NULL));
    CK(zeCommandListClose(l));
    CK(zeCommandQueueExecuteCommandLists(q, 1, &l, fence));
    CK(zeFenceHostSynchronize(fence, UINT64_MAX));
    CK(zeCommandQueueSynchronize(q, UINT64_MAX));
    for (int i = 0; i < N; i++) {
        uint32_t v;
        memcpy(&v, &shared[i], sizeof v);
        if (v != pattern) app_die("fill verification failed");
    }

    CK(zeFenceDestroy(fence));
    CK(zeCommandListDestroy(l));
    CK(zeCommandQueueDestroy(q));
    for (uint32_t i = 0; i < nk; i++) CK(zeKernelDestroy(k[i]));
    CK(zeModuleDestroy(mod));
    CK(zeMemFree(env.context, a));
    CK(zeMemFree(env.context, b));
    CK(zeMemFree(env.context, c));
    CK(zeMemFree(env.context, shared));
    app_fini(&env);
    printf("simple: iterations %ld, kernels %u, launches %ld, copies verified\n", iters, nk, iters * (long)nk * (1 + reexec));
    app_free_names(names, nk);
    free(k);
    free(host_in);
    free(host_out);
    return 0;
}
