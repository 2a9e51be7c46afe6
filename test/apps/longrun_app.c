/*
 * zestall-longrun: a long-running workload that keeps creating modules and
 * kernels and launching them, for tests that kill the process mid-run, and
 * a controllable exit.
 *
 *   zestall-longrun [rounds] [sleep_ms] [exit_status] [exit|_exit|return]
 *
 * Each of `rounds` rounds (default 500) creates the stream module and all
 * its kernels, launches every kernel 4 times on an immediate list,
 * synchronises, destroys the kernels and the module, then sleeps `sleep_ms`
 * (default 10): 500 rounds take several seconds. When the first round is
 * done it prints "longrun: running" (flushed), so a test knows the process
 * is well inside its Level-Zero work. At the end it prints a deterministic
 * summary and leaves with `exit_status` (default 0) by returning from main
 * (default), by exit(), or by _exit() (no destructors run: a profiler's
 * exit-time flush is skipped).
 *
 *   zestall-longrun probe [init_flags]
 *
 * Probe mode, for failed-initialisation tests: calls zeInit(init_flags)
 * (default 0) and prints its result, then, whatever that result was, calls
 * zeDriverGet -- the call that crashes in the 1.8.12 loader after a failed
 * zeInit that had loaded a driver (docs/level-zero-loader.md §10 "Hazards", P2)
 * -- and prints its
 * result. Exit status 0 when both succeeded, 4 otherwise.
 */
#include <time.h>
#include <unistd.h>

#include "app_common.h"

#define N 1024
#define LAUNCHES_PER_KERNEL 4

static int probe(int argc, char **argv) {
    ze_init_flags_t flags = argc > 2 ? (ze_init_flags_t)strtoul(argv[2], NULL, 0) : 0;
    ze_result_t r = zeInit(flags);
    printf("probe: zeInit(0x%x) = 0x%08x\n", (unsigned)flags, (unsigned)r);
    fflush(stdout);
    uint32_t n = 0;
    ze_result_t d = zeDriverGet(&n, NULL);
    printf("probe: zeDriverGet = 0x%08x, drivers %u\n", (unsigned)d, n);
    fflush(stdout);
    return r == ZE_RESULT_SUCCESS && d == ZE_RESULT_SUCCESS ? 0 : 4;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "probe") == 0) return probe(argc, argv);
    long rounds = argc > 1 ? strtol(argv[1], NULL, 0) : 500;
    long sleep_ms = argc > 2 ? strtol(argv[2], NULL, 0) : 10;
    long status = argc > 3 ? strtol(argv[3], NULL, 0) : 0;
    const char *how = argc > 4 ? argv[4] : "return";
    if (rounds < 1 || rounds > 10000000 || sleep_ms < 0 || sleep_ms > 10000 || status < 0 || status > 255 ||
        (strcmp(how, "return") != 0 && strcmp(how, "exit") != 0 && strcmp(how, "_exit") != 0))
        app_die("usage: zestall-longrun [rounds] [sleep_ms] [exit_status] [exit|_exit|return]");

    app_env_t env;
    app_init(&env);
    void *bufs[3] = {app_alloc_device(&env, N * 4), app_alloc_device(&env, N * 4), app_alloc_device(&env, N * 4)};
    ze_command_list_handle_t imm = app_imm_list(&env, env.compute_ordinal, 0);
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t done = app_event(pool, 0, true);
    ze_group_count_t g = {N / 64, 1, 1};

    long launches = 0, kernels = 0;
    for (long r = 0; r < rounds; r++) {
        ze_module_handle_t m = app_module(&env, "stream");
        char **names;
        uint32_t nk = app_kernel_names(m, &names);
        if (nk == 0) app_die("module has no kernels");
        ze_kernel_handle_t *k = calloc(nk, sizeof *k);
        if (!k) app_die("out of memory");
        for (uint32_t i = 0; i < nk; i++) {
            k[i] = app_kernel(m, names[i]);
            app_set_args(k[i], names[i], bufs, 3, 64, 256);
        }
        kernels += nk;
        for (int it = 0; it < LAUNCHES_PER_KERNEL; it++)
            for (uint32_t i = 0; i < nk; i++, launches++)
                CK(zeCommandListAppendLaunchKernel(imm, k[i], &g, NULL, 0, NULL));
        CK(zeCommandListAppendBarrier(imm, done, 0, NULL));
        CK(zeEventHostSynchronize(done, UINT64_MAX));
        CK(zeEventHostReset(done));
        for (uint32_t i = 0; i < nk; i++) CK(zeKernelDestroy(k[i]));
        CK(zeModuleDestroy(m));
        free(k);
        app_free_names(names, nk);
        if (r == 0) {
            printf("longrun: running\n");
            fflush(stdout);
        }
        if (sleep_ms > 0) {
            struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }

    CK(zeEventDestroy(done));
    CK(zeEventPoolDestroy(pool));
    CK(zeCommandListDestroy(imm));
    for (int i = 0; i < 3; i++) CK(zeMemFree(env.context, bufs[i]));
    app_fini(&env);
    printf("longrun: rounds %ld, modules %ld, kernels %ld, launches %ld, exit %ld by %s\n", rounds, rounds, kernels,
           launches, status, how);
    fflush(stdout);
    if (strcmp(how, "_exit") == 0) _exit((int)status);
    if (strcmp(how, "exit") == 0) exit((int)status);
    return (int)status;
}
