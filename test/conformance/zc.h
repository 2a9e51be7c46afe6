/*
 * zc.h — the conformance suite of the simulated Level-Zero driver.
 *
 * Written against the Level-Zero spec and the reference documents
 * (eu-stall-sampling.md, level-zero-loader.md), not against the simulated
 * driver's code: it is the independent check that the simulated driver
 * behaves like Intel's. The expected platform comes from the environment
 * the suite is given (ZESIM_MODEL, ZE_FLAT_DEVICE_HIERARCHY, ZESIM_KMD,
 * ZET_ENABLE_METRICS, ZESIM_METRICS_PERMISSION).
 *
 * Framework: CHECK* macros record name, file:line, expected and got; the
 * suite ends with exactly one line "N passed, N failed".
 */
#ifndef ZC_H
#define ZC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <level_zero/ze_api.h>
#include <level_zero/zet_api.h>

#ifndef ZESTALL_KERNELS_DEFAULT
#define ZESTALL_KERNELS_DEFAULT "test/kernels"
#endif

/* ---- framework ---------------------------------------------------- */
void zc_record(bool ok, const char *name, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
extern unsigned zc_passed, zc_failed;

#define CHECK(cond, name, ...) zc_record((cond), (name), __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_TRUE(cond, name) zc_record((cond), (name), __FILE__, __LINE__, "expected %s", #cond)
#define CHECK_U64(got, exp, name)                                                                    \
    do {                                                                                             \
        unsigned long long g_ = (unsigned long long)(got), e_ = (unsigned long long)(exp);           \
        zc_record(g_ == e_, (name), __FILE__, __LINE__, "expected %llu (%#llx) got %llu (%#llx)", e_, \
                  e_, g_, g_);                                                                       \
    } while (0)
#define CHECK_RES(got, exp, name)                                                                    \
    do {                                                                                             \
        unsigned g_ = (unsigned)(got), e_ = (unsigned)(exp);                                         \
        zc_record(g_ == e_, (name), __FILE__, __LINE__, "expected result 0x%08x got 0x%08x", e_, g_); \
    } while (0)
#define CHECK_STR(got, exp, name)                                                                    \
    do {                                                                                             \
        const char *g_ = (got), *e_ = (exp);                                                         \
        zc_record(g_ && strcmp(g_, e_) == 0, (name), __FILE__, __LINE__, "expected \"%s\" got \"%s\"", \
                  e_, g_ ? g_ : "(null)");                                                           \
    } while (0)
/* A call that must succeed for the rest of a test to make sense. */
#define REQUIRE_OK(call, name) zc_ok((call), (name), #call, __FILE__, __LINE__)
bool zc_ok(ze_result_t r, const char *name, const char *call, const char *file, int line);

/* ---- constants missing from the 1.4 headers (docs/eu-stall-sampling.md §0) -------- */
/* The IP metric type is in Debian's zet_api.h, as ZET_METRIC_TYPE_IP_EXP. */
#define ZC_METRIC_TYPE_IP ((unsigned)ZET_METRIC_TYPE_IP_EXP)
#define ZC_STYPE_GLOBAL_TS_RES 0x9u
#define ZC_STYPE_GROUP_TYPE 0x00010006u
#define ZC_STYPE_SOURCE_ID 0x00010009u
#define ZC_STYPE_HW_BUFFER_SIZE 0x00010007u
#define ZC_STYPE_CALC_PROPS 0x00010008u
#define ZC_STYPE_CALCULABLE 0x0001000cu
#define ZC_GROUP_TYPE_OTHER (1u << 2)
#define ZC_RECORD 64u
#define ZC_HEADER_MAGIC 0xFEEDBCBAu

typedef struct { uint32_t stype; const void *pNext; uint64_t timerResolution, timestampValidBits; } zc_ts_res_t;
typedef struct { uint32_t stype; void *pNext; uint32_t type; } zc_group_type_t;
typedef struct { uint32_t stype; void *pNext; uint32_t sourceId; } zc_source_id_t;
typedef struct { uint32_t stype; void *pNext; bool isTimeFilterSupported; } zc_calc_props_t;
typedef struct { uint32_t stype; void *pNext; bool isCalculable; } zc_calculable_t;
typedef struct { uint32_t stype; const void *pNext; size_t sizeInBytes; } zc_hw_buffer_t;

typedef ze_result_t (*zc_base_fn)(ze_kernel_handle_t, uint64_t *);
typedef ze_result_t (*zc_binary_fn)(ze_kernel_handle_t, size_t *, char *);
/* Extension functions receive driver handles: in the loader's intercept
 * mode the application's handles must be translated first (loader
 * docs/level-zero-loader.md §6 "Intercept mode and
 * `zelLoaderTranslateHandle`"); a no-op in direct mode. */
ze_result_t zc_base(ze_kernel_handle_t k, uint64_t *base);
ze_result_t zc_binary(ze_kernel_handle_t k, size_t *size, char *bytes);

/* ---- expectations from the environment ---------------------------- */
typedef enum { ZC_PVC, ZC_PVC_XL, ZC_XE2, ZC_DG2 } zc_model_t;
typedef struct zc_expect {
    zc_model_t model;
    const char *model_name;
    bool composite;     /* ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE */
    bool xe_kmd;        /* ZESIM_KMD=xe (default: xe for Xe2, i915 otherwise) */
    bool metrics_env;   /* ZET_ENABLE_METRICS=1 */
    bool permitted;     /* ZESIM_METRICS_PERMISSION != denied */
    bool has_group;     /* EuStallSampling expected */
    uint32_t metric_count;
    bool pvc_layout;    /* PVC record/metric layout */
} zc_expect_t;
extern zc_expect_t zc_exp;

/* ---- shared state ------------------------------------------------- */
typedef struct zc_state {
    ze_driver_handle_t driver;
    ze_context_handle_t context;
    uint32_t num_devices;
    ze_device_handle_t devices[16];
    zc_base_fn get_base;     /* zexKernelGetBaseAddress */
    zc_binary_fn get_binary; /* zeIntelKernelGetBinaryExp */
    char stream_path[600], compute_path[600];
    uint8_t *stream_bin, *compute_bin;
    size_t stream_size, compute_size;
    char long_kernel[128];   /* kernel given a long cost via ZESIM_KERNEL_COST */
} zc_state_t;
extern zc_state_t zc;

/* ---- ELF / zebin helpers (zc_elf.c) --------------------------------- */
typedef struct zc_section {
    char name[128];
    uint32_t type;
    uint64_t addr, offset, size;
} zc_section_t;
typedef struct zc_elf {
    const uint8_t *data;
    size_t size;
    uint16_t type, machine;
    uint32_t nsec;
    zc_section_t *sec;
    uint32_t nphdr;
    uint64_t phoff;
} zc_elf_t;
bool zc_elf_open(zc_elf_t *e, const uint8_t *data, size_t size);
void zc_elf_close(zc_elf_t *e);
const zc_section_t *zc_elf_section(const zc_elf_t *e, const char *name);
/* st_size of the FUNC symbol `name`, or 0 */
uint64_t zc_elf_func_size(const zc_elf_t *e, const char *name);
/* PT_LOAD with p_vaddr == addr exists */
bool zc_elf_has_load(const zc_elf_t *e, uint64_t addr, uint64_t *memsz);
/* Kernel names = sections .text.<name> (malloc'd strings). */
uint32_t zc_zebin_kernels(const zc_elf_t *e, char ***names);
/* Instruction offsets in [0, code_size): 8 (bit 29 of dword 0 set) or 16. */
uint32_t zc_inst_offsets(const uint8_t *isa, size_t code_size, uint32_t **offs);
bool zc_is_inst_boundary(const uint32_t *offs, uint32_t n, uint32_t off);
/* DWARF 4 .debug_line: every row address (end_sequence rows flagged). */
typedef struct zc_line_row { uint64_t addr; bool end_seq; } zc_line_row_t;
int zc_dwarf_line_rows(const uint8_t *p, size_t size, zc_line_row_t **rows, size_t *nrows, char *err, size_t errcap);

/* ---- workloads (zc_main.c) ----------------------------------------- */
uint8_t *zc_read_file(const char *path, size_t *size);
typedef struct zc_work {
    ze_device_handle_t dev;
    ze_module_handle_t mod;
    uint32_t nk;
    char **names;
    ze_kernel_handle_t k[16];
    uint64_t base[16];
    size_t isa_size[16];
    uint8_t *isa[16];
    uint64_t code_size[16];
    ze_command_list_handle_t imm;
    ze_event_pool_handle_t pool;
    ze_event_handle_t ev;
    void *buf[3];
    bool ok;
} zc_work_t;
/* Module from `bin` on dev, all kernels created, arguments set. */
bool zc_work_open(zc_work_t *w, ze_device_handle_t dev, const uint8_t *bin, size_t size);
/* Launch kernel ki with `groups` groups of 64 and wait; *ts (optional)
 * receives the kernel timestamps. */
bool zc_work_launch(zc_work_t *w, uint32_t ki, uint32_t groups, ze_kernel_timestamp_result_t *ts);
void zc_work_close(zc_work_t *w);
int zc_work_find(const zc_work_t *w, const char *name);

uint64_t zc_host_ns(void);
void zc_sleep_ms(unsigned ms);
bool zc_device_props(ze_device_handle_t d, ze_device_properties_t *p, bool v12);
uint32_t zc_subdevices(ze_device_handle_t d, ze_device_handle_t *subs, uint32_t cap);

/* ---- records (zc_metrics.c) ---------------------------------------- */
typedef struct zc_rec {
    uint64_t ip;
    uint32_t raw[10];   /* counters in raw (k) order */
    uint16_t subslice, flags;
} zc_rec_t;
void zc_decode(const uint8_t *r, zc_rec_t *out);
/* metric-order values of one record (IP first) */
void zc_metric_order(const zc_rec_t *r, uint64_t *vals);

/* ---- test groups ---------------------------------------------------- */
void zc_test_device(void);
void zc_test_kernels(void);
void zc_test_extensions(void);
/* "hold-stream" mode: opens an EU stall stream on device 0, says "held", waits to be killed. */
int zc_hold_stream(void);
/* "try-stream" mode: opens an EU stall stream on device 0, prints "open 0x<result>". */
int zc_try_stream(void);
/* The simulated node (zc_node.c): "node-probe" mode prints the device list. */
int zc_node_probe(void);
void zc_test_node(void);
/* "sample-tile" and "app-tile" modes of the cross-process sampling test. */
int zc_sample_tile(void);
int zc_app_tile(void);
/* Integer (or true/false) value of "key" in a JSON line (zc_gt.c). */
bool zc_json_u64(const char *line, const char *key, uint64_t *out);
void zc_test_metrics(void);
/* Ground truth: the child part runs before the parent's zeInit. */
int zc_gt_child(const char *gt_path, const char *obs_path);
void zc_gt_check(const char *gt_path, const char *obs_path, int child_status);

#endif /* ZC_H */
