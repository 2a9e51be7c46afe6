/*
 * module.c — modules and kernels of the simulated driver: zebin parsing,
 * ISA placement in a per-device instruction heap, SPIR-V compilation with
 * the ocloc compiler, build logs, kernel arguments, the kernel-introspection driver
 * extensions (zexKernelGetBaseAddress, zeIntelKernelGetBinaryExp) and
 * zetModuleGetDebugInfo.
 *
 * Everything read from a binary is bounds-checked: a malformed zebin must
 * produce an error code, never a crash.
 */
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
 * kernel address are unique (docs/eu-stall-sampling.md §8.1 "What the driver
 * provides"). */
#define ISA_WINDOW_BASE 0x0000800000010000ull
#define ISA_WINDOW_END 0x0000800100000000ull
#define ISA_MODULE_ALIGN 4096u
#define ISA_KERNEL_ALIGN 64u
#define ISA_TAIL_PADDING 0xE00u /* getPaddingForISAAllocation() on PVC (docs/eu-stall-sampling.md §8.5 "Layout of kernels in GPU memory") */

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24); }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32); }

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* ================================================================== */
/* Private structures                                                  */
/* ================================================================== */

typedef struct kinfo {
    char *name;
    uint32_t shndx;              /* .text.<name> section index */
    uint32_t simd;
    uint32_t req_wg[3];          /* 0 = none */
    uint32_t req_sg;
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

static atomic_uint_fast64_t next_kernel_id = 1;
static atomic_uint_fast64_t next_module_id = 1;

/* ================================================================== */
/* ISA objects                                                         */
/* ================================================================== */

sim_isa_t *sim_isa_ref(sim_isa_t *isa) {
    if (isa) atomic_fetch_add(&isa->refs, 1);
    return isa;
}

void sim_isa_unref(sim_isa_t *isa) {
    if (isa == NULL || atomic_fetch_sub(&isa->refs, 1) != 1) return;
    if (isa->profile) {
        if (isa->profile_free) isa->profile_free(isa->profile);
        else free(isa->profile);
    }
    free(isa->kernel_name);
    free((void *)isa->bytes);
    free(isa->inst_offset);
    free(isa->inst_opcode);
    free(isa->inst_size);
    free(isa);
}

/* Instruction boundaries: bit 29 of the first dword = compacted (8 bytes),
 * otherwise 16 bytes. A truncated last instruction is not counted. */
static bool isa_decode(sim_isa_t *isa) {
    uint32_t n = 0;
    size_t off = 0;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        off = 0;
        while (off + 8 <= isa->code_size) {
            uint32_t dw = rd32(isa->bytes + off);
            size_t len = (dw & (1u << 29)) ? 8 : 16;
            if (off + len > isa->code_size) break;
            if (pass == 1) {
                isa->inst_offset[n] = (uint32_t)off;
                isa->inst_opcode[n] = isa->bytes[off] & 0x7f;
                isa->inst_size[n] = (uint8_t)len;
            }
            n++;
            off += len;
        }
        if (pass == 0) {
            size_t c = n ? n : 1;
            isa->inst_offset = calloc(c, sizeof(uint32_t));
            isa->inst_opcode = calloc(c, 1);
            isa->inst_size = calloc(c, 1);
            if (!isa->inst_offset || !isa->inst_opcode || !isa->inst_size) return false;
        }
    }
    isa->num_insts = n;
    return true;
}

static sim_isa_t *isa_new(const char *name, const uint8_t *bytes, size_t size, size_t code_size) {
    sim_isa_t *isa = calloc(1, sizeof(*isa));
    if (isa == NULL) return NULL;
    atomic_init(&isa->refs, 1);
    isa->kernel_name = strdup(name);
    uint8_t *copy = malloc(size ? size : 1);
    if (copy && size) memcpy(copy, bytes, size);
    isa->bytes = copy;
    isa->size = size;
    isa->code_size = code_size;
    isa->profile_once = (pthread_once_t)PTHREAD_ONCE_INIT;
    isa->kernel_id = atomic_fetch_add(&next_kernel_id, 1);
    if (isa->kernel_name == NULL || copy == NULL || !isa_decode(isa)) {
        sim_isa_unref(isa);
        return NULL;
    }
    return isa;
}

/* ================================================================== */
/* ISA heap (first fit, freed ranges reused)                           */
/* ================================================================== */

typedef struct isa_range {
    uint64_t start, size;
} isa_range_t;

typedef struct isa_heap {
    sim_device_t *root;
    isa_range_t *used; /* sorted by start */
    size_t n, cap;
} isa_heap_t;

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static isa_heap_t *heaps;
static size_t num_heaps;

static isa_heap_t *heap_for(sim_device_t *root) {
    for (size_t i = 0; i < num_heaps; i++)
        if (heaps[i].root == root) return &heaps[i];
    isa_heap_t *n = realloc(heaps, (num_heaps + 1) * sizeof(*n));
    if (n == NULL) return NULL;
    heaps = n;
    heaps[num_heaps] = (isa_heap_t){root, NULL, 0, 0};
    return &heaps[num_heaps++];
}

static bool heap_alloc(sim_device_t *root, uint64_t size, uint64_t *va) {
    bool ok = false;
    pthread_mutex_lock(&heap_lock);
    isa_heap_t *h = heap_for(root);
    if (h != NULL && h->n == h->cap) {
        size_t nc = h->cap ? h->cap * 2 : 16;
        isa_range_t *nu = realloc(h->used, nc * sizeof(*nu));
        if (nu == NULL) h = NULL;
        else {
            h->used = nu;
            h->cap = nc;
        }
    }
    if (h != NULL) {
        uint64_t cur = ISA_WINDOW_BASE;
        size_t i;
        for (i = 0; i < h->n; i++) {
            if (align_up(cur, ISA_MODULE_ALIGN) + size <= h->used[i].start) break;
            cur = h->used[i].start + h->used[i].size;
        }
        uint64_t start = align_up(cur, ISA_MODULE_ALIGN);
        if (start + size <= ISA_WINDOW_END && start + size > start) {
            memmove(&h->used[i + 1], &h->used[i], (h->n - i) * sizeof(isa_range_t));
            h->used[i] = (isa_range_t){start, size};
            h->n++;
            *va = start;
            ok = true;
        }
    }
    pthread_mutex_unlock(&heap_lock);
    return ok;
}

static void heap_free(sim_device_t *root, uint64_t va) {
    pthread_mutex_lock(&heap_lock);
    isa_heap_t *h = heap_for(root);
    for (size_t i = 0; h != NULL && i < h->n; i++) {
        if (h->used[i].start == va) {
            memmove(&h->used[i], &h->used[i + 1], (h->n - i - 1) * sizeof(isa_range_t));
            h->n--;
            break;
        }
    }
    pthread_mutex_unlock(&heap_lock);
}

/* ================================================================== */
/* Build logs                                                          */
/* ================================================================== */

static ze_module_build_log_handle_t buildlog_new(const char *text) {
    sim_buildlog_t *b = calloc(1, sizeof(*b));
    if (b == NULL) return NULL;
    sim_obj_init(&b->obj, SIM_K_BUILDLOG);
    b->text = strdup(text ? text : "");
    if (b->text == NULL) {
        free(b);
        return NULL;
    }
    return (ze_module_build_log_handle_t)b;
}

