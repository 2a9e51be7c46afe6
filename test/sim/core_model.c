/*
 * core_model.c — the device models (ZESIM_MODEL): the table of cards the
 * simulator can be, and the model chosen at zeInit.
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

/* Numbers follow the public specifications of the products; the PVC
 * timestamp frequency and valid bits follow the reference (docs/eu-stall-sampling.md §2.2 "Extended group properties through pNext", docs/eu-stall-sampling.md §5.3 "samplingPeriod (nanoseconds)"). */
const sim_model_t sim_models[] = {
    {"pvc", SIM_PLATFORM_PVC, "Intel(R) Data Center GPU Max 1550", 0x0BD5, 2, 1, 64, 8, 8, 16, 1600,
     38400000ull, 36, 32, 64ull << 30, "HBM", 3200, 4096, 204ull << 20, 128 * 1024, {16, 32, 0}, 2, true,
     SIM_KMD_I915_PRELIM, 0x29, 5, 16},
    {"pvc-1100", SIM_PLATFORM_PVC, "Intel(R) Data Center GPU Max 1100", 0x0BDA, 1, 1, 56, 8, 8, 16, 1550,
     38400000ull, 36, 32, 48ull << 30, "HBM", 3200, 4096, 108ull << 20, 128 * 1024, {16, 32, 0}, 2, true,
     SIM_KMD_I915_PRELIM, 0x29, 5, 16},
    /* PVC XL (0x0BD0): same layout as the 1550, but Intel's driver offers
     * no EuStallSampling on it (docs/eu-stall-sampling.md §2.5 "Where the group exists"). */
    {"pvc-xl", SIM_PLATFORM_PVC, "Intel(R) Data Center GPU Max", 0x0BD0, 2, 1, 64, 8, 8, 16, 1600,
     38400000ull, 36, 32, 64ull << 30, "HBM", 3200, 4096, 204ull << 20, 128 * 1024, {16, 32, 0}, 2, true,
     SIM_KMD_I915_PRELIM, 0x29, 5, 16},
    {"xe2", SIM_PLATFORM_XE2, "Intel(R) Arc(TM) B580 Graphics", 0xE20B, 1, 5, 20, 8, 8, 16, 2850,
     19200000ull, 36, 32, 12ull << 30, "GDDR6", 2375, 192, 18ull << 20, 128 * 1024, {16, 32, 0}, 2, true,
     SIM_KMD_XE, 0x03, 4, 8},
    {"dg2", SIM_PLATFORM_DG2, "Intel(R) Arc(TM) A770 Graphics", 0x56A0, 1, 8, 32, 16, 8, 8, 2400,
     19200000ull, 36, 32, 16ull << 30, "GDDR6", 2187, 256, 16ull << 20, 64 * 1024, {8, 16, 32}, 3, false,
     SIM_KMD_I915_PRELIM, 0x03, 4, 16},
};
const size_t sim_num_models = sizeof(sim_models) / sizeof(sim_models[0]);
const sim_model_t *sim_model = &sim_models[0];
