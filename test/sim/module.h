/*
 * module.h — internal interface of the module files (module_*.c) of the
 * simulated driver, modules and kernels: zebin parsing,
 * ISA placement in a per-device instruction heap, SPIR-V compilation with
 * the ocloc compiler, build logs, kernel arguments, the kernel-introspection driver
 * extensions (zexKernelGetBaseAddress, zeIntelKernelGetBinaryExp) and
 * zetModuleGetDebugInfo.
 *
 * Files, one concern each:
 *   module_isa.c     ISA objects and the per-device instruction heap
 *   module_zebin.c   zebin parsing (ELF, .ze_info)
 *   module_ocloc.c   SPIR-V compilation with ocloc
 *   module_module.c  modules, build logs, debug info
 *   module_kernel.c  kernels and the kernel driver extensions
 *
 * Everything read from a binary is bounds-checked: a malformed zebin must
 * produce an error code, never a crash.
 */
#ifndef ZESIM_MODULE_H
#define ZESIM_MODULE_H

#include "sim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Temporary directory names are short; paths inside leave room for a file name. */
#define SIM_DIR_MAX 1024
#define SIM_PATH_MAX (SIM_DIR_MAX + 320)

/* ================================================================== */
/* ELF / zebin constants                                               */
/* ================================================================== */
#define EM_INTELGT 205
#define SHT_SYMTAB_ 2
#define SHT_NOTE_ 7
#define SHT_NOBITS_ 8
#define SHT_ZEBIN_ZEINFO 0xff000011u
#define STT_FUNC_ 2
#define STT_OBJECT_ 1
#define NOTE_PRODUCT_FAMILY 1
/* IGFX product families accepted in the .note.intelgt.compat note. */
#define IGFX_DG2 0x4f6
#define IGFX_PVC 0x4f7
#define IGFX_BMG 0x4fa

/* ISA heap: one 4 GiB window per root device, decanonized like real PVC
 * ISA addresses (0x0000_8000_xxxx_xxxx), so the low 32 bits of every live
 * kernel address are unique (docs/eu-stall-sampling.md §8.1 "What the driver provides"). */
#define ISA_WINDOW_BASE 0x0000800000010000ull
#define ISA_WINDOW_END 0x0000800100000000ull
/* The driver's own ISA (built-in copy/fill kernels): the top 64 KiB of the
 * window, never given to a module. */
#define ISA_BUILTIN_BASE (ISA_WINDOW_END - 0x10000ull)
#define ISA_MODULE_ALIGN 4096u
#define ISA_KERNEL_ALIGN 64u
#define ISA_TAIL_PADDING 0xE00u /* getPaddingForISAAllocation() on PVC (docs/eu-stall-sampling.md §8.5 "Layout of kernels in GPU memory") */

static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24); }
static inline uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32); }

static inline uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* ================================================================== */
/* Private structures                                                  */
/* ================================================================== */

typedef struct kinfo {
    char *name;
    uint32_t shndx;              /* .text.<name> section index */
    uint32_t simd;
    uint32_t req_wg[3];          /* 0 = none */
    uint32_t req_sg;
    uint32_t grf_count;          /* execution_env grf_count, 0 = not given */
    uint32_t slm_static;
    uint32_t private_size, spill_size;
    uint32_t num_args;
    sim_kernel_arg_t *args;
    sim_isa_t *isa;              /* reference held by the module */
} kinfo_t;

typedef struct sim_buildlog {
    sim_obj_t obj;
    char *text;
} sim_buildlog_t;

typedef struct mod_priv {
    sim_module_t m;              /* must stay first: the handle points here */
    atomic_uint refs;            /* 1 for the module handle + 1 per live kernel */
    uint64_t module_id;
    kinfo_t *kinfo;              /* [m.num_kernels] */
    uint8_t *global_data;        /* copy of .data.global (zeModuleGetGlobalPointer) */
    size_t global_size;
    uint32_t global_shndx;
    pthread_mutex_t lock;        /* debug-info cache */
    uint8_t *debug_zebin;
    size_t debug_size;
} mod_priv_t;

typedef struct kern_priv {
    sim_kernel_t k;              /* must stay first */
    uint32_t kidx;
    uint32_t global_offset[3];
    char *attrs;                 /* zeKernelGetSourceAttributes string */
} kern_priv_t;

/* A parsed zebin: the section table of the ELF file (module_zebin.c). */
typedef struct elf_sec {
    const char *name;
    uint32_t type;
    uint64_t off, size;
    uint32_t link;
    uint64_t entsize;
    uint32_t name_off;
} elf_sec_t;

typedef struct zebin {
    const uint8_t *data;
    size_t size;
    uint32_t nsec;
    elf_sec_t *sec;
    uint32_t product_family; /* 0 = no note */
} zebin_t;

/* A growing string (build logs, compiler output). */
typedef struct growbuf {
    char *s;
    size_t n, cap;
} growbuf_t;

/* Intel's register-file-size property of zeKernelGetProperties
 * (driver_experimental/zex_module.h; not in the 1.4 headers). */
#define ZEX_STRUCTURE_KERNEL_REGISTER_FILE_SIZE_EXP 0x00030012u
typedef struct zex_kernel_register_file_size_exp {
    uint32_t stype;
    const void *pNext;
    uint32_t registerFileSize; /* GRF count used by the kernel */
} zex_kernel_register_file_size_exp_t;

/* ================================================================== */
/* Functions shared by the module_*.c files                            */
/* ================================================================== */
/* module_isa.c */
SIM_HIDDEN bool heap_alloc(sim_device_t *root, uint64_t size, uint64_t *va);
SIM_HIDDEN sim_isa_t *isa_new(const char *name, const uint8_t *bytes, size_t size, size_t code_size);
SIM_HIDDEN void heap_free(sim_device_t *root, uint64_t va);

/* module_module.c */
SIM_HIDDEN kern_priv_t *kern_of(ze_kernel_handle_t h);
SIM_HIDDEN mod_priv_t *mod_of(ze_module_handle_t h);
SIM_HIDDEN void mod_release(mod_priv_t *mp);

/* ZESIM_DESTROY_PAUSE_NS: zeKernelDestroy and zeModuleDestroy return this
 * long after freeing the object, as a driver thread preempted right after
 * the free: another thread may be given the same handle for a new object
 * before the destroy returns to the tracing layer's epilogues
 * (docs/level-zero-loader.md §10 "Hazards", P17). */
static inline void sim_destroy_pause(void) {
    uint64_t ns = sim_cfg.destroy_pause_ns;
    if (ns != 0) sim_sleep_until(sim_now_ns() + ns, ns);
}

/* module_ocloc.c */
SIM_HIDDEN void gb_str(growbuf_t *g, const char *s);
SIM_HIDDEN ze_result_t compile_spirv(const uint8_t *spv, size_t size, const char *flags, uint8_t **zebin, size_t *zebin_size, growbuf_t *log);

/* module_zebin.c */
SIM_HIDDEN const char *elf_str(const zebin_t *z, uint32_t strsec, uint64_t off);
SIM_HIDDEN size_t kernel_code_size(const zebin_t *z, uint32_t shndx, const char *name);
SIM_HIDDEN void zebin_free(zebin_t *z);
SIM_HIDDEN void zeinfo_parse(const char *text, size_t len, kinfo_t *ki, uint32_t nk);
SIM_HIDDEN ze_result_t zebin_parse(const uint8_t *data, size_t size, zebin_t *z, char *err, size_t errcap);

#endif
