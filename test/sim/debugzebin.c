/*
 * debugzebin.c — debug information of zebin modules.
 *
 * Two pure functions (no globals, no locks: safe from any thread):
 *
 *  sim_zebin_merge_debug   Debian's IGC 1.0.12504 writes DWARF into a zebin
 *      only for single-kernel modules; for modules with several kernels it
 *      writes none (newer IGC links the per-kernel debug ELFs with lld
 *      --relocatable). Its legacy output (.dbg, "CTNI" container) has one
 *      debug ELF per kernel. This merges those ELFs into the zebin the way
 *      newer IGC would: one set of .debug_* sections, one compile unit and
 *      one line program per kernel, with every cross-section offset fixed
 *      up and every code address turned into an R_ZE_SYM_ADDR relocation
 *      against the kernel's FUNC symbol (addend = kernel-relative address,
 *      stored bytes zero).
 *
 *  sim_debug_zebin_build   What Intel's driver returns from
 *      zetModuleGetDebugInfo (compute-runtime
 *      shared/source/device_binary_format/zebin/debug_zebin.cpp,
 *      DebugZebinCreator): ET_EXEC, every section copied (8-byte aligned),
 *      .text.<kernel> at the kernel's GPU address with a PT_LOAD header,
 *      symbol values relocated, R_ZE_SYM_ADDR/_32/_32_HI applied in place.
 *
 * Every input is untrusted: all reads go through bounds-checked cursors and
 * any inconsistency returns -1 with a message that says where it was found.
 * Spec: docs/eu-stall-sampling.md §9 "Kernel code and debug info from the driver".
 */
#include "sim.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* ELF constants (kept local: <elf.h> lacks the zebin values anyway).   */
/* ------------------------------------------------------------------ */
#define EHDR_SIZE 64u
#define SHDR_SIZE 64u
#define PHDR_SIZE 56u
#define SYM_SIZE 24u
#define RELA_SIZE 24u
#define REL_SIZE 16u

#define SHT_NULL_ 0u
#define SHT_SYMTAB_ 2u
#define SHT_STRTAB_ 3u
#define SHT_RELA_ 4u
#define SHT_NOBITS_ 8u
#define SHT_REL_ 9u
#define SHF_MERGE_ 0x10u
#define SHF_STRINGS_ 0x20u
#define SHF_INFO_LINK_ 0x40u
#define SHN_LORESERVE_ 0xff00u
#define STT_FUNC_ 2u
#define ET_EXEC_ 2u
#define PT_LOAD_ 1u

#define R_ZE_SYM_ADDR 1u
#define R_ZE_SYM_ADDR_32 2u
#define R_ZE_SYM_ADDR_32_HI 3u
/* Relocation types in IGC's per-kernel (vISA) debug ELFs: x86-64 numbering. */
#define R_X86_64_64_ 1u
#define R_X86_64_32_ 10u

#define CTNI_MAGIC 0x494e5443u /* "CTNI" */
#define CTNI_HDR_SIZE 28u

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */
typedef struct errctx {
    char *buf;
    size_t cap;
} errctx_t;

