/*
 * module_ocloc.c — SPIR-V compilation by running the ocloc compiler in a
 * child process (and the legacy .dbg run whose debug info is merged).
 */
#include "module.h"

/* ================================================================== */
/* SPIR-V through the ocloc compiler                                   */
/* ================================================================== */

/* Compilation runs the `ocloc` executable (Debian package
 * intel-opencl-icd, a thin front end of libocloc.so) in a child process
 * instead of calling oclocInvoke in-process, because libocloc 22.43
 * (a) calls exit(1) on malformed SPIR-V, which would kill the
 * application, and (b) keeps producing zebins for the rest of the
 * process once one zebin build ran, so the legacy .dbg output that
 * carries the DWARF can no longer be obtained. */


static void gb_add(growbuf_t *g, const char *s, size_t n) {
    if (g->n + n + 1 > g->cap) {
        size_t nc = (g->n + n + 1) * 2;
        char *p = realloc(g->s, nc);
        if (p == NULL) return;
        g->s = p;
        g->cap = nc;
    }
    memcpy(g->s + g->n, s, n);
    g->n += n;
    g->s[g->n] = '\0';
}
void gb_str(growbuf_t *g, const char *s) { gb_add(g, s, strlen(s)); }

static bool write_file(const char *path, const uint8_t *data, size_t size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fd);
    return off == size;
}

static bool read_file(const char *path, uint8_t **out, size_t *out_size, size_t max) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) == 0 && st.st_size >= 0 && (uint64_t)st.st_size <= max) {
        size_t n = (size_t)st.st_size, off = 0;
        uint8_t *b = malloc(n ? n : 1);
        while (b != NULL && off < n) {
            ssize_t r = read(fd, b + off, n - off);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            off += (size_t)r;
        }
        if (b != NULL && off == n) {
            *out = b;
            *out_size = n;
            ok = true;
        } else {
            free(b);
        }
    }
    close(fd);
    return ok;
}