static ze_result_t ZE_APICALL sim_zeModuleBuildLogDestroy(ze_module_build_log_handle_t h) {
    sim_buildlog_t *b = SIM_OBJ(sim_buildlog_t, h, SIM_K_BUILDLOG);
    if (b == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&b->obj);
    free(b->text);
    free(b);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleBuildLogGetString(ze_module_build_log_handle_t h, size_t *pSize,
                                                            char *pBuildLog) {
    sim_buildlog_t *b = SIM_OBJ(sim_buildlog_t, h, SIM_K_BUILDLOG);
    if (b == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t need = strlen(b->text) + 1;
    if (pBuildLog == NULL) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    size_t n = *pSize < need ? *pSize : need;
    memcpy(pBuildLog, b->text, n - 1);
    pBuildLog[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

/* ================================================================== */
/* Zebin parsing                                                       */
/* ================================================================== */

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

static void zebin_free(zebin_t *z) { free(z->sec); }

/* Returns a NUL-terminated string inside section strsec at offset, or NULL. */
static const char *elf_str(const zebin_t *z, uint32_t strsec, uint64_t off) {
    if (strsec >= z->nsec) return NULL;
    const elf_sec_t *s = &z->sec[strsec];
    if (s->type == SHT_NOBITS_ || off >= s->size) return NULL;
    const char *base = (const char *)z->data + s->off;
    if (memchr(base + off, '\0', s->size - off) == NULL) return NULL;
    return base + off;
}

static ze_result_t zebin_parse(const uint8_t *data, size_t size, zebin_t *z, char *err, size_t errcap) {
    memset(z, 0, sizeof(*z));
    z->data = data;
    z->size = size;
    if (size < 64 || memcmp(data, "\177ELF", 4) != 0) {
        snprintf(err, errcap, "not an ELF file");
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    if (data[4] != 2 || data[5] != 1) {
        snprintf(err, errcap, "not a little-endian ELF64 file");
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    if (rd16(data + 18) != EM_INTELGT) {
        snprintf(err, errcap, "ELF machine %u is not EM_INTELGT (205)", rd16(data + 18));
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    uint64_t shoff = rd64(data + 40);
    uint16_t shentsize = rd16(data + 58), shnum = rd16(data + 60), shstrndx = rd16(data + 62);
    if (shnum == 0 || shentsize != 64 || shoff > size || (size - shoff) / 64 < shnum || shstrndx >= shnum) {
        snprintf(err, errcap, "bad section header table");
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    z->nsec = shnum;
    z->sec = calloc(shnum, sizeof(elf_sec_t));
    if (z->sec == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < shnum; i++) {
        const uint8_t *sh = data + shoff + (uint64_t)i * 64;
        z->sec[i].name_off = rd32(sh);
        z->sec[i].type = rd32(sh + 4);
        z->sec[i].off = rd64(sh + 24);
        z->sec[i].size = rd64(sh + 32);
        z->sec[i].link = rd32(sh + 40);
        z->sec[i].entsize = rd64(sh + 56);
        if (z->sec[i].type != SHT_NOBITS_ && i != 0 &&
            (z->sec[i].off > size || z->sec[i].size > size - z->sec[i].off)) {
            snprintf(err, errcap, "section %u out of bounds", i);
            zebin_free(z);
            return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
        }
    }
    for (uint32_t i = 1; i < shnum; i++) {
        z->sec[i].name = elf_str(z, shstrndx, z->sec[i].name_off);
        if (z->sec[i].name == NULL) {
            snprintf(err, errcap, "section %u has a bad name", i);
            zebin_free(z);
            return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
        }
    }
    z->sec[0].name = "";
    /* Product family from the IntelGT compatibility notes. */
    for (uint32_t i = 1; i < shnum; i++) {
        if (z->sec[i].type != SHT_NOTE_ || strcmp(z->sec[i].name, ".note.intelgt.compat") != 0) continue;
        const uint8_t *p = data + z->sec[i].off;
        uint64_t left = z->sec[i].size;
        while (left >= 12) {
            uint32_t namesz = rd32(p), descsz = rd32(p + 4), type = rd32(p + 8);
            uint64_t nsz = align_up(namesz, 4), dsz = align_up(descsz, 4);
            if (nsz > left - 12 || dsz > left - 12 - nsz) break;
            if (type == NOTE_PRODUCT_FAMILY && descsz >= 4 && namesz == 8 && memcmp(p + 12, "IntelGT", 8) == 0)
                z->product_family = rd32(p + 12 + nsz);
            p += 12 + nsz + dsz;
            left -= 12 + nsz + dsz;
        }
    }
    return ZE_RESULT_SUCCESS;
}

/* Code size: st_size of the FUNC symbol named like the kernel in its
 * section; otherwise the section without trailing zero bytes. */
static size_t kernel_code_size(const zebin_t *z, uint32_t shndx, const char *name) {
    const elf_sec_t *text = &z->sec[shndx];
    for (uint32_t i = 1; i < z->nsec; i++) {
        const elf_sec_t *s = &z->sec[i];
        if (s->type != SHT_SYMTAB_ || s->entsize != 24) continue;
        for (uint64_t o = 0; o + 24 <= s->size; o += 24) {
            const uint8_t *sym = z->data + s->off + o;
            if ((sym[4] & 0xf) != STT_FUNC_ || rd16(sym + 6) != shndx) continue;
            const char *sn = elf_str(z, s->link, rd32(sym));
            if (sn && strcmp(sn, name) == 0) {
                uint64_t sz = rd64(sym + 16);
                return sz <= text->size ? (size_t)sz : (size_t)text->size;
            }
        }
    }
    size_t n = (size_t)text->size;
    const uint8_t *b = z->data + text->off;
    while (n > 0 && b[n - 1] == 0) n--;
    n = (size_t)align_up(n, 8);
    return n <= text->size ? n : (size_t)text->size;
}

/* ---------------- .ze_info (YAML subset) ---------------- */

typedef struct yaml_arg {
    bool active;
    char type[32];
    char addrspace[16];
    int64_t index;
    uint64_t size, source_offset;
} yaml_arg_t;

typedef struct zeinfo_ctx {
    kinfo_t *ki;
    uint32_t nk;
    kinfo_t *cur;      /* kernel being parsed (NULL if unknown name) */
    yaml_arg_t arg;
    struct { char type[32], usage[32]; uint64_t size; bool active; } buf;
} zeinfo_ctx_t;

static kinfo_t *find_kinfo(zeinfo_ctx_t *c, const char *name) {
    for (uint32_t i = 0; i < c->nk; i++)
        if (strcmp(c->ki[i].name, name) == 0) return &c->ki[i];
    return NULL;
}

static void commit_arg(zeinfo_ctx_t *c) {
    yaml_arg_t *a = &c->arg;
    if (!a->active) return;
    a->active = false;
    kinfo_t *k = c->cur;
    bool byptr = strcmp(a->type, "arg_bypointer") == 0, byval = strcmp(a->type, "arg_byvalue") == 0;
    if (k == NULL || (!byptr && !byval) || a->index < 0 || a->index >= 4096) return;
    uint32_t idx = (uint32_t)a->index;
    if (idx >= k->num_args) {
        sim_kernel_arg_t *n = realloc(k->args, (idx + 1) * sizeof(*n));
        if (n == NULL) return;
        memset(n + k->num_args, 0, (idx + 1 - k->num_args) * sizeof(*n));
        k->args = n;
        k->num_args = idx + 1;
    }
    sim_kernel_arg_t *ka = &k->args[idx];
    if (byptr) {
        ka->is_pointer = true;
        if (strcmp(a->addrspace, "local") == 0) {
            ka->is_local = true;
            ka->is_pointer = false;
            ka->size = 0;
        } else {
            ka->size = 8;
        }
    } else {
        uint64_t end = a->source_offset + a->size;
        if (end > ka->size && end < (1u << 20)) ka->size = (uint32_t)end;
    }
}

static void commit_buf(zeinfo_ctx_t *c) {
    if (!c->buf.active) return;
    c->buf.active = false;
    if (c->cur == NULL || c->buf.size > UINT32_MAX) return;
    if (strcmp(c->buf.type, "scratch") == 0 && strcmp(c->buf.usage, "spill_fill_space") == 0)
        c->cur->spill_size = (uint32_t)c->buf.size;
    else if (strcmp(c->buf.type, "private") == 0 || strcmp(c->buf.usage, "private_space") == 0)
        c->cur->private_size = (uint32_t)c->buf.size;
}

static void copy_scalar(char *dst, size_t cap, const char *v) {
    size_t n = strlen(v);
    if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
        v++;
        n -= 2;
    }
    if (n >= cap) n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

static uint64_t scalar_u64(const char *v) {
    char *end = NULL;
    unsigned long long x = strtoull(v, &end, 0);
    return end == v ? 0 : (uint64_t)x;
}

static void on_key(zeinfo_ctx_t *c, const char *p0, const char *p1, bool item, const char *key, const char *val) {
    if (p0 == NULL || strcmp(p0, "kernels") != 0) return;
    if (p1 == NULL) { /* kernel level */
        if (item) {
            commit_arg(c);
            commit_buf(c);
            c->cur = NULL;
        }
        if (strcmp(key, "name") == 0) {
            size_t cap = strlen(val) + 1; /* SYCL names can be very long */
            char *name = malloc(cap);
            if (name != NULL) {
                copy_scalar(name, cap, val);
                c->cur = find_kinfo(c, name);
                free(name);
            }
        }
        return;
    }
    if (c->cur == NULL) return;
    if (strcmp(p1, "execution_env") == 0) {
        if (strcmp(key, "simd_size") == 0) c->cur->simd = (uint32_t)scalar_u64(val);
        else if (strcmp(key, "slm_size") == 0) c->cur->slm_static = (uint32_t)scalar_u64(val);
        else if (strcmp(key, "required_sub_group_size") == 0) c->cur->req_sg = (uint32_t)scalar_u64(val);
        else if (strcmp(key, "required_work_group_size") == 0) {
            /* flow sequence "[ x, y, z ]" */
            const char *s = strchr(val, '[');
            for (int i = 0; s != NULL && i < 3; i++) {
                s++;
                c->cur->req_wg[i] = (uint32_t)scalar_u64(s + strspn(s, " "));
                s = strchr(s, ',');
            }
        }
    } else if (strcmp(p1, "payload_arguments") == 0) {
        if (item) {
            commit_arg(c);
            memset(&c->arg, 0, sizeof(c->arg));
            c->arg.active = true;
            c->arg.index = -1;
        }
        if (strcmp(key, "arg_type") == 0) copy_scalar(c->arg.type, sizeof(c->arg.type), val);
        else if (strcmp(key, "addrspace") == 0) copy_scalar(c->arg.addrspace, sizeof(c->arg.addrspace), val);
        else if (strcmp(key, "arg_index") == 0) c->arg.index = (int64_t)scalar_u64(val);
        else if (strcmp(key, "size") == 0) c->arg.size = scalar_u64(val);
        else if (strcmp(key, "source_offset") == 0) c->arg.source_offset = scalar_u64(val);
    } else if (strcmp(p1, "per_thread_memory_buffers") == 0) {
        if (item) {
            commit_buf(c);
            memset(&c->buf, 0, sizeof(c->buf));
            c->buf.active = true;
        }
        if (strcmp(key, "type") == 0) copy_scalar(c->buf.type, sizeof(c->buf.type), val);
        else if (strcmp(key, "usage") == 0) copy_scalar(c->buf.usage, sizeof(c->buf.usage), val);
        else if (strcmp(key, "size") == 0) c->buf.size = scalar_u64(val);
    }
}

/* Line-based parser for the YAML that IGC writes: block mappings and
 * block sequences of mappings; flow sequences only as scalar values.
 * Keeps a stack of the enclosing block keys and their indentation. */
static void zeinfo_parse(const char *text, size_t len, kinfo_t *ki, uint32_t nk) {
    zeinfo_ctx_t c;
    memset(&c, 0, sizeof(c));
    c.ki = ki;
    c.nk = nk;
    struct { size_t indent; char key[48]; } stack[16];
    size_t depth = 0;
    size_t pos = 0;
    /* A private NUL-terminated copy, split into lines in place. */
    char *copy = malloc(len + 1);
    if (copy == NULL) return;
    memcpy(copy, text, len);
    copy[len] = '\0';
    while (pos < len) {
        size_t eol = pos;
        while (eol < len && copy[eol] != '\n') eol++;
        char *line = copy + pos;
        copy[eol] = '\0';
        size_t ll = strlen(line); /* stops at an embedded NUL */
        pos = eol + 1;
        while (ll > 0 && (line[ll - 1] == '\r' || line[ll - 1] == ' ')) line[--ll] = '\0';
        size_t indent = strspn(line, " ");
        char *p = line + indent;
        if (*p == '\0' || *p == '#' || strcmp(p, "---") == 0 || strcmp(p, "...") == 0) continue;
        bool item = false;
        size_t key_indent = indent;
        if (p[0] == '-' && (p[1] == ' ' || p[1] == '\0')) {
            item = true;
            p++;
            p += strspn(p, " ");
            key_indent = (size_t)(p - line);
            while (depth > 0 && stack[depth - 1].indent > indent) depth--;
        } else {
            while (depth > 0 && stack[depth - 1].indent >= key_indent) depth--;
        }
        char *colon = strchr(p, ':');
        if (colon == NULL) continue; /* plain sequence scalar */
        *colon = '\0';
        char *val = colon + 1;
        val += strspn(val, " ");
        const char *p0 = depth > 0 ? stack[0].key : NULL;
        const char *p1 = depth > 1 ? stack[1].key : NULL;
        if (depth <= 2) on_key(&c, p0, depth > 1 ? p1 : NULL, item, p, val);
        if (*val == '\0' && depth < 16) { /* block start */
            stack[depth].indent = key_indent;
            copy_scalar(stack[depth].key, sizeof(stack[depth].key), p);
            depth++;
        }
    }
    commit_arg(&c);
    commit_buf(&c);
    free(copy);
}

/* ================================================================== */
/* SPIR-V through the ocloc compiler                                   */
/* ================================================================== */

/* Compilation runs the `ocloc` executable (Debian package
 * intel-opencl-icd, a thin front end of libocloc.so) in a child process
 * instead of calling oclocInvoke in-process, because libocloc 22.43
 * (a) calls exit(1) on malformed SPIR-V, which would kill the
 * application, and (b) keeps producing zebins for the rest of the
 * process once one zebin build ran, so the legacy .dbg output that
 * carries the DWARF can no longer be obtained. */

typedef struct growbuf {
    char *s;
    size_t n, cap;
} growbuf_t;

static void gb_add(growbuf_t *g, const char *s, size_t n) {
    if (g->n + n + 1 > g->cap) {
        size_t nc = (g->n + n + 1) * 2;
        char *p = realloc(g->s, nc);
        if (p == NULL) return;
        g->s = p;
        g->cap = nc;
    }
    memcpy(g->s + g->n, s, n);
    g->n += n;
    g->s[g->n] = '\0';
}
static void gb_str(growbuf_t *g, const char *s) { gb_add(g, s, strlen(s)); }

static bool write_file(const char *path, const uint8_t *data, size_t size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fd);
    return off == size;
}

static bool read_file(const char *path, uint8_t **out, size_t *out_size, size_t max) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) == 0 && st.st_size >= 0 && (uint64_t)st.st_size <= max) {
        size_t n = (size_t)st.st_size, off = 0;
        uint8_t *b = malloc(n ? n : 1);
        while (b != NULL && off < n) {
            ssize_t r = read(fd, b + off, n - off);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            off += (size_t)r;
        }
        if (b != NULL && off == n) {
            *out = b;
            *out_size = n;
            ok = true;
        } else {
            free(b);
        }
    }
    close(fd);
    return ok;
}

static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        char path[SIM_PATH_MAX];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Finds "<dir>/<prefix>*<suffix>". */
static bool find_output(const char *dir, const char *prefix, const char *suffix, char *path, size_t cap) {
    DIR *d = opendir(dir);
    bool found = false;
    if (d == NULL) return false;
    struct dirent *e;
    size_t pl = strlen(prefix), sl = strlen(suffix);
    while (!found && (e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        if (nl > pl + sl && strncmp(e->d_name, prefix, pl) == 0 && strcmp(e->d_name + nl - sl, suffix) == 0) {
            snprintf(path, cap, "%s/%s", dir, e->d_name);
            found = true;
        }
    }
    closedir(d);
    return found;
}

/* One ocloc run in dir on dir/module.spv; output prefix `tag`. Returns
 * the output file ending in `suffix` (malloc'd); the compiler's messages
 * are appended to log. */
static bool ocloc_run(const char *dir, const char *options, bool zebin, const char *tag, const char *suffix,
                      uint8_t **out, size_t *out_size, growbuf_t *log) {
    const char *device = sim_cfg.platform == SIM_PLATFORM_DG2 ? "dg2" : "pvc";
    char spv[SIM_PATH_MAX], logpath[SIM_PATH_MAX], outpath[SIM_PATH_MAX];
    snprintf(spv, sizeof(spv), "%s/module.spv", dir);
    snprintf(logpath, sizeof(logpath), "%s/%s.log", dir, tag);
    const char *argv[20];
    unsigned argc = 0;
    argv[argc++] = "ocloc";
    argv[argc++] = "compile";
    argv[argc++] = "-spirv_input";
    argv[argc++] = "-file";
    argv[argc++] = spv;
    argv[argc++] = "-device";
    argv[argc++] = device;
    if (options != NULL && *options != '\0') {
        argv[argc++] = "-options";
        argv[argc++] = options;
    }
    if (zebin) {
        argv[argc++] = "-internal_options";
        argv[argc++] = "-ze-allow-zebin";
    }
    argv[argc++] = "-out_dir";
    argv[argc++] = dir;
    argv[argc++] = "-output";
    argv[argc++] = tag;
    argv[argc] = NULL;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    /* The child gets our environment without LD_PRELOAD: a preloaded
     * profiler (which may call zeInit in its constructor) has no business
     * in the compiler. */
    size_t ne = 0;
    while (environ != NULL && environ[ne] != NULL) ne++;
    char **env = calloc(ne + 1, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; env != NULL && i < ne; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0) env[k++] = environ[i];
    pid_t pid = 0;
    int err = env == NULL ? ENOMEM : posix_spawnp(&pid, "ocloc", &fa, NULL, (char *const *)argv, env);
    if (err == ENOENT) err = posix_spawn(&pid, "/usr/bin/ocloc", &fa, NULL, (char *const *)argv, env);
    free(env);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) {
        gb_str(log, "zesim: cannot run ocloc (Debian package intel-opencl-icd): ");
        gb_str(log, strerror(err));
        gb_str(log, "\n");
        return false;
    }
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    uint8_t *msg = NULL;
    size_t msg_size = 0;
    if (read_file(logpath, &msg, &msg_size, 1 << 20)) {
        /* Keep the compiler's diagnostics, drop its progress chatter. */
        size_t pos = 0;
        while (pos < msg_size) {
            size_t e = pos;
            while (e < msg_size && msg[e] != '\n') e++;
            size_t len = e - pos;
            const char *line = (const char *)msg + pos;
            static const char *const noise[] = {"Compilation from IR - skipping loading of FCL", "Build succeeded."};
            bool skip = len == 0;
            for (size_t i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
                if (len == strlen(noise[i]) && memcmp(line, noise[i], len) == 0) skip = true;
            if (!skip) {
                gb_add(log, line, len);
                gb_str(log, "\n");
            }
            pos = e + 1;
        }
        free(msg);
    }
    /* w < 0: SIGCHLD ignored by the application; judge by the output file. */
    bool exited_ok = w < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (exited_ok && find_output(dir, tag, suffix, outpath, sizeof(outpath)) &&
        read_file(outpath, out, out_size, (size_t)1 << 31))
        return true;
    char m[160];
    if (w >= 0 && WIFSIGNALED(status))
        snprintf(m, sizeof(m), "zesim: ocloc was killed by signal %d\n", WTERMSIG(status));
    else if (w >= 0 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
        snprintf(m, sizeof(m), "zesim: ocloc failed with exit status %d\n", WEXITSTATUS(status));
    else
        snprintf(m, sizeof(m), "zesim: ocloc produced no %s output\n", suffix);
    gb_str(log, m);
    return false;
}

/* "-g" as a separate option enables debug info. */
static bool has_debug_flag(const char *flags) {
    if (flags == NULL) return false;
    const char *p = flags;
    while ((p = strstr(p, "-g")) != NULL) {
        bool start = p == flags || p[-1] == ' ' || p[-1] == '\t';
        bool end = p[2] == '\0' || p[2] == ' ' || p[2] == '\t';
        if (start && end) return true;
        p += 2;
    }
    return false;
}

static ze_result_t compile_spirv(const uint8_t *spv, size_t size, const char *flags, uint8_t **zebin,
                                 size_t *zebin_size, growbuf_t *log) {
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || *tmp == '\0' || strlen(tmp) > SIM_DIR_MAX - 32) tmp = "/tmp";
    char dir[SIM_DIR_MAX];
    snprintf(dir, sizeof(dir), "%s/zesim-ocloc-XXXXXX", tmp);
    if (mkdtemp(dir) == NULL) {
        gb_str(log, "zesim: cannot create a temporary directory for ocloc: ");
        gb_str(log, strerror(errno));
        gb_str(log, "\n");
        return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    char spv_path[SIM_PATH_MAX];
    snprintf(spv_path, sizeof(spv_path), "%s/module.spv", dir);
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (!write_file(spv_path, spv, size)) {
        gb_str(log, "zesim: cannot write the SPIR-V for ocloc\n");
        r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    if (r == ZE_RESULT_SUCCESS && sim_cfg.platform == SIM_PLATFORM_XE2)
        gb_str(log, "zesim: note: compiling for pvc (this IGC cannot target Xe2)\n");
    if (r == ZE_RESULT_SUCCESS && !ocloc_run(dir, flags, true, "z", ".bin", zebin, zebin_size, log))
        r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    if (r == ZE_RESULT_SUCCESS && has_debug_flag(flags)) {
        /* This IGC puts no DWARF into zebins; its legacy output carries it
         * in a .dbg container, which debugzebin.c merges in. */
        uint8_t *dbg = NULL, *merged = NULL;
        size_t dbg_size = 0, merged_size = 0;
        growbuf_t dlog = {0};
        if (ocloc_run(dir, flags, false, "l", ".dbg", &dbg, &dbg_size, &dlog)) {
            char err[256] = "";
            if (sim_zebin_merge_debug(*zebin, *zebin_size, dbg, dbg_size, &merged, &merged_size, err, sizeof(err)) == 0) {
                free(*zebin);
                *zebin = merged;
                *zebin_size = merged_size;
            } else {
                gb_str(log, "zesim: warning: debug info not merged: ");
                gb_str(log, err);
                gb_str(log, "\n");
            }
        } else {
            gb_str(log, "zesim: warning: no legacy debug output: ");
            if (dlog.s) gb_str(log, dlog.s);
        }
        free(dbg);
        free(dlog.s);
    }
    remove_dir(dir);
    return r;
}

/* ================================================================== */
/* Modules                                                             */
/* ================================================================== */

static mod_priv_t *mod_of(ze_module_handle_t h) { return SIM_OBJ(mod_priv_t, h, SIM_K_MODULE); }
static kern_priv_t *kern_of(ze_kernel_handle_t h) { return SIM_OBJ(kern_priv_t, h, SIM_K_KERNEL); }

static uint32_t root_index(sim_device_t *dev) { return sim_root(dev)->index; }

/* Frees the module's memory; the ISA range was released at destroy. */
static void mod_release(mod_priv_t *mp) {
    if (atomic_fetch_sub(&mp->refs, 1) != 1) return;
    for (uint32_t i = 0; i < mp->m.num_kernels; i++) {
        free(mp->kinfo[i].name);
        free(mp->kinfo[i].args);
        sim_isa_unref(mp->kinfo[i].isa);
    }
    free(mp->kinfo);
    free(mp->m.kernels);
    free(mp->m.native);
    free(mp->global_data);
    free(mp->debug_zebin);
    pthread_mutex_destroy(&mp->lock);
    free(mp);
}

static bool is_kernel_section(const elf_sec_t *s) {
    return strncmp(s->name, ".text.", 6) == 0 && s->name[6] != '\0' &&
           strcmp(s->name, ".text.Intel_Symbol_Table_Void_Program") != 0 && s->type != SHT_NOBITS_;
}

/* Builds the module from a zebin it takes ownership of. */
static ze_result_t module_from_zebin(sim_context_t *ctx, sim_device_t *dev, uint8_t *bin, size_t size,
                                     mod_priv_t **out, growbuf_t *log) {
    char err[160] = "";
    zebin_t z;
    ze_result_t r = zebin_parse(bin, size, &z, err, sizeof(err));
    if (r != ZE_RESULT_SUCCESS) {
        gb_str(log, "zesim: invalid native binary: ");
        gb_str(log, err);
        gb_str(log, "\n");
        free(bin);
        return r;
    }
    /* Debian's IGC cannot target Xe2, so PVC zebins are accepted on every
     * model; DG2 and BMG ones too. A real driver would reject a foreign product. */
    if (z.product_family != 0 && z.product_family != IGFX_PVC && z.product_family != IGFX_DG2 &&
        z.product_family != IGFX_BMG) {
        snprintf(err, sizeof(err), "zesim: zebin is for product family 0x%x, not PVC/DG2/BMG\n", z.product_family);
        gb_str(log, err);
        zebin_free(&z);
        free(bin);
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    mod_priv_t *mp = calloc(1, sizeof(*mp));
    if (mp == NULL) {
        zebin_free(&z);
        free(bin);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    sim_obj_init(&mp->m.obj, SIM_K_MODULE);
    atomic_init(&mp->refs, 1);
    atomic_init(&mp->m.live_kernels, 0);
    pthread_mutex_init(&mp->lock, NULL);
    mp->m.context = ctx;
    mp->m.device = dev;
    mp->m.native = bin;
    mp->m.native_size = size;
    mp->module_id = atomic_fetch_add(&next_module_id, 1);

    uint32_t nk = 0;
    for (uint32_t i = 1; i < z.nsec; i++) nk += is_kernel_section(&z.sec[i]);
    mp->kinfo = calloc(nk ? nk : 1, sizeof(kinfo_t));
    mp->m.kernels = calloc(nk ? nk : 1, sizeof(sim_isa_t *));
    r = (mp->kinfo && mp->m.kernels) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 1; r == ZE_RESULT_SUCCESS && i < z.nsec; i++) {
        if (!is_kernel_section(&z.sec[i])) continue;
        kinfo_t *k = &mp->kinfo[mp->m.num_kernels];
        k->name = strdup(z.sec[i].name + 6);
        k->shndx = i;
        k->simd = sim_cfg.simd_width;
        if (k->name == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        else {
            size_t code = kernel_code_size(&z, i, k->name);
            k->isa = isa_new(k->name, bin + z.sec[i].off, (size_t)z.sec[i].size, code);
            if (k->isa == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        mp->m.kernels[mp->m.num_kernels] = k->isa;
        mp->m.num_kernels++;
    }
    for (uint32_t i = 1; r == ZE_RESULT_SUCCESS && i < z.nsec; i++) {
        if (z.sec[i].type == SHT_ZEBIN_ZEINFO || strcmp(z.sec[i].name, ".ze_info") == 0)
            zeinfo_parse((const char *)bin + z.sec[i].off, (size_t)z.sec[i].size, mp->kinfo, mp->m.num_kernels);
        if (strcmp(z.sec[i].name, ".data.global") == 0 && z.sec[i].size > 0 && z.sec[i].size < (1ull << 32)) {
            mp->global_data = calloc(1, (size_t)z.sec[i].size);
            if (mp->global_data && z.sec[i].type != SHT_NOBITS_)
                memcpy(mp->global_data, bin + z.sec[i].off, (size_t)z.sec[i].size);
            mp->global_size = mp->global_data ? (size_t)z.sec[i].size : 0;
            mp->global_shndx = i;
        }
    }
    zebin_free(&z);
    if (r == ZE_RESULT_SUCCESS) {
        /* ISA placement: kernels back to back, 64-byte aligned, plus tail padding. */
        uint64_t total = 0;
        for (uint32_t i = 0; i < mp->m.num_kernels; i++) total = align_up(total, ISA_KERNEL_ALIGN) + mp->kinfo[i].isa->size;
        total = align_up(total, ISA_KERNEL_ALIGN) + ISA_TAIL_PADDING;
        if (!heap_alloc(sim_root(dev), total, &mp->m.isa_va)) {
            gb_str(log, "zesim: instruction heap exhausted\n");
            r = ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
        } else {
            mp->m.isa_alloc_size = total;
            uint64_t off = 0;
            for (uint32_t i = 0; i < mp->m.num_kernels; i++) {
                off = align_up(off, ISA_KERNEL_ALIGN);
                mp->kinfo[i].isa->gpu_va = mp->m.isa_va + off;
                off += mp->kinfo[i].isa->size;
            }
        }
    }
    if (r != ZE_RESULT_SUCCESS) {
        sim_obj_kill(&mp->m.obj);
        mod_release(mp);
        return r;
    }
    *out = mp;
    return ZE_RESULT_SUCCESS;
}

static void gt_module_event(mod_priv_t *mp, const char *event) {
    if (!sim_gt_enabled()) return;
    uint64_t now = sim_now_ns();
    uint32_t dev = root_index(mp->m.device);
    sim_gt_printf("{\"type\":\"module\",\"event\":\"%s\",\"module\":%llu,\"device\":%u,\"base\":%llu,\"size\":%llu,"
                  "\"num_kernels\":%u,\"time_ns\":%llu}",
                  event, (unsigned long long)mp->module_id, dev, (unsigned long long)mp->m.isa_va,
                  (unsigned long long)mp->m.isa_alloc_size, mp->m.num_kernels, (unsigned long long)now);
    for (uint32_t i = 0; i < mp->m.num_kernels; i++) {
        const sim_isa_t *isa = mp->kinfo[i].isa;
        char name[512];
        sim_gt_printf("{\"type\":\"kernel\",\"event\":\"%s\",\"kernel\":%llu,\"name\":\"%s\",\"base\":%llu,"
                      "\"size\":%llu,\"code_size\":%llu,\"num_insts\":%u,\"module\":%llu,\"device\":%u,\"time_ns\":%llu}",
                      event, (unsigned long long)isa->kernel_id, sim_json_str(isa->kernel_name, name, sizeof(name)),
                      (unsigned long long)isa->gpu_va, (unsigned long long)isa->size,
                      (unsigned long long)isa->code_size, isa->num_insts, (unsigned long long)mp->module_id, dev,
                      (unsigned long long)now);
    }
}

static ze_result_t ZE_APICALL sim_zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                 const ze_module_desc_t *desc, ze_module_handle_t *phModule,
                                                 ze_module_build_log_handle_t *phBuildLog) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    sim_device_t *dev = SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phModule == NULL || desc->pInputModule == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (phBuildLog) *phBuildLog = NULL;
    if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV && desc->format != ZE_MODULE_FORMAT_NATIVE)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->inputSize == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    growbuf_t log = {0};
    gb_str(&log, "");
    ze_result_t r = ZE_RESULT_SUCCESS;
    uint8_t *bin = NULL;
    size_t size = 0;
    if (desc->pConstants != NULL && desc->pConstants->numConstants > 0) {
        gb_str(&log, "zesim: specialization constants are not supported\n");
        r = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    } else if (desc->format == ZE_MODULE_FORMAT_IL_SPIRV) {
        r = compile_spirv(desc->pInputModule, desc->inputSize, desc->pBuildFlags, &bin, &size, &log);
    } else {
        bin = malloc(desc->inputSize);
        if (bin == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        else {
            memcpy(bin, desc->pInputModule, desc->inputSize);
            size = desc->inputSize;
        }
    }
    mod_priv_t *mp = NULL;
    if (r == ZE_RESULT_SUCCESS) r = module_from_zebin(ctx, dev, bin, size, &mp, &log);
    else free(bin);
    if (phBuildLog) *phBuildLog = buildlog_new(log.s);
    sim_log("zeModuleCreate(%s, %zu bytes) -> 0x%x%s%s", desc->format == ZE_MODULE_FORMAT_NATIVE ? "native" : "spirv",
            desc->inputSize, (unsigned)r, log.s && *log.s ? ": " : "", log.s ? log.s : "");
    free(log.s);
    if (r != ZE_RESULT_SUCCESS) return r;
    gt_module_event(mp, "create");
    *phModule = (ze_module_handle_t)mp;
    return ZE_RESULT_SUCCESS;
}

/* Like Intel's driver, destroying a module with live kernels succeeds.
 * The kernels stay usable (they hold references); the ISA range is
 * released now and may be reused by the next module. */
static ze_result_t ZE_APICALL sim_zeModuleDestroy(ze_module_handle_t hModule) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&mp->m.obj);
    gt_module_event(mp, "destroy");
    heap_free(sim_root(mp->m.device), mp->m.isa_va);
    mod_release(mp);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleDynamicLink(uint32_t numModules, ze_module_handle_t *phModules,
                                                      ze_module_build_log_handle_t *phLinkLog) {
    if (numModules > 0 && phModules == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numModules; i++)
        if (mod_of(phModules[i]) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phLinkLog) *phLinkLog = buildlog_new(""); /* no imports: nothing to link */
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize,
                                                          uint8_t *pModuleNativeBinary) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pModuleNativeBinary == NULL) {
        *pSize = mp->m.native_size;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize < mp->m.native_size) return ZE_RESULT_ERROR_INVALID_SIZE;
    memcpy(pModuleNativeBinary, mp->m.native, mp->m.native_size);
    *pSize = mp->m.native_size;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleGetGlobalPointer(ze_module_handle_t hModule, const char *pGlobalName,
                                                           size_t *pSize, void **pptr) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pGlobalName == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (mp->global_data == NULL) return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
    zebin_t z;
    char err[64];
    if (zebin_parse(mp->m.native, mp->m.native_size, &z, err, sizeof(err)) != ZE_RESULT_SUCCESS)
        return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
    ze_result_t r = ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
    for (uint32_t i = 1; i < z.nsec && r != ZE_RESULT_SUCCESS; i++) {
        if (z.sec[i].type != SHT_SYMTAB_ || z.sec[i].entsize != 24) continue;
        for (uint64_t o = 0; o + 24 <= z.sec[i].size; o += 24) {
            const uint8_t *sym = z.data + z.sec[i].off + o;
            if ((sym[4] & 0xf) != STT_OBJECT_ || rd16(sym + 6) != mp->global_shndx) continue;
            const char *sn = elf_str(&z, z.sec[i].link, rd32(sym));
            uint64_t val = rd64(sym + 8), sz = rd64(sym + 16);
            if (sn && strcmp(sn, pGlobalName) == 0 && val <= mp->global_size && sz <= mp->global_size - val) {
                if (pSize) *pSize = (size_t)sz;
                if (pptr) *pptr = mp->global_data + val;
                r = ZE_RESULT_SUCCESS;
                break;
            }
        }
    }
    zebin_free(&z);
    return r;
}

static ze_result_t ZE_APICALL sim_zeModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount,
                                                         const char **pNames) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || pNames == NULL) {
        *pCount = mp->m.num_kernels;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > mp->m.num_kernels) *pCount = mp->m.num_kernels;
    for (uint32_t i = 0; i < *pCount; i++) pNames[i] = mp->kinfo[i].name;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleGetProperties(ze_module_handle_t hModule, ze_module_properties_t *p) {
    if (mod_of(hModule) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0; /* no unresolved imports */
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleGetFunctionPointer(ze_module_handle_t hModule, const char *pFunctionName,
                                                             void **pfnFunction) {
    (void)pFunctionName;
    (void)pfnFunction;
    return mod_of(hModule) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

/* zetModuleGetDebugInfo: format ignored, like Intel's driver. */
static ze_result_t ZE_APICALL sim_zetModuleGetDebugInfo(zet_module_handle_t hModule,
                                                        zet_module_debug_info_format_t format, size_t *pSize,
                                                        uint8_t *pDebugInfo) {
    (void)format;
    mod_priv_t *mp = mod_of((ze_module_handle_t)hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&mp->lock);
    if (mp->debug_zebin == NULL) {
        uint32_t n = mp->m.num_kernels;
        const char **names = calloc(n ? n : 1, sizeof(char *));
        uint64_t *vas = calloc(n ? n : 1, sizeof(uint64_t));
        char err[256] = "";
        if (names == NULL || vas == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        for (uint32_t i = 0; r == ZE_RESULT_SUCCESS && i < n; i++) {
            names[i] = mp->kinfo[i].name;
            vas[i] = mp->kinfo[i].isa->gpu_va;
        }
        if (r == ZE_RESULT_SUCCESS &&
            sim_debug_zebin_build(mp->m.native, mp->m.native_size, n, names, vas, &mp->debug_zebin, &mp->debug_size,
                                  err, sizeof(err)) != 0) {
            sim_log("zetModuleGetDebugInfo: %s", err);
            mp->debug_zebin = NULL;
            r = ZE_RESULT_ERROR_UNKNOWN;
        }
        free(names);
        free(vas);
    }
    if (r == ZE_RESULT_SUCCESS) {
        if (pDebugInfo == NULL) *pSize = mp->debug_size;
        else if (*pSize < mp->debug_size) r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
        else {
            memcpy(pDebugInfo, mp->debug_zebin, mp->debug_size);
            *pSize = mp->debug_size;
        }
    }
    pthread_mutex_unlock(&mp->lock);
    return r;
}

/* ================================================================== */
/* Kernels                                                             */
/* ================================================================== */

static const kinfo_t *kinfo_of(const kern_priv_t *kp) {
    return &((const mod_priv_t *)kp->k.module)->kinfo[kp->kidx];
}

static ze_result_t ZE_APICALL sim_zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc,
                                                 ze_kernel_handle_t *phKernel) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phKernel == NULL || desc->pKernelName == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t idx;
    for (idx = 0; idx < mp->m.num_kernels; idx++)
        if (strcmp(mp->kinfo[idx].name, desc->pKernelName) == 0) break;
    if (idx == mp->m.num_kernels) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    const kinfo_t *ki = &mp->kinfo[idx];
    kern_priv_t *kp = calloc(1, sizeof(*kp));
    if (kp == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_kernel_t *k = &kp->k;
    k->num_args = ki->num_args;
    k->args = calloc(ki->num_args ? ki->num_args : 1, sizeof(sim_kernel_arg_t));
    k->arg_values = calloc(ki->num_args ? ki->num_args : 1, sizeof(uint64_t));
    char attrs[96] = "";
    if (ki->req_wg[0])
        snprintf(attrs, sizeof(attrs), "reqd_work_group_size(%u,%u,%u)", ki->req_wg[0], ki->req_wg[1] ? ki->req_wg[1] : 1,
                 ki->req_wg[2] ? ki->req_wg[2] : 1);
    kp->attrs = strdup(attrs);
    if (k->args == NULL || k->arg_values == NULL || kp->attrs == NULL) {
        free(k->args);
        free(k->arg_values);
        free(kp->attrs);
        free(kp);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (ki->num_args) memcpy(k->args, ki->args, ki->num_args * sizeof(sim_kernel_arg_t));
    sim_obj_init(&k->obj, SIM_K_KERNEL);
    k->module = &mp->m;
    k->isa = sim_isa_ref(ki->isa);
    for (int i = 0; i < 3; i++) k->group_size[i] = ki->req_wg[i] ? ki->req_wg[i] : 1;
    k->simd_size = ki->simd ? ki->simd : sim_cfg.simd_width;
    k->slm_bytes = ki->slm_static;
    k->indirect_flags = 0;
    pthread_mutex_init(&k->lock, NULL);
    kp->kidx = idx;
    atomic_fetch_add(&mp->refs, 1);
    atomic_fetch_add(&mp->m.live_kernels, 1);
    *phKernel = (ze_kernel_handle_t)kp;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelDestroy(ze_kernel_handle_t hKernel) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_kernel_t *k = &kp->k;
    sim_obj_kill(&k->obj);
    mod_priv_t *mp = (mod_priv_t *)k->module;
    atomic_fetch_sub(&mp->m.live_kernels, 1);
    sim_isa_unref(k->isa);
    pthread_mutex_destroy(&k->lock);
    free(k->args);
    free(k->arg_values);
    free(kp->attrs);
    free(kp);
    mod_release(mp);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSetCacheConfig(ze_kernel_handle_t hKernel, ze_cache_config_flags_t flags) {
    if (kern_of(hKernel) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (flags & ~(ze_cache_config_flags_t)(ZE_CACHE_CONFIG_FLAG_LARGE_SLM | ZE_CACHE_CONFIG_FLAG_LARGE_DATA))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return ZE_RESULT_SUCCESS; /* a hint: no effect on the model */
}

static ze_result_t ZE_APICALL sim_zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t x, uint32_t y, uint32_t z) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (x == 0 || y == 0 || z == 0 || (uint64_t)x * y * z > 1024) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    const kinfo_t *ki = kinfo_of(kp);
    if (ki->req_wg[0] && (x != ki->req_wg[0] || y != (ki->req_wg[1] ? ki->req_wg[1] : 1) ||
                          z != (ki->req_wg[2] ? ki->req_wg[2] : 1)))
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    pthread_mutex_lock(&kp->k.lock);
    kp->k.group_size[0] = x;
    kp->k.group_size[1] = y;
    kp->k.group_size[2] = z;
    pthread_mutex_unlock(&kp->k.lock);
    return ZE_RESULT_SUCCESS;
}

static uint32_t largest_divisor_le(uint32_t n, uint32_t limit) {
    if (limit == 0) return 1;
    if (n <= limit) return n;
    for (uint32_t d = limit; d > 1; d--)
        if (n % d == 0) return d;
    return 1;
}

static ze_result_t ZE_APICALL sim_zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t gx, uint32_t gy,
                                                           uint32_t gz, uint32_t *sx, uint32_t *sy, uint32_t *sz) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (sx == NULL || sy == NULL || sz == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (gx == 0 || gy == 0 || gz == 0) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    const kinfo_t *ki = kinfo_of(kp);
    if (ki->req_wg[0]) {
        *sx = ki->req_wg[0];
        *sy = ki->req_wg[1] ? ki->req_wg[1] : 1;
        *sz = ki->req_wg[2] ? ki->req_wg[2] : 1;
        return ZE_RESULT_SUCCESS;
    }
    /* Largest sizes that divide the global size, at most 1024 items. */
    *sx = largest_divisor_le(gx, 1024);
    *sy = largest_divisor_le(gy, 1024 / *sx);
    *sz = largest_divisor_le(gz, 1024 / (*sx * *sy));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t hKernel,
                                                                          uint32_t *totalGroupCount) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (totalGroupCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&kp->k.lock);
    uint64_t items = (uint64_t)kp->k.group_size[0] * kp->k.group_size[1] * kp->k.group_size[2];
    pthread_mutex_unlock(&kp->k.lock);
    uint64_t simd = kp->k.simd_size ? kp->k.simd_size : 16;
    uint64_t threads_per_group = (items + simd - 1) / simd;
    uint64_t hw_threads = (uint64_t)kp->k.module->device->xecores * sim_cfg.eus_per_xecore * sim_cfg.threads_per_eu;
    uint64_t n = threads_per_group ? hw_threads / threads_per_group : 0;
    *totalGroupCount = (uint32_t)(n ? (n > UINT32_MAX ? UINT32_MAX : n) : 1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex,
                                                           size_t argSize, const void *pArgValue) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_kernel_t *k = &kp->k;
    if (argIndex >= k->num_args) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    const sim_kernel_arg_t *a = &k->args[argIndex];
    uint64_t v = 0;
    if (a->is_local) {
        /* SLM argument: the size is the value; no data. */
        if (argSize == 0 || argSize > UINT32_MAX) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        v = argSize;
    } else if (a->is_pointer) {
        if (argSize != sizeof(void *)) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        if (pArgValue != NULL) memcpy(&v, pArgValue, sizeof(void *));
    } else {
        if (a->size != 0 && argSize != a->size) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        if (pArgValue == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
        memcpy(&v, pArgValue, argSize < 8 ? argSize : 8);
    }
    pthread_mutex_lock(&k->lock);
    k->arg_values[argIndex] = v;
    if (a->is_local) {
        uint64_t slm = kinfo_of(kp)->slm_static;
        for (uint32_t i = 0; i < k->num_args; i++)
            if (k->args[i].is_local) slm += k->arg_values[i];
        k->slm_bytes = slm > UINT32_MAX ? UINT32_MAX : (uint32_t)slm;
    }
    pthread_mutex_unlock(&k->lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSetIndirectAccess(ze_kernel_handle_t hKernel,
                                                            ze_kernel_indirect_access_flags_t flags) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (flags & ~(ze_kernel_indirect_access_flags_t)(ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
                                                     ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                                                     ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    pthread_mutex_lock(&kp->k.lock);
    kp->k.indirect_flags = flags;
    pthread_mutex_unlock(&kp->k.lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelGetIndirectAccess(ze_kernel_handle_t hKernel,
                                                            ze_kernel_indirect_access_flags_t *pFlags) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pFlags == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&kp->k.lock);
    *pFlags = kp->k.indirect_flags;
    pthread_mutex_unlock(&kp->k.lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelGetSourceAttributes(ze_kernel_handle_t hKernel, uint32_t *pSize,
                                                              char **pString) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t need = (uint32_t)strlen(kp->attrs) + 1;
    if (*pSize == 0) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    if (pString == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pString == NULL) { /* the string's lifetime is the kernel's */
        *pString = kp->attrs;
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *pSize < need ? *pSize : need;
    memcpy(*pString, kp->attrs, n - 1);
    (*pString)[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelGetProperties(ze_kernel_handle_t hKernel, ze_kernel_properties_t *p) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const kinfo_t *ki = kinfo_of(kp);
    const mod_priv_t *mp = (const mod_priv_t *)kp->k.module;
    p->numKernelArgs = kp->k.num_args;
    p->requiredGroupSizeX = ki->req_wg[0];
    p->requiredGroupSizeY = ki->req_wg[0] ? (ki->req_wg[1] ? ki->req_wg[1] : 1) : 0;
    p->requiredGroupSizeZ = ki->req_wg[0] ? (ki->req_wg[2] ? ki->req_wg[2] : 1) : 0;
    p->requiredNumSubGroups = 0;
    p->requiredSubgroupSize = ki->req_sg;
    p->maxSubgroupSize = kp->k.simd_size;
    p->maxNumSubgroups = kp->k.simd_size ? 1024 / kp->k.simd_size : 0;
    p->localMemSize = ki->slm_static;
    p->privateMemSize = ki->private_size;
    p->spillMemSize = ki->spill_size;
    uint64_t kid[2] = {sim_hash_str(ki->name), kp->k.isa->kernel_id};
    uint64_t mid[2] = {sim_mix64(mp->module_id), mp->module_id};
    memcpy(p->uuid.kid, kid, sizeof(p->uuid.kid) < sizeof(kid) ? sizeof(p->uuid.kid) : sizeof(kid));
    memcpy(p->uuid.mid, mid, sizeof(p->uuid.mid) < sizeof(mid) ? sizeof(p->uuid.mid) : sizeof(mid));
    for (sim_base_desc_t *e = (sim_base_desc_t *)p->pNext; e != NULL; e = (sim_base_desc_t *)e->pNext)
        if (e->stype == ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES)
            ((ze_kernel_preferred_group_size_properties_t *)e)->preferredMultiple = kp->k.simd_size;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize, char *pName) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const char *name = kp->k.isa->kernel_name;
    size_t need = strlen(name) + 1;
    if (pName == NULL || *pSize == 0) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < need ? *pSize : need;
    memcpy(pName, name, n - 1);
    pName[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSetGlobalOffsetExp(ze_kernel_handle_t hKernel, uint32_t x, uint32_t y,
                                                             uint32_t z) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&kp->k.lock);
    kp->global_offset[0] = x;
    kp->global_offset[1] = y;
    kp->global_offset[2] = z;
    pthread_mutex_unlock(&kp->k.lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetKernelGetProfileInfo(zet_kernel_handle_t hKernel, zet_profile_properties_t *p) {
    if (kern_of((ze_kernel_handle_t)hKernel) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0; /* no instrumentation */
    p->numTokens = 0;
    return ZE_RESULT_SUCCESS;
}

/* ================================================================== */
/* Driver extensions (zeDriverGetExtensionFunctionAddress)             */
/* ================================================================== */

/* Full decanonized 64-bit VA; NULL output ignored, like Intel's. */
static ze_result_t ZE_APICALL sim_zexKernelGetBaseAddress(ze_kernel_handle_t hKernel, uint64_t *baseAddress) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (baseAddress != NULL) *baseAddress = kp->k.isa->gpu_va;
    return ZE_RESULT_SUCCESS;
}

/* Raw ISA including IGC's padding; copies min(*pSize, size) bytes. */
static ze_result_t ZE_APICALL sim_zeIntelKernelGetBinaryExp(ze_kernel_handle_t hKernel, size_t *pSize,
                                                            char *pKernelBinary) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const sim_isa_t *isa = kp->k.isa;
    if (pKernelBinary == NULL) {
        *pSize = isa->size;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize > isa->size) *pSize = isa->size;
    memcpy(pKernelBinary, isa->bytes, *pSize);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zexKernelGetArgumentSize(ze_kernel_handle_t hKernel, uint32_t argIndex,
                                                           uint32_t *pArgSize) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pArgSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (argIndex >= kp->k.num_args) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    *pArgSize = kp->k.args[argIndex].size;
    return ZE_RESULT_SUCCESS;
}

void *sim_module_extension(const char *name) {
    if (name == NULL) return NULL;
    if (strcmp(name, "zexKernelGetBaseAddress") == 0) return (void *)sim_zexKernelGetBaseAddress;
    if (strcmp(name, "zeIntelKernelGetBinaryExp") == 0) return (void *)sim_zeIntelKernelGetBinaryExp;
    if (strcmp(name, "zexKernelGetArgumentSize") == 0) return (void *)sim_zexKernelGetArgumentSize;
    return NULL;
}

/* ================================================================== */
/* DDI getters                                                         */
/* ================================================================== */

#define CHECK_TABLE(v, t) \
    do { \
        if ((t) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER; \
        if (ZE_MAJOR_VERSION(v) != 1) return ZE_RESULT_ERROR_UNSUPPORTED_VERSION; \
    } while (0)

SIM_EXPORT ze_result_t ZE_APICALL zeGetModuleProcAddrTable(ze_api_version_t version, ze_module_dditable_t *t) {
    CHECK_TABLE(version, t);
    memset(t, 0, sizeof(*t));
    t->pfnCreate = sim_zeModuleCreate;
    t->pfnDestroy = sim_zeModuleDestroy;
    t->pfnDynamicLink = sim_zeModuleDynamicLink;
    t->pfnGetNativeBinary = sim_zeModuleGetNativeBinary;
    t->pfnGetGlobalPointer = sim_zeModuleGetGlobalPointer;
    t->pfnGetKernelNames = sim_zeModuleGetKernelNames;
    t->pfnGetProperties = sim_zeModuleGetProperties;
    t->pfnGetFunctionPointer = sim_zeModuleGetFunctionPointer;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetModuleBuildLogProcAddrTable(ze_api_version_t version,
                                                                   ze_module_build_log_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnDestroy = sim_zeModuleBuildLogDestroy;
    t->pfnGetString = sim_zeModuleBuildLogGetString;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetKernelProcAddrTable(ze_api_version_t version, ze_kernel_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnCreate = sim_zeKernelCreate;
    t->pfnDestroy = sim_zeKernelDestroy;
    t->pfnSetCacheConfig = sim_zeKernelSetCacheConfig;
    t->pfnSetGroupSize = sim_zeKernelSetGroupSize;
    t->pfnSuggestGroupSize = sim_zeKernelSuggestGroupSize;
    t->pfnSuggestMaxCooperativeGroupCount = sim_zeKernelSuggestMaxCooperativeGroupCount;
    t->pfnSetArgumentValue = sim_zeKernelSetArgumentValue;
    t->pfnSetIndirectAccess = sim_zeKernelSetIndirectAccess;
    t->pfnGetIndirectAccess = sim_zeKernelGetIndirectAccess;
    t->pfnGetSourceAttributes = sim_zeKernelGetSourceAttributes;
    t->pfnGetProperties = sim_zeKernelGetProperties;
    t->pfnGetName = sim_zeKernelGetName;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetKernelExpProcAddrTable(ze_api_version_t version, ze_kernel_exp_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnSetGlobalOffsetExp = sim_zeKernelSetGlobalOffsetExp;
    t->pfnSchedulingHintExp = NULL;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetModuleProcAddrTable(ze_api_version_t version, zet_module_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnGetDebugInfo = sim_zetModuleGetDebugInfo;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetKernelProcAddrTable(ze_api_version_t version, zet_kernel_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnGetProfileInfo = sim_zetKernelGetProfileInfo;
    return ZE_RESULT_SUCCESS;
}
