/*
 * zc_main.c — framework, expectations from the environment, workloads and
 * main() of zesim-conformance.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <level_zero/loader/ze_loader.h>

#include "zc.h"

unsigned zc_passed, zc_failed;
zc_expect_t zc_exp;
zc_state_t zc;
static bool verbose;

void zc_record(bool ok, const char *name, const char *file, int line, const char *fmt, ...) {
    if (ok) {
        zc_passed++;
        if (!verbose) return;
    } else {
        zc_failed++;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    printf("%s [%s] %s:%d: %s\n", ok ? "ok  " : "FAIL", name, base ? base + 1 : file, line, msg);
    fflush(stdout);
}

bool zc_ok(ze_result_t r, const char *name, const char *call, const char *file, int line) {
    zc_record(r == ZE_RESULT_SUCCESS, name, file, line, "%s returned 0x%08x", call, (unsigned)r);
    return r == ZE_RESULT_SUCCESS;
}

static ze_kernel_handle_t translate(ze_kernel_handle_t k) {
    void *out = NULL;
    if (zelLoaderTranslateHandle(ZEL_HANDLE_KERNEL, k, &out) != ZE_RESULT_SUCCESS || out == NULL) return k;
    return (ze_kernel_handle_t)out;
}

ze_result_t zc_base(ze_kernel_handle_t k, uint64_t *base) {
    return zc.get_base ? zc.get_base(translate(k), base) : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

ze_result_t zc_binary(ze_kernel_handle_t k, size_t *size, char *bytes) {
    return zc.get_binary ? zc.get_binary(translate(k), size, bytes) : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

uint64_t zc_host_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void zc_sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

uint8_t *zc_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *nb = realloc(buf, cap + 1);
            if (!nb) { free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    fclose(f);
    buf[n] = 0; /* text files can be parsed as strings */
    *size = n;
    return buf;
}

bool zc_device_props(ze_device_handle_t d, ze_device_properties_t *p, bool v12) {
    memset(p, 0, sizeof *p);
    p->stype = v12 ? ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 : ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    return zeDeviceGetProperties(d, p) == ZE_RESULT_SUCCESS;
}

uint32_t zc_subdevices(ze_device_handle_t d, ze_device_handle_t *subs, uint32_t cap) {
    uint32_t n = 0;
    if (zeDeviceGetSubDevices(d, &n, NULL) != ZE_RESULT_SUCCESS) return 0;
    if (n > cap) n = cap;
    if (n && zeDeviceGetSubDevices(d, &n, subs) != ZE_RESULT_SUCCESS) return 0;
    return n;
}

/* ---- workloads ------------------------------------------------------ */
int zc_work_find(const zc_work_t *w, const char *name) {
    for (uint32_t i = 0; i < w->nk; i++)
        if (strcmp(w->names[i], name) == 0) return (int)i;
    return -1;
}

static void set_args(ze_kernel_handle_t k, const char *name, void *const *bufs) {
    /* argument kinds of the project's kernels; unknown kernels: try a
     * pointer, then a 4-byte scalar, for each argument */
    static const struct { const char *n, *sig; } sigs[] = {
        {"stream_triad", "pppf"}, {"stream_copy", "pp"}, {"compute_poly", "pi"}, {"compute_loop", "pi"},
        {"branchy", "pp"}, {"slm_reduce", "ppl"}, {"mixed_saxpy_loop", "ppfi"}, {"mixed_histogram", "ppi"},
        {"mixed_scale", "pf"}};
    const char *sig = NULL;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (strcmp(sigs[i].n, name) == 0) sig = sigs[i].sig;
    uint32_t bi = 0;
    int32_t v = 8;
    if (sig) {
        for (uint32_t a = 0; sig[a]; a++) {
            ze_result_t r;
            if (sig[a] == 'p') r = zeKernelSetArgumentValue(k, a, sizeof(void *), &bufs[bi++ % 3]);
            else if (sig[a] == 'l') r = zeKernelSetArgumentValue(k, a, 256, NULL);
            else r = zeKernelSetArgumentValue(k, a, 4, &v);
            CHECK_RES(r, ZE_RESULT_SUCCESS, "zeKernelSetArgumentValue");
        }
    } else {
        ze_kernel_properties_t kp;
        memset(&kp, 0, sizeof kp);
        kp.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
        if (zeKernelGetProperties(k, &kp) != ZE_RESULT_SUCCESS) return;
        for (uint32_t a = 0; a < kp.numKernelArgs; a++)
            if (zeKernelSetArgumentValue(k, a, sizeof(void *), &bufs[bi % 3]) == ZE_RESULT_SUCCESS) bi++;
            else zeKernelSetArgumentValue(k, a, 4, &v);
    }
}