__attribute__((format(printf, 2, 3))) static int fail(errctx_t *e, const char *fmt, ...) {
    if (e->buf != NULL && e->cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->buf, e->cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* Little-endian access                                                */
/* ------------------------------------------------------------------ */
static uint64_t rd_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static uint16_t rd16(const uint8_t *p) { return (uint16_t)rd_le(p, 2); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd_le(p, 4); }
static uint64_t rd64(const uint8_t *p) { return rd_le(p, 8); }
static void wr_le(uint8_t *p, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* True if [off, off+len) lies within [0, size), without overflow. */
static bool in_bounds(uint64_t off, uint64_t len, uint64_t size) {
    return off <= size && len <= size - off;
}

/* Bounds-checked cursor: any read past the end sets bad and returns 0, so
 * parsers can read a whole record and check once. */
typedef struct cur {
    const uint8_t *p;
    size_t n, off;
    bool bad;
} cur_t;

static cur_t cur_make(const uint8_t *p, size_t n, size_t off) {
    cur_t c = {p, n, off, off > n};
    return c;
}
static bool cur_has(const cur_t *c, uint64_t len) { return !c->bad && len <= c->n - c->off; }
static uint64_t cur_u(cur_t *c, unsigned len) {
    if (!cur_has(c, len)) {
        c->bad = true;
        return 0;
    }
    uint64_t v = rd_le(c->p + c->off, len);
    c->off += len;
    return v;
}
static void cur_skip(cur_t *c, uint64_t len) {
    if (!cur_has(c, len)) {
        c->bad = true;
        return;
    }
    c->off += (size_t)len;
}
static uint64_t cur_uleb(cur_t *c) {
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        if (!cur_has(c, 1)) {
            c->bad = true;
            return 0;
        }
        uint8_t b = c->p[c->off++];
        if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) return v;
    }
}
static void cur_sleb_skip(cur_t *c) { (void)cur_uleb(c); }
/* Skips a NUL-terminated string. */
static void cur_str(cur_t *c) {
    if (c->bad) return;
    const void *z = memchr(c->p + c->off, 0, c->n - c->off);
    if (z == NULL) {
        c->bad = true;
        return;
    }
    c->off = (size_t)((const uint8_t *)z - c->p) + 1;
}

/* ------------------------------------------------------------------ */
/* Growable byte buffer                                                */
/* ------------------------------------------------------------------ */
typedef struct buf {
    uint8_t *p;
    size_t n, cap;
    bool oom;
} buf_t;

static bool buf_reserve(buf_t *b, size_t extra) {
    if (b->oom) return false;
    if (extra > SIZE_MAX / 2 - b->n) {
        b->oom = true;
        return false;
    }
    if (b->n + extra <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}
static void buf_put(buf_t *b, const void *src, size_t len) {
    if (len == 0 || !buf_reserve(b, len)) return;
    memcpy(b->p + b->n, src, len);
    b->n += len;
}
static void buf_zero(buf_t *b, size_t len) {
    if (len == 0 || !buf_reserve(b, len)) return;
    memset(b->p + b->n, 0, len);
    b->n += len;
}
static void buf_align(buf_t *b, uint64_t align) {
    if (align > 1 && align <= 4096 && b->n % align) buf_zero(b, (size_t)(align - b->n % align));
}
static void buf_le(buf_t *b, uint64_t v, unsigned n) {
    uint8_t t[8];
    wr_le(t, v, n);
    buf_put(b, t, n);
}

/* ------------------------------------------------------------------ */
/* ELF64 little-endian reader                                          */
/* ------------------------------------------------------------------ */
typedef struct elf_sec {
    uint32_t name, type;
    uint64_t flags, addr, off, size;
    uint32_t link, info;
    uint64_t align, entsize;
    const char *nm;      /* name, NUL-terminated inside the file */
    const uint8_t *data; /* NULL for SHT_NOBITS */
} elf_sec_t;

typedef struct elf {
    const uint8_t *buf;
    size_t size;
    uint16_t type, machine;
    uint32_t version, flags;
    uint16_t phnum, shnum, shstrndx;
    elf_sec_t *sec;
} elf_t;

static void elf_free(elf_t *e) {
    free(e->sec);
    e->sec = NULL;
}

/* what names the input in messages ("zebin", ".dbg kernel 'x'"). */
static int elf_parse(elf_t *e, const uint8_t *buf, size_t size, const char *what, errctx_t *err) {
    memset(e, 0, sizeof(*e));
    if (buf == NULL || size < EHDR_SIZE) return fail(err, "%s: too small for an ELF header (%zu bytes)", what, size);
    if (memcmp(buf, "\x7f" "ELF", 4) != 0) return fail(err, "%s: not an ELF file (bad magic)", what);
    if (buf[4] != 2 || buf[5] != 1) return fail(err, "%s: not a little-endian ELF64 file", what);
    e->buf = buf;
    e->size = size;
    e->type = rd16(buf + 16);
    e->machine = rd16(buf + 18);
    e->version = rd32(buf + 20);
    e->flags = rd32(buf + 48);
    uint64_t shoff = rd64(buf + 40);
    uint16_t shentsize = rd16(buf + 58);
    e->phnum = rd16(buf + 56);
    e->shnum = rd16(buf + 60);
    e->shstrndx = rd16(buf + 62);
    if (e->shnum == 0) return fail(err, "%s: no section headers (e_shnum = 0)", what);
    if (shentsize != SHDR_SIZE) return fail(err, "%s: e_shentsize %u, expected 64", what, shentsize);
    if (!in_bounds(shoff, (uint64_t)e->shnum * SHDR_SIZE, size))
        return fail(err, "%s: section header table [0x%llx, +%u*64) outside the file (%zu bytes)", what,
                    (unsigned long long)shoff, e->shnum, size);
    if (e->shstrndx >= e->shnum) return fail(err, "%s: e_shstrndx %u >= e_shnum %u", what, e->shstrndx, e->shnum);
    e->sec = calloc(e->shnum, sizeof(*e->sec));
    if (e->sec == NULL) return fail(err, "%s: out of memory", what);
    for (uint16_t i = 0; i < e->shnum; i++) {
        const uint8_t *h = buf + shoff + (uint64_t)i * SHDR_SIZE;
        elf_sec_t *s = &e->sec[i];
        s->name = rd32(h);
        s->type = rd32(h + 4);
        s->flags = rd64(h + 8);
        s->addr = rd64(h + 16);
        s->off = rd64(h + 24);
        s->size = rd64(h + 32);
        s->link = rd32(h + 40);
        s->info = rd32(h + 44);
        s->align = rd64(h + 48);
        s->entsize = rd64(h + 56);
        if (s->type != SHT_NOBITS_ && s->type != SHT_NULL_) {
            if (!in_bounds(s->off, s->size, size)) {
                fail(err, "%s: section %u data [0x%llx, +0x%llx) outside the file (%zu bytes)", what, i,
                     (unsigned long long)s->off, (unsigned long long)s->size, size);
                elf_free(e);
                return -1;
            }
            s->data = buf + s->off;
        }
    }
    const elf_sec_t *ss = &e->sec[e->shstrndx];
    if (ss->data == NULL || ss->size == 0) {
        fail(err, "%s: section name table (section %u) is empty", what, e->shstrndx);
        elf_free(e);
        return -1;
    }
    for (uint16_t i = 0; i < e->shnum; i++) {
        elf_sec_t *s = &e->sec[i];
        if (s->name >= ss->size || memchr(ss->data + s->name, 0, ss->size - s->name) == NULL) {
            fail(err, "%s: section %u name offset 0x%x outside the section name table", what, i, s->name);
            elf_free(e);
            return -1;
        }
        s->nm = (const char *)ss->data + s->name;
    }
    return 0;
}

static int elf_find(const elf_t *e, const char *name) {
    for (int i = 0; i < e->shnum; i++)
        if (strcmp(e->sec[i].nm, name) == 0) return i;
    return -1;
}

/* The single SHT_SYMTAB section, validated (entsize, size, string table). */
static int elf_symtab(const elf_t *e, const char *what, errctx_t *err, int *idx) {
    *idx = -1;
    for (int i = 0; i < e->shnum; i++) {
        if (e->sec[i].type != SHT_SYMTAB_) continue;
        if (*idx >= 0) return fail(err, "%s: more than one symbol table", what);
        *idx = i;
    }
    if (*idx < 0) return 0;
    const elf_sec_t *s = &e->sec[*idx];
    if (s->entsize != SYM_SIZE || s->size % SYM_SIZE)
        return fail(err, "%s: symbol table entsize %llu / size %llu invalid", what, (unsigned long long)s->entsize,
                    (unsigned long long)s->size);
    if (s->link >= e->shnum || e->sec[s->link].data == NULL)
        return fail(err, "%s: symbol table string table link %u invalid", what, s->link);
    return 0;
}

/* Name of symbol i, or NULL if its name offset is invalid. */
static const char *elf_symname(const elf_t *e, int symtab, uint64_t i) {
    const elf_sec_t *s = &e->sec[symtab];
    const elf_sec_t *st = &e->sec[s->link];
    uint32_t n = rd32(s->data + i * SYM_SIZE);
    if (n >= st->size || memchr(st->data + n, 0, st->size - n) == NULL) return NULL;
    return (const char *)st->data + n;
}

/* ------------------------------------------------------------------ */
/* Relocation lists                                                    */
/* ------------------------------------------------------------------ */
typedef struct rel {
    uint64_t off;   /* in the merged section */
    int64_t addend; /* kernel-relative address */
    uint32_t sym;   /* symbol index in the zebin's .symtab */
    uint8_t width;  /* 8 (R_ZE_SYM_ADDR) or 4 (R_ZE_SYM_ADDR_32) */
    uint8_t prio;   /* 1: from the kernel ELF's own .rela (wins), 0: from DWARF parsing */
} rel_t;

typedef struct rels {
    rel_t *v;
    size_t n, cap;
    bool oom;
} rels_t;

static void rels_add(rels_t *r, uint64_t off, int64_t addend, uint32_t sym, unsigned width, unsigned prio) {
    if (r->oom) return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        rel_t *v = realloc(r->v, cap * sizeof(*v));
        if (v == NULL) {
            r->oom = true;
            return;
        }
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (rel_t){off, addend, sym, (uint8_t)width, (uint8_t)prio};
}

static int rel_cmp(const void *a, const void *b) {
    const rel_t *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return (int)y->prio - (int)x->prio; /* higher priority first */
}

/* Sort by offset and drop duplicates (keeping the kernel ELF's own
 * relocation); overlapping entries of different width are an error. */
static int rels_finish(rels_t *r, const char *secname, errctx_t *err) {
    if (r->oom) return fail(err, "merge: out of memory");
    if (r->n == 0) return 0;
    qsort(r->v, r->n, sizeof(*r->v), rel_cmp);
    size_t w = 1;
    for (size_t i = 1; i < r->n; i++) {
        rel_t *last = &r->v[w - 1];
        if (r->v[i].off == last->off) {
            if (r->v[i].width != last->width)
                return fail(err, "merge: %s offset 0x%llx relocated with two widths", secname,
                            (unsigned long long)last->off);
            continue;
        }
        if (r->v[i].off < last->off + last->width)
            return fail(err, "merge: %s relocations overlap at 0x%llx", secname, (unsigned long long)r->v[i].off);
        r->v[w++] = r->v[i];
    }
    r->n = w;
    return 0;
}

/* ------------------------------------------------------------------ */
/* The .dbg container                                                  */
/* ------------------------------------------------------------------ */
typedef struct dbg_kernel {
    char name[256];
    const uint8_t *elf;
    size_t elf_size;
} dbg_kernel_t;

static int dbg_parse(const uint8_t *dbg, size_t size, dbg_kernel_t **out, uint32_t *count, errctx_t *err) {
    *out = NULL;
    *count = 0;
    if (dbg == NULL || size < CTNI_HDR_SIZE) return fail(err, ".dbg: too small for the header (%zu bytes)", size);
    if (rd32(dbg) != CTNI_MAGIC) return fail(err, ".dbg: bad magic 0x%08x (expected \"CTNI\")", rd32(dbg));
    uint32_t n = rd32(dbg + 24);
    /* Each entry needs at least its 12-byte header: bounds the allocation. */
    if (n == 0 || n > (size - CTNI_HDR_SIZE) / 12) return fail(err, ".dbg: implausible kernel count %u", n);
    dbg_kernel_t *k = calloc(n, sizeof(*k));
    if (k == NULL) return fail(err, ".dbg: out of memory");
    cur_t c = cur_make(dbg, size, CTNI_HDR_SIZE);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        size_t at = c.off;
        uint64_t name_size = cur_u(&c, 4), visa = cur_u(&c, 4), gen = cur_u(&c, 4);
        if (c.bad || !cur_has(&c, name_size) || name_size == 0) {
            rc = fail(err, ".dbg: kernel %u header at offset 0x%zx truncated", i, at);
            break;
        }
        const uint8_t *nm = c.p + c.off;
        const uint8_t *nul = memchr(nm, 0, (size_t)name_size);
        size_t len = nul ? (size_t)(nul - nm) : (size_t)name_size;
        if (len == 0 || len >= sizeof(k[i].name)) {
            rc = fail(err, ".dbg: kernel %u name at offset 0x%zx empty or too long", i, c.off);
            break;
        }
        memcpy(k[i].name, nm, len);
        cur_skip(&c, name_size);
        if (!cur_has(&c, visa)) {
            rc = fail(err, ".dbg: kernel '%s' debug ELF (0x%llx bytes at 0x%zx) past the end (%zu bytes)", k[i].name,
                      (unsigned long long)visa, c.off, size);
            break;
        }
        k[i].elf = c.p + c.off;
        k[i].elf_size = (size_t)visa;
        cur_skip(&c, visa);
        cur_skip(&c, gen);
        if (c.bad) rc = fail(err, ".dbg: kernel '%s' gen ISA debug data past the end", k[i].name);
        for (uint32_t j = 0; j < i && rc == 0; j++)
            if (strcmp(k[j].name, k[i].name) == 0) rc = fail(err, ".dbg: kernel '%s' appears twice", k[i].name);
    }
    if (rc != 0) {
        free(k);
        return -1;
    }
    *out = k;
    *count = n;
    return 0;
}

/* ------------------------------------------------------------------ */
/* DWARF                                                               */
/* ------------------------------------------------------------------ */
enum {
    SEC_INFO,
    SEC_ABBREV,
    SEC_LINE,
    SEC_LOC,
    SEC_STR,
    SEC_RANGES,
    SEC_COUNT,
};
static const char *const sec_names[SEC_COUNT] = {".debug_info", ".debug_abbrev", ".debug_line",
                                                 ".debug_loc",  ".debug_str",    ".debug_ranges"};
/* Sections that can carry code addresses, hence get .rela.<name>. */
static bool sec_has_rela(int s) { return s == SEC_INFO || s == SEC_LINE || s == SEC_LOC || s == SEC_RANGES; }

/* One kernel being merged. */
typedef struct kctx {
    const char *name;
    const uint8_t *in[SEC_COUNT]; /* the kernel ELF's sections (NULL: absent) */
    uint64_t size[SEC_COUNT];
    uint64_t base[SEC_COUNT];     /* offset of this kernel's part in the merged section */
    uint32_t sym;                 /* the kernel's FUNC symbol in the zebin */
    buf_t *out;                   /* merged sections (array of SEC_COUNT) */
    rels_t *rels;                 /* per merged section */
    errctx_t *err;
} kctx_t;

/* Patch an offset field of width w at off (in kernel section s) in the
 * merged copy: value += base of section target. */
static int fix_offset(kctx_t *k, int s, uint64_t off, unsigned w, int target, const char *what) {
    const uint8_t *p = k->in[s] + off;
    uint64_t v = rd_le(p, w);
    if (v > k->size[target])
        return fail(k->err, ".dbg kernel '%s': %s at %s+0x%llx = 0x%llx beyond %s (0x%llx bytes)", k->name, what,
                    sec_names[s], (unsigned long long)off, (unsigned long long)v, sec_names[target],
                    (unsigned long long)k->size[target]);
    v += k->base[target];
    if (w == 4 && v > UINT32_MAX)
        return fail(k->err, ".dbg kernel '%s': merged %s exceeds 4 GiB", k->name, sec_names[target]);
    wr_le(k->out[s].p + k->base[s] + off, v, w);
    return 0;
}

/* An address field: becomes a relocation (stored bytes zeroed later). */
static void add_addr(kctx_t *k, int s, uint64_t off, unsigned w) {
    int64_t a = (int64_t)rd_le(k->in[s] + off, w);
    rels_add(&k->rels[s], k->base[s] + off, a, k->sym, w, 0);
}

/* DWARF 4 location and range lists are relative to the CU base address
 * (the CU's relocated DW_AT_low_pc), so only base-address-selection
 * entries carry an address that needs a relocation. */
static int walk_list(kctx_t *k, int s, uint64_t off, unsigned asz, const char *what) {
    cur_t c = cur_make(k->in[s], (size_t)k->size[s], 0);
    if (off >= k->size[s])
        return fail(k->err, ".dbg kernel '%s': %s offset 0x%llx outside %s (0x%llx bytes)", k->name, what,
                    (unsigned long long)off, sec_names[s], (unsigned long long)k->size[s]);
    c.off = (size_t)off;
    uint64_t maxaddr = asz == 8 ? UINT64_MAX : UINT32_MAX;
    for (unsigned guard = 0; guard < 1000000; guard++) {
        size_t at = c.off;
        uint64_t b = cur_u(&c, asz), e = cur_u(&c, asz);
        if (c.bad) break;
        if (b == 0 && e == 0) return 0;
        if (b == maxaddr) {
            add_addr(k, s, at + asz, asz);
            continue;
        }
        if (s == SEC_LOC) cur_skip(&c, cur_u(&c, 2));
        if (c.bad) break;
    }
    return fail(k->err, ".dbg kernel '%s': %s list at %s+0x%llx is truncated", k->name, what, sec_names[s],
                (unsigned long long)off);
}

typedef struct abbrev {
    uint64_t code;
    size_t first, count; /* into the attribute spec array */
    bool children;
} abbrev_t;

typedef struct abbrevs {
    abbrev_t *v;
    size_t n;
    uint64_t (*spec)[2]; /* {attribute, form} */
    size_t nspec;
} abbrevs_t;

static void abbrevs_free(abbrevs_t *a) {
    free(a->v);
    free(a->spec);
    memset(a, 0, sizeof(*a));
}

static int abbrevs_parse(kctx_t *k, uint64_t off, abbrevs_t *a) {
    memset(a, 0, sizeof(*a));
    if (off >= k->size[SEC_ABBREV])
        return fail(k->err, ".dbg kernel '%s': abbreviation offset 0x%llx outside .debug_abbrev (0x%llx bytes)",
                    k->name, (unsigned long long)off, (unsigned long long)k->size[SEC_ABBREV]);
    cur_t c = cur_make(k->in[SEC_ABBREV], (size_t)k->size[SEC_ABBREV], (size_t)off);
    size_t cap = 0, scap = 0;
    for (;;) {
        uint64_t code = cur_uleb(&c);
        if (c.bad) break;
        if (code == 0) return 0;
        (void)cur_uleb(&c); /* tag */
        uint64_t children = cur_u(&c, 1);
        if (a->n == cap) {
            cap = cap ? cap * 2 : 32;
            abbrev_t *v = realloc(a->v, cap * sizeof(*v));
            if (v == NULL) goto oom;
            a->v = v;
        }
        abbrev_t *ab = &a->v[a->n++];
        ab->code = code;
        ab->children = children != 0;
        ab->first = a->nspec;
        ab->count = 0;
        for (;;) {
            uint64_t at = cur_uleb(&c), form = cur_uleb(&c);
            if (c.bad) goto bad;
            if (at == 0 && form == 0) break;
            if (a->nspec == scap) {
                scap = scap ? scap * 2 : 128;
                uint64_t(*v)[2] = realloc(a->spec, scap * sizeof(*v));
                if (v == NULL) goto oom;
                a->spec = v;
            }
            a->spec[a->nspec][0] = at;
            a->spec[a->nspec][1] = form;
            a->nspec++;
            ab->count++;
        }
    }
bad:
    abbrevs_free(a);
    return fail(k->err, ".dbg kernel '%s': abbreviation table at .debug_abbrev+0x%llx is truncated", k->name,
                (unsigned long long)off);
oom:
    abbrevs_free(a);
    return fail(k->err, "merge: out of memory");
}

static const abbrev_t *abbrev_find(const abbrevs_t *a, uint64_t code) {
    if (code >= 1 && code <= a->n && a->v[code - 1].code == code) return &a->v[code - 1];
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].code == code) return &a->v[i];
    return NULL;
}

