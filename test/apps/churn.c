/*
 * zestall-churn: module and kernel churn. Each round (argument, default 20)
 * creates the stream module and all its kernels, launches each kernel once,
 * synchronises, then destroys the kernels and the module — so a driver
 * that reuses ISA memory places new kernels at the addresses of destroyed
 * ones (a profiler must not confuse them). One extra round builds the
 * module from SPIR-V with "-g" when a .spv file exists; a build failure is
 * reported (with the build log) but is not fatal.
 */
#include "app_common.h"

#define N 1024

typedef ze_result_t (*base_fn_t)(ze_kernel_handle_t, uint64_t *);
static base_fn_t get_base;
static uint64_t last_base;
static long reused, compared;

static long run_module(app_env_t *env, ze_command_list_handle_t imm, ze_event_handle_t done, ze_module_handle_t m,
                       void *const *bufs) {
    char **names;
    uint32_t nk = app_kernel_names(m, &names);
    ze_kernel_handle_t *k = calloc(nk ? nk : 1, sizeof *k);
    if (!k) app_die("out of memory");
    ze_group_count_t g = {N / 64, 1, 1};
    for (uint32_t i = 0; i < nk; i++) {
        k[i] = app_kernel(m, names[i]);
        if (i == 0 && get_base) {
            /* does the new kernel sit where the destroyed one was? */
            uint64_t b = 0;
            CK(get_base(k[i], &b));
            if (last_base) {
                compared++;
                if (b == last_base) reused++;
            }
            last_base = b;
        }
        app_set_args(k[i], names[i], bufs, 3, 64, 256);
        CK(zeCommandListAppendLaunchKernel(imm, k[i], &g, NULL, 0, NULL));
    }
    CK(zeCommandListAppendBarrier(imm, done, 0, NULL));
    CK(zeEventHostSynchronize(done, UINT64_MAX));
    CK(zeEventHostReset(done));
    for (uint32_t i = 0; i < nk; i++) CK(zeKernelDestroy(k[i]));
    free(k);
    app_free_names(names, nk);
    (void)env;
    return nk;
}

static void print_build_log(ze_module_build_log_handle_t log) {
    size_t ls = 0;
    if (log == NULL || zeModuleBuildLogGetString(log, &ls, NULL) != ZE_RESULT_SUCCESS || ls == 0 || ls > (1u << 22))
        return;
    char *s = malloc(ls);
    if (s && zeModuleBuildLogGetString(log, &ls, s) == ZE_RESULT_SUCCESS) fprintf(stderr, "SPIR-V build log:\n%.*s\n", (int)ls, s);
    free(s);
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? strtol(argv[1], NULL, 0) : 20;
    if (rounds < 1 || rounds > 1000000) app_die("usage: zestall-churn [rounds]");
    app_env_t env;
    app_init(&env);
    void *bufs[3] = {app_alloc_device(&env, N * 4), app_alloc_device(&env, N * 4), app_alloc_device(&env, N * 4)};
    ze_command_list_handle_t imm = app_imm_list(&env, env.compute_ordinal, 0);
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t done = app_event(pool, 0, true);

    CK(zeDriverGetExtensionFunctionAddress(env.driver, "zexKernelGetBaseAddress", (void **)&get_base));
    long launches = 0;
    for (long r = 0; r < rounds; r++) {
        ze_module_handle_t m = app_module(&env, "stream");
        launches += run_module(&env, imm, done, m, bufs);
        CK(zeModuleDestroy(m));
    }

    const char *spirv = "absent";
    char path[600];
    if (app_find_kernel_file("stream", "spv", path, sizeof path)) {
        size_t size = 0;
        uint8_t *il = app_read_file(path, &size);
        if (il == NULL) app_die("cannot read the SPIR-V file");
        ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, il, "-g", NULL};
        ze_module_handle_t m = NULL;
        ze_module_build_log_handle_t log = NULL;
        ze_result_t res = zeModuleCreate(env.context, env.device, &md, &m, &log);
        if (res == ZE_RESULT_SUCCESS) {
            spirv = "ok";
            launches += run_module(&env, imm, done, m, bufs);
            CK(zeModuleDestroy(m));
        } else if (res == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE) {
            spirv = "build-failure";
            fprintf(stderr, "zeModuleCreate(%s, SPIR-V, -g): ZE_RESULT_ERROR_MODULE_BUILD_FAILURE\n", path);
            print_build_log(log);
        } else if (res == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE || res == ZE_RESULT_ERROR_INVALID_ENUMERATION) {
            spirv = "unsupported";
        } else {
            fprintf(stderr, "zeModuleCreate(%s, SPIR-V) failed: 0x%08x\n", path, (unsigned)res);
            exit(1);
        }
        if (log) CK(zeModuleBuildLogDestroy(log));
        free(il);
    }

    CK(zeEventDestroy(done));
    CK(zeEventPoolDestroy(pool));
    CK(zeCommandListDestroy(imm));
    for (int i = 0; i < 3; i++) CK(zeMemFree(env.context, bufs[i]));
    app_fini(&env);
    printf("churn: rounds %ld, spirv %s, first kernel at the previous address in %ld of %ld re-creations\nlaunches: %ld\n", rounds, spirv,
           reused, compared, launches);
    return 0;
}
