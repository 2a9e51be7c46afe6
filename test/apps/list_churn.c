/*
 * zestall-list-churn: regular command lists made and destroyed again and
 * again, as a framework that records a fresh list per step does. Memory
 * must stay bounded by the lists alive, not grow with the lists ever made.
 *
 *   zestall-list-churn [rounds [launches [execs [alive]]]]
 *
 * Each of `rounds` rounds (default 2000) creates a regular list, appends
 * `launches` kernel launches (default 16), closes it, submits it `execs`
 * times back to back (default 2: the second one gets zestall's snapshot
 * copy) and synchronises the queue; `alive` lists (default 8) are kept,
 * the oldest destroyed when a new one is made. Prints one line:
 *   list-churn rounds R launches N rss_kb_early A rss_kb_end B
 * with N = rounds × launches × execs and the process's VmRSS after a
 * half of the rounds (A) and at the end (B).
 */
#include "app_common.h"

#define N 1024

static long vm_rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? strtol(argv[1], NULL, 0) : 2000;
    long launches = argc > 2 ? strtol(argv[2], NULL, 0) : 16;
    long execs = argc > 3 ? strtol(argv[3], NULL, 0) : 2;
    long alive = argc > 4 ? strtol(argv[4], NULL, 0) : 8;
    if (rounds < 10 || rounds > 10000000 || launches < 1 || launches > 4096 || execs < 1 || execs > 64 || alive < 1 ||
        alive > 1024)
        app_die("usage: zestall-list-churn [rounds(>=10) [launches [execs [alive]]]]");
    app_env_t env;
    app_init(&env);
    ze_module_handle_t mod = app_module(&env, "stream");
    char **names;
    uint32_t nk = app_kernel_names(mod, &names);
    if (nk == 0) app_die("module has no kernels");
    ze_command_list_handle_t *lists = calloc((size_t)alive, sizeof *lists);
    if (!lists) app_die("out of memory");
    const size_t bytes = N * sizeof(float);
    void *bufs[3] = {app_alloc_device(&env, bytes), app_alloc_device(&env, bytes), app_alloc_device(&env, bytes)};
    ze_kernel_handle_t *k = app_kernels(mod, names, nk, bufs);
    ze_command_queue_handle_t q = app_queue(&env, env.compute_ordinal);
    ze_group_count_t groups = {N / 64, 1, 1};
    long early = -1;
    uint32_t next = 0;
    for (long r = 0; r < rounds; r++) {
        long slot = r % alive;
        if (lists[slot] != NULL) CK(zeCommandListDestroy(lists[slot]));
        lists[slot] = app_list(&env, env.compute_ordinal);
        for (long j = 0; j < launches; j++)
            CK(zeCommandListAppendLaunchKernel(lists[slot], k[next++ % nk], &groups, NULL, 0, NULL));
        CK(zeCommandListClose(lists[slot]));
        for (long e = 0; e < execs; e++) CK(zeCommandQueueExecuteCommandLists(q, 1, &lists[slot], NULL));
        CK(zeCommandQueueSynchronize(q, UINT64_MAX));
        if (r + 1 == rounds / 2) early = vm_rss_kb();
    }
    long end = vm_rss_kb();
    for (long i = 0; i < alive; i++)
        if (lists[i] != NULL) CK(zeCommandListDestroy(lists[i]));
    printf("list-churn rounds %ld launches %ld rss_kb_early %ld rss_kb_end %ld\n", rounds, rounds * launches * execs, early,
           end);
    CK(zeCommandQueueDestroy(q));
    for (uint32_t i = 0; i < nk; i++) CK(zeKernelDestroy(k[i]));
    for (int i = 0; i < 3; i++) CK(zeMemFree(env.context, bufs[i]));
    CK(zeModuleDestroy(mod));
    app_free_names(names, nk);
    free(k);
    free(lists);
    app_fini(&env);
    return 0;
}