/* Which section a section-offset attribute points into (-1: none known). */
static int sec_offset_target(uint64_t at) {
    switch (at) {
    case 0x10: /* DW_AT_stmt_list */
        return SEC_LINE;
    case 0x55: /* DW_AT_ranges */
        return SEC_RANGES;
    case 0x02: /* DW_AT_location */
    case 0x19: /* DW_AT_string_length */
    case 0x2a: /* DW_AT_return_addr */
    case 0x38: /* DW_AT_data_member_location */
    case 0x40: /* DW_AT_frame_base */
    case 0x46: /* DW_AT_segment */
    case 0x48: /* DW_AT_static_link */
    case 0x4a: /* DW_AT_use_location */
    case 0x4d: /* DW_AT_vtable_elem_location */
        return SEC_LOC;
    default:
        return -1;
    }
}

typedef struct cuinfo {
    unsigned version, osz, asz; /* offset size 4/8, address size */
    uint64_t start, end;        /* unit bounds in .debug_info */
} cuinfo_t;

/* One attribute value at c: fix offsets, record addresses, skip the rest. */
static int do_attr(kctx_t *k, cur_t *c, const cuinfo_t *cu, uint64_t at, uint64_t form, unsigned depth) {
    size_t off = c->off;
    int tgt;
    switch (form) {
    case 0x01: /* addr */
        cur_skip(c, cu->asz);
        if (!c->bad) add_addr(k, SEC_INFO, off, cu->asz);
        return 0;
    case 0x0b: /* data1 */
    case 0x11: /* ref1 */
    case 0x0c: /* flag */
        cur_skip(c, 1);
        return 0;
    case 0x05: /* data2 */
    case 0x12: /* ref2 */
        cur_skip(c, 2);
        return 0;
    case 0x06: /* data4 */
    case 0x07: /* data8 */
        cur_skip(c, form == 0x06 ? 4 : 8);
        /* DWARF 2/3 encode section offsets as data4/data8. */
        tgt = sec_offset_target(at);
        if (cu->version < 4 && tgt >= 0 && !c->bad && (form == 0x06 ? 4u : 8u) == cu->osz) goto secoff;
        return 0;
    case 0x13: /* ref4 */
        cur_skip(c, 4);
        return 0;
    case 0x14: /* ref8 */
    case 0x20: /* ref_sig8 */
        cur_skip(c, 8);
        return 0;
    case 0x0d: /* sdata */
        cur_sleb_skip(c);
        return 0;
    case 0x0f: /* udata */
    case 0x15: /* ref_udata */
        (void)cur_uleb(c);
        return 0;
    case 0x19: /* flag_present */
        return 0;
    case 0x08: /* string */
        cur_str(c);
        return 0;
    case 0x0a: /* block1 */
        cur_skip(c, cur_u(c, 1));
        return 0;
    case 0x03: /* block2 */
        cur_skip(c, cur_u(c, 2));
        return 0;
    case 0x04: /* block4 */
        cur_skip(c, cur_u(c, 4));
        return 0;
    case 0x09: /* block */
    case 0x18: /* exprloc */
        cur_skip(c, cur_uleb(c));
        return 0;
    case 0x0e: /* strp */
        cur_skip(c, cu->osz);
        if (c->bad) return 0;
        return fix_offset(k, SEC_INFO, off, cu->osz, SEC_STR, "DW_FORM_strp");
    case 0x10: { /* ref_addr: .debug_info offset (address-sized in DWARF 2) */
        unsigned w = cu->version <= 2 ? cu->asz : cu->osz;
        cur_skip(c, w);
        if (c->bad) return 0;
        return fix_offset(k, SEC_INFO, off, w, SEC_INFO, "DW_FORM_ref_addr");
    }
    case 0x17: /* sec_offset */
        cur_skip(c, cu->osz);
        if (c->bad) return 0;
        tgt = sec_offset_target(at);
        if (tgt < 0)
            return fail(k->err, ".dbg kernel '%s': DW_FORM_sec_offset for unsupported attribute 0x%llx at .debug_info+0x%zx",
                        k->name, (unsigned long long)at, off);
        goto secoff;
    case 0x16: /* indirect */
        if (depth > 4) break;
        form = cur_uleb(c);
        if (c->bad) return 0;
        return do_attr(k, c, cu, at, form, depth + 1);
    default:
        break;
    }
    return fail(k->err, ".dbg kernel '%s': unsupported DWARF form 0x%llx (attribute 0x%llx) at .debug_info+0x%zx",
                k->name, (unsigned long long)form, (unsigned long long)at, off);
secoff:
    tgt = sec_offset_target(at);
    {
        uint64_t v = rd_le(k->in[SEC_INFO] + off, cu->osz);
        if (fix_offset(k, SEC_INFO, off, cu->osz, tgt, "section offset") != 0) return -1;
        if (tgt == SEC_LOC || tgt == SEC_RANGES)
            return walk_list(k, tgt, v, cu->asz, tgt == SEC_LOC ? "location" : "range");
    }
    return 0;
}

