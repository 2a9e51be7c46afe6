/*
 * Unit tests of test/sim/debugzebin_*.c on the checked-in kernels
 * (test/kernels): merging IGC's .dbg into a zebin, building the debug zebin
 * zetModuleGetDebugInfo returns, and robustness against malformed input.
 *
 *   unit_debugzebin <test/kernels directory>
 *
 * The DWARF line programs are decoded here, independently of
 * debugzebin_*.c, so the address checks do not trust the code under test.
 * The last line of output is "N passed, N failed".
 */
#include "sim.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct blob {
    uint8_t *p;
    size_t n;
} blob_t;

static blob_t load(const char *dir, const char *name, const char *ext) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s%s", dir, name, ext);
    blob_t b = {0};
    FILE *f = fopen(path, "rb");
    if (f == NULL) return b;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0) {
            b.p = malloc((size_t)n);
            if (b.p != NULL && fread(b.p, 1, (size_t)n, f) == (size_t)n) b.n = (size_t)n;
        }
    }
    fclose(f);
    if (b.n == 0) {
        free(b.p);
        b.p = NULL;
    }
    return b;
}

/* ---- minimal ELF reading (inputs here are trusted: the checked-in files
 * and outputs already validated by the checks that precede each use) ---- */
static uint64_t rd(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

typedef struct sec {
    const char *name;
    uint32_t type, link, info;
    uint64_t addr, off, size;
} sec_t;

static bool elf_ok(const uint8_t *e, size_t n) {
    if (n < 64 || memcmp(e, "\x7f" "ELF", 4) != 0) return false;
    uint64_t shoff = rd(e + 40, 8), shnum = rd(e + 60, 2), shstr = rd(e + 62, 2);
    if (shoff > n || shnum * 64 > n - shoff || shstr >= shnum) return false;
    for (unsigned i = 0; i < shnum; i++) {
        const uint8_t *h = e + shoff + 64 * i;
        if (rd(h + 4, 4) != 8 && (rd(h + 24, 8) > n || rd(h + 32, 8) > n - rd(h + 24, 8))) return false;
    }
    return true;
}
static unsigned shnum(const uint8_t *e) { return (unsigned)rd(e + 60, 2); }
static sec_t sec(const uint8_t *e, unsigned i) {
    const uint8_t *h = e + rd(e + 40, 8) + 64 * i;
    const uint8_t *sh = e + rd(e + 40, 8) + 64 * rd(e + 62, 2);
    sec_t s = {(const char *)e + rd(sh + 24, 8) + rd(h, 4), (uint32_t)rd(h + 4, 4), (uint32_t)rd(h + 40, 4),
               (uint32_t)rd(h + 44, 4), rd(h + 16, 8), rd(h + 24, 8), rd(h + 32, 8)};
    return s;
}
static int find(const uint8_t *e, const char *name) {
    for (unsigned i = 0; i < shnum(e); i++)
        if (strcmp(sec(e, i).name, name) == 0) return (int)i;
    return -1;
}
/* FUNC symbol <name>: value and size. */
static bool func_sym(const uint8_t *e, const char *name, uint64_t *value, uint64_t *size) {
    for (unsigned i = 0; i < shnum(e); i++) {
        sec_t s = sec(e, i);
        if (s.type != 2) continue;
        sec_t str = sec(e, s.link);
        for (uint64_t j = 0; j < s.size / 24; j++) {
            const uint8_t *y = e + s.off + 24 * j;
            if ((y[4] & 0xf) == 2 && strcmp((const char *)e + str.off + rd(y, 4), name) == 0) {
                *value = rd(y + 8, 8);
                *size = rd(y + 16, 8);
                return true;
            }
        }
    }
    return false;
}

/* ---- DWARF line program decoding (independent of debugzebin_*.c) ---- */
typedef struct row {
    uint64_t addr;
    int64_t line;
    bool end;
} row_t;

typedef struct rows {
    row_t *v;
    size_t n, cap;
} rows_t;

static void push(rows_t *r, uint64_t addr, int64_t line, bool end) {
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * sizeof(*r->v));
        if (r->v == NULL) abort();
    }
    r->v[r->n++] = (row_t){addr, line, end};
}

