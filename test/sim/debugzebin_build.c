/*
 * debugzebin_build.c — sim_debug_zebin_build: what Intel's driver returns
 * from zetModuleGetDebugInfo (compute-runtime
 * shared/source/device_binary_format/zebin/debug_zebin.cpp,
 * DebugZebinCreator): ET_EXEC, every section copied (8-byte aligned),
 * .text.<kernel> at the kernel's GPU address with a PT_LOAD header, symbol
 * values relocated, R_ZE_SYM_ADDR/_32/_32_HI applied in place.
 *
 * A pure function (no globals, no locks: safe from any thread); the zebin
 * is untrusted: every read is bounds-checked, errors say where.
 * Spec: docs/eu-stall-sampling.md §9 "Kernel code and debug info from the driver".
 */
#include "debugzebin_elf.h"

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
