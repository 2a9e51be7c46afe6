/*
 * debugzebin_elf.h — what the debug-zebin code shares (debugzebin_*.c):
 * ELF constants, located errors, bounds-checked little-endian access and
 * cursors, a growable byte buffer and a read-only ELF64 view. Internal to
 * the simulator and zesim-mergedbg; every input is untrusted (see
 * debugzebin_merge.c).
 */
#ifndef ZESIM_DEBUGZEBIN_ELF_H
#define ZESIM_DEBUGZEBIN_ELF_H

#include "sim.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

__attribute__((format(printf, 2, 3))) static inline int fail(errctx_t *e, const char *fmt, ...) {
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
static inline uint64_t rd_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)rd_le(p, 2); }
static inline uint32_t rd32(const uint8_t *p) { return (uint32_t)rd_le(p, 4); }
static inline uint64_t rd64(const uint8_t *p) { return rd_le(p, 8); }
static inline void wr_le(uint8_t *p, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* True if [off, off+len) lies within [0, size), without overflow. */
static inline bool in_bounds(uint64_t off, uint64_t len, uint64_t size) {
    return off <= size && len <= size - off;
}

/* Bounds-checked cursor: any read past the end sets bad and returns 0, so
 * parsers can read a whole record and check once. */
typedef struct cur {
    const uint8_t *p;
    size_t n, off;
    bool bad;
} cur_t;

static inline cur_t cur_make(const uint8_t *p, size_t n, size_t off) {
    cur_t c = {p, n, off, off > n};
    return c;
}
static inline bool cur_has(const cur_t *c, uint64_t len) { return !c->bad && len <= c->n - c->off; }
static inline uint64_t cur_u(cur_t *c, unsigned len) {
    if (!cur_has(c, len)) {
        c->bad = true;
        return 0;
    }
    uint64_t v = rd_le(c->p + c->off, len);
    c->off += len;
    return v;
}
static inline void cur_skip(cur_t *c, uint64_t len) {
    if (!cur_has(c, len)) {
        c->bad = true;
        return;
    }
    c->off += (size_t)len;
}
static inline uint64_t cur_uleb(cur_t *c) {
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
static inline void cur_sleb_skip(cur_t *c) { (void)cur_uleb(c); }
/* Skips a NUL-terminated string. */
static inline void cur_str(cur_t *c) {
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

static inline bool buf_reserve(buf_t *b, size_t extra) {
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
static inline void buf_put(buf_t *b, const void *src, size_t len) {
    if (len == 0 || !buf_reserve(b, len)) return;
    memcpy(b->p + b->n, src, len);
    b->n += len;
}
static inline void buf_zero(buf_t *b, size_t len) {
    if (len == 0 || !buf_reserve(b, len)) return;
    memset(b->p + b->n, 0, len);
    b->n += len;
}
static inline void buf_align(buf_t *b, uint64_t align) {
    if (align > 1 && align <= 4096 && b->n % align) buf_zero(b, (size_t)(align - b->n % align));
}
static inline void buf_le(buf_t *b, uint64_t v, unsigned n) {
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

static inline void elf_free(elf_t *e) {
    free(e->sec);
    e->sec = NULL;
}
int elf_parse(elf_t *e, const uint8_t *buf, size_t size, const char *what, errctx_t *err);
int elf_find(const elf_t *e, const char *name);
int elf_symtab(const elf_t *e, const char *what, errctx_t *err, int *idx);
const char *elf_symname(const elf_t *e, int symtab, uint64_t i);

#endif