static uint64_t uleb(const uint8_t **p, const uint8_t *end) {
    uint64_t v = 0;
    unsigned s = 0;
    while (*p < end) {
        uint8_t b = *(*p)++;
        if (s < 64) v |= (uint64_t)(b & 0x7f) << s;
        s += 7;
        if (!(b & 0x80)) break;
    }
    return v;
}
static int64_t sleb(const uint8_t **p, const uint8_t *end) {
    int64_t v = 0;
    unsigned s = 0;
    uint8_t b = 0;
    while (*p < end) {
        b = *(*p)++;
        if (s < 64) v |= (int64_t)((uint64_t)(b & 0x7f) << s);
        s += 7;
        if (!(b & 0x80)) break;
    }
    if (s < 64 && (b & 0x40)) v |= (int64_t)(~0ull << s);
    return v;
}

/* Decodes every line program of a .debug_line; rows of unit u go to
 * out[u] (at most maxu units). Returns the number of units, -1 if bad. */
static int decode_lines(const uint8_t *d, size_t n, rows_t *out, int maxu) {
    size_t off = 0;
    int u = 0;
    while (off < n) {
        if (u == maxu || n - off < 4) return -1;
        uint64_t len = rd(d + off, 4);
        if (len > n - off - 4) return -1;
        const uint8_t *p = d + off + 4, *end = p + len;
        unsigned ver = (unsigned)rd(p, 2);
        uint64_t hlen = rd(p + 2, 4);
        const uint8_t *q = p + 6, *prog = q + hlen;
        if (prog > end) return -1;
        unsigned min_inst = q[0];
        q += ver >= 4 ? 2 : 1;
        bool def_stmt = q[0] != 0;
        (void)def_stmt;
        int line_base = (int8_t)q[1];
        unsigned line_range = q[2], opbase = q[3];
        const uint8_t *lens = q + 4;
        uint64_t addr = 0;
        int64_t line = 1;
        p = prog;
        while (p < end) {
            unsigned op = *p++;
            if (op >= opbase) {
                unsigned adj = op - opbase;
                addr += (adj / line_range) * min_inst;
                line += line_base + (int)(adj % line_range);
                push(&out[u], addr, line, false);
            } else if (op == 0) {
                uint64_t l = uleb(&p, end);
                if (l == 0 || l > (uint64_t)(end - p)) return -1;
                unsigned sub = p[0];
                if (sub == 1) {
                    push(&out[u], addr, line, true);
                    addr = 0;
                    line = 1;
                } else if (sub == 2) {
                    addr = rd(p + 1, (unsigned)(l - 1));
                }
                p += l;
            } else if (op == 1) {
                push(&out[u], addr, line, false);
            } else if (op == 2) {
                addr += uleb(&p, end) * min_inst;
            } else if (op == 3) {
                line += sleb(&p, end);
            } else if (op == 8) {
                addr += ((255 - opbase) / line_range) * min_inst;
            } else if (op == 9) {
                addr += rd(p, 2);
                p += 2;
            } else {
                for (unsigned i = 0; i < lens[op - 1]; i++) (void)uleb(&p, end);
            }
        }
        off += 4 + len;
        u++;
    }
    return u;
}

/* ---- .dbg container (trusted: checked-in file) ---- */
typedef struct dbgk {
    char name[256];
    const uint8_t *elf;
    size_t size;
} dbgk_t;

static int dbg_kernels(const blob_t *b, dbgk_t *k, int max) {
    uint32_t n = (uint32_t)rd(b->p + 24, 4);
    size_t off = 28;
    for (uint32_t i = 0; i < n && (int)i < max; i++) {
        uint32_t ns = (uint32_t)rd(b->p + off, 4), vs = (uint32_t)rd(b->p + off + 4, 4),
                 gs = (uint32_t)rd(b->p + off + 8, 4);
        off += 12;
        snprintf(k[i].name, sizeof(k[i].name), "%.*s", (int)ns, (const char *)b->p + off);
        off += ns;
        k[i].elf = b->p + off;
        k[i].size = vs;
        off += (size_t)vs + gs;
    }
    return (int)n;
}

