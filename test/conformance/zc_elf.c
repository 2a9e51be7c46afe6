/*
 * zc_elf.c — minimal, bounds-checked ELF64 and DWARF 4 line-table readers,
 * so that the suite checks the driver's binaries with its own decoding.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "zc.h"

static bool rd(const zc_elf_t *e, uint64_t off, void *dst, size_t n) {
    if (off > e->size || n > e->size - off) return false;
    memcpy(dst, e->data + off, n);
    return true;
}

bool zc_elf_open(zc_elf_t *e, const uint8_t *data, size_t size) {
    memset(e, 0, sizeof *e);
    e->data = data;
    e->size = size;
    Elf64_Ehdr h;
    if (!rd(e, 0, &h, sizeof h) || memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64)
        return false;
    e->type = h.e_type;
    e->machine = h.e_machine;
    e->nphdr = h.e_phnum;
    e->phoff = h.e_phoff;
    if (h.e_shnum == 0 || h.e_shnum > 4096 || h.e_shentsize != sizeof(Elf64_Shdr) || h.e_shstrndx >= h.e_shnum)
        return false;
    Elf64_Shdr *sh = calloc(h.e_shnum, sizeof *sh);
    e->sec = calloc(h.e_shnum, sizeof *e->sec);
    if (!sh || !e->sec) { free(sh); free(e->sec); e->sec = NULL; return false; }
    for (uint32_t i = 0; i < h.e_shnum; i++)
        if (!rd(e, h.e_shoff + (uint64_t)i * sizeof(Elf64_Shdr), &sh[i], sizeof sh[i])) { free(sh); zc_elf_close(e); return false; }
    const Elf64_Shdr *strs = &sh[h.e_shstrndx];
    for (uint32_t i = 0; i < h.e_shnum; i++) {
        zc_section_t *s = &e->sec[i];
        s->type = sh[i].sh_type;
        s->addr = sh[i].sh_addr;
        s->offset = sh[i].sh_offset;
        s->size = sh[i].sh_size;
        if (sh[i].sh_name < strs->sh_size) {
            uint64_t off = strs->sh_offset + sh[i].sh_name;
            for (size_t j = 0; j + 1 < sizeof s->name && off + j < e->size; j++) {
                s->name[j] = (char)e->data[off + j];
                if (s->name[j] == 0) break;
            }
        }
        if (s->type != SHT_NOBITS && (s->offset > size || s->size > size - s->offset)) { free(sh); zc_elf_close(e); return false; }
    }
    e->nsec = h.e_shnum;
    free(sh);
    return true;
}

void zc_elf_close(zc_elf_t *e) {
    free(e->sec);
    e->sec = NULL;
    e->nsec = 0;
}

const zc_section_t *zc_elf_section(const zc_elf_t *e, const char *name) {
    for (uint32_t i = 0; i < e->nsec; i++)
        if (strcmp(e->sec[i].name, name) == 0) return &e->sec[i];
    return NULL;
}

uint64_t zc_elf_func_size(const zc_elf_t *e, const char *name) {
    for (uint32_t i = 0; i < e->nsec; i++) {
        if (e->sec[i].type != SHT_SYMTAB) continue;
        /* the string table of .symtab is .strtab in every zebin */
        const zc_section_t *str = zc_elf_section(e, ".strtab");
        if (!str) return 0;
        for (uint64_t o = 0; o + sizeof(Elf64_Sym) <= e->sec[i].size; o += sizeof(Elf64_Sym)) {
            Elf64_Sym s;
            if (!rd(e, e->sec[i].offset + o, &s, sizeof s)) return 0;
            if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_name >= str->size) continue;
            const char *n = (const char *)e->data + str->offset + s.st_name;
            size_t maxl = str->size - s.st_name;
            if (strnlen(n, maxl) == strlen(name) && strncmp(n, name, maxl) == 0) return s.st_size;
        }
    }
    return 0;
}

bool zc_elf_has_load(const zc_elf_t *e, uint64_t addr, uint64_t *memsz) {
    for (uint32_t i = 0; i < e->nphdr; i++) {
        Elf64_Phdr p;
        if (!rd(e, e->phoff + (uint64_t)i * sizeof p, &p, sizeof p)) return false;
        if (p.p_type == PT_LOAD && p.p_vaddr == addr) {
            if (memsz) *memsz = p.p_memsz;
            return true;
        }
    }
    return false;
}

uint32_t zc_zebin_kernels(const zc_elf_t *e, char ***names) {
    char **out = calloc(e->nsec ? e->nsec : 1, sizeof *out);
    uint32_t n = 0;
    for (uint32_t i = 0; out && i < e->nsec; i++) {
        const char *s = e->sec[i].name;
        if (strncmp(s, ".text.", 6) != 0 || s[6] == 0) continue;
        /* IGC's table of exported functions is not a kernel */
        if (strcmp(s + 6, "Intel_Symbol_Table_Void_Program") == 0) continue;
        out[n++] = strdup(s + 6);
    }
    *names = out;
    return n;
}

uint32_t zc_inst_offsets(const uint8_t *isa, size_t code_size, uint32_t **offs) {
    uint32_t *o = malloc((code_size / 8 + 1) * sizeof *o);
    uint32_t n = 0;
    size_t pc = 0;
    while (o && pc + 8 <= code_size) {
        uint32_t dw;
        memcpy(&dw, isa + pc, 4);
        o[n++] = (uint32_t)pc;
        pc += (dw & (1u << 29)) ? 8 : 16;
    }
    *offs = o;
    return n;
}

bool zc_is_inst_boundary(const uint32_t *offs, uint32_t n, uint32_t off) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (offs[mid] == off) return true;
        if (offs[mid] < off) lo = mid + 1; else hi = mid;
    }
    return false;
}

