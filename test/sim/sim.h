/*
 * sim.h — internal interfaces of the simulated Level-Zero device
 * (libze_zestall_sim.so).
 *
 * The simulated driver is split by area; each area owns the DDI getters of
 * its tables:
 *
 *   core_*.c      configuration, device models, ground-truth writer, clocks,
 *               the driver, devices, contexts, memory and their getters,
 *               every empty getter (image, sampler, zes, ...) and
 *               zeDriverGetExtensionFunctionAddress (core.h lists the files).
 *   module_*.c    modules (zebin parsing, ISA placement, SPIR-V through
 *               libocloc), kernels, build logs, zetModuleGetDebugInfo,
 *               zetKernelGetProfileInfo.
 *   node.c      which tiles of the node (ZESIM_CARDS) a process sees
 *               (ZE_AFFINITY_MASK, as Intel's driver reads it).
 *   machine.c   state shared by the processes of one ZESIM_MACHINE: runs
 *               of every process per tile (a stream samples them all),
 *               kernel code, processes per tile (zesDeviceProcessesGetState).
 *   debugzebin_*.c  merging IGC's legacy .dbg output into a zebin (offline
 *               and for SPIR-V builds: _merge.c) and building the "debug
 *               zebin" that zetModuleGetDebugInfo returns (_build.c), over
 *               a bounds-checked ELF reader (_elf.c, debugzebin_elf.h).
 *   exec_*.c      command queues, command lists (regular, immediate,
 *               in-order), fences, event pools, events, the virtual-time
 *               engines, kernel timestamps, launch ground truth.
 *   metrics_*.c   metric groups and metrics (EuStallSampling), activation,
 *               streamers, raw records, calculation, sample generation,
 *               the metric tracer (experimental) API, sample ground truth.
 *
 * Every handle handed out is a pointer to a struct that starts with a
 * sim_obj_t; SIM_OBJ() validates kind and liveness so that foreign handles
 * (e.g. loader handles in intercept mode) are reported instead of
 * dereferenced blindly.
 *
 * Time: the device runs in "virtual device time" that is tied to the host's
 * CLOCK_MONOTONIC_RAW. A command starts when its engine is free and its
 * dependencies are met, and runs for a modelled duration; its device
 * timestamps are derived from the host time at which it (virtually) runs.
 * Engines advance lazily, whenever anybody looks (sim_exec_progress).
 */
#ifndef ZESTALL_SIM_H
#define ZESTALL_SIM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_api.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_api.h>
#include <level_zero/zet_ddi.h>

#define SIM_HIDDEN __attribute__((visibility("hidden")))
#define SIM_EXPORT __attribute__((visibility("default")))

/* The check every DDI getter (`*GetProcAddrTable`) starts with: a table to
 * fill, and an API version the tables' layout is compatible with (the
 * loader asks for 1.4; any 1.x is fine, every table only grew). */
