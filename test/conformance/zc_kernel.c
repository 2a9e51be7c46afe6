/*
 * zc_kernel.c — kernel code and debug info from the driver
 * (docs/eu-stall-sampling.md §8 "Mapping an IP to a kernel and an instruction",
 * docs/eu-stall-sampling.md §9 "Kernel code and debug info from the driver"):
 * zexKernelGetBaseAddress, zeIntelKernelGetBinaryExp,
 * zeModuleGetNativeBinary, zetModuleGetDebugInfo (debug zebin, DWARF line
 * addresses decoded here).
 */
#include <stdlib.h>
#include <string.h>

#include "zc.h"

#define EM_INTELGT 205

static void test_native_binary(const zc_work_t *w, const uint8_t *bin, size_t size, const char *path) {
    size_t ns = 0;
    if (!REQUIRE_OK(zeModuleGetNativeBinary(w->mod, &ns, NULL), "zeModuleGetNativeBinary size")) return;
    uint8_t *nb = malloc(ns ? ns : 1);
    if (!REQUIRE_OK(zeModuleGetNativeBinary(w->mod, &ns, nb), "zeModuleGetNativeBinary")) { free(nb); return; }
    bool same = ns == size && memcmp(nb, bin, size) == 0;
    CHECK(same, "zeModuleGetNativeBinary returns the zebin as given", "%s: %zu bytes given, %zu returned%s", path, size,
          ns, same ? "" : ns == size ? " (content differs)" : "");
    zc_elf_t e;
    bool is_elf = zc_elf_open(&e, nb, ns);
    CHECK_TRUE(is_elf, "native binary is an ELF64");
    if (is_elf) {
        CHECK_U64(e.machine, EM_INTELGT, "native binary e_machine EM_INTELGT");
        for (uint32_t i = 0; i < w->nk; i++) {
            char sn[160];
            snprintf(sn, sizeof sn, ".text.%s", w->names[i]);
            CHECK(zc_elf_section(&e, sn) != NULL, "native binary has .text.<kernel>", "%s missing", sn);
        }
        zc_elf_close(&e);
    }
    free(nb);
}

static void test_kernel_names(const zc_work_t *w, const uint8_t *bin, size_t size) {
    zc_elf_t e;
    if (!zc_elf_open(&e, bin, size)) return;
    char **names;
    uint32_t n = zc_zebin_kernels(&e, &names);
    CHECK_U64(w->nk, n, "zeModuleGetKernelNames count = .text.<kernel> sections");
    for (uint32_t i = 0; i < n; i++) {
        CHECK(zc_work_find(w, names[i]) >= 0, "kernel name listed", "%s not listed", names[i]);
        free(names[i]);
    }
    free(names);
    for (uint32_t i = 0; i < w->nk; i++) {
        size_t len = 0;
        REQUIRE_OK(zeKernelGetName(w->k[i], &len, NULL), "zeKernelGetName size");
        char buf[160] = "";
        if (len > 0 && len <= sizeof buf) zeKernelGetName(w->k[i], &len, buf);
        CHECK_STR(buf, w->names[i], "zeKernelGetName");
    }
    zc_elf_close(&e);
}

static void test_binary_exp(const zc_work_t *w, const uint8_t *bin, size_t size) {
    zc_elf_t e;
    if (!zc.get_binary || !zc_elf_open(&e, bin, size)) return;
    for (uint32_t i = 0; i < w->nk; i++) {
        char sn[160];
        snprintf(sn, sizeof sn, ".text.%s", w->names[i]);
        const zc_section_t *s = zc_elf_section(&e, sn);
        if (!s) continue;
        size_t sz = 0;
        CHECK_RES(zc_binary(w->k[i], &sz, NULL), ZE_RESULT_SUCCESS, "zeIntelKernelGetBinaryExp size query");
        CHECK_U64(sz, s->size, "zeIntelKernelGetBinaryExp size = .text.<kernel> size incl. padding");
        CHECK(w->isa_size[i] == s->size && w->isa[i] && memcmp(w->isa[i], bin + s->offset, s->size) == 0,
              "zeIntelKernelGetBinaryExp bytes = .text.<kernel>", "%s: %zu bytes, section %llu", w->names[i],
              w->isa_size[i], (unsigned long long)s->size);
        uint64_t fsz = zc_elf_func_size(&e, w->names[i]);
        CHECK(fsz > 0 && fsz <= s->size, "kernel symbol size within the section", "%s: %llu of %llu", w->names[i],
              (unsigned long long)fsz, (unsigned long long)s->size);
    }
    zc_elf_close(&e);
}

