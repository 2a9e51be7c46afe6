/*
 * app_common.h — helpers shared by the sample applications (header-only so
 * that every app stays a single translation unit).
 *
 * The apps are the profiler's end-to-end workloads. They run on the
 * simulated device, which does not execute ISA: they never check kernel
 * results, only the copies and fills they do themselves. Any unexpected
 * Level-Zero result is fatal: message on stderr naming the call and the
 * code, exit status 1.
 */
#ifndef ZESTALL_APP_COMMON_H
#define ZESTALL_APP_COMMON_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <level_zero/ze_api.h>

#ifndef ZESTALL_KERNELS_DEFAULT
#define ZESTALL_KERNELS_DEFAULT "test/kernels"
#endif

/* In-order flags, absent from the 1.4 headers: ZE_COMMAND_LIST_FLAG_IN_ORDER
 * (spec 1.9, ze_command_list_desc_t.flags, regular lists) and
 * ZE_COMMAND_QUEUE_FLAG_IN_ORDER (spec 1.7, ze_command_queue_desc_t.flags,
 * which is what an immediate list takes). */
#define APP_COMMAND_LIST_FLAG_IN_ORDER (1u << 3)
#define APP_COMMAND_QUEUE_FLAG_IN_ORDER (1u << 1)

#define CK(call)                                                                  \
    do {                                                                          \
        ze_result_t ck_r_ = (call);                                               \
        if (ck_r_ != ZE_RESULT_SUCCESS) {                                         \
            fprintf(stderr, "%s:%d: %s failed: 0x%08x\n", __FILE__, __LINE__,    \
                    #call, (unsigned)ck_r_);                                      \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static inline void app_die(const char *what) {
    fprintf(stderr, "error: %s\n", what);
    exit(1);
}

static inline const char *app_kernel_dir(void) {
    const char *d = getenv("ZESTALL_KERNELS");
    return (d && *d) ? d : ZESTALL_KERNELS_DEFAULT;
}

/* The model the simulated driver emulates, as a file-name tag ("pvc",
 * "xe2", "dg2"); kernel files may exist per platform. */
static inline const char *app_model_tag(void) {
    const char *m = getenv("ZESIM_MODEL");
    if (m == NULL || *m == 0) return "pvc";
    if (strncmp(m, "xe2", 3) == 0) return "xe2";
    if (strncmp(m, "dg2", 3) == 0) return "dg2";
    return "pvc";
}

/* Finds a kernel file "<hint>*.<ext>" in the kernel directory, preferring a
 * name that carries the model tag, then one without any model tag. Writes
 * the path to out; returns false when nothing matches. */
static inline bool app_find_kernel_file(const char *hint, const char *ext, char *out, size_t cap) {
    const char *dir = app_kernel_dir();
    /* exact names first: <hint>_<model>.<ext>, <hint>.<ext> */
    const char *const forms[] = {"%s/%s_%s.%s", "%s/%s.%s.%s"};
    for (int i = 0; i < 2; i++) {
        snprintf(out, cap, forms[i], dir, hint, app_model_tag(), ext);
        FILE *f = fopen(out, "rb");
        if (f) { fclose(f); return true; }
    }
    snprintf(out, cap, "%s/%s.%s", dir, hint, ext);
    FILE *f = fopen(out, "rb");
    if (f) { fclose(f); return true; }
    DIR *d = opendir(dir);
    if (d == NULL) return false;
    static const char *const tags[] = {"pvc", "xe2", "dg2"};
    const char *tag = app_model_tag();
    char best[512] = "";
    int best_score = -1;
    struct dirent *e;
    size_t hl = strlen(hint), el = strlen(ext);
    while ((e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        if (nl < hl + el + 1 || strncmp(e->d_name, hint, hl) != 0) continue;
        if (e->d_name[nl - el - 1] != '.' || strcmp(e->d_name + nl - el, ext) != 0) continue;
        if (strstr(e->d_name, ".raw.")) continue; /* IGC's output without merged DWARF */
        int score;
        if (strstr(e->d_name + hl, tag)) {
            score = 3;
        } else {
            bool other = false;
            for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
                if (strcmp(tags[i], tag) != 0 && strstr(e->d_name + hl, tags[i])) other = true;
            score = other ? 1 : 2;
        }
        /* ties: lexicographically smallest, so the choice is deterministic */
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

static inline uint8_t *app_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *nb = realloc(buf, cap);
            if (nb == NULL) { free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    fclose(f);
    *size = n;
    return buf;
}

typedef struct app_env {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
    uint32_t compute_ordinal;
    uint32_t compute_queues; /* engines of the compute group */
    uint32_t copy_ordinal; /* == compute_ordinal when no copy-only group */
} app_env_t;

static inline void app_init(app_env_t *env) {
    CK(zeInit(0));
    uint32_t n = 1;
    CK(zeDriverGet(&n, &env->driver));
    if (n == 0) app_die("no driver");
    n = 1;
    CK(zeDeviceGet(env->driver, &n, &env->device));
    if (n == 0) app_die("no device");
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    CK(zeContextCreate(env->driver, &cd, &env->context));
    uint32_t ng = 0;
    CK(zeDeviceGetCommandQueueGroupProperties(env->device, &ng, NULL));
    if (ng == 0 || ng > 64) app_die("bad command queue group count");
    ze_command_queue_group_properties_t gp[64];
    for (uint32_t i = 0; i < ng; i++) {
        memset(&gp[i], 0, sizeof gp[i]);
        gp[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    }
    CK(zeDeviceGetCommandQueueGroupProperties(env->device, &ng, gp));
    env->compute_ordinal = UINT32_MAX;
    env->copy_ordinal = UINT32_MAX;
    for (uint32_t i = 0; i < ng; i++) {
        if ((gp[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) && env->compute_ordinal == UINT32_MAX)
            env->compute_ordinal = i;
        if (!(gp[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) &&
            (gp[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY) && env->copy_ordinal == UINT32_MAX)
            env->copy_ordinal = i;
    }
    if (env->compute_ordinal == UINT32_MAX) app_die("no compute queue group");
    env->compute_queues = gp[env->compute_ordinal].numQueues ? gp[env->compute_ordinal].numQueues : 1;
    if (env->copy_ordinal == UINT32_MAX) env->copy_ordinal = env->compute_ordinal;
}

static inline void app_fini(app_env_t *env) { CK(zeContextDestroy(env->context)); }

/* Creates a module from the kernel file "<hint>*.zebin". */
static inline ze_module_handle_t app_module(app_env_t *env, const char *hint) {
    char path[600];
    if (!app_find_kernel_file(hint, "zebin", path, sizeof path)) {
        fprintf(stderr, "error: no kernel file %s*.zebin in %s (set ZESTALL_KERNELS)\n", hint, app_kernel_dir());
        exit(1);
    }
    size_t size = 0;
    uint8_t *bin = app_read_file(path, &size);
    if (bin == NULL) { fprintf(stderr, "error: cannot read %s\n", path); exit(1); }
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_NATIVE, size, bin, "", NULL};
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zeModuleCreate(env->context, env->device, &md, &m, &log);
    if (r != ZE_RESULT_SUCCESS) {
        size_t ls = 0;
        if (log && zeModuleBuildLogGetString(log, &ls, NULL) == ZE_RESULT_SUCCESS && ls > 0 && ls < (1u << 20)) {
            char *s = malloc(ls);
            if (s && zeModuleBuildLogGetString(log, &ls, s) == ZE_RESULT_SUCCESS) fprintf(stderr, "build log: %.*s\n", (int)ls, s);
            free(s);
        }
        fprintf(stderr, "%s:%d: zeModuleCreate(%s) failed: 0x%08x\n", __FILE__, __LINE__, path, (unsigned)r);
        exit(1);
    }
    if (log) CK(zeModuleBuildLogDestroy(log));
    free(bin);
    return m;
}

/* Kernel names of a module (malloc'd array of malloc'd strings). */
static inline uint32_t app_kernel_names(ze_module_handle_t m, char ***names_out) {
    uint32_t n = 0;
    CK(zeModuleGetKernelNames(m, &n, NULL));
    const char **names = calloc(n ? n : 1, sizeof *names);
    char **copy = calloc(n ? n : 1, sizeof *copy);
    if (!names || !copy) app_die("out of memory");
    CK(zeModuleGetKernelNames(m, &n, names));
    for (uint32_t i = 0; i < n; i++) {
        copy[i] = strdup(names[i]);
        if (!copy[i]) app_die("out of memory");
    }
    free(names);
    *names_out = copy;
    return n;
}

static inline void app_free_names(char **names, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* The first kernel's name of a module (names freed with app_free_names). */
static inline char *app_first_kernel_name(ze_module_handle_t m, char ***names, uint32_t *n) {
    *n = app_kernel_names(m, names);
    if (*n == 0) app_die("module has no kernels");
    return (*names)[0];
}

static inline ze_kernel_handle_t app_kernel(ze_module_handle_t m, const char *name) {
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, name};
    ze_kernel_handle_t k = NULL;
    CK(zeKernelCreate(m, &kd, &k));
    return k;
}

/* Argument kinds of the project's test kernels (the .cl files in test/kernels). */
typedef struct app_sig { const char *name; const char *args; } app_sig_t;
/* p = global pointer, f = float, i = int, l = __local pointer */
static const app_sig_t app_sigs[] = {
    {"stream_triad", "pppf"}, {"stream_copy", "pp"}, {"compute_poly", "pi"},
    {"compute_loop", "pi"},   {"branchy", "pp"},     {"slm_reduce", "ppl"},
    {"mixed_saxpy_loop", "ppfi"}, {"mixed_histogram", "ppi"}, {"mixed_scale", "pf"},
};

/* Sets every argument of kernel `name`: pointer arguments take bufs[0],
 * bufs[1], ... in turn (cycling), scalars a small value, __local
 * arguments local_bytes. Unknown kernels: each argument is tried as a
 * pointer, then as a 4-byte scalar (the driver validates sizes). Also sets
 * the group size to group x 1 x 1. */
static inline void app_set_args(ze_kernel_handle_t k, const char *name, void *const *bufs, uint32_t nbufs,
                                uint32_t group, uint32_t local_bytes) {
    const char *sig = NULL;
    for (size_t i = 0; i < sizeof app_sigs / sizeof app_sigs[0]; i++)
        if (strcmp(app_sigs[i].name, name) == 0) sig = app_sigs[i].args;
    uint32_t bi = 0;
    if (sig) {
        for (uint32_t a = 0; sig[a]; a++) {
            if (sig[a] == 'p') {
                CK(zeKernelSetArgumentValue(k, a, sizeof(void *), &bufs[bi++ % nbufs]));
            } else if (sig[a] == 'f') {
                float f = 3.0f;
                CK(zeKernelSetArgumentValue(k, a, sizeof f, &f));
            } else if (sig[a] == 'i') {
                int v = 16;
                CK(zeKernelSetArgumentValue(k, a, sizeof v, &v));
            } else {
                CK(zeKernelSetArgumentValue(k, a, local_bytes, NULL));
            }
        }
    } else {
        ze_kernel_properties_t kp;
        memset(&kp, 0, sizeof kp);
        kp.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
        CK(zeKernelGetProperties(k, &kp));
        for (uint32_t a = 0; a < kp.numKernelArgs; a++) {
            void *p = bufs[bi % nbufs];
            ze_result_t r = zeKernelSetArgumentValue(k, a, sizeof p, &p);
            if (r == ZE_RESULT_SUCCESS) { bi++; continue; }
            int v = 16;
            CK(zeKernelSetArgumentValue(k, a, sizeof v, &v));
        }
    }
    CK(zeKernelSetGroupSize(k, group, 1, 1));
}

/* Every kernel of m named in names (app_kernel_names), in that order, each
 * with its arguments set from the 3 buffers bufs (app_set_args: group size
 * 64, 256 bytes where an argument is local memory). */
static inline ze_kernel_handle_t *app_kernels(ze_module_handle_t m, char **names, uint32_t nk, void *const *bufs) {
    ze_kernel_handle_t *k = calloc(nk, sizeof *k);
    if (!k) app_die("out of memory");
    for (uint32_t i = 0; i < nk; i++) {
        k[i] = app_kernel(m, names[i]);
        app_set_args(k[i], names[i], bufs, 3, 64, 256);
    }
    return k;
}

static inline ze_command_queue_handle_t app_queue(app_env_t *env, uint32_t ordinal) {
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, ordinal, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t q = NULL;
    CK(zeCommandQueueCreate(env->context, env->device, &qd, &q));
    return q;
}

static inline ze_command_list_handle_t app_list_flags(app_env_t *env, uint32_t ordinal, uint32_t flags) {
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, ordinal, flags};
    ze_command_list_handle_t l = NULL;
    CK(zeCommandListCreate(env->context, env->device, &ld, &l));
    return l;
}

static inline ze_command_list_handle_t app_list(app_env_t *env, uint32_t ordinal) {
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, ordinal, 0};
    ze_command_list_handle_t l = NULL;
    CK(zeCommandListCreate(env->context, env->device, &ld, &l));
    return l;
}

/* An immediate list on engine `index` of the group `ordinal`. */
static inline ze_command_list_handle_t app_imm_list_at(app_env_t *env, uint32_t ordinal, uint32_t index,
                                                       uint32_t flags) {
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, ordinal, index, flags,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t l = NULL;
    CK(zeCommandListCreateImmediate(env->context, env->device, &qd, &l));
    return l;
}

static inline ze_command_list_handle_t app_imm_list(app_env_t *env, uint32_t ordinal, uint32_t flags) {
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, ordinal, 0, flags,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t l = NULL;
    CK(zeCommandListCreateImmediate(env->context, env->device, &qd, &l));
    return l;
}

static inline void *app_alloc_device(app_env_t *env, size_t size) {
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *p = NULL;
    CK(zeMemAllocDevice(env->context, &dd, size, 64, env->device, &p));
    return p;
}

static inline void *app_alloc_shared(app_env_t *env, size_t size) {
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *p = NULL;
    CK(zeMemAllocShared(env->context, &dd, &hd, size, 64, env->device, &p));
    return p;
}

static inline void *app_alloc_host(app_env_t *env, size_t size) {
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *p = NULL;
    CK(zeMemAllocHost(env->context, &hd, size, 64, &p));
    return p;
}

static inline ze_event_pool_handle_t app_pool(app_env_t *env, ze_event_pool_flags_t flags, uint32_t count) {
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, flags, count};
    ze_event_pool_handle_t p = NULL;
    CK(zeEventPoolCreate(env->context, &pd, 1, &env->device, &p));
    return p;
}

static inline ze_event_handle_t app_event(ze_event_pool_handle_t pool, uint32_t index, bool host_scope) {
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, index,
                          host_scope ? ZE_EVENT_SCOPE_FLAG_HOST : 0, host_scope ? ZE_EVENT_SCOPE_FLAG_HOST : 0};
    ze_event_handle_t e = NULL;
    CK(zeEventCreate(pool, &ed, &e));
    return e;
}

#endif /* ZESTALL_APP_COMMON_H */