bool zc_work_open(zc_work_t *w, ze_device_handle_t dev, const uint8_t *bin, size_t size) {
    memset(w, 0, sizeof *w);
    w->dev = dev;
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_NATIVE, size, bin, "", NULL};
    if (!REQUIRE_OK(zeModuleCreate(zc.context, dev, &md, &w->mod, NULL), "work: zeModuleCreate")) return false;
    uint32_t n = 0;
    if (!REQUIRE_OK(zeModuleGetKernelNames(w->mod, &n, NULL), "work: zeModuleGetKernelNames")) return false;
    if (n > 16) n = 16;
    const char *names[16];
    if (!REQUIRE_OK(zeModuleGetKernelNames(w->mod, &n, names), "work: zeModuleGetKernelNames")) return false;
    w->names = calloc(16, sizeof *w->names);
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    for (int i = 0; i < 3; i++)
        if (!REQUIRE_OK(zeMemAllocDevice(zc.context, &dd, 1 << 20, 64, dev, &w->buf[i]), "work: zeMemAllocDevice")) return false;
    for (uint32_t i = 0; i < n; i++) {
        w->names[i] = strdup(names[i]);
        ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, names[i]};
        if (!REQUIRE_OK(zeKernelCreate(w->mod, &kd, &w->k[i]), "work: zeKernelCreate")) return false;
        w->nk = i + 1;
        set_args(w->k[i], names[i], w->buf);
        zeKernelSetGroupSize(w->k[i], 64, 1, 1);
        zc_base(w->k[i], &w->base[i]);
        if (zc_binary(w->k[i], &w->isa_size[i], NULL) == ZE_RESULT_SUCCESS && w->isa_size[i] &&
            w->isa_size[i] < (1u << 26)) {
            w->isa[i] = malloc(w->isa_size[i]);
            if (zc_binary(w->k[i], &w->isa_size[i], (char *)w->isa[i]) != ZE_RESULT_SUCCESS) w->isa_size[i] = 0;
        }
        zc_elf_t e;
        if (zc_elf_open(&e, bin, size)) {
            w->code_size[i] = zc_elf_func_size(&e, names[i]);
            zc_elf_close(&e);
        }
        if (w->code_size[i] == 0 || w->code_size[i] > w->isa_size[i]) w->code_size[i] = w->isa_size[i];
    }
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    /* module and kernels are usable even if launching is not (w->ok) */
    if (!REQUIRE_OK(zeCommandListCreateImmediate(zc.context, dev, &qd, &w->imm), "work: zeCommandListCreateImmediate"))
        return true;
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 1};
    if (!REQUIRE_OK(zeEventPoolCreate(zc.context, &pd, 1, &dev, &w->pool), "work: zeEventPoolCreate")) return true;
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    if (!REQUIRE_OK(zeEventCreate(w->pool, &ed, &w->ev), "work: zeEventCreate")) return true;
    w->ok = true;
    return true;
}