static int walk_info(kctx_t *k) {
    const uint64_t size = k->size[SEC_INFO];
    cur_t c = cur_make(k->in[SEC_INFO], (size_t)size, 0);
    while (c.off < size) {
        cuinfo_t cu = {0};
        cu.start = c.off;
        uint64_t len = cur_u(&c, 4);
        cu.osz = 4;
        if (len == 0xffffffffu) {
            len = cur_u(&c, 8);
            cu.osz = 8;
        } else if (len >= 0xfffffff0u) {
            return fail(k->err, ".dbg kernel '%s': reserved unit length 0x%llx at .debug_info+0x%llx", k->name,
                        (unsigned long long)len, (unsigned long long)cu.start);
        }
        if (c.bad || !cur_has(&c, len))
            return fail(k->err, ".dbg kernel '%s': compile unit at .debug_info+0x%llx overruns the section", k->name,
                        (unsigned long long)cu.start);
        cu.end = c.off + len;
        cu.version = (unsigned)cur_u(&c, 2);
        if (cu.version < 2 || cu.version > 4)
            return fail(k->err, ".dbg kernel '%s': unsupported DWARF version %u at .debug_info+0x%llx", k->name,
                        cu.version, (unsigned long long)cu.start);
        size_t abbr_at = c.off;
        uint64_t abbr = cur_u(&c, cu.osz);
        cu.asz = (unsigned)cur_u(&c, 1);
        if (c.bad || c.off > cu.end)
            return fail(k->err, ".dbg kernel '%s': truncated unit header at .debug_info+0x%llx", k->name,
                        (unsigned long long)cu.start);
        if (cu.asz != 4 && cu.asz != 8)
            return fail(k->err, ".dbg kernel '%s': address size %u at .debug_info+0x%llx", k->name, cu.asz,
                        (unsigned long long)cu.start);
        if (fix_offset(k, SEC_INFO, abbr_at, cu.osz, SEC_ABBREV, "debug_abbrev_offset") != 0) return -1;
        abbrevs_t ab;
        if (abbrevs_parse(k, abbr, &ab) != 0) return -1;
        cur_t d = cur_make(k->in[SEC_INFO], (size_t)cu.end, c.off);
        int rc = 0;
        while (rc == 0 && d.off < cu.end) {
            size_t die = d.off;
            uint64_t code = cur_uleb(&d);
            if (d.bad) break;
            if (code == 0) continue;
            const abbrev_t *a = abbrev_find(&ab, code);
            if (a == NULL) {
                rc = fail(k->err, ".dbg kernel '%s': unknown abbreviation %llu at .debug_info+0x%zx", k->name,
                          (unsigned long long)code, die);
                break;
            }
            for (size_t i = 0; rc == 0 && i < a->count && !d.bad; i++)
                rc = do_attr(k, &d, &cu, ab.spec[a->first + i][0], ab.spec[a->first + i][1], 0);
        }
        abbrevs_free(&ab);
        if (rc != 0) return -1;
        if (d.bad)
            return fail(k->err, ".dbg kernel '%s': DIEs of the unit at .debug_info+0x%llx overrun it", k->name,
                        (unsigned long long)cu.start);
        c.off = (size_t)cu.end;
    }
    return 0;
}

