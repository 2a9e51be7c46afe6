/*
 * debugzebin_elf.c — a read-only, bounds-checked view of an ELF64
 * little-endian file (sections, names, symbols) for the debug-zebin code
 * (debugzebin_merge.c, debugzebin_build.c). Every offset and size read
 * from the file is checked against the buffer before use; errors say
 * where they were found.
 */
#include "debugzebin_elf.h"

/* what names the input in messages ("zebin", ".dbg kernel 'x'"). */
int elf_parse(elf_t *e, const uint8_t *buf, size_t size, const char *what, errctx_t *err) {
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

int elf_find(const elf_t *e, const char *name) {
    for (int i = 0; i < e->shnum; i++)
        if (strcmp(e->sec[i].nm, name) == 0) return i;
    return -1;
}

/* The single SHT_SYMTAB section, validated (entsize, size, string table). */
int elf_symtab(const elf_t *e, const char *what, errctx_t *err, int *idx) {
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
const char *elf_symname(const elf_t *e, int symtab, uint64_t i) {
    const elf_sec_t *s = &e->sec[symtab];
    const elf_sec_t *st = &e->sec[s->link];
    uint32_t n = rd32(s->data + i * SYM_SIZE);
    if (n >= st->size || memchr(st->data + n, 0, st->size - n) == NULL) return NULL;
    return (const char *)st->data + n;
}