bool zc_work_launch(zc_work_t *w, uint32_t ki, uint32_t groups, ze_kernel_timestamp_result_t *ts) {
    if (!w->ok || ki >= w->nk) return false;
    ze_group_count_t g = {groups, 1, 1};
    if (!REQUIRE_OK(zeCommandListAppendLaunchKernel(w->imm, w->k[ki], &g, w->ev, 0, NULL), "work: launch")) return false;
    if (!REQUIRE_OK(zeEventHostSynchronize(w->ev, UINT64_MAX), "work: zeEventHostSynchronize")) return false;
    bool ok = true;
    if (ts) ok = REQUIRE_OK(zeEventQueryKernelTimestamp(w->ev, ts), "work: zeEventQueryKernelTimestamp");
    zeEventHostReset(w->ev);
    return ok;
}

void zc_work_close(zc_work_t *w) {
    if (w->ev) zeEventDestroy(w->ev);
    if (w->pool) zeEventPoolDestroy(w->pool);
    if (w->imm) zeCommandListDestroy(w->imm);
    for (uint32_t i = 0; i < w->nk; i++) {
        if (w->k[i]) CHECK_RES(zeKernelDestroy(w->k[i]), ZE_RESULT_SUCCESS, "zeKernelDestroy");
        free(w->isa[i]);
        free(w->names[i]);
    }
    free(w->names);
    if (w->mod) CHECK_RES(zeModuleDestroy(w->mod), ZE_RESULT_SUCCESS, "zeModuleDestroy");
    for (int i = 0; i < 3; i++)
        if (w->buf[i]) zeMemFree(zc.context, w->buf[i]);
    memset(w, 0, sizeof *w);
}

/* ---- setup ---------------------------------------------------------- */
static bool env_is(const char *name, const char *val) {
    const char *v = getenv(name);
    return v && strcasecmp(v, val) == 0;
}

static void read_expectations(void) {
    const char *m = getenv("ZESIM_MODEL");
    zc_exp.model_name = (m && *m) ? m : "pvc";
    if (!m || !*m || strcmp(m, "pvc") == 0 || strcmp(m, "pvc-1550") == 0) zc_exp.model = ZC_PVC;
    else if (strcmp(m, "pvc-xl") == 0) zc_exp.model = ZC_PVC_XL;
    else if (strncmp(m, "xe2", 3) == 0) zc_exp.model = ZC_XE2;
    else if (strcmp(m, "dg2") == 0) zc_exp.model = ZC_DG2;
    else { fprintf(stderr, "zesim-conformance: unknown ZESIM_MODEL=%s, assuming pvc\n", m); zc_exp.model = ZC_PVC; }
    zc_exp.composite = env_is("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE");
    const char *k = getenv("ZESIM_KMD");
    zc_exp.xe_kmd = k ? strcmp(k, "xe") == 0 : zc_exp.model == ZC_XE2;
    zc_exp.metrics_env = env_is("ZET_ENABLE_METRICS", "1");
    zc_exp.permitted = !env_is("ZESIM_METRICS_PERMISSION", "denied");
    bool capable = zc_exp.model == ZC_PVC || zc_exp.model == ZC_XE2;
    zc_exp.has_group = capable && zc_exp.metrics_env && zc_exp.permitted;
    zc_exp.pvc_layout = zc_exp.model == ZC_PVC || zc_exp.model == ZC_PVC_XL;
    zc_exp.metric_count = zc_exp.pvc_layout ? 10 : 11;
}

static const char *model_tag(void) {
    return zc_exp.model == ZC_XE2 ? "xe2" : zc_exp.model == ZC_DG2 ? "dg2" : "pvc";
}