/* ---- DWARF 4 line program ---------------------------------------- */
enum { DW_LNS_copy = 1, DW_LNS_advance_pc = 2, DW_LNS_advance_line = 3, DW_LNS_const_add_pc = 8,
       DW_LNS_fixed_advance_pc = 9, DW_LNE_end_sequence = 1, DW_LNE_set_address = 2 };
typedef struct cur { const uint8_t *p, *end; bool bad; } cur_t;
static uint64_t u(cur_t *c, unsigned n) {
    if ((size_t)(c->end - c->p) < n) { c->bad = true; c->p = c->end; return 0; }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}
static uint64_t uleb(cur_t *c) {
    uint64_t v = 0;
    unsigned sh = 0;
    while (c->p < c->end) {
        uint8_t b = *c->p++;
        if (sh < 64) v |= (uint64_t)(b & 0x7f) << sh;
        sh += 7;
        if (!(b & 0x80)) return v;
    }
    c->bad = true;
    return v;
}
static int64_t sleb(cur_t *c) {
    int64_t v = 0;
    unsigned sh = 0;
    uint8_t b = 0;
    while (c->p < c->end) {
        b = *c->p++;
        if (sh < 64) v |= (int64_t)((uint64_t)(b & 0x7f) << sh);
        sh += 7;
        if (!(b & 0x80)) break;
    }
    if (sh < 64 && (b & 0x40)) v |= -((int64_t)1 << sh);
    return v;
}
static bool push(zc_line_row_t **rows, size_t *n, size_t *cap, uint64_t addr, bool end) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        zc_line_row_t *r = realloc(*rows, nc * sizeof *r);
        if (!r) return false;
        *rows = r;
        *cap = nc;
    }
    (*rows)[(*n)++] = (zc_line_row_t){addr, end};
    return true;
}

int zc_dwarf_line_rows(const uint8_t *data, size_t size, zc_line_row_t **rows_out, size_t *nrows, char *err, size_t errcap) {
    zc_line_row_t *rows = NULL;
    size_t n = 0, cap = 0;
    cur_t c = {data, data + size, false};
    while (c.p < c.end) {
        uint64_t len = u(&c, 4);
        unsigned offsz = 4;
        if (len == 0xffffffffu) { len = u(&c, 8); offsz = 8; }
        if (c.bad || len > (size_t)(c.end - c.p)) { snprintf(err, errcap, "unit length out of bounds"); goto fail; }
        cur_t unit = {c.p, c.p + len, false};
        c.p += len;
        unsigned ver = (unsigned)u(&unit, 2);
        if (ver < 2 || ver > 4) { snprintf(err, errcap, "line table version %u, want 2..4", ver); goto fail; }
        uint64_t hlen = u(&unit, offsz);
        if (hlen > (size_t)(unit.end - unit.p)) { snprintf(err, errcap, "header length out of bounds"); goto fail; }
        const uint8_t *prog = unit.p + hlen;
        unsigned min_inst = (unsigned)u(&unit, 1);
        if (ver >= 4) u(&unit, 1); /* maximum_operations_per_instruction */
        u(&unit, 1);               /* default_is_stmt */
        int line_base = (int8_t)u(&unit, 1);
        unsigned line_range = (unsigned)u(&unit, 1);
        unsigned opcode_base = (unsigned)u(&unit, 1);
        uint8_t std_len[256] = {0};
        for (unsigned i = 1; i < opcode_base; i++) std_len[i] = (uint8_t)u(&unit, 1);
        (void)line_base;
        if (unit.bad || line_range == 0 || opcode_base == 0) { snprintf(err, errcap, "bad line table header"); goto fail; }
        /* include_directories and file_names are skipped by the header length */
        cur_t pc = {prog, unit.end, false};
        uint64_t addr = 0;
        while (pc.p < pc.end && !pc.bad) {
            unsigned op = (unsigned)u(&pc, 1);
            if (op >= opcode_base) {
                addr += (uint64_t)((op - opcode_base) / line_range) * min_inst;
                if (!push(&rows, &n, &cap, addr, false)) goto oom;
            } else if (op == 0) {
                uint64_t el = uleb(&pc);
                if (el == 0 || el > (size_t)(pc.end - pc.p)) { snprintf(err, errcap, "bad extended opcode length"); goto fail; }
                const uint8_t *next = pc.p + el;
                unsigned sub = (unsigned)u(&pc, 1);
                if (sub == DW_LNE_end_sequence) {
                    if (!push(&rows, &n, &cap, addr, true)) goto oom;
                    addr = 0;
                } else if (sub == DW_LNE_set_address) {
                    addr = u(&pc, (unsigned)(el - 1 >= 8 ? 8 : el - 1));
                }
                pc.p = next;
            } else {
                switch (op) {
                case DW_LNS_copy: if (!push(&rows, &n, &cap, addr, false)) goto oom; break;
                case DW_LNS_advance_pc: addr += uleb(&pc) * min_inst; break;
                case DW_LNS_advance_line: sleb(&pc); break;
                case DW_LNS_const_add_pc: addr += (uint64_t)((255 - opcode_base) / line_range) * min_inst; break;
                case DW_LNS_fixed_advance_pc: addr += u(&pc, 2); break;
                default:
                    for (unsigned i = 0; i < std_len[op]; i++) uleb(&pc);
                }
            }
        }
        if (pc.bad) { snprintf(err, errcap, "line program runs past its unit"); goto fail; }
    }
    *rows_out = rows;
    *nrows = n;
    return 0;
oom:
    snprintf(err, errcap, "out of memory");
fail:
    free(rows);
    *rows_out = NULL;
    *nrows = 0;
    return -1;
}
