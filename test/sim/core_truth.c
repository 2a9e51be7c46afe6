/*
 * core_truth.c — the ground-truth file (ZESIM_GROUND_TRUTH): opening it with
 * its config line, writing lines under one lock, flushing (also at fork and
 * at exit).
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t gt_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *gt_file;
static atomic_bool gt_failed;

bool sim_gt_enabled(void) { return sim_cfg.ground_truth_path != NULL && !atomic_load(&gt_failed); }

/* fork(): flush first, so that parent and child do not both write the
 * lines buffered before the fork. */
static void gt_atfork_prepare(void) {
    pthread_mutex_lock(&gt_lock);
    if (gt_file != NULL) fflush(gt_file);
}
static void gt_atfork_done(void) { pthread_mutex_unlock(&gt_lock); }

static const char *kmd_name(void) { return sim_cfg.kmd == SIM_KMD_XE ? "xe" : "i915"; }

/* Called with gt_lock held. */
static bool gt_open_locked(void) {
    if (gt_file != NULL) return true;
    if (atomic_load(&gt_failed) || sim_cfg.ground_truth_path == NULL) return false;
    int fd = open(sim_cfg.ground_truth_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) gt_file = fdopen(fd, "w");
    if (gt_file == NULL) {
        if (fd >= 0) close(fd);
        atomic_store(&gt_failed, true);
        fprintf(stderr, "zesim: cannot open ZESIM_GROUND_TRUTH=\"%s\": %s\n", sim_cfg.ground_truth_path,
                strerror(errno));
        return false;
    }
    setvbuf(gt_file, NULL, _IOFBF, 1 << 16);
    char name[256], mask[256];
    fprintf(gt_file,
            "{\"type\":\"config\",\"model\":\"%s\",\"device_name\":\"%s\",\"device_id\":%u,"
            "\"hierarchy\":\"%s\",\"tiles\":%u,\"xecores_per_tile\":%u,\"eus_per_xecore\":%u,"
            "\"threads_per_eu\":%u,\"timestamp_hz\":%llu,\"timestamp_valid_bits\":%u,"
            "\"kernel_timestamp_valid_bits\":%u,\"timestamp_offset_ticks\":%llu,\"seed\":%llu,"
            "\"kmd\":\"%s\",\"time_scale\":%.17g,\"cards\":%u,\"affinity_mask\":\"%s\",\"pid\":%ld,\"time_ns\":%llu}\n",
            sim_cfg.model_name, sim_json_str(sim_cfg.device_name, name, sizeof(name)), sim_cfg.device_id,
            sim_cfg.composite ? "COMPOSITE" : "FLAT", sim_cfg.tiles, sim_cfg.xecores_per_tile,
            sim_cfg.eus_per_xecore, sim_cfg.threads_per_eu, (unsigned long long)sim_cfg.timestamp_hz,
            sim_cfg.timestamp_valid_bits, sim_cfg.kernel_timestamp_valid_bits,
            (unsigned long long)sim_cfg.timestamp_offset_ticks, (unsigned long long)sim_cfg.seed, kmd_name(),
            sim_cfg.time_scale, sim_cfg.cards,
            sim_json_str(sim_cfg.affinity_mask ? sim_cfg.affinity_mask : "", mask, sizeof(mask)), (long)getpid(),
            (unsigned long long)sim_now_ns());
    return true;
}

void sim_gt_printf(const char *fmt, ...) {
    if (!sim_gt_enabled()) return;
    pthread_mutex_lock(&gt_lock);
    if (gt_open_locked()) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(gt_file, fmt, ap);
        va_end(ap);
        fputc('\n', gt_file);
    }
    pthread_mutex_unlock(&gt_lock);
}

void sim_gt_flush(void) {
    pthread_mutex_lock(&gt_lock);
    if (gt_file != NULL) fflush(gt_file);
    pthread_mutex_unlock(&gt_lock);
}

/* Called once by zeInit when the ground truth is on: fork handlers, and
 * the config line written at once, so that it exists even if nothing else
 * happens. */
void core_gt_start(void) {
    pthread_atfork(gt_atfork_prepare, gt_atfork_done, gt_atfork_done);
    pthread_mutex_lock(&gt_lock);
    gt_open_locked();
    pthread_mutex_unlock(&gt_lock);
}

__attribute__((destructor)) static void sim_core_fini(void) { sim_gt_flush(); }