/* Line programs carry code addresses only in DW_LNE_set_address. */
static int walk_line(kctx_t *k) {
    const uint64_t size = k->size[SEC_LINE];
    cur_t c = cur_make(k->in[SEC_LINE], (size_t)size, 0);
    while (c.off < size) {
        size_t start = c.off;
        uint64_t len = cur_u(&c, 4);
        unsigned osz = 4;
        if (len == 0xffffffffu) {
            len = cur_u(&c, 8);
            osz = 8;
        } else if (len >= 0xfffffff0u) {
            return fail(k->err, ".dbg kernel '%s': reserved unit length at .debug_line+0x%zx", k->name, start);
        }
        if (c.bad || !cur_has(&c, len))
            return fail(k->err, ".dbg kernel '%s': line program at .debug_line+0x%zx overruns the section", k->name,
                        start);
        size_t end = c.off + (size_t)len;
        unsigned version = (unsigned)cur_u(&c, 2);
        if (version < 2 || version > 4)
            return fail(k->err, ".dbg kernel '%s': unsupported line table version %u at .debug_line+0x%zx", k->name,
                        version, start);
        uint64_t hlen = cur_u(&c, osz);
        if (c.bad || c.off > end || hlen > end - c.off)
            return fail(k->err, ".dbg kernel '%s': line header at .debug_line+0x%zx overruns the unit", k->name, start);
        size_t prog = c.off + (size_t)hlen;
        cur_skip(&c, version >= 4 ? 4 : 3); /* min_inst_length, [max_ops], default_is_stmt, line_base */
        cur_skip(&c, 1);                    /* line_range */
        unsigned opcode_base = (unsigned)cur_u(&c, 1);
        if (c.bad || opcode_base == 0 || c.off + (opcode_base - 1) > prog)
            return fail(k->err, ".dbg kernel '%s': bad line header at .debug_line+0x%zx", k->name, start);
        const uint8_t *lens = c.p + c.off;
        cur_t p = cur_make(k->in[SEC_LINE], end, prog);
        while (p.off < end && !p.bad) {
            unsigned op = (unsigned)cur_u(&p, 1);
            if (op >= opcode_base) continue; /* special opcode */
            if (op == 0) {                   /* extended */
                uint64_t elen = cur_uleb(&p);
                if (p.bad || elen == 0 || !cur_has(&p, elen)) {
                    p.bad = true;
                    break;
                }
                size_t at = p.off;
                unsigned sub = p.p[p.off];
                if (sub == 2) { /* DW_LNE_set_address */
                    if (elen - 1 != 8 && elen - 1 != 4)
                        return fail(k->err, ".dbg kernel '%s': DW_LNE_set_address of %llu bytes at .debug_line+0x%zx",
                                    k->name, (unsigned long long)(elen - 1), at);
                    add_addr(k, SEC_LINE, at + 1, (unsigned)(elen - 1));
                }
                cur_skip(&p, elen);
            } else if (op == 9) { /* DW_LNS_fixed_advance_pc: uhalf, not LEB */
                cur_skip(&p, 2);
            } else {
                for (unsigned i = 0; i < lens[op - 1]; i++) (void)cur_uleb(&p);
            }
        }
        if (p.bad)
            return fail(k->err, ".dbg kernel '%s': line program at .debug_line+0x%zx is truncated", k->name, start);
        c.off = end;
    }
    return 0;
}

/* The kernel ELF's own relocations (IGC: one against .text at the
 * DW_LNE_set_address operand). Their S + A is the kernel-relative value. */
