/*
 * control.c — the public control API and the toggle signal.
 *
 * zestall_start(), zestall_stop() and zestall_flush() are exported by
 * libzestall.so for applications (C, C++, Python ctypes); layer/zestall.h
 * declares them weak so the same calls are no-ops when zestall is not
 * loaded. They hand the request to Go and return: they never wait for
 * I/O. A call made before the application's first zeInit is remembered
 * and applied when zestall becomes active.
 *
 * The toggle signal's handler only counts (async-signal-safe); Go polls
 * the count and applies the toggles.
 */
#include "control.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "_cgo_export.h"
#include "launch.h"
#include "layer.h"

static atomic_uint_fast64_t sig_count, sig_last_ns;
static atomic_int early_request;

static void on_toggle_signal(int sig) {
    (void)sig;
    int saved = errno;
    atomic_store(&sig_last_ns, zl_now_ns());
    atomic_fetch_add(&sig_count, 1);
    errno = saved;
}

int zc_install_signal(int sig) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) return -1;
    if ((old.sa_flags & SA_SIGINFO) || (old.sa_handler != SIG_DFL)) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_toggle_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL) == 0 ? 1 : -1;
}

uint64_t zc_signal_count(uint64_t *last_ns) {
    *last_ns = atomic_load(&sig_last_ns);
    return atomic_load(&sig_count);
}

int zc_early_request(void) { return atomic_load(&early_request); }

/* 0: done or remembered; -1: zestall is not collecting in this process
 * (tracing layer off, zeInit failed, exiting, or a forked child). */
static int control(int op) {
    int st = zestall_state();
    if (st == ZESTALL_STATE_IDLE) {
        if (op == ZC_OP_START || op == ZC_OP_ITT_RESUME) atomic_store(&early_request, ZC_OP_START);
        if (op == ZC_OP_STOP || op == ZC_OP_ITT_PAUSE) atomic_store(&early_request, ZC_OP_STOP);
        return 0;
    }
    if (st != ZESTALL_STATE_ACTIVE || zestall_in_fork_child()) return -1;
    return zestallControl(op);
}

/* ITT compatibility. Intel's ittnotify static part, linked into
 * applications, dlopens the library INTEL_LIBITTNOTIFY64 names. A library
 * exporting neither __itt_api_init nor __itt_api_version is a "legacy"
 * collector: ittnotify resolves each API function by its name, here
 * __itt_pause and __itt_resume, with dlsym. So with
 * INTEL_LIBITTNOTIFY64=/path/to/libzestall.so, __itt_pause() and
 * __itt_resume() stop and start zestall. */
__attribute__((visibility("default"))) void __itt_pause(void) { (void)control(ZC_OP_ITT_PAUSE); }
__attribute__((visibility("default"))) void __itt_resume(void) { (void)control(ZC_OP_ITT_RESUME); }

__attribute__((visibility("default"))) int zestall_start(void) { return control(ZC_OP_START); }
__attribute__((visibility("default"))) int zestall_stop(void) { return control(ZC_OP_STOP); }
__attribute__((visibility("default"))) int zestall_flush(void) { return control(ZC_OP_FLUSH); }