static void test_base_addresses(zc_work_t *ws, uint32_t nw) {
    if (!zc.get_base) return;
    typedef struct { uint32_t lo, hi; const char *name; } range_t;
    range_t r[64];
    uint32_t nr = 0;
    for (uint32_t m = 0; m < nw; m++) {
        for (uint32_t i = 0; i < ws[m].nk; i++) {
            uint64_t b = 0;
            CHECK_RES(zc_base(ws[m].k[i], &b), ZE_RESULT_SUCCESS, "zexKernelGetBaseAddress");
            CHECK_U64(b, ws[m].base[i], "zexKernelGetBaseAddress stable");
            CHECK((b >> 32) == 0x8000, "base address in 0x0000_8000_xxxx_xxxx (decanonized, full 64 bits)", "got %#llx",
                  (unsigned long long)b);
            CHECK((b & 63) == 0, "base address 64-byte aligned", "got %#llx", (unsigned long long)b);
            uint64_t lo = b & 0xffffffffu;
            CHECK(lo + ws[m].isa_size[i] <= 0x100000000ull, "kernel ISA does not straddle a 4 GiB window",
                  "base %#llx size %zu", (unsigned long long)b, ws[m].isa_size[i]);
            if (nr < 64) r[nr++] = (range_t){(uint32_t)lo, (uint32_t)(lo + ws[m].isa_size[i]), ws[m].names[i]};
        }
    }
    bool disjoint = true;
    for (uint32_t a = 0; a < nr; a++)
        for (uint32_t b = a + 1; b < nr; b++)
            if (r[a].lo < r[b].hi && r[b].lo < r[a].hi) {
                disjoint = false;
                CHECK(false, "low 32 bits of live kernels unique", "%s [%#x,%#x) overlaps %s [%#x,%#x)", r[a].name,
                      r[a].lo, r[a].hi, r[b].name, r[b].lo, r[b].hi);
            }
    if (disjoint) CHECK(true, "low 32 bits of live kernels unique", "ok");
    CHECK_RES(zc_base(ws[0].k[0], NULL), ZE_RESULT_SUCCESS, "zexKernelGetBaseAddress ignores a NULL output");
}

