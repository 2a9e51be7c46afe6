/*
 * core.h — internal interface of the core files of the simulated driver
 * (core_*.c). Nothing outside core_*.c includes it; what other areas use
 * is in sim.h.
 *
 * Files, one concern each:
 *   core_model.c    the device models (ZESIM_MODEL)
 *   core_config.c   configuration variables, read once at zeInit (sim_cfg)
 *   core_util.c     small helpers shared by every area (hash, JSON, log)
 *   core_clock.c    host clock, sleeping, host ns <-> device ticks
 *   core_truth.c    the ground-truth file
 *   core_driver.c   zeInit (driver and device creation) and the driver
 *   core_device.c   devices and sub-devices
 *   core_context.c  contexts
 *   core_mem.c      memory allocations
 *   core_ddi.c      getters of tables with nothing simulated; Sysman
 *
 * Each file defines the DDI getters of the tables it implements.
 */
#ifndef ZESIM_CORE_H
#define ZESIM_CORE_H

#include "sim.h"

typedef struct sim_model {
    const char *key;          /* ZESIM_MODEL value */
    sim_platform_t platform;
    const char *name;
    uint32_t device_id;
    uint32_t tiles;
    uint32_t slices_per_tile; /* numSlices reported per tile */
    uint32_t xecores_per_tile;
    uint32_t eus_per_xecore;
    uint32_t threads_per_eu;
    uint32_t simd_width;
    uint32_t clock_mhz;
    uint64_t timestamp_hz;
    uint32_t ts_bits, kts_bits;
    uint64_t mem_per_tile;    /* bytes of device memory per tile */
    const char *mem_name;
    uint32_t mem_clock_mhz, mem_bus_width;
    uint64_t cache_per_tile;  /* L2 bytes per tile */
    uint32_t slm_bytes;       /* maxSharedLocalMemory */
    uint32_t subgroup_sizes[3];
    uint32_t num_subgroup_sizes;
    bool fp64;
    sim_kmd_t default_kmd;
    uint8_t pci_bus;
    int32_t pci_gen, pci_width;
} sim_model_t;

/* The models (core_model.c) and the one ZESIM_MODEL chose. */
SIM_HIDDEN extern const sim_model_t sim_models[];
SIM_HIDDEN extern const size_t sim_num_models;
SIM_HIDDEN extern const sim_model_t *sim_model;

/* Reads every variable into sim_cfg (core_config.c); once, from zeInit. */
SIM_HIDDEN void sim_config_load(void);

/* Ground truth on: installs the fork handlers and writes the config line
 * (core_truth.c); once, from zeInit. */
SIM_HIDDEN void core_gt_start(void);

/* API functions that need the driver answer ZE_RESULT_ERROR_UNINITIALIZED
 * before zeInit. */
#define CHECK_INIT() \
    do { \
        if (sim_driver == NULL) return ZE_RESULT_ERROR_UNINITIALIZED; \
    } while (0)

/* Fills a handle array following the Level-Zero count protocol
 * (core_driver.c). */
SIM_HIDDEN ze_result_t core_fill_handles(uint32_t *pCount, void **out, void *const *src, uint32_t n);

static inline sim_driver_t *drv_of(ze_driver_handle_t h) { return SIM_OBJ(sim_driver_t, h, SIM_K_DRIVER); }
static inline sim_device_t *dev_of(ze_device_handle_t h) { return SIM_OBJ(sim_device_t, h, SIM_K_DEVICE); }
static inline sim_context_t *ctx_of(ze_context_handle_t h) { return SIM_OBJ(sim_context_t, h, SIM_K_CONTEXT); }

/* Number of tiles a (sub)device spans. */
static inline uint32_t dev_tiles(const sim_device_t *d) { return d->num_subdevices ? d->num_subdevices : 1; }

#endif
