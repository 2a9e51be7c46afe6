/*
 * debugzebin_merge.c — sim_zebin_merge_debug: Debian's IGC 1.0.12504
 * writes DWARF into a zebin only for single-kernel modules; for modules
 * with several kernels it writes none (newer IGC links the per-kernel debug
 * ELFs with lld --relocatable). Its legacy output (.dbg, "CTNI" container)
 * has one debug ELF per kernel. This merges those ELFs into the zebin the
 * way newer IGC would: one set of .debug_* sections, one compile unit and
 * one line program per kernel, with every cross-section offset fixed up and
 * every code address turned into an R_ZE_SYM_ADDR relocation against the
 * kernel's FUNC symbol (addend = kernel-relative address, stored bytes
 * zero).
 *
 * A pure function (no globals, no locks: safe from any thread). Every input
 * is untrusted: all reads go through bounds-checked cursors and any
 * inconsistency returns -1 with a message that says where it was found.
 * Spec: docs/eu-stall-sampling.md §9 "Kernel code and debug info from the driver".
 */
#include "debugzebin_elf.h"

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