/* Legacy kernel ELF's line rows with its own .rela.debug_line applied. */
static int legacy_rows(const dbgk_t *k, rows_t *out) {
    int li = find(k->elf, ".debug_line");
    if (li < 0) return -1;
    sec_t l = sec(k->elf, (unsigned)li);
    uint8_t *copy = malloc(l.size);
    if (copy == NULL) return -1;
    memcpy(copy, k->elf + l.off, l.size);
    for (unsigned i = 0; i < shnum(k->elf); i++) {
        sec_t r = sec(k->elf, i);
        if (r.type != 4 || r.info != (unsigned)li) continue;
        sec_t sy = sec(k->elf, r.link);
        for (uint64_t j = 0; j < r.size / 24; j++) {
            const uint8_t *e = k->elf + r.off + 24 * j;
            uint64_t o = rd(e, 8), sym = rd(e + 8, 8) >> 32;
            uint64_t v = rd(k->elf + sy.off + 24 * sym + 8, 8) + rd(e + 16, 8);
            for (unsigned b = 0; b < 8 && o + b < l.size; b++) copy[o + b] = (uint8_t)(v >> (8 * b));
        }
    }
    int n = decode_lines(copy, l.size, out, 1);
    free(copy);
    return n;
}

static const char *const kernel_files[] = {"stream", "compute", "branchy", "slm", "mixed"};
#define NFILES (sizeof(kernel_files) / sizeof(kernel_files[0]))

#define MAXK 8

/* Kernel names of a zebin, in section order. */
static int zebin_kernels(const uint8_t *z, const char **names) {
    int n = 0;
    for (unsigned i = 0; i < shnum(z) && n < MAXK; i++)
        if (strncmp(sec(z, i).name, ".text.", 6) == 0) names[n++] = sec(z, i).name + 6;
    return n;
}