static int kernel_relas(kctx_t *k, const elf_t *ke, int text) {
    for (int i = 0; i < ke->shnum; i++) {
        const elf_sec_t *r = &ke->sec[i];
        if (r->type == SHT_REL_ && r->size != 0)
            return fail(k->err, ".dbg kernel '%s': SHT_REL section %s not supported", k->name, r->nm);
        if (r->type != SHT_RELA_ || r->size == 0) continue;
        if (r->entsize != RELA_SIZE || r->size % RELA_SIZE)
            return fail(k->err, ".dbg kernel '%s': %s has entsize %llu", k->name, r->nm, (unsigned long long)r->entsize);
        if (r->info >= ke->shnum)
            return fail(k->err, ".dbg kernel '%s': %s targets section %u of %u", k->name, r->nm, r->info, ke->shnum);
        int s = -1;
        for (int j = 0; j < SEC_COUNT; j++)
            if (strcmp(ke->sec[r->info].nm, sec_names[j]) == 0) s = j;
        if (s < 0 || !sec_has_rela(s))
            return fail(k->err, ".dbg kernel '%s': relocations for unsupported section %s", k->name,
                        ke->sec[r->info].nm);
        const elf_sec_t *st = r->link < ke->shnum ? &ke->sec[r->link] : NULL;
        if (st == NULL || st->type != SHT_SYMTAB_ || st->entsize != SYM_SIZE || st->data == NULL)
            return fail(k->err, ".dbg kernel '%s': %s has no valid symbol table", k->name, r->nm);
        for (uint64_t e = 0; e < r->size / RELA_SIZE; e++) {
            const uint8_t *p = r->data + e * RELA_SIZE;
            uint64_t off = rd64(p), info = rd64(p + 8);
            int64_t addend = (int64_t)rd64(p + 16);
            uint32_t type = (uint32_t)info, sym = (uint32_t)(info >> 32);
            unsigned w = type == R_X86_64_64_ ? 8 : type == R_X86_64_32_ ? 4 : 0;
            if (w == 0)
                return fail(k->err, ".dbg kernel '%s': %s entry %llu has unsupported type %u", k->name, r->nm,
                            (unsigned long long)e, type);
            if (!in_bounds(off, w, k->size[s]))
                return fail(k->err, ".dbg kernel '%s': %s entry %llu offset 0x%llx outside %s", k->name, r->nm,
                            (unsigned long long)e, (unsigned long long)off, sec_names[s]);
            if ((uint64_t)sym >= st->size / SYM_SIZE)
                return fail(k->err, ".dbg kernel '%s': %s entry %llu symbol %u out of range", k->name, r->nm,
                            (unsigned long long)e, sym);
            const uint8_t *sp = st->data + (uint64_t)sym * SYM_SIZE;
            if (rd16(sp + 6) != (unsigned)text)
                return fail(k->err, ".dbg kernel '%s': %s entry %llu refers to a symbol outside .text", k->name, r->nm,
                            (unsigned long long)e);
            rels_add(&k->rels[s], k->base[s] + off, (int64_t)rd64(sp + 8) + addend, k->sym, w, 1);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Merge                                                               */
/* ------------------------------------------------------------------ */

/* The zebin's .text.<name> section and the FUNC symbol <name> in it. */
static int zebin_kernel(const elf_t *z, int symtab, const char *name, int *text, uint32_t *sym, errctx_t *err) {
    char want[300];
    snprintf(want, sizeof(want), ".text.%s", name);
    *text = elf_find(z, want);
    if (*text < 0) return fail(err, "merge: .dbg kernel '%s' has no section %s in the zebin", name, want);
    if (symtab < 0) return fail(err, "merge: the zebin has no symbol table");
    const elf_sec_t *s = &z->sec[symtab];
    for (uint64_t i = 1; i < s->size / SYM_SIZE; i++) {
        const uint8_t *p = s->data + i * SYM_SIZE;
        const char *nm = elf_symname(z, symtab, i);
        if (nm != NULL && (p[4] & 0xf) == STT_FUNC_ && rd16(p + 6) == (unsigned)*text && strcmp(nm, name) == 0) {
            *sym = (uint32_t)i;
            return 0;
        }
    }
    return fail(err, "merge: the zebin has no FUNC symbol '%s' in section %s", name, want);
}

static int kernel_sections(kctx_t *k, const elf_t *ke, const elf_t *z, int ztext, const char *name, const char *what,
                           int *ktext);

/* Checks one .dbg kernel against the zebin and collects its debug sections
 * (ke stays parsed on success; the caller frees it). */
static int kernel_open(kctx_t *k, const elf_t *z, int symtab, const dbg_kernel_t *dk, elf_t *ke, int *ktext) {
    int ztext;
    if (zebin_kernel(z, symtab, dk->name, &ztext, &k->sym, k->err) != 0) return -1;
    char what[300];
    snprintf(what, sizeof(what), ".dbg kernel '%s'", dk->name);
    if (elf_parse(ke, dk->elf, dk->elf_size, what, k->err) != 0) return -1;
    if (kernel_sections(k, ke, z, ztext, dk->name, what, ktext) != 0) {
        elf_free(ke);
        return -1;
    }
    return 0;
}

/* The part of kernel_open after the kernel ELF is parsed. */
static int kernel_sections(kctx_t *k, const elf_t *ke, const elf_t *z, int ztext, const char *name, const char *what,
                           int *ktext) {
    int text = elf_find(ke, ".text");
    if (text < 0 || ke->sec[text].data == NULL) return fail(k->err, "%s: no .text section", what);
    const elf_sec_t *lt = &ke->sec[text], *zt = &z->sec[ztext];
    if (zt->data == NULL || lt->size > zt->size || memcmp(lt->data, zt->data, (size_t)lt->size) != 0)
        return fail(k->err,
                    "%s: its .text (0x%llx bytes) is not a prefix of the zebin's .text.%s (0x%llx bytes): the .dbg "
                    "and the zebin come from different compilations",
                    what, (unsigned long long)lt->size, name, (unsigned long long)zt->size);
    *ktext = text;
    for (int i = 0; i < ke->shnum; i++) {
        const elf_sec_t *s = &ke->sec[i];
        if (strncmp(s->nm, ".debug_", 7) != 0) continue;
        int j = -1;
        for (int t = 0; t < SEC_COUNT; t++)
            if (strcmp(s->nm, sec_names[t]) == 0) j = t;
        if (j < 0) {
            if (s->size != 0) return fail(k->err, "%s: unsupported non-empty section %s", what, s->nm);
            continue;
        }
        if (s->type == SHT_NOBITS_ || (s->size != 0 && s->data == NULL))
            return fail(k->err, "%s: section %s has no data", what, s->nm);
        k->in[j] = s->data;
        k->size[j] = s->size;
    }
    if (k->size[SEC_INFO] == 0 || k->size[SEC_ABBREV] == 0 || k->size[SEC_LINE] == 0)
        return fail(k->err, "%s: missing .debug_info, .debug_abbrev or .debug_line", what);
    return 0;
}

typedef struct newsec {
    const char *name;
    uint32_t type;
    uint64_t flags, align, entsize;
    uint32_t link, info;
    const uint8_t *data;
    size_t size;
} newsec_t;

/* Writes the zebin z with its section name table extended and the new
 * sections appended after the original ones (indices of the originals,
 * hence every st_shndx and sh_link, stay valid). */
static int write_zebin(const elf_t *z, const newsec_t *ns, unsigned nnew, uint8_t **out, size_t *out_size,
                       errctx_t *err) {
    buf_t names = {0};
    const elf_sec_t *shs = &z->sec[z->shstrndx];
    buf_put(&names, shs->data, (size_t)shs->size);
    uint32_t name_off[16];
    for (unsigned i = 0; i < nnew; i++) {
        name_off[i] = (uint32_t)names.n;
        buf_put(&names, ns[i].name, strlen(ns[i].name) + 1);
    }
    buf_t o = {0};
    buf_put(&o, z->buf, EHDR_SIZE);
    unsigned total = z->shnum + nnew;
    uint64_t *off = calloc(total, sizeof(*off));
    if (off == NULL) {
        free(names.p);
        return fail(err, "merge: out of memory");
    }
    for (unsigned i = 0; i < total; i++) {
        const uint8_t *d;
        size_t n;
        uint64_t align;
        if (i < z->shnum) {
            const elf_sec_t *s = &z->sec[i];
            d = i == z->shstrndx ? names.p : s->data;
            n = i == z->shstrndx ? names.n : (s->data ? (size_t)s->size : 0);
            align = s->align;
        } else {
            d = ns[i - z->shnum].data;
            n = ns[i - z->shnum].size;
            align = ns[i - z->shnum].align;
        }
        buf_align(&o, align);
        off[i] = o.n;
        buf_put(&o, d, n);
    }
    buf_align(&o, 8);
    uint64_t shoff = o.n;
    for (unsigned i = 0; i < total; i++) {
        if (i < z->shnum) {
            const elf_sec_t *s = &z->sec[i];
            uint64_t size = i == z->shstrndx ? names.n : s->size;
            buf_le(&o, s->name, 4);
            buf_le(&o, s->type, 4);
            buf_le(&o, s->flags, 8);
            buf_le(&o, s->addr, 8);
            buf_le(&o, i == 0 ? s->off : off[i], 8);
            buf_le(&o, size, 8);
            buf_le(&o, s->link, 4);
            buf_le(&o, s->info, 4);
            buf_le(&o, s->align, 8);
            buf_le(&o, s->entsize, 8);
        } else {
            const newsec_t *s = &ns[i - z->shnum];
            buf_le(&o, name_off[i - z->shnum], 4);
            buf_le(&o, s->type, 4);
            buf_le(&o, s->flags, 8);
            buf_le(&o, 0, 8);
            buf_le(&o, off[i], 8);
            buf_le(&o, s->size, 8);
            buf_le(&o, s->link, 4);
            buf_le(&o, s->info, 4);
            buf_le(&o, s->align, 8);
            buf_le(&o, s->entsize, 8);
        }
    }
    free(off);
    free(names.p);
    if (o.oom || names.oom) {
        free(o.p);
        return fail(err, "merge: out of memory");
    }
    wr_le(o.p + 40, shoff, 8);
    wr_le(o.p + 60, total, 2);
    *out = o.p;
    *out_size = o.n;
    return 0;
}

SIM_HIDDEN int sim_zebin_merge_debug(const uint8_t *zebin, size_t zebin_size, const uint8_t *dbg, size_t dbg_size,
                                     uint8_t **out, size_t *out_size, char *err_buf, size_t err_cap) {
    errctx_t err = {err_buf, err_cap};
    if (out == NULL || out_size == NULL) return fail(&err, "merge: NULL output pointer");
    *out = NULL;
    *out_size = 0;
    elf_t z;
    if (elf_parse(&z, zebin, zebin_size, "zebin", &err) != 0) return -1;
    dbg_kernel_t *dk = NULL;
    uint32_t nk = 0;
    int rc = -1, symtab = -1;
    buf_t secs[SEC_COUNT] = {0};
    rels_t rels[SEC_COUNT] = {0};
    buf_t relbuf[SEC_COUNT] = {0};
    if (z.phnum != 0) {
        fail(&err, "zebin: has program headers (already linked?)");
        goto out;
    }
    if (elf_symtab(&z, "zebin", &err, &symtab) != 0 || dbg_parse(dbg, dbg_size, &dk, &nk, &err) != 0) goto out;
    if ((unsigned)z.shnum + 2u * SEC_COUNT >= SHN_LORESERVE_) {
        fail(&err, "zebin: too many sections");
        goto out;
    }

    /* IGC already put DWARF into the zebin (it does for single-kernel
     * modules, like newer IGC): that is the authentic layout, keep it as
     * is after checking that the .dbg describes the same code. */
    bool has_dwarf = false;
    for (int i = 0; i < z.shnum; i++)
        if (strncmp(z.sec[i].nm, ".debug_", 7) == 0) has_dwarf = true;

    for (uint32_t i = 0; i < nk; i++) {
        kctx_t k = {.name = dk[i].name, .out = secs, .rels = rels, .err = &err};
        elf_t ke;
        int ktext = -1;
        if (kernel_open(&k, &z, symtab, &dk[i], &ke, &ktext) != 0) goto out;
        if (has_dwarf) {
            elf_free(&ke);
            continue;
        }
        for (int s = 0; s < SEC_COUNT; s++) {
            k.base[s] = secs[s].n;
            buf_put(&secs[s], k.in[s], (size_t)k.size[s]);
        }
        int r = 0;
        for (int s = 0; s < SEC_COUNT; s++)
            if (secs[s].oom) r = fail(&err, "merge: out of memory");
        if (r == 0) r = walk_info(&k);
        if (r == 0) r = walk_line(&k);
        if (r == 0) r = kernel_relas(&k, &ke, ktext);
        elf_free(&ke);
        if (r != 0) goto out;
    }
    /* Every kernel of the zebin must have its debug ELF in the .dbg (IGC's
     * container of non-kernel functions has none). */
    for (int i = 0; i < z.shnum; i++) {
        if (strncmp(z.sec[i].nm, ".text.", 6) != 0 || strcmp(z.sec[i].nm, ".text.Intel_Symbol_Table_Void_Program") == 0)
            continue;
        bool found = false;
        for (uint32_t j = 0; j < nk && !found; j++) found = strcmp(z.sec[i].nm + 6, dk[j].name) == 0;
        if (!found) {
            fail(&err, "merge: zebin kernel section %s has no entry in the .dbg", z.sec[i].nm);
            goto out;
        }
    }
    if (has_dwarf) {
        *out = malloc(zebin_size);
        if (*out == NULL) {
            fail(&err, "merge: out of memory");
            goto out;
        }
        memcpy(*out, zebin, zebin_size);
        *out_size = zebin_size;
        rc = 0;
        goto out;
    }

    /* Relocated fields hold zero; the value lives in the addend (RELA). */
    newsec_t ns[16];
    unsigned nn = 0;
    int idx[SEC_COUNT];
    for (int s = 0; s < SEC_COUNT; s++) {
        if (rels_finish(&rels[s], sec_names[s], &err) != 0) goto out;
        for (size_t i = 0; i < rels[s].n; i++) memset(secs[s].p + rels[s].v[i].off, 0, rels[s].v[i].width);
        idx[s] = -1;
        if (s == SEC_RANGES && secs[s].n == 0) continue;
        idx[s] = z.shnum + (int)nn;
        ns[nn++] = (newsec_t){sec_names[s], 1 /* PROGBITS */, s == SEC_STR ? SHF_MERGE_ | SHF_STRINGS_ : 0,
                              1, s == SEC_STR ? 1 : 0, 0, 0, secs[s].p, secs[s].n};
    }
    static const char *const rela_names[SEC_COUNT] = {".rela.debug_info", NULL, ".rela.debug_line",
                                                      ".rela.debug_loc",  NULL, ".rela.debug_ranges"};
    for (int s = 0; s < SEC_COUNT; s++) {
        if (!sec_has_rela(s) || idx[s] < 0) continue;
        if (rels[s].n == 0 && s != SEC_INFO && s != SEC_LINE) continue;
        for (size_t i = 0; i < rels[s].n; i++) {
            const rel_t *r = &rels[s].v[i];
            buf_le(&relbuf[s], r->off, 8);
            buf_le(&relbuf[s], ((uint64_t)r->sym << 32) | (r->width == 8 ? R_ZE_SYM_ADDR : R_ZE_SYM_ADDR_32), 8);
            buf_le(&relbuf[s], (uint64_t)r->addend, 8);
        }
        if (relbuf[s].oom) {
            fail(&err, "merge: out of memory");
            goto out;
        }
        ns[nn++] = (newsec_t){rela_names[s], SHT_RELA_, SHF_INFO_LINK_, 8, RELA_SIZE,
                              (uint32_t)symtab, (uint32_t)idx[s], relbuf[s].p, relbuf[s].n};
    }
    rc = write_zebin(&z, ns, nn, out, out_size, &err);
out:
    for (int s = 0; s < SEC_COUNT; s++) {
        free(secs[s].p);
        free(rels[s].v);
        free(relbuf[s].p);
    }
    free(dk);
    elf_free(&z);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Debug zebin (zetModuleGetDebugInfo)                                 */
/* ------------------------------------------------------------------ */

/* Kernel VA for section name ".text.<k>" (or symbol name), or false. */
static bool text_va(const char *secname, uint32_t n, const char *const *names, const uint64_t *va, uint64_t *out) {
    if (strncmp(secname, ".text.", 6) != 0) return false;
    for (uint32_t i = 0; i < n; i++)
        if (names[i] != NULL && strcmp(secname + 6, names[i]) == 0) {
            *out = va[i];
            return true;
        }
    return false;
}

SIM_HIDDEN int sim_debug_zebin_build(const uint8_t *zebin, size_t zebin_size, uint32_t num_kernels,
                                     const char *const *names, const uint64_t *kernel_va, uint8_t **out,
                                     size_t *out_size, char *err_buf, size_t err_cap) {
    errctx_t err = {err_buf, err_cap};
    if (out == NULL || out_size == NULL) return fail(&err, "debug zebin: NULL output pointer");
    *out = NULL;
    *out_size = 0;
    if (num_kernels != 0 && (names == NULL || kernel_va == NULL))
        return fail(&err, "debug zebin: NULL kernel names or addresses");
    elf_t z;
    if (elf_parse(&z, zebin, zebin_size, "zebin", &err) != 0) return -1;
    int symtab = -1;
    /* Intel: the last SHT_SYMTAB wins; we insist on one. */
    if (elf_symtab(&z, "zebin", &err, &symtab) != 0) {
        elf_free(&z);
        return -1;
    }

    /* Layout (Intel's ElfEncoder): header, program headers, section
     * headers, then every section's data 8-byte aligned and padded. */
    uint64_t *secoff = calloc(z.shnum, sizeof(*secoff));
    if (secoff == NULL) {
        elf_free(&z);
        return fail(&err, "debug zebin: out of memory");
    }
    unsigned phnum = 0;
    uint64_t data_size = 0;
    for (unsigned i = 0; i < z.shnum; i++) {
        const elf_sec_t *s = &z.sec[i];
        uint64_t va;
        if (text_va(s->nm, num_kernels, names, kernel_va, &va)) phnum++;
        if (s->type == SHT_NOBITS_ || s->data == NULL || s->size == 0) continue;
        secoff[i] = data_size;
        data_size += (s->size + 7) & ~(uint64_t)7;
    }
    uint64_t data_off = EHDR_SIZE + (uint64_t)phnum * PHDR_SIZE + (uint64_t)z.shnum * SHDR_SIZE;
    buf_t o = {0};
    buf_le(&o, 0x464c457f, 4); /* \x7fELF */
    const uint8_t ident[12] = {2 /* ELF64 */, 1 /* LE */, 1 /* EV_CURRENT */};
    buf_put(&o, ident, sizeof(ident));
    buf_le(&o, ET_EXEC_, 2);
    buf_le(&o, z.machine, 2);
    buf_le(&o, z.version, 4);
    buf_le(&o, 0, 8); /* e_entry */
    buf_le(&o, phnum ? EHDR_SIZE : 0, 8);
    buf_le(&o, EHDR_SIZE + (uint64_t)phnum * PHDR_SIZE, 8);
    buf_le(&o, z.flags, 4);
    buf_le(&o, EHDR_SIZE, 2);
    buf_le(&o, PHDR_SIZE, 2);
    buf_le(&o, phnum, 2);
    buf_le(&o, SHDR_SIZE, 2);
    buf_le(&o, z.shnum, 2);
    buf_le(&o, z.shstrndx, 2);
    for (unsigned i = 0; i < z.shnum; i++) {
        const elf_sec_t *s = &z.sec[i];
        uint64_t va;
        if (!text_va(s->nm, num_kernels, names, kernel_va, &va)) continue;
        bool has = s->type != SHT_NOBITS_ && s->data != NULL && s->size != 0;
        buf_le(&o, PT_LOAD_, 4);
        buf_le(&o, 0, 4); /* PF_NONE, as Intel writes it */
        buf_le(&o, has ? data_off + secoff[i] : 0, 8);
        buf_le(&o, va, 8);
        buf_le(&o, 0, 8);
        buf_le(&o, has ? s->size : 0, 8);
        buf_le(&o, s->size, 8); /* memsz: the kernel heap size */
        buf_le(&o, 8, 8);
    }
    for (unsigned i = 0; i < z.shnum; i++) {
        const elf_sec_t *s = &z.sec[i];
        uint64_t va = 0;
        bool has = s->type != SHT_NOBITS_ && s->data != NULL && s->size != 0;
        (void)text_va(s->nm, num_kernels, names, kernel_va, &va);
        buf_le(&o, s->name, 4);
        buf_le(&o, s->type, 4);
        buf_le(&o, s->flags, 8);
        buf_le(&o, va, 8);
        buf_le(&o, has ? data_off + secoff[i] : 0, 8);
        buf_le(&o, has ? s->size : 0, 8);
        buf_le(&o, s->link, 4);
        buf_le(&o, s->info, 4);
        buf_le(&o, 8, 8);
        buf_le(&o, s->type == SHT_RELA_ ? RELA_SIZE : s->type == SHT_REL_ ? REL_SIZE : s->type == SHT_SYMTAB_ ? SYM_SIZE : 0, 8);
    }
    for (unsigned i = 0; i < z.shnum; i++) {
        const elf_sec_t *s = &z.sec[i];
        if (s->type == SHT_NOBITS_ || s->data == NULL || s->size == 0) continue;
        buf_put(&o, s->data, (size_t)s->size);
        buf_align(&o, 8);
    }
    free(secoff);
    if (o.oom) {
        elf_free(&z);
        return fail(&err, "debug zebin: out of memory");
    }
    int rc = 0;
    if (symtab < 0) goto done; /* nothing to relocate (Intel: same) */

    /* Symbols: add their section's segment address; symbols named
     * .text.<k> that IGC left in a .debug_* section get kernel k's address. */
    const elf_sec_t *st = &z.sec[symtab];
    uint64_t nsym = st->size / SYM_SIZE;
    /* The copied symbol table: its offset as written in its header. */
    uint8_t *symdata = o.p + rd64(o.p + EHDR_SIZE + (uint64_t)phnum * PHDR_SIZE + (uint64_t)symtab * SHDR_SIZE + 24);
    for (uint64_t i = 0; i < nsym; i++) {
        uint8_t *p = symdata + i * SYM_SIZE;
        uint16_t shndx = rd16(p + 6);
        if (shndx == 0 || shndx >= z.shnum) continue;
        uint64_t va;
        const char *sn = elf_symname(&z, symtab, i);
        if (text_va(z.sec[shndx].nm, num_kernels, names, kernel_va, &va) ||
            (strncmp(z.sec[shndx].nm, ".debug", 6) == 0 && sn != NULL &&
             text_va(sn, num_kernels, names, kernel_va, &va)))
            wr_le(p + 8, rd64(p + 8) + va, 8);
    }

    /* Relocations, in every section (Intel applies debug and non-debug). */
    for (unsigned i = 0; i < z.shnum && rc == 0; i++) {
        const elf_sec_t *r = &z.sec[i];
        if ((r->type != SHT_RELA_ && r->type != SHT_REL_) || r->data == NULL || r->size == 0) continue;
        unsigned esz = r->type == SHT_RELA_ ? RELA_SIZE : REL_SIZE;
        if (r->entsize != esz || r->size % esz) {
            rc = fail(&err, "zebin: %s entsize %llu invalid", r->nm, (unsigned long long)r->entsize);
            break;
        }
        if (r->info >= z.shnum || r->info == 0) {
            rc = fail(&err, "zebin: %s targets invalid section %u", r->nm, r->info);
            break;
        }
        const elf_sec_t *t = &z.sec[r->info];
        for (uint64_t e = 0; e < r->size / esz; e++) {
            const uint8_t *p = r->data + e * esz;
            uint64_t off = rd64(p), info = rd64(p + 8);
            uint64_t addend = esz == RELA_SIZE ? rd64(p + 16) : 0;
            uint32_t type = (uint32_t)info, sym = (uint32_t)(info >> 32);
            if (type != R_ZE_SYM_ADDR && type != R_ZE_SYM_ADDR_32 && type != R_ZE_SYM_ADDR_32_HI) continue;
            unsigned w = type == R_ZE_SYM_ADDR ? 8 : 4;
            if (sym >= nsym) {
                rc = fail(&err, "zebin: %s entry %llu: symbol %u out of range", r->nm, (unsigned long long)e, sym);
                break;
            }
            if (t->type == SHT_NOBITS_ || t->data == NULL || !in_bounds(off, w, t->size)) {
                rc = fail(&err, "zebin: %s entry %llu: offset 0x%llx outside %s", r->nm, (unsigned long long)e,
                          (unsigned long long)off, t->nm);
                break;
            }
            uint64_t v = rd64(symdata + (uint64_t)sym * SYM_SIZE + 8) + addend;
            uint64_t toff = rd64(o.p + EHDR_SIZE + (uint64_t)phnum * PHDR_SIZE + (uint64_t)r->info * SHDR_SIZE + 24);
            wr_le(o.p + toff + off, type == R_ZE_SYM_ADDR_32_HI ? v >> 32 : v, w);
        }
    }
done:
    elf_free(&z);
    if (rc != 0) {
        free(o.p);
        return -1;
    }
    *out = o.p;
    *out_size = o.n;
    return 0;
}