static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        char path[SIM_PATH_MAX];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Finds "<dir>/<prefix>*<suffix>". */
static bool find_output(const char *dir, const char *prefix, const char *suffix, char *path, size_t cap) {
    DIR *d = opendir(dir);
    bool found = false;
    if (d == NULL) return false;
    struct dirent *e;
    size_t pl = strlen(prefix), sl = strlen(suffix);
    while (!found && (e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        if (nl > pl + sl && strncmp(e->d_name, prefix, pl) == 0 && strcmp(e->d_name + nl - sl, suffix) == 0) {
            snprintf(path, cap, "%s/%s", dir, e->d_name);
            found = true;
        }
    }
    closedir(d);
    return found;
}

/* One ocloc run in dir on dir/module.spv; output prefix `tag`. Returns
 * the output file ending in `suffix` (malloc'd); the compiler's messages
 * are appended to log. */
static bool ocloc_run(const char *dir, const char *options, bool zebin, const char *tag, const char *suffix,
                      uint8_t **out, size_t *out_size, growbuf_t *log) {
    const char *device = sim_cfg.platform == SIM_PLATFORM_DG2 ? "dg2" : "pvc";
    char spv[SIM_PATH_MAX], logpath[SIM_PATH_MAX], outpath[SIM_PATH_MAX];
    snprintf(spv, sizeof(spv), "%s/module.spv", dir);
    snprintf(logpath, sizeof(logpath), "%s/%s.log", dir, tag);
    const char *argv[20];
    unsigned argc = 0;
    argv[argc++] = "ocloc";
    argv[argc++] = "compile";
    argv[argc++] = "-spirv_input";
    argv[argc++] = "-file";
    argv[argc++] = spv;
    argv[argc++] = "-device";
    argv[argc++] = device;
    if (options != NULL && *options != '\0') {
        argv[argc++] = "-options";
        argv[argc++] = options;
    }
    if (zebin) {
        argv[argc++] = "-internal_options";
        argv[argc++] = "-ze-allow-zebin";
    }
    argv[argc++] = "-out_dir";
    argv[argc++] = dir;
    argv[argc++] = "-output";
    argv[argc++] = tag;
    argv[argc] = NULL;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    /* The child gets our environment without LD_PRELOAD: a preloaded
     * profiler (which may call zeInit in its constructor) has no business
     * in the compiler. */
    size_t ne = 0;
    while (environ != NULL && environ[ne] != NULL) ne++;
    char **env = calloc(ne + 1, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; env != NULL && i < ne; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0) env[k++] = environ[i];
    pid_t pid = 0;
    int err = env == NULL ? ENOMEM : posix_spawnp(&pid, "ocloc", &fa, NULL, (char *const *)argv, env);
    if (err == ENOENT) err = posix_spawn(&pid, "/usr/bin/ocloc", &fa, NULL, (char *const *)argv, env);
    free(env);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) {
        gb_str(log, "zesim: cannot run ocloc (Debian package intel-opencl-icd): ");
        gb_str(log, strerror(err));
        gb_str(log, "\n");
        return false;
    }
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    uint8_t *msg = NULL;
    size_t msg_size = 0;
    if (read_file(logpath, &msg, &msg_size, 1 << 20)) {
        /* Keep the compiler's diagnostics, drop its progress chatter. */
        size_t pos = 0;
        while (pos < msg_size) {
            size_t e = pos;
            while (e < msg_size && msg[e] != '\n') e++;
            size_t len = e - pos;
            const char *line = (const char *)msg + pos;
            static const char *const noise[] = {"Compilation from IR - skipping loading of FCL", "Build succeeded."};
            bool skip = len == 0;
            for (size_t i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
                if (len == strlen(noise[i]) && memcmp(line, noise[i], len) == 0) skip = true;
            if (!skip) {
                gb_add(log, line, len);
                gb_str(log, "\n");
            }
            pos = e + 1;
        }
        free(msg);
    }
    /* w < 0: SIGCHLD ignored by the application; judge by the output file. */
    bool exited_ok = w < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (exited_ok && find_output(dir, tag, suffix, outpath, sizeof(outpath)) &&
        read_file(outpath, out, out_size, (size_t)1 << 31))
        return true;
    char m[160];
    if (w >= 0 && WIFSIGNALED(status))
        snprintf(m, sizeof(m), "zesim: ocloc was killed by signal %d\n", WTERMSIG(status));
    else if (w >= 0 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
        snprintf(m, sizeof(m), "zesim: ocloc failed with exit status %d\n", WEXITSTATUS(status));
    else
        snprintf(m, sizeof(m), "zesim: ocloc produced no %s output\n", suffix);
    gb_str(log, m);
    return false;
}

/* "-g" as a separate option enables debug info. */
static bool has_debug_flag(const char *flags) {
    if (flags == NULL) return false;
    const char *p = flags;
    while ((p = strstr(p, "-g")) != NULL) {
        bool start = p == flags || p[-1] == ' ' || p[-1] == '\t';
        bool end = p[2] == '\0' || p[2] == ' ' || p[2] == '\t';
        if (start && end) return true;
        p += 2;
    }
    return false;
}

ze_result_t compile_spirv(const uint8_t *spv, size_t size, const char *flags, uint8_t **zebin,
                                 size_t *zebin_size, growbuf_t *log) {
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || *tmp == '\0' || strlen(tmp) > SIM_DIR_MAX - 32) tmp = "/tmp";
    char dir[SIM_DIR_MAX];
    snprintf(dir, sizeof(dir), "%s/zesim-ocloc-XXXXXX", tmp);
    if (mkdtemp(dir) == NULL) {
        gb_str(log, "zesim: cannot create a temporary directory for ocloc: ");
        gb_str(log, strerror(errno));
        gb_str(log, "\n");
        return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    char spv_path[SIM_PATH_MAX];
    snprintf(spv_path, sizeof(spv_path), "%s/module.spv", dir);
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (!write_file(spv_path, spv, size)) {
        gb_str(log, "zesim: cannot write the SPIR-V for ocloc\n");
        r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    if (r == ZE_RESULT_SUCCESS && sim_cfg.platform == SIM_PLATFORM_XE2)
        gb_str(log, "zesim: note: compiling for pvc (this IGC cannot target Xe2)\n");
    if (r == ZE_RESULT_SUCCESS && !ocloc_run(dir, flags, true, "z", ".bin", zebin, zebin_size, log))
        r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    if (r == ZE_RESULT_SUCCESS && has_debug_flag(flags)) {
        /* This IGC puts no DWARF into zebins; its legacy output carries it
         * in a .dbg container, which debugzebin_merge.c merges in. */
        uint8_t *dbg = NULL, *merged = NULL;
        size_t dbg_size = 0, merged_size = 0;
        growbuf_t dlog = {0};
        if (ocloc_run(dir, flags, false, "l", ".dbg", &dbg, &dbg_size, &dlog)) {
            char err[256] = "";
            if (sim_zebin_merge_debug(*zebin, *zebin_size, dbg, dbg_size, &merged, &merged_size, err, sizeof(err)) == 0) {
                free(*zebin);
                *zebin = merged;
                *zebin_size = merged_size;
            } else {
                gb_str(log, "zesim: warning: debug info not merged: ");
                gb_str(log, err);
                gb_str(log, "\n");
            }
        } else {
            gb_str(log, "zesim: warning: no legacy debug output: ");
            if (dlog.s) gb_str(log, dlog.s);
        }
        free(dbg);
        free(dlog.s);
    }
    remove_dir(dir);
    return r;
}