static void test_file(const char *dir, const char *x) {
    blob_t raw = load(dir, x, ".raw.zebin"), dbg = load(dir, x, ".dbg"), want = load(dir, x, ".zebin");
    check(raw.p && dbg.p && want.p, "%s: checked-in files %s/%s.{raw.zebin,dbg,zebin} readable", x, dir, x);
    if (!raw.p || !dbg.p || !want.p) goto out;

    /* 1. The merge reproduces the checked-in zebin byte for byte. */
    uint8_t *m = NULL;
    size_t mn = 0;
    char err[512] = "";
    int rc = sim_zebin_merge_debug(raw.p, raw.n, dbg.p, dbg.n, &m, &mn, err, sizeof(err));
    check(rc == 0, "%s: merge returns 0 (%s)", x, err);
    check(rc == 0 && mn == want.n && memcmp(m, want.p, mn) == 0, "%s: merge result equals %s.zebin", x, x);
    free(m);

    /* 2. Debug zebin at chosen VAs: 0x8000_0001_0000 + i * 0x1_0000_0040
     * exercises addresses beyond 4 GiB with every kernel in its own window. */
    const char *names[MAXK];
    uint64_t va[MAXK];
    int nk = zebin_kernels(want.p, names);
    check(nk > 0, "%s: has kernels", x);
    for (int i = 0; i < nk; i++) va[i] = 0x800000010000ull + (uint64_t)i * 0x100000040ull;
    uint8_t *d = NULL;
    size_t dn = 0;
    rc = sim_debug_zebin_build(want.p, want.n, (uint32_t)nk, names, va, &d, &dn, err, sizeof(err));
    check(rc == 0 && d != NULL, "%s: debug zebin builds (%s)", x, err);
    if (rc != 0 || !elf_ok(d, dn)) {
        check(false, "%s: debug zebin is a well-formed ELF", x);
        free(d);
        goto out;
    }
    check(rd(d + 16, 2) == 2, "%s: e_type ET_EXEC (got %llu)", x, (unsigned long long)rd(d + 16, 2));
    check(rd(d + 18, 2) == rd(want.p + 18, 2), "%s: e_machine copied", x);
    check(shnum(d) == shnum(want.p), "%s: every section copied", x);
    uint64_t phoff = rd(d + 32, 8), phnum = rd(d + 56, 2);
    check(phnum == (uint64_t)nk, "%s: one PT_LOAD per kernel (%llu)", x, (unsigned long long)phnum);
    uint64_t code_size[MAXK];
    for (int i = 0; i < nk; i++) {
        char sn[300];
        snprintf(sn, sizeof(sn), ".text.%s", names[i]);
        int si = find(d, sn), wi = find(want.p, sn);
        sec_t s = sec(d, (unsigned)(si < 0 ? 0 : si)), w = sec(want.p, (unsigned)(wi < 0 ? 0 : wi));
        check(si >= 0 && s.addr == va[i], "%s: %s sh_addr 0x%llx", x, sn, (unsigned long long)s.addr);
        check(si >= 0 && wi >= 0 && s.size == w.size && memcmp(d + s.off, want.p + w.off, s.size) == 0,
              "%s: %s code copied", x, sn);
        bool load = false;
        for (uint64_t p = 0; p < phnum && phoff + 56 * (p + 1) <= dn; p++) {
            const uint8_t *ph = d + phoff + 56 * p;
            if (rd(ph, 4) == 1 && rd(ph + 16, 8) == va[i] && rd(ph + 8, 8) == s.off && rd(ph + 32, 8) == s.size &&
                rd(ph + 40, 8) == s.size)
                load = true;
        }
        check(load, "%s: PT_LOAD for %s at 0x%llx", x, sn, (unsigned long long)va[i]);
        uint64_t sv = 0, ss = 0;
        check(func_sym(d, names[i], &sv, &ss) && sv == va[i] && ss > 0 && ss <= s.size,
              "%s: symbol %s relocated to its VA", x, names[i]);
        code_size[i] = ss;
    }

    /* 3. Every line address lies in its kernel's [VA, VA + code size) and
     * equals VA + the legacy ELF's address, row for row. */
    int li = find(d, ".debug_line");
    check(li >= 0, "%s: debug zebin has .debug_line", x);
    if (li >= 0) {
        sec_t l = sec(d, (unsigned)li);
        rows_t units[MAXK] = {{0}};
        int nu = decode_lines(d + l.off, l.size, units, MAXK);
        check(nu == nk, "%s: one line program per kernel (%d units, %d kernels)", x, nu, nk);
        dbgk_t dk[MAXK];
        int nd = dbg_kernels(&dbg, dk, MAXK);
        check(nd == nk, "%s: .dbg has one entry per kernel", x);
        for (int u = 0; u < nu && u < MAXK; u++) {
            int k = -1;
            for (int i = 0; i < nk && units[u].n > 0; i++)
                if (units[u].v[0].addr >= va[i] && units[u].v[0].addr < va[i] + code_size[i]) k = i;
            check(k >= 0, "%s: line program %d starts inside a kernel", x, u);
            if (k < 0) continue;
            size_t bad = 0;
            for (size_t r = 0; r < units[u].n; r++) {
                uint64_t a = units[u].v[r].addr;
                bool in = units[u].v[r].end ? (a > va[k] && a <= va[k] + code_size[k])
                                            : (a >= va[k] && a < va[k] + code_size[k]);
                if (!in) bad++;
            }
            check(bad == 0, "%s: %zu of %zu line rows of %s outside [0x%llx, 0x%llx)", x, bad, units[u].n, names[k],
                  (unsigned long long)va[k], (unsigned long long)(va[k] + code_size[k]));
            for (int j = 0; j < nd && j < MAXK; j++) {
                if (strcmp(dk[j].name, names[k]) != 0) continue;
                rows_t lg[1] = {{0}};
                int ln = legacy_rows(&dk[j], lg);
                bool same = ln == 1 && lg[0].n == units[u].n;
                for (size_t r = 0; same && r < lg[0].n; r++)
                    same = units[u].v[r].addr == va[k] + lg[0].v[r].addr && units[u].v[r].line == lg[0].v[r].line &&
                           units[u].v[r].end == lg[0].v[r].end;
                check(same, "%s: %s line rows = VA + legacy rows", x, names[k]);
                free(lg[0].v);
            }
        }
        for (int u = 0; u < MAXK; u++) free(units[u].v);
    }
    free(d);

    /* 4. Truncation at every 37th byte: -1 with a message, never a crash. */
    size_t bad_z = 0, bad_d = 0, bad_b = 0, tries = 0;
    for (size_t cut = 0; cut < raw.n; cut += 37) {
        err[0] = 0;
        m = NULL;
        if (sim_zebin_merge_debug(raw.p, cut, dbg.p, dbg.n, &m, &mn, err, sizeof(err)) != -1 || err[0] == 0 || m)
            bad_z++;
        free(m);
        tries++;
    }
    for (size_t cut = 0; cut < dbg.n; cut += 37) {
        err[0] = 0;
        m = NULL;
        if (sim_zebin_merge_debug(raw.p, raw.n, dbg.p, cut, &m, &mn, err, sizeof(err)) != -1 || err[0] == 0 || m)
            bad_d++;
        free(m);
        tries++;
    }
    for (size_t cut = 0; cut < want.n; cut += 37) {
        err[0] = 0;
        d = NULL;
        if (sim_debug_zebin_build(want.p, cut, (uint32_t)nk, names, va, &d, &dn, err, sizeof(err)) != -1 ||
            err[0] == 0 || d)
            bad_b++;
        free(d);
        tries++;
    }
    check(bad_z == 0, "%s: %zu truncated zebins not rejected", x, bad_z);
    check(bad_d == 0, "%s: %zu truncated .dbg not rejected", x, bad_d);
    check(bad_b == 0, "%s: %zu truncated zebins not rejected by the debug zebin builder", x, bad_b);

    /* 5. Random byte flips (fixed seed): 0 or -1, a message on -1, and no
     * crash (run under ASan/UBSan to make that meaningful). */
    uint64_t seed = 0x5eed0000u + (uint64_t)strlen(x);
    size_t rejected = 0, inconsistent = 0, runs = 0;
    /* Mode 3 flips only bytes of the kernels' DWARF sections inside the
     * .dbg, which is where the merge's DWARF walkers are exercised. */
    size_t dw_lo[MAXK * 8], dw_hi[MAXK * 8], ndw = 0;
    {
        dbgk_t dk[MAXK];
        int nd = dbg_kernels(&dbg, dk, MAXK);
        for (int j = 0; j < nd && j < MAXK; j++)
            for (unsigned i = 0; i < shnum(dk[j].elf) && ndw < MAXK * 8; i++) {
                sec_t s = sec(dk[j].elf, i);
                if (strncmp(s.name, ".debug_", 7) != 0 || s.size == 0) continue;
                dw_lo[ndw] = (size_t)(dk[j].elf - dbg.p) + s.off;
                dw_hi[ndw++] = (size_t)(dk[j].elf - dbg.p) + s.off + s.size;
            }
    }
    const char *env = getenv("ZESIM_FUZZ_ITERS");
    int iters = env ? atoi(env) : 800;
    for (int iter = 0; iter < iters; iter++) {
        int which = iter % 4;
        blob_t *src = which == 0 ? &raw : which == 2 ? &want : &dbg;
        uint8_t *c = malloc(src->n);
        if (c == NULL) abort();
        memcpy(c, src->p, src->n);
        int flips = 1 + (int)((seed = sim_mix64(seed)) % 4);
        for (int f = 0; f < flips; f++) {
            seed = sim_mix64(seed);
            size_t at = seed % src->n;
            if (which == 3 && ndw > 0) {
                size_t r = (seed >> 40) % ndw;
                at = dw_lo[r] + (seed >> 8) % (dw_hi[r] - dw_lo[r]);
            }
            c[at] ^= (uint8_t)(1u << ((seed >> 32) % 8));
        }
        if (which == 3) which = 1;
        err[0] = 0;
        uint8_t *o = NULL;
        size_t on = 0;
        if (which == 0) rc = sim_zebin_merge_debug(c, src->n, dbg.p, dbg.n, &o, &on, err, sizeof(err));
        else if (which == 1) rc = sim_zebin_merge_debug(raw.p, raw.n, c, src->n, &o, &on, err, sizeof(err));
        else rc = sim_debug_zebin_build(c, src->n, (uint32_t)nk, names, va, &o, &on, err, sizeof(err));
        if (rc == -1) rejected++;
        if (!((rc == 0 && o != NULL && on > 0) || (rc == -1 && o == NULL && err[0] != 0))) inconsistent++;
        /* A merge that succeeded must itself be a valid debug zebin input. */
        if (rc == 0 && which < 2) {
            uint8_t *o2 = NULL;
            size_t on2 = 0;
            (void)sim_debug_zebin_build(o, on, (uint32_t)nk, names, va, &o2, &on2, err, sizeof(err));
            free(o2);
        }
        free(o);
        free(c);
        runs++;
    }
    check(inconsistent == 0, "%s: %zu of %zu byte-flip runs returned an inconsistent result", x, inconsistent, runs);
    printf("%s: %zu truncations rejected; %zu of %zu byte-flipped inputs rejected, the rest accepted\n", x, tries,
           rejected, runs);
out:
    free(raw.p);
    free(dbg.p);
    free(want.p);
}