static void test_debug_info(const zc_work_t *w) {
    size_t sz = 0;
    if (!REQUIRE_OK(zetModuleGetDebugInfo((zet_module_handle_t)w->mod, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, &sz, NULL),
                    "zetModuleGetDebugInfo size"))
        return;
    CHECK(sz > 64, "debug info size", "got %zu", sz);
    if (sz <= 64 || sz > (1u << 28)) return;
    uint8_t *buf = malloc(sz);
    size_t small = sz - 1;
    CHECK_RES(zetModuleGetDebugInfo((zet_module_handle_t)w->mod, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, &small, buf),
              ZE_RESULT_ERROR_INVALID_ARGUMENT, "zetModuleGetDebugInfo too-small buffer");
    size_t got = sz;
    if (!REQUIRE_OK(zetModuleGetDebugInfo((zet_module_handle_t)w->mod, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, &got, buf),
                    "zetModuleGetDebugInfo")) {
        free(buf);
        return;
    }
    CHECK_U64(got, sz, "zetModuleGetDebugInfo size unchanged");
    /* the format argument is ignored by Intel's driver */
    size_t sz2 = 0;
    CHECK_RES(zetModuleGetDebugInfo((zet_module_handle_t)w->mod, (zet_module_debug_info_format_t)1, &sz2, NULL),
              ZE_RESULT_SUCCESS, "zetModuleGetDebugInfo ignores format");
    zc_elf_t e;
    if (!zc_elf_open(&e, buf, got)) {
        CHECK(false, "debug info is an ELF64", "not parseable");
        free(buf);
        return;
    }
    CHECK_U64(e.type, 2, "debug zebin e_type ET_EXEC");
    CHECK_U64(e.machine, EM_INTELGT, "debug zebin e_machine EM_INTELGT");
    for (uint32_t i = 0; i < w->nk; i++) {
        char sn[160];
        snprintf(sn, sizeof sn, ".text.%s", w->names[i]);
        const zc_section_t *s = zc_elf_section(&e, sn);
        CHECK(s != NULL, "debug zebin has .text.<kernel>", "%s missing", sn);
        if (s == NULL) continue;
        CHECK(s->addr == w->base[i], "debug zebin .text.<kernel> sh_addr = zexKernelGetBaseAddress", "%s: sh_addr %#llx base %#llx",
              w->names[i], (unsigned long long)s->addr, (unsigned long long)w->base[i]);
        CHECK(s->size == w->isa_size[i] && w->isa[i] && memcmp(buf + s->offset, w->isa[i], s->size) == 0,
              "debug zebin .text.<kernel> holds the kernel ISA", "%s", w->names[i]);
        CHECK(zc_elf_has_load(&e, w->base[i], NULL), "debug zebin PT_LOAD at the kernel address", "%s at %#llx",
              w->names[i], (unsigned long long)w->base[i]);
    }
    const zc_section_t *dl = zc_elf_section(&e, ".debug_line");
    CHECK_TRUE(dl != NULL, "debug zebin has .debug_line");
    if (dl) {
        zc_line_row_t *rows = NULL;
        size_t nrows = 0;
        char err[128] = "";
        int rc = zc_dwarf_line_rows(buf + dl->offset, dl->size, &rows, &nrows, err, sizeof err);
        CHECK(rc == 0, "decode .debug_line (DWARF 4)", "%s", err);
        CHECK(nrows > 0, ".debug_line has rows", "none");
        uint32_t hits[16] = {0};
        size_t bad = 0;
        uint64_t first_bad = 0;
        for (size_t r = 0; r < nrows; r++) {
            bool in = false;
            for (uint32_t i = 0; i < w->nk; i++) {
                uint64_t lo = w->base[i], hi = lo + w->isa_size[i];
                if (rows[r].addr >= lo && (rows[r].addr < hi || (rows[r].end_seq && rows[r].addr == hi))) {
                    in = true;
                    if (!rows[r].end_seq) hits[i]++;
                }
            }
            if (!in && bad++ == 0) first_bad = rows[r].addr;
        }
        CHECK(bad == 0, ".debug_line addresses lie inside the module's kernels (absolute GPU addresses)",
              "%zu of %zu rows outside, first %#llx", bad, nrows, (unsigned long long)first_bad);
        /* each line sequence stays inside one kernel */
        size_t mixed = 0;
        int cur = -1;
        for (size_t r = 0; r < nrows; r++) {
            int k = -1;
            for (uint32_t i = 0; i < w->nk && k < 0; i++) {
                uint64_t lo = w->base[i], hi = lo + w->isa_size[i];
                if (rows[r].addr >= lo && (rows[r].addr < hi || (rows[r].end_seq && rows[r].addr == hi))) k = (int)i;
            }
            if (cur < 0) cur = k;
            else if (k != cur) mixed++;
            if (rows[r].end_seq) cur = -1;
        }
        CHECK(mixed == 0, ".debug_line: every sequence lies inside its own kernel", "%zu rows leave their kernel", mixed);
        for (uint32_t i = 0; i < w->nk; i++)
            CHECK(hits[i] > 0, "every kernel has line rows", "%s: none", w->names[i]);
        free(rows);
    }
    zc_elf_close(&e);
    free(buf);
}

static void test_churn(void) {
    /* re-created kernels: base addresses of live kernels must stay unique */
    zc_work_t a, b;
    if (!zc_work_open(&a, zc.devices[0], zc.stream_bin, zc.stream_size)) { zc_work_close(&a); return; }
    uint64_t first = a.base[0];
    zc_work_close(&a);
    if (!zc_work_open(&a, zc.devices[0], zc.stream_bin, zc.stream_size)) { zc_work_close(&a); return; }
    if (!zc_work_open(&b, zc.devices[0], zc.stream_bin, zc.stream_size)) { zc_work_close(&a); zc_work_close(&b); return; }
    CHECK(a.base[0] != b.base[0], "two live modules: different kernel addresses", "both %#llx",
          (unsigned long long)a.base[0]);
    (void)first;
    zc_work_t both[2] = {a, b};
    test_base_addresses(both, 2);
    zc_work_close(&a);
    zc_work_close(&b);
}

