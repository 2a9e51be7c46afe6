/*
 * zestall-dlopen: an application that does not link the loader. It
 * dlopen()s libze_loader.so.1 and resolves every function it uses with
 * dlsym() (as unitrace and many runtimes do), then runs a few launches and
 * a verified copy. An LD_PRELOAD interposer of zeInit is bypassed by such
 * an application (docs/level-zero-loader.md §7 "Interposing zeInit").
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <level_zero/ze_api.h>

/* Every Level-Zero function used here and by app_common.h. */
#define APP_FUNCS(X)                                                                                     \
    X(zeInit) X(zeDriverGet) X(zeDeviceGet) X(zeContextCreate) X(zeContextDestroy)                       \
    X(zeDeviceGetCommandQueueGroupProperties) X(zeModuleCreate) X(zeModuleDestroy)                       \
    X(zeModuleBuildLogGetString) X(zeModuleBuildLogDestroy) X(zeModuleGetKernelNames) X(zeKernelCreate)  \
    X(zeKernelDestroy) X(zeKernelSetArgumentValue) X(zeKernelGetProperties) X(zeKernelSetGroupSize)      \
    X(zeCommandQueueCreate) X(zeCommandListCreate) X(zeCommandListCreateImmediate)                       \
    X(zeCommandListDestroy) X(zeCommandListAppendLaunchKernel) X(zeCommandListAppendMemoryCopy)          \
    X(zeCommandListAppendBarrier) X(zeMemAllocDevice) X(zeMemAllocShared) X(zeMemAllocHost) X(zeMemFree) \
    X(zeEventPoolCreate) X(zeEventPoolDestroy) X(zeEventCreate) X(zeEventDestroy)                        \
    X(zeEventHostSynchronize)

#define DECLARE(f) static __typeof__(&f) p_##f;
APP_FUNCS(DECLARE)
#undef DECLARE

/* From here on every call goes through the dlsym'd pointers. */
#define zeInit p_zeInit
#define zeDriverGet p_zeDriverGet
#define zeDeviceGet p_zeDeviceGet
#define zeContextCreate p_zeContextCreate
#define zeContextDestroy p_zeContextDestroy
#define zeDeviceGetCommandQueueGroupProperties p_zeDeviceGetCommandQueueGroupProperties
#define zeModuleCreate p_zeModuleCreate
#define zeModuleDestroy p_zeModuleDestroy
#define zeModuleBuildLogGetString p_zeModuleBuildLogGetString
#define zeModuleBuildLogDestroy p_zeModuleBuildLogDestroy
#define zeModuleGetKernelNames p_zeModuleGetKernelNames
#define zeKernelCreate p_zeKernelCreate
#define zeKernelDestroy p_zeKernelDestroy
#define zeKernelSetArgumentValue p_zeKernelSetArgumentValue
#define zeKernelGetProperties p_zeKernelGetProperties
#define zeKernelSetGroupSize p_zeKernelSetGroupSize
#define zeCommandQueueCreate p_zeCommandQueueCreate
#define zeCommandListCreate p_zeCommandListCreate
#define zeCommandListCreateImmediate p_zeCommandListCreateImmediate
#define zeCommandListDestroy p_zeCommandListDestroy
#define zeCommandListAppendLaunchKernel p_zeCommandListAppendLaunchKernel
#define zeCommandListAppendMemoryCopy p_zeCommandListAppendMemoryCopy
#define zeCommandListAppendBarrier p_zeCommandListAppendBarrier
#define zeMemAllocDevice p_zeMemAllocDevice
#define zeMemAllocShared p_zeMemAllocShared
#define zeMemAllocHost p_zeMemAllocHost
#define zeMemFree p_zeMemFree
#define zeEventPoolCreate p_zeEventPoolCreate
#define zeEventPoolDestroy p_zeEventPoolDestroy
#define zeEventCreate p_zeEventCreate
#define zeEventDestroy p_zeEventDestroy
#define zeEventHostSynchronize p_zeEventHostSynchronize

#include "app_common.h"

#define LAUNCHES 6
#define N 1024

int main(void) {
    void *lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen(libze_loader.so.1): %s\n", dlerror());
        return 1;
    }
#define RESOLVE(f)                                                    \
    *(void **)(&p_##f) = dlsym(lib, #f);                              \
    if (p_##f == NULL) {                                              \
        fprintf(stderr, "dlsym(%s): not found\n", #f);                \
        return 1;                                                     \
    }
    APP_FUNCS(RESOLVE)
#undef RESOLVE

    app_env_t env;
    app_init(&env);
    ze_module_handle_t m = app_module(&env, "stream");
    char **names;
    uint32_t nk = app_kernel_names(m, &names);
    if (nk == 0) app_die("module has no kernels");
    ze_kernel_handle_t k = app_kernel(m, names[0]);
    float *host = app_alloc_host(&env, N * sizeof(float));
    float *back = app_alloc_host(&env, N * sizeof(float));
    void *dev = app_alloc_device(&env, N * sizeof(float));
    for (int i = 0; i < N; i++) host[i] = (float)(i * 3);
    void *bufs[1] = {dev};
    app_set_args(k, names[0], bufs, 1, 32, 128);
    ze_command_list_handle_t imm = app_imm_list(&env, env.compute_ordinal, 0);
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t done = app_event(pool, 0, true);
    ze_group_count_t g = {N / 32, 1, 1};
    CK(zeCommandListAppendMemoryCopy(imm, dev, host, N * sizeof(float), NULL, 0, NULL));
    CK(zeCommandListAppendBarrier(imm, NULL, 0, NULL));
    for (int i = 0; i < LAUNCHES; i++) CK(zeCommandListAppendLaunchKernel(imm, k, &g, NULL, 0, NULL));
    CK(zeCommandListAppendBarrier(imm, NULL, 0, NULL));
    /* a second buffer receives the copy, so that the kernel's (unexecuted)
     * writes to dev cannot matter: copy back from a buffer no kernel touches */
    void *dev2 = app_alloc_device(&env, N * sizeof(float));
    CK(zeCommandListAppendMemoryCopy(imm, dev2, host, N * sizeof(float), NULL, 0, NULL));
    CK(zeCommandListAppendBarrier(imm, NULL, 0, NULL));
    CK(zeCommandListAppendMemoryCopy(imm, back, dev2, N * sizeof(float), done, 0, NULL));
    CK(zeEventHostSynchronize(done, UINT64_MAX));
    if (memcmp(host, back, N * sizeof(float)) != 0) app_die("copy verification failed");
    CK(zeEventDestroy(done));
    CK(zeEventPoolDestroy(pool));
    CK(zeCommandListDestroy(imm));
    CK(zeKernelDestroy(k));
    CK(zeModuleDestroy(m));
    CK(zeMemFree(env.context, host));
    CK(zeMemFree(env.context, back));
    CK(zeMemFree(env.context, dev));
    CK(zeMemFree(env.context, dev2));
    app_fini(&env);
    printf("dlopen: kernel %s, copies verified\nlaunches: %d\n", names[0], LAUNCHES);
    app_free_names(names, nk);
    /* the loader is deliberately not dlclose()d: its destructors run at exit */
    return 0;
}