/* Wrong pairings and tampered code are refused with a clear message. */
static void test_mismatch(const char *dir) {
    blob_t sraw = load(dir, "stream", ".raw.zebin"), sdbg = load(dir, "stream", ".dbg");
    blob_t mdbg = load(dir, "mixed", ".dbg");
    if (!sraw.p || !sdbg.p || !mdbg.p) {
        check(false, "mismatch: inputs readable");
        goto out;
    }
    char err[512] = "";
    uint8_t *o = NULL;
    size_t on = 0;
    int rc = sim_zebin_merge_debug(sraw.p, sraw.n, mdbg.p, mdbg.n, &o, &on, err, sizeof(err));
    check(rc == -1 && strstr(err, "no section .text.mixed_saxpy_loop") != NULL, "mismatch: foreign .dbg refused (%s)",
          err);
    free(o);
    /* Flip one code byte of the first kernel. */
    int t = find(sraw.p, ".text.stream_triad");
    check(t >= 0, "mismatch: stream has .text.stream_triad");
    if (t >= 0) {
        sraw.p[sec(sraw.p, (unsigned)t).off + 0x20] ^= 0x40;
        o = NULL;
        rc = sim_zebin_merge_debug(sraw.p, sraw.n, sdbg.p, sdbg.n, &o, &on, err, sizeof(err));
        check(rc == -1 && strstr(err, "not a prefix") != NULL, "mismatch: changed code refused (%s)", err);
        free(o);
    }
    /* A zebin without debug sections still gives the relocated ELF. */
    sraw.p[sec(sraw.p, (unsigned)(t < 0 ? 0 : t)).off + 0x20] ^= 0x40;
    const char *names[2] = {"stream_triad", "stream_copy"};
    uint64_t va[2] = {0x12340000, 0xffffffff00001000ull};
    o = NULL;
    rc = sim_debug_zebin_build(sraw.p, sraw.n, 2, names, va, &o, &on, err, sizeof(err));
    check(rc == 0 && elf_ok(o, on) && find(o, ".debug_line") < 0 && rd(o + 16, 2) == 2 && rd(o + 56, 2) == 2,
          "no-DWARF zebin: relocated ELF with code and no DWARF (%s)", err);
    free(o);
    /* NULL arguments. */
    rc = sim_zebin_merge_debug(NULL, 0, NULL, 0, &o, &on, err, sizeof(err));
    check(rc == -1, "NULL inputs refused");
    rc = sim_debug_zebin_build(sraw.p, sraw.n, 2, NULL, va, &o, &on, err, sizeof(err));
    check(rc == -1, "NULL names refused");
out:
    free(sraw.p);
    free(sdbg.p);
    free(mdbg.p);
}

