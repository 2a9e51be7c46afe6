/*
 * libzestall_floor.so — the floor for any tracing-layer tool (benchmark
 * configuration (b), see BENCHMARKS.md).
 *
 *   ZE_ENABLE_TRACING_LAYER=1 LD_PRELOAD=libzestall_floor.so ./app
 *
 * Like libzestall.so it links libze_loader and interposes zeInit
 * (dlsym(RTLD_NEXT)); after the application's first *successful* zeInit it
 * creates one tracer, registers an EMPTY C prologue for the four launch
 * entry points with the per-API zelTracer*RegisterCallback functions, and
 * enables it. Every launch then pays exactly what the loader's tracing layer
 * charges for one enabled tracer with one callback: nothing a tool could
 * avoid. The prologue must stay empty (no counting, no atomics).
 *
 * Set ZESTALL_FLOOR_VERBOSE=1 to get one line on stderr once the tracer is
 * enabled (scripts/bench requires it, so that a floor that silently did not
 * activate cannot pass for a cheap one). Errors are always printed.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <level_zero/ze_api.h>
#include <level_zero/layers/zel_tracing_api.h>
#include <level_zero/layers/zel_tracing_register_cb.h>

static zel_tracer_handle_t tracer;
static atomic_bool init_seen;
static atomic_bool enabled;

#define EMPTY_PROLOGUE(NAME, PARAMS)                                                 \
    static void ZE_APICALL NAME(PARAMS *p, ze_result_t r, void *user, void **inst) { \
        (void)p;                                                                     \
        (void)r;                                                                     \
        (void)user;                                                                  \
        (void)inst;                                                                  \
    }
EMPTY_PROLOGUE(on_launch, ze_command_list_append_launch_kernel_params_t)
EMPTY_PROLOGUE(on_launch_coop, ze_command_list_append_launch_cooperative_kernel_params_t)
EMPTY_PROLOGUE(on_launch_indirect, ze_command_list_append_launch_kernel_indirect_params_t)
EMPTY_PROLOGUE(on_launch_multi, ze_command_list_append_launch_multiple_kernels_indirect_params_t)

static bool verbose(void) {
    const char *v = getenv("ZESTALL_FLOOR_VERBOSE");
    return v != NULL && strcmp(v, "1") == 0;
}

static void create_tracer(void) {
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, NULL};
    ze_result_t r = zelTracerCreate(&desc, &tracer);
    if (r != ZE_RESULT_SUCCESS) {
        fprintf(stderr, "zestall-floor: error: zelTracerCreate: 0x%x (is ZE_ENABLE_TRACING_LAYER=1 set?)\n",
                (unsigned)r);
        tracer = NULL;
        return;
    }
    ze_result_t rs[4];
    rs[0] = zelTracerCommandListAppendLaunchKernelRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_launch);
    rs[1] = zelTracerCommandListAppendLaunchCooperativeKernelRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE,
                                                                              on_launch_coop);
    rs[2] = zelTracerCommandListAppendLaunchKernelIndirectRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE,
                                                                           on_launch_indirect);
    rs[3] = zelTracerCommandListAppendLaunchMultipleKernelsIndirectRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE,
                                                                                    on_launch_multi);
    /* ZESTALL_FLOOR_EPILOGUE=1: empty epilogues too, the structural floor
     * of a tool that, like zestall, needs a callback after the call. */
    const char *epi = getenv("ZESTALL_FLOOR_EPILOGUE");
    if (epi != NULL && strcmp(epi, "1") == 0) {
        zelTracerCommandListAppendLaunchKernelRegisterCallback(tracer, ZEL_REGISTER_EPILOGUE, on_launch);
        zelTracerCommandListAppendLaunchCooperativeKernelRegisterCallback(tracer, ZEL_REGISTER_EPILOGUE, on_launch_coop);
        zelTracerCommandListAppendLaunchKernelIndirectRegisterCallback(tracer, ZEL_REGISTER_EPILOGUE, on_launch_indirect);
        zelTracerCommandListAppendLaunchMultipleKernelsIndirectRegisterCallback(tracer, ZEL_REGISTER_EPILOGUE,
                                                                                on_launch_multi);
    }
    for (int i = 0; i < 4; i++) {
        if (rs[i] != ZE_RESULT_SUCCESS) {
            fprintf(stderr, "zestall-floor: error: register callback %d: 0x%x\n", i, (unsigned)rs[i]);
            return;
        }
    }
    r = zelTracerSetEnabled(tracer, 1);
    if (r != ZE_RESULT_SUCCESS) {
        fprintf(stderr, "zestall-floor: error: zelTracerSetEnabled: 0x%x\n", (unsigned)r);
        return;
    }
    atomic_store(&enabled, true);
    if (verbose()) fprintf(stderr, "zestall-floor: tracer enabled\n");
}

ZE_APIEXPORT ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags) {
    typedef ze_result_t(ZE_APICALL * init_fn_t)(ze_init_flags_t);
    static _Atomic(init_fn_t) real_init;
    if (real_init == NULL) real_init = (init_fn_t)dlsym(RTLD_NEXT, "zeInit");
    if (real_init == NULL) return ZE_RESULT_ERROR_UNINITIALIZED;
    ze_result_t r = real_init(flags);
    if (r != ZE_RESULT_SUCCESS) return r; /* never touch L0 after a failed zeInit */
    bool first = false;
    if (atomic_compare_exchange_strong(&init_seen, &first, true)) create_tracer();
    return r;
}

/* Like zestall: disable and destroy the tracer while the loader (which we
 * link, so its destructor runs after ours) is still alive. */
__attribute__((destructor)) static void floor_dtor(void) {
    if (tracer == NULL) return;
    if (atomic_load(&enabled)) zelTracerSetEnabled(tracer, 0);
    zelTracerDestroy(tracer);
    tracer = NULL;
}
