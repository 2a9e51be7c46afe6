/*
 * zestall-setenv: an application that configures Level-Zero itself: it sets
 * ZE_ENABLE_ALT_DRIVERS with setenv() in main() (value = argv[1]) before its
 * first zeInit, then runs a few launches. A profiler that calls zeInit
 * before main() (constructor) breaks such applications
 * (docs/level-zero-loader.md §10 "Hazards", P3).
 */
#include "app_common.h"

#define LAUNCHES 8

int main(int argc, char **argv) {
    if (argc < 2 || argv[1][0] == 0) app_die("usage: zestall-setenv <absolute path of the driver>");
    if (setenv("ZE_ENABLE_ALT_DRIVERS", argv[1], 1) != 0) app_die("setenv");
    app_env_t env;
    app_init(&env);
    ze_module_handle_t m = app_module(&env, "stream");
    char **names;
    uint32_t nk = app_kernel_names(m, &names);
    if (nk == 0) app_die("module has no kernels");
    ze_kernel_handle_t k = app_kernel(m, names[0]);
    void *bufs[1] = {app_alloc_shared(&env, 4096)};
    app_set_args(k, names[0], bufs, 1, 16, 64);
    ze_command_list_handle_t imm = app_imm_list(&env, env.compute_ordinal, APP_COMMAND_QUEUE_FLAG_IN_ORDER);
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t done = app_event(pool, 0, true);
    ze_group_count_t g = {4, 1, 1};
    for (int i = 0; i < LAUNCHES; i++) CK(zeCommandListAppendLaunchKernel(imm, k, &g, i == LAUNCHES - 1 ? done : NULL, 0, NULL));
    CK(zeEventHostSynchronize(done, UINT64_MAX));
    CK(zeEventDestroy(done));
    CK(zeEventPoolDestroy(pool));
    CK(zeCommandListDestroy(imm));
    CK(zeKernelDestroy(k));
    CK(zeModuleDestroy(m));
    CK(zeMemFree(env.context, bufs[0]));
    app_fini(&env);
    printf("setenv: kernel %s\nlaunches: %d\n", names[0], LAUNCHES);
    app_free_names(names, nk);
    return 0;
}