/* Concurrent calls give identical results (no shared state). */
typedef struct job {
    blob_t raw, dbg, want;
    int ok;
} job_t;

static void *worker(void *arg) {
    job_t *j = arg;
    j->ok = 1;
    for (int i = 0; i < 20; i++) {
        uint8_t *o = NULL;
        size_t on = 0;
        char err[256];
        if (sim_zebin_merge_debug(j->raw.p, j->raw.n, j->dbg.p, j->dbg.n, &o, &on, err, sizeof(err)) != 0 ||
            on != j->want.n || memcmp(o, j->want.p, on) != 0)
            j->ok = 0;
        free(o);
    }
    return NULL;
}

static void test_threads(const char *dir) {
    job_t j[4];
    pthread_t t[4];
    blob_t raw = load(dir, "mixed", ".raw.zebin"), dbg = load(dir, "mixed", ".dbg"), want = load(dir, "mixed", ".zebin");
    if (!raw.p || !dbg.p || !want.p) {
        check(false, "threads: inputs readable");
    } else {
        for (int i = 0; i < 4; i++) {
            j[i] = (job_t){raw, dbg, want, 0};
            pthread_create(&t[i], NULL, worker, &j[i]);
        }
        int ok = 1;
        for (int i = 0; i < 4; i++) {
            pthread_join(t[i], NULL);
            ok &= j[i].ok;
        }
        check(ok, "threads: concurrent merges are identical");
    }
    free(raw.p);
    free(dbg.p);
    free(want.p);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <test/kernels directory>\n", argv[0]);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    for (size_t i = 0; i < NFILES; i++) test_file(argv[1], kernel_files[i]);
    test_mismatch(argv[1]);
    test_threads(argv[1]);
    return check_summary();
}