#include <dirent.h>
static bool find_kernel_file(const char *hint, const char *ext, char *out, size_t cap) {
    const char *dir = getenv("ZESTALL_KERNELS");
    if (!dir || !*dir) dir = ZESTALL_KERNELS_DEFAULT;
    const char *tag = model_tag();
    /* exact names first: <hint>_<model>.<ext>, <hint>.<model>.<ext>, <hint>.<ext> */
    const char *const forms[] = {"%s/%s_%s.%s", "%s/%s.%s.%s"};
    for (int i = 0; i < 2; i++) {
        snprintf(out, cap, forms[i], dir, hint, tag, ext);
        FILE *f = fopen(out, "rb");
        if (f) { fclose(f); return true; }
    }
    snprintf(out, cap, "%s/%s.%s", dir, hint, ext);
    FILE *f = fopen(out, "rb");
    if (f) { fclose(f); return true; }
    DIR *d = opendir(dir);
    if (!d) return false;
    static const char *const tags[] = {"pvc", "xe2", "dg2"};
    char best[512] = "";
    int best_score = -1;
    struct dirent *e;
    size_t hl = strlen(hint), el = strlen(ext);
    while ((e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        if (nl < hl + el + 1 || strncmp(e->d_name, hint, hl) != 0) continue;
        if (e->d_name[nl - el - 1] != '.' || strcmp(e->d_name + nl - el, ext) != 0) continue;
        if (strstr(e->d_name, ".raw.")) continue; /* IGC's output without merged DWARF */
        int score = 2;
        if (strstr(e->d_name + hl, tag)) score = 3;
        else
            for (size_t i = 0; i < 3; i++)
                if (strcmp(tags[i], tag) != 0 && strstr(e->d_name + hl, tags[i])) score = 1;
        if (score > best_score || (score == best_score && strcmp(e->d_name, best) < 0)) {
            best_score = score;
            snprintf(best, sizeof best, "%s", e->d_name);
        }
    }
    closedir(d);
    if (best_score < 0) return false;
    snprintf(out, cap, "%s/%s", dir, best);
    return true;
}

static bool load_kernels(void) {
    if (!find_kernel_file("stream", "zebin", zc.stream_path, sizeof zc.stream_path)) {
        printf("FAIL [setup] no stream*.zebin in the kernel directory (ZESTALL_KERNELS)\n");
        return false;
    }
    if (!find_kernel_file("compute", "zebin", zc.compute_path, sizeof zc.compute_path))
        snprintf(zc.compute_path, sizeof zc.compute_path, "%s", zc.stream_path);
    zc.stream_bin = zc_read_file(zc.stream_path, &zc.stream_size);
    zc.compute_bin = zc_read_file(zc.compute_path, &zc.compute_size);
    if (!zc.stream_bin || !zc.compute_bin) {
        printf("FAIL [setup] cannot read %s / %s\n", zc.stream_path, zc.compute_path);
        return false;
    }
    /* the long-running kernel of the overflow test: the last kernel of the
     * compute module, given a high cost per work item */
    zc_elf_t e;
    char **names = NULL;
    uint32_t n = 0;
    if (zc_elf_open(&e, zc.compute_bin, zc.compute_size)) {
        n = zc_zebin_kernels(&e, &names);
        zc_elf_close(&e);
    }
    if (n == 0) {
        printf("FAIL [setup] %s has no .text.<kernel> sections\n", zc.compute_path);
        return false;
    }
    snprintf(zc.long_kernel, sizeof zc.long_kernel, "%s", names[n - 1]);
    for (uint32_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return true;
}

static void init_driver(void) {
    if (!REQUIRE_OK(zeInit(0), "zeInit")) exit(2);
    uint32_t n = 0;
    REQUIRE_OK(zeDriverGet(&n, NULL), "zeDriverGet count");
    CHECK_U64(n, 1, "one driver");
    n = 1;
    if (!REQUIRE_OK(zeDriverGet(&n, &zc.driver), "zeDriverGet")) exit(2);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    if (!REQUIRE_OK(zeContextCreate(zc.driver, &cd, &zc.context), "zeContextCreate")) exit(2);
    n = 16;
    if (!REQUIRE_OK(zeDeviceGet(zc.driver, &n, zc.devices), "zeDeviceGet") || n == 0) exit(2);
    zc.num_devices = n;
    REQUIRE_OK(zeDriverGetExtensionFunctionAddress(zc.driver, "zexKernelGetBaseAddress", (void **)&zc.get_base),
               "extension zexKernelGetBaseAddress");
    REQUIRE_OK(zeDriverGetExtensionFunctionAddress(zc.driver, "zeIntelKernelGetBinaryExp", (void **)&zc.get_binary),
               "extension zeIntelKernelGetBinaryExp");
    CHECK_TRUE(zc.get_base != NULL, "zexKernelGetBaseAddress pointer");
    CHECK_TRUE(zc.get_binary != NULL, "zeIntelKernelGetBinaryExp pointer");
}

int main(int argc, char **argv) {
    verbose = getenv("ZC_VERBOSE") && strcmp(getenv("ZC_VERBOSE"), "1") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    read_expectations();
    const char *only = argc > 1 ? argv[1] : NULL; /* optional: run one group */
    printf("zesim-conformance: model %s, %s, kmd %s, metrics %s%s\n", zc_exp.model_name,
           zc_exp.composite ? "COMPOSITE" : "FLAT", zc_exp.xe_kmd ? "xe" : "i915",
           zc_exp.metrics_env ? "enabled" : "not enabled", zc_exp.permitted ? "" : " (permission denied)");

    /* helper mode of the cross-process test (zc_metrics.c) */
    if (only && strcmp(only, "hold-stream") == 0) {
        init_driver();
        return zc_hold_stream();
    }
    if (only && strcmp(only, "try-stream") == 0) {
        init_driver();
        return zc_try_stream();
    }
    if (only && strcmp(only, "node-probe") == 0) return zc_node_probe();
    if (only && strcmp(only, "sample-tile") == 0) {
        init_driver();
        return zc_sample_tile();
    }
    /* the node's cases run children with their own environments */
    if (only && strcmp(only, "node") == 0) {
        zc_test_node();
        printf("%u passed, %u failed\n", zc_passed, zc_failed);
        return zc_failed ? 1 : 0;
    }
    if (!load_kernels()) {
        printf("%u passed, %u failed\n", zc_passed, zc_failed + 1);
        return 1;
    }
    if (only && strcmp(only, "app-tile") == 0) {
        init_driver();
        return zc_app_tile();
    }
    /* a long cost for one kernel (read by the driver at its first zeInit) */
    if (!getenv("ZESIM_KERNEL_COST")) {
        char cost[256];
        snprintf(cost, sizeof cost, "%s=2000000", zc.long_kernel);
        setenv("ZESIM_KERNEL_COST", cost, 1);
    }

    /* ground truth: in a child process, before this process's zeInit,
     * so that the driver's ground-truth file is complete when the child
     * exits */
    if (!only || strcmp(only, "gt") == 0) {
        char gt[256], obs[256];
        const char *tmp = getenv("TMPDIR");
        snprintf(gt, sizeof gt, "%s/zc-gt-%d.jsonl", tmp && *tmp ? tmp : "/tmp", (int)getpid());
        snprintf(obs, sizeof obs, "%s/zc-obs-%d.txt", tmp && *tmp ? tmp : "/tmp", (int)getpid());
        fflush(NULL);
        pid_t pid = fork();
        /* exit(), not _exit(): the driver writes its ground truth from a
         * library destructor */
        if (pid == 0) exit(zc_gt_child(gt, obs));
        int st = -1;
        if (pid > 0) waitpid(pid, &st, 0);
        zc_gt_check(gt, obs, st);
        if (!getenv("ZC_KEEP")) {
            unlink(gt);
            unlink(obs);
        }
    }

    init_driver();
    if (!only || strcmp(only, "device") == 0) zc_test_device();
    if (!only || strcmp(only, "kernels") == 0) zc_test_kernels();
    if (!only || strcmp(only, "metrics") == 0) zc_test_metrics();
    if (!only || strcmp(only, "extensions") == 0) zc_test_extensions();
    zeContextDestroy(zc.context);
    printf("%u passed, %u failed\n", zc_passed, zc_failed);
    return zc_failed ? 1 : 0;
}