#define SIM_DDI_TABLE_CHECK(version, table) \
    do { \
        if ((table) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER; \
        if (ZE_MAJOR_VERSION(version) != 1) return ZE_RESULT_ERROR_UNSUPPORTED_VERSION; \
    } while (0)

/* ------------------------------------------------------------------ */
/* Constants missing from Debian's 1.8.12 headers (spec 1.4).          */
/* Values: docs/eu-stall-sampling.md §0 "Conventions, sources, constants missing from Debian's headers". */
/* ------------------------------------------------------------------ */
/* Debian's 1.8.12 zet_api.h names the IP metric type ZET_METRIC_TYPE_IP_EXP;
 * later headers call it ZET_METRIC_TYPE_IP. One value, from the header. */
#ifndef ZET_METRIC_TYPE_IP
#define ZET_METRIC_TYPE_IP ZET_METRIC_TYPE_IP_EXP
#endif
#define SIM_STYPE_METRIC_GLOBAL_TIMESTAMPS_RESOLUTION_EXP 0x9u
#define SIM_STYPE_METRIC_GROUP_TYPE_EXP 0x00010006u
#define SIM_STYPE_METRIC_SOURCE_ID_EXP 0x00010009u
#define SIM_STYPE_METRIC_TRACER_EXP_DESC 0x00010008u
#define SIM_STYPE_INTEL_METRIC_HW_BUFFER_SIZE_EXP_DESC 0x00010007u
#define SIM_STYPE_INTEL_METRIC_GROUP_CALCULATION_EXP_PROPERTIES 0x00010008u
#define SIM_STYPE_INTEL_METRIC_CALCULABLE_PROPERTIES_EXP 0x0001000cu
#define SIM_METRIC_GROUP_TYPE_EXP_FLAG_OTHER (1u << 2)
#define SIM_METRIC_GROUP_SAMPLING_TYPE_FLAG_EXP_TRACER_BASED (1u << 2)
/* ZE_COMMAND_LIST_FLAG_IN_ORDER (spec 1.9) */
#define SIM_COMMAND_LIST_FLAG_IN_ORDER (1u << 3)

/* ------------------------------------------------------------------ */
/* Handles                                                             */
/* ------------------------------------------------------------------ */
#define SIM_MAGIC 0x4d49535au /* "ZSIM" */
#define SIM_DEAD 0x44414544u  /* "DEAD": set on destroy, before free */

typedef enum sim_kind {
    SIM_K_DRIVER = 1,
    SIM_K_DEVICE,
    SIM_K_CONTEXT,
    SIM_K_CMDQUEUE,
    SIM_K_CMDLIST,
    SIM_K_FENCE,
    SIM_K_EVENTPOOL,
    SIM_K_EVENT,
    SIM_K_MODULE,
    SIM_K_BUILDLOG,
    SIM_K_KERNEL,
    SIM_K_METRIC_GROUP,
    SIM_K_METRIC,
    SIM_K_STREAMER,
    SIM_K_METRIC_TRACER,
    SIM_K_METRIC_DECODER,
    SIM_K_METRIC_SCOPE,
} sim_kind_t;

typedef struct sim_obj {
    uint32_t magic; /* SIM_MAGIC while alive, SIM_DEAD after destroy */
    uint32_t kind;  /* sim_kind_t */
} sim_obj_t;

/* Returns the object if h is a live sim object of kind k, else NULL. */
static inline void *sim_obj_check(const void *h, sim_kind_t k) {
    const sim_obj_t *o = (const sim_obj_t *)h;
    if (o == NULL || o->magic != SIM_MAGIC || o->kind != (uint32_t)k) return NULL;
    return (void *)o;
}
#define SIM_OBJ(type, h, kind) ((type *)sim_obj_check((h), (kind)))
static inline void sim_obj_init(sim_obj_t *o, sim_kind_t k) {
    o->magic = SIM_MAGIC;
    o->kind = (uint32_t)k;
}
static inline void sim_obj_kill(sim_obj_t *o) { o->magic = SIM_DEAD; }

/* ------------------------------------------------------------------ */
/* Configuration (environment variables ZESIM_*, read once at the      */
/* first driver zeInit; documented in test/sim/README.md).             */
/* ------------------------------------------------------------------ */
typedef enum sim_platform {
    SIM_PLATFORM_PVC = 0, /* Xe-HPC, Intel Data Center GPU Max */
    SIM_PLATFORM_XE2 = 1, /* Xe2-HPG, Intel Arc B580 (BMG)    */
    SIM_PLATFORM_DG2 = 2, /* Xe-HPG, Intel Arc A770 (no EuStallSampling) */
} sim_platform_t;

typedef enum sim_kmd {
    SIM_KMD_I915_PRELIM = 0, /* PVC default (Aurora) */
    SIM_KMD_XE = 1,          /* Xe2 default          */
} sim_kmd_t;

typedef struct sim_config {
    sim_platform_t platform;     /* ZESIM_MODEL=pvc|pvc-1550|xe2|dg2 */
    const char *model_name;      /* canonical model string             */
    uint32_t device_id;          /* PCI device id                       */
    const char *device_name;     /* ze_device_properties_t.name         */
    uint32_t tiles;              /* tiles per card                      */
    uint32_t cards;              /* ZESIM_CARDS: cards of the node      */
    const char *affinity_mask;   /* ZE_AFFINITY_MASK as given (NULL: unset) */
    bool sysman_core;            /* ZES_ENABLE_SYSMAN=1: Sysman calls accept core device handles */
    bool composite;              /* ZESIM_HIERARCHY / ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE */
    uint32_t xecores_per_tile;   /* Xe-cores (DSS) per tile             */
    uint32_t eus_per_xecore;     /* XVEs per Xe-core                    */
    uint32_t threads_per_eu;
    uint32_t simd_width;         /* physical EU SIMD width              */
    uint32_t core_clock_mhz;
    uint64_t timestamp_hz;       /* GPU timestamp frequency             */
    uint32_t timestamp_valid_bits;        /* 36 on PVC                  */
    uint32_t kernel_timestamp_valid_bits; /* 32 on PVC                  */
    uint64_t timestamp_offset_ticks; /* ZESIM_TIMESTAMP_OFFSET: added to every device tick value (wrap tests) */
    sim_kmd_t kmd;               /* ZESIM_KMD=i915|xe                   */
    bool metrics_enabled;        /* ZET_ENABLE_METRICS=1                */
    bool metrics_permitted;      /* ZESIM_METRICS_PERMISSION=denied -> false (paranoid sysctl) */
    bool metric_tracer;          /* ZESIM_METRIC_TRACER=1: working zetMetricTracer*Exp */
    bool builtin_kernels;        /* ZESIM_BUILTIN_KERNELS=1: compute-engine copies/fills run as built-in kernels */
    uint64_t euss_poll_ns;       /* ZESIM_EUSS_POLL_NS: KMD write-pointer poll period, 0 = reads see every sample at once */
    uint64_t destroy_pause_ns;   /* ZESIM_DESTROY_PAUSE_NS: zeKernelDestroy/zeModuleDestroy wait after freeing the object */
    uint64_t event_read_ns;      /* ZESIM_EVENT_READ_NS: CPU time a host query of an event's memory stalls (device-local event memory read across PCIe), 0 = cached host memory */
    uint64_t seed;               /* ZESIM_SEED                          */
    const char *ground_truth_path; /* ZESIM_GROUND_TRUTH               */
    double time_scale;           /* ZESIM_TIME_SCALE: multiplies every modelled duration */
    uint64_t launch_overhead_ns; /* fixed part of a kernel's duration   */
    uint64_t default_ps_per_item; /* ZESIM_KERNEL_COST default           */
    const char *kernel_cost;     /* ZESIM_KERNEL_COST="name=ps_per_item[/overhead_ns],..." */
    bool log;                    /* ZESIM_LOG=1: trace calls to stderr  */
    const char *stats;           /* ZESIM_STATS: "1" (stderr) or a file: the device emulation's cost line at exit */
    /* Command queue groups (zeDeviceGetCommandQueueGroupProperties order;
     * ordinal = index here). core_config.c fills them per model; exec_*.c creates
     * one engine per (ordinal, index). */
    uint32_t num_queue_groups;
    struct {
        ze_command_queue_group_property_flags_t flags;
        uint32_t num_queues;
    } queue_groups[4];
} sim_config_t;

SIM_HIDDEN extern sim_config_t sim_cfg;

/* Per-kernel cost lookup (ZESIM_KERNEL_COST or defaults). */
SIM_HIDDEN void sim_kernel_cost(const char *kernel_name, uint64_t *ps_per_item, uint64_t *overhead_ns);

/* ------------------------------------------------------------------ */
/* Clocks                                                              */
/* ------------------------------------------------------------------ */
/* Host time in ns, CLOCK_MONOTONIC_RAW (also zeDeviceGetGlobalTimestamps' host value). */
SIM_HIDDEN uint64_t sim_now_ns(void);
/* Sleep until host time t (ns, CLOCK_MONOTONIC_RAW) or for at most max_ns. */
SIM_HIDDEN void sim_sleep_until(uint64_t t, uint64_t max_ns);

/* ------------------------------------------------------------------ */
/* Ground truth (ZESIM_GROUND_TRUTH=<file>): JSON lines.               */
/*   {"type":"config", ...}                                            */
/*   {"type":"kernel","event":"create"|"destroy","kernel":<id>,...}   */
/*   {"type":"launch",...}  (exec_*.c)                                   */
/*   {"type":"sample",...}  (metrics_*.c)                                */
/* Schema: test/sim/README.md.                                         */
/* ------------------------------------------------------------------ */
SIM_HIDDEN bool sim_gt_enabled(void);
/* printf-style; appends one line (a '\n' is added). Thread-safe. */
SIM_HIDDEN void sim_gt_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
SIM_HIDDEN void sim_gt_flush(void);

SIM_HIDDEN void sim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------ */
/* Driver, devices, contexts                                           */
/* ------------------------------------------------------------------ */
struct sim_metric_dev;  /* metrics_*.c */
struct sim_engine;      /* exec_*.c */
struct sim_run;

typedef struct sim_device {
    sim_obj_t obj;
    struct sim_driver *driver;
    struct sim_device *parent;     /* root device of a sub-device, else NULL */
    uint32_t index;                /* root: index among roots; sub: sub-device id */
    uint32_t card;                 /* physical card of the node (ZESIM_CARDS) */
    uint32_t tile;                 /* leaf: tile within its card; COMPOSITE root with sub-devices: its first */
    uint32_t node_tile;            /* leaf: card * tiles + tile, the tile's index on the node */
    uint32_t num_subdevices;       /* COMPOSITE root: tiles, else 0 */
    struct sim_device **subdevices;
    uint32_t xecores;              /* Xe-cores of this (sub)device (root COMPOSITE: sum) */
    uint32_t first_xecore;         /* node-wide index of this device's first Xe-core (node_tile * Xe-cores per tile) */
    uint64_t ns_per_tick_q32;      /* (1e9 << 32) / timestamp_hz */
    uint64_t epoch_ns;             /* host ns at which device ticks are offset_ticks */

    /* exec_*.c: engines of this device, created lazily. */
    pthread_mutex_t exec_lock;
    struct sim_engine *engines;    /* array [ordinal][index] flattened */
    uint32_t num_engines;

    /* Kernel executions ("runs") for sample generation. This process's
     * launches go to their engine's queue (runqs, below); runs_incoming
     * (lock-free, newest first) carries other processes' runs
     * (machine.c) and our own only when no queue chunk could be
     * allocated (then taking recycled runs from runs_free). Launching
     * threads never wait for run_lock. The holder of run_lock (a stream
     * reader generating samples, or a pruner) moves runs_incoming into
     * its list runs_head..runs_tail, reads the queues, and frees runs no
     * stream needs. */
    _Atomic(struct sim_run *) runs_incoming;
    atomic_uint runs_incoming_n;   /* runs on runs_incoming, approximately */
    _Atomic(struct sim_run *) runs_free;
    pthread_mutex_t run_lock;
    struct sim_run *runs_head, *runs_tail;
    /* This process's own launches: one single-producer queue per engine
     * that launched on this device (exec_run.c), pushed once, immutable
     * once pushed. Read and pruned by the holder of run_lock. */
    _Atomic(struct sim_runq *) runqs;
    atomic_bool sampling_active;   /* a streamer is open on this device or its root/subs */

    struct sim_metric_dev *metrics; /* metrics_*.c state, created lazily */
} sim_device_t;

typedef struct sim_driver {
    sim_obj_t obj;
    uint32_t num_devices;          /* root devices */
    sim_device_t **devices;
    ze_driver_uuid_t uuid;
} sim_driver_t;

SIM_HIDDEN extern sim_driver_t *sim_driver; /* the one driver, after zeInit */

/* A root device of this process (node.c): a card and the tiles of it the
 * device covers (bit t = tile t; one bit in FLAT mode). */
#define SIM_MAX_CARDS 32u /* ZESIM_CARDS limit */
typedef struct sim_node_dev {
    uint32_t card;
    uint32_t tiles;
} sim_node_dev_t;
/* The root devices that ZE_AFFINITY_MASK (mask, NULL = all) leaves of a
 * node of `cards` cards with `tiles` tiles each, in physical order, as
 * Intel's driver selects them; at most cap. The first entry that is not of
 * a valid form goes to bad ("" if none). */
SIM_HIDDEN uint32_t sim_node_select(uint32_t cards, uint32_t tiles, bool composite, const char *mask,
                                    sim_node_dev_t *out, uint32_t cap, char *bad, size_t badcap);

/* Device ticks <-> host ns. Ticks include timestamp_offset_ticks and are
 * NOT masked; mask with (1 << valid_bits) - 1 where the API requires. */
SIM_HIDDEN uint64_t sim_dev_ticks(const sim_device_t *dev, uint64_t host_ns);
SIM_HIDDEN uint64_t sim_dev_host_ns(const sim_device_t *dev, uint64_t ticks);
/* The root of dev (dev itself for a root device). */
static inline sim_device_t *sim_root(sim_device_t *dev) { return dev->parent ? dev->parent : dev; }

typedef struct sim_context {
    sim_obj_t obj;
    sim_driver_t *driver;
    /* metrics_*.c: activated metric groups per device live in sim_metric_dev. */
} sim_context_t;

/* Memory allocations (host/device/shared) are real host memory. */
/* Finds the allocation containing ptr (interior pointers too); *size is
 * the number of bytes from ptr to the end of that allocation. (core_mem.c) */
SIM_HIDDEN bool sim_mem_lookup(const void *ptr, size_t *size, ze_memory_type_t *type, sim_device_t **dev);

/* ------------------------------------------------------------------ */
/* Modules and kernels (module_*.c)                                      */
/* ------------------------------------------------------------------ */

/* Decoded ISA of one kernel: shared by the kernel and every run that
 * executes it, so it outlives zeKernelDestroy/zeModuleDestroy. */
typedef struct sim_isa {
    atomic_uint refs;
    char *kernel_name;
    uint64_t kernel_id;           /* global id, also used in ground truth */
    uint64_t gpu_va;              /* zexKernelGetBaseAddress value */
    const uint8_t *bytes;         /* .text.<name> bytes incl. padding (owned copy) */
    size_t size;                  /* section size incl. padding (zeIntelKernelGetBinaryExp size) */
    size_t code_size;             /* bytes up to and including the EOT send (symbol size) */
    uint32_t num_insts;           /* instructions in [0, code_size) */
    uint32_t *inst_offset;        /* byte offset of each instruction */
    uint8_t *inst_opcode;         /* opcode (byte0 & 0x7f) of each instruction */
    uint8_t *inst_size;           /* 8 (compacted) or 16 */
    /* metrics_*.c: sampling profile, built once on first use. */
    pthread_once_t profile_once;
    void *profile;
    /* Frees profile when the last reference goes (NULL: free()). */
    void (*profile_free)(void *profile);
    atomic_bool machine_shared;   /* machine.c: its code file was written (ZESIM_MACHINE) */
} sim_isa_t;
SIM_HIDDEN sim_isa_t *sim_isa_ref(sim_isa_t *isa);
/* Extension functions owned by module_*.c (zexKernelGetBaseAddress,
 * zeIntelKernelGetBinaryExp, ...); NULL if unknown. */
SIM_HIDDEN void *sim_module_extension(const char *name);
SIM_HIDDEN void sim_isa_unref(sim_isa_t *isa);
/* The driver's built-in kernels (copies and fills on compute engines,
 * ZESIM_BUILTIN_KERNELS=1): ISA in a driver-owned range at the top of every
 * root device's instruction window, which no application module covers;
 * kernel ids from SIM_BUILTIN_KERNEL_ID_BASE. Created on first use (their
 * ground-truth "kernel" lines then); never freed. NULL if out of memory. */
typedef enum { SIM_BUILTIN_COPY = 0, SIM_BUILTIN_FILL = 1, SIM_BUILTIN_COUNT } sim_builtin_t;
#define SIM_BUILTIN_KERNEL_ID_BASE (1ull << 40)
#define SIM_BUILTIN_LAUNCH_ID_BASE (1ull << 40)
SIM_HIDDEN sim_isa_t *sim_builtin_isa(sim_builtin_t which);

typedef struct sim_kernel_arg {
    uint32_t size;                /* bytes (8 for pointers) */
    bool is_pointer;
    bool is_local;                /* SLM argument: value is the size */
} sim_kernel_arg_t;

typedef struct sim_module sim_module_t;

typedef struct sim_kernel {
    sim_obj_t obj;
    sim_module_t *module;
    sim_isa_t *isa;               /* reference held */
    uint32_t group_size[3];       /* zeKernelSetGroupSize, default from .ze_info or 1 */
    uint32_t simd_size;           /* from .ze_info */
    uint32_t num_args;
    sim_kernel_arg_t *args;
    uint64_t *arg_values;         /* last value set (pointer or first 8 bytes) */
    uint32_t slm_bytes;           /* static + dynamic SLM */
    ze_kernel_indirect_access_flags_t indirect_flags;
    ze_cache_config_flags_t cache_config; /* zeKernelSetCacheConfig */
    uint32_t global_offset[3];            /* zeKernelSetGlobalOffsetExp */
    pthread_mutex_t lock;
} sim_kernel_t;

struct sim_module {
    sim_obj_t obj;
    sim_context_t *context;
    sim_device_t *device;
    uint8_t *native;              /* zebin returned by zeModuleGetNativeBinary */
    size_t native_size;
    uint64_t isa_va;              /* ISA allocation (all kernels back to back) */
    uint64_t isa_alloc_size;
    uint32_t num_kernels;
    sim_isa_t **kernels;          /* per .text.<name> section, in section order */
    atomic_uint live_kernels;     /* zeKernelCreate'd and not destroyed */
};

/* ------------------------------------------------------------------ */
/* Execution (exec_*.c)                                                  */
/* ------------------------------------------------------------------ */

/* One execution of one kernel launch on one (sub)device. Created by
 * exec_*.c when the launch's start and end times are known; read by
 * metrics_*.c to generate samples; freed by sim_runs_prune. */
typedef struct sim_run {
    struct sim_run *next;
    uint64_t launch_id;           /* global, 1-based, also in ground truth */
    sim_device_t *device;         /* the (sub)device whose Xe-cores ran it */
    sim_isa_t *isa;               /* reference held */
    uint64_t start_ns, end_ns;    /* host ns (CLOCK_MONOTONIC_RAW) */
    uint32_t first_xecore;        /* Xe-cores [first, first+num) of device, modulo device->xecores */
    uint32_t num_xecores;
    uint64_t seed;                /* per-run RNG seed (config seed, kernel, launch) */
    uint32_t pid;                 /* 0: this process's launch; else the process that ran it (machine.c) */
} sim_run_t;

/* Advance every engine of dev (and its sub-devices) so that all commands
 * whose start time is <= now have been scheduled (runs appended, events
 * given their signal times). Called by metrics before generating samples. */
SIM_HIDDEN void sim_exec_progress(sim_device_t *dev, uint64_t now_ns);
/* Remove runs that ended before t (metrics calls this after generating;
 * exec calls it with t = now when no streamer is open). Takes run_lock. */
SIM_HIDDEN void sim_runs_prune(sim_device_t *dev, uint64_t before_ns);
/* run_lock held: moves the runs launches published since the last call
 * to the end of dev->runs_head..runs_tail, in publication order. */
SIM_HIDDEN void sim_runs_collect_locked(sim_device_t *dev);
/* run_lock held (after sim_runs_collect_locked): calls fn for every run
 * of dev not yet pruned: the listed ones (other processes', overflow) in
 * publication order, then each engine queue's in launch order. The run
 * passed is valid only during the call; its isa stays referenced until
 * run_lock is released. */
SIM_HIDDEN void sim_runs_foreach_locked(sim_device_t *dev, void (*fn)(void *ctx, const sim_run_t *r), void *ctx);

/* ------------------------------------------------------------------ */
/* The machine (machine.c): state shared by the processes that set the  */
/* same ZESIM_MACHINE, per node tile. Every function is a no-op without */
/* ZESIM_MACHINE (the process is then a machine of its own).           */
/* ------------------------------------------------------------------ */
/* The machine's directory (created 0700); false if ZESIM_MACHINE is unset. */
SIM_HIDDEN bool sim_machine_dir(char *out, size_t cap);
/* This process uses leaf's tile (zeInit): listed by zesDeviceProcessesGetState. */
SIM_HIDDEN void sim_machine_register(const sim_device_t *leaf);
/* Live processes using leaf's tile (this one included if registered):
 * pids, and whether each has run a kernel on it; at most cap. */
SIM_HIDDEN uint32_t sim_machine_processes(const sim_device_t *leaf, uint32_t *pids, uint32_t *launched, uint32_t cap);
/* A run of this process on r->device (a leaf), for other processes'
 * streams: lock-free, called by the launching thread. */
SIM_HIDDEN void sim_machine_publish(const sim_run_t *r, bool builtin);
/* A stream opened on leaf at since_ns: its reader starts here. */
SIM_HIDDEN void sim_machine_reader_open(sim_device_t *leaf, uint64_t since_ns);
/* Reader (metrics g_mx held): other processes' runs on leaf's tile
 * published since the last call become local runs (pid set) on leaf. */
SIM_HIDDEN uint64_t sim_machine_ingest(sim_device_t *leaf, uint64_t now);
/* This process's id as the machine knows it. */
SIM_HIDDEN uint32_t sim_machine_pid(void);

/* Events: exec_*.c. The metrics streamer attaches its notification event,
 * whose state then comes from sim_metrics_notify_state(). */
typedef struct sim_event sim_event_t;
struct sim_streamer;
SIM_HIDDEN sim_event_t *sim_event_from_handle(ze_event_handle_t h);
SIM_HIDDEN void sim_event_attach_streamer(sim_event_t *ev, struct sim_streamer *s); /* s = NULL detaches */
/* ZE_extension_event_query_kernel_timestamps (spec 1.6; Debian's 1.4
 * headers lack it): values from the specification. */
#define SIM_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP (1u << 3)
#define SIM_STYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_PROPERTIES 0x10011u
#define SIM_STYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_RESULTS_EXT_PROPERTIES 0x10012u
#define SIM_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_NAME "ZE_extension_event_query_kernel_timestamps"
#define SIM_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_KERNEL (1u << 0)
#define SIM_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_SYNCHRONIZED (1u << 1)
typedef struct sim_event_query_kernel_timestamps_ext_properties {
    uint32_t stype;
    void *pNext;
    uint32_t flags;
} sim_event_query_kernel_timestamps_ext_properties_t;
typedef struct sim_synchronized_timestamp_data_ext {
    uint64_t kernelStart, kernelEnd;
} sim_synchronized_timestamp_data_ext_t;
typedef struct sim_synchronized_timestamp_result_ext {
    sim_synchronized_timestamp_data_ext_t global, context;
} sim_synchronized_timestamp_result_ext_t;
typedef struct sim_event_query_kernel_timestamps_results_ext_properties {
    uint32_t stype;
    void *pNext;
    ze_kernel_timestamp_result_t *pKernelTimestampsBuffer;
    sim_synchronized_timestamp_result_ext_t *pSynchronizedTimestampsBuffer;
} sim_event_query_kernel_timestamps_results_ext_properties_t;

/* Extension functions owned by exec_*.c (zeCommandQueueGetOrdinal,
 * zeCommandQueueGetIndex: exec_queue.c; zeEventQueryKernelTimestampsExt:
 * exec_event.c), or NULL. */
SIM_HIDDEN void *sim_event_extension(const char *name);
SIM_HIDDEN void *sim_exec_extension(const char *name);

/* ------------------------------------------------------------------ */
/* Metrics (metrics_*.c)                                                 */
/* ------------------------------------------------------------------ */
/* true when at least notifyEveryNReports records are buffered (generates
 * pending samples first). */
SIM_HIDDEN bool sim_metrics_notify_state(struct sim_streamer *s);
/* Extension functions owned by metrics_*.c (zetIntelDeviceEnableMetricsExp,
 * zetMetricTracer*Exp, zetMetricDecoder*Exp); NULL if unknown. */
SIM_HIDDEN void *sim_metrics_extension(const char *name);
/* Called by core_driver.c at the first zeInit after devices exist. */
SIM_HIDDEN void sim_metrics_init(void);
/* Called by core_context.c from zeContextDestroy (before freeing ctx): drops the
 * context's metric group activations, so that a new context allocated at
 * the same address does not inherit them. */
SIM_HIDDEN void sim_metrics_context_destroy(sim_context_t *ctx);

/* ------------------------------------------------------------------ */
/* Debug info (debugzebin_merge.c, debugzebin_build.c)                */
/* ------------------------------------------------------------------ */
/* Merge IGC's legacy debug container (.dbg, "CTNI") into a zebin: the
 * result is a zebin with one set of .debug_* sections holding one compile
 * unit and one line program per kernel, and .rela.debug_* relocations
 * (R_ZE_SYM_ADDR) against each kernel's symbol, like newer IGC writes.
 * Returns 0 and a malloc'd buffer, or -1 with a message in err. */
SIM_HIDDEN int sim_zebin_merge_debug(const uint8_t *zebin, size_t zebin_size,
                                     const uint8_t *dbg, size_t dbg_size,
                                     uint8_t **out, size_t *out_size,
                                     char *err, size_t err_cap);
/* Build the debug zebin Intel's driver returns from zetModuleGetDebugInfo:
 * ET_EXEC, every section copied, .text.<k> at kernel_va[k] (by section
 * name, names[k]) with PT_LOAD headers, relocations applied in place so
 * DWARF addresses are absolute. Returns 0 and a malloc'd buffer, or -1. */
SIM_HIDDEN int sim_debug_zebin_build(const uint8_t *zebin, size_t zebin_size,
                                     uint32_t num_kernels, const char *const *names,
                                     const uint64_t *kernel_va,
                                     uint8_t **out, size_t *out_size,
                                     char *err, size_t err_cap);

/* ------------------------------------------------------------------ */
/* Small helpers shared by all areas (core_util.c)                     */
/* ------------------------------------------------------------------ */
/* splitmix64: deterministic RNG step. */
static inline uint64_t sim_mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
SIM_HIDDEN uint64_t sim_hash_str(const char *s);
/* JSON-escapes s (without the surrounding quotes) into buf (cap bytes,
 * always NUL-terminated, truncated if needed); returns buf. (core_util.c) */
SIM_HIDDEN const char *sim_json_str(const char *s, char *buf, size_t cap);
/* Walk a pNext chain of structures that start with {stype, pNext}. */
typedef struct sim_base_desc { uint32_t stype; const void *pNext; } sim_base_desc_t;

#endif /* ZESTALL_SIM_H */