/* SPIR-V build path with "-g": success, or MODULE_BUILD_FAILURE with a log */
static void test_spirv(void) {
    const char *dir = getenv("ZESTALL_KERNELS");
    char path[700];
    snprintf(path, sizeof path, "%s/stream.spv", dir && *dir ? dir : ZESTALL_KERNELS_DEFAULT);
    size_t size = 0;
    uint8_t *il = zc_read_file(path, &size);
    if (!il) return; /* no SPIR-V in this kernel set */
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, il, "-g", NULL};
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zeModuleCreate(zc.context, zc.devices[0], &md, &m, &log);
    char text[512] = "";
    if (log) {
        size_t ls = 0;
        if (zeModuleBuildLogGetString(log, &ls, NULL) == ZE_RESULT_SUCCESS && ls > 0) {
            char *s = malloc(ls);
            if (s && zeModuleBuildLogGetString(log, &ls, s) == ZE_RESULT_SUCCESS) snprintf(text, sizeof text, "%s", s);
            free(s);
        }
        zeModuleBuildLogDestroy(log);
    }
    CHECK(r == ZE_RESULT_SUCCESS, "SPIR-V module build (-g)", "result 0x%08x, build log: %s", (unsigned)r, text);
    if (r == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE) CHECK(text[0] != 0, "SPIR-V build failure has a build log", "empty");
    if (r == ZE_RESULT_SUCCESS) {
        size_t ns = 0;
        REQUIRE_OK(zeModuleGetNativeBinary(m, &ns, NULL), "SPIR-V module: zeModuleGetNativeBinary");
        uint8_t *nb = malloc(ns ? ns : 1);
        if (ns && zeModuleGetNativeBinary(m, &ns, nb) == ZE_RESULT_SUCCESS) {
            zc_work_t w;
            if (zc_work_open(&w, zc.devices[0], nb, ns)) {
                test_binary_exp(&w, nb, ns);
                test_debug_info(&w);
            }
            zc_work_close(&w);
        }
        free(nb);
        zeModuleDestroy(m);
    }
    free(il);
}

/* handle rule: NULL or foreign handles are reported, never dereferenced */
static void test_handles(const zc_work_t *w) {
    ze_kernel_handle_t k = NULL;
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "stream_triad"};
    /* in intercept mode the loader itself dereferences a NULL handle */
    const char *ic = getenv("ZE_ENABLE_LOADER_INTERCEPT");
    if (!(ic && strcmp(ic, "1") == 0))
        CHECK_RES(zeKernelCreate(NULL, &kd, &k), ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "zeKernelCreate(NULL module)");
    kd.pKernelName = "no_such_kernel";
    CHECK_RES(zeKernelCreate(w->mod, &kd, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME, "zeKernelCreate(unknown name)");
    uint64_t b = 0;
    if (zc.get_base) {
        CHECK_RES(zc.get_base(NULL, &b), ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "zexKernelGetBaseAddress(NULL)");
        /* a module handle where a kernel is expected */
        CHECK_RES(zc.get_base((ze_kernel_handle_t)(void *)w->mod, &b), ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                  "zexKernelGetBaseAddress(foreign handle)");
    }
    size_t sz = 0;
    if (zc.get_binary) {
        CHECK_RES(zc_binary(w->k[0], NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                  "zeIntelKernelGetBinaryExp(NULL size)");
        (void)sz;
    }
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_NATIVE, 16,
                           (const uint8_t *)"not an ELF file", "", NULL};
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    /* intercept mode: loader 1.8.12 does not wrap the build log of a failed
     * create, so the application cannot destroy it; do not ask for one */
    bool intercept = ic && strcmp(ic, "1") == 0;
    CHECK_RES(zeModuleCreate(zc.context, zc.devices[0], &md, &m, intercept ? NULL : &log),
              ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, "zeModuleCreate(garbage) -> INVALID_NATIVE_BINARY");
    if (log) zeModuleBuildLogDestroy(log);
    /* truncated zebin: every prefix length must be refused cleanly */
    size_t bad = 0;
    for (size_t cut = 0; cut < zc.stream_size; cut += zc.stream_size / 61 + 1) {
        md.inputSize = cut;
        md.pInputModule = zc.stream_bin;
        m = NULL;
        ze_result_t r = zeModuleCreate(zc.context, zc.devices[0], &md, &m, NULL);
        if (r == ZE_RESULT_SUCCESS) { zeModuleDestroy(m); bad++; }
    }
    CHECK(bad == 0, "zeModuleCreate refuses truncated zebins", "%zu prefixes accepted", bad);
}

void zc_test_kernels(void) {
    zc_work_t w[2];
    bool ok0 = zc_work_open(&w[0], zc.devices[0], zc.stream_bin, zc.stream_size);
    bool ok1 = zc_work_open(&w[1], zc.devices[0], zc.compute_bin, zc.compute_size);
    if (ok0 && ok1) {
        test_native_binary(&w[0], zc.stream_bin, zc.stream_size, zc.stream_path);
        test_kernel_names(&w[0], zc.stream_bin, zc.stream_size);
        test_binary_exp(&w[0], zc.stream_bin, zc.stream_size);
        test_binary_exp(&w[1], zc.compute_bin, zc.compute_size);
        test_base_addresses(w, 2);
        test_debug_info(&w[0]);
        test_debug_info(&w[1]);
        test_handles(&w[0]);
    }
    zc_work_close(&w[0]);
    zc_work_close(&w[1]);
    test_churn();
    test_spirv();
}
