/*
 * zestall-exit-thread: a process that ends by calling exit() on a thread
 * other than main while other threads are still launching (issue 14).
 *   zestall-exit-thread [launcher threads = 3] [launches before exit = 20000] [imm|regular|mixed]
 * Each launcher thread launches one small kernel in an endless loop, on its
 * own immediate list or on a regular list executed every 256 launches
 * ("mixed": even threads immediate, odd threads regular). One more thread
 * waits until the launchers together made the given number of launches,
 * prints a line and calls exit(0) while they keep launching; main blocks
 * in pthread_join on it and never returns. So the process's destructors
 * (the loader's, the driver's and a profiler's) run on that thread while
 * the launchers are inside Level-Zero calls. The expected outcome is
 * status 0 and the line on stdout; a crash at exit is a defect of whoever
 * crashed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "app_common.h"

#define BATCH 256

static app_env_t env;
static ze_module_handle_t mod;
static char *kname;
static atomic_long launched;
static int mode; /* 0 imm, 1 regular, 2 mixed */

static void *launcher(void *arg) {
    long index = (long)(intptr_t)arg;
    bool immediate = mode == 0 || (mode == 2 && index % 2 == 0);
    void *bufs[1] = {app_alloc_device(&env, 4096)};
    ze_kernel_handle_t k = app_kernel(mod, kname);
    app_set_args(k, kname, bufs, 1, 1, 64);
    ze_command_queue_handle_t q = NULL;
    ze_command_list_handle_t l;
    if (immediate) {
        l = app_imm_list_at(&env, env.compute_ordinal, (uint32_t)index % env.compute_queues, 0);
    } else {
        q = app_queue(&env, env.compute_ordinal);
        l = app_list(&env, env.compute_ordinal);
    }
    ze_group_count_t g = {1, 1, 1};
    for (long i = 0;; i++) {
        /* Results are not checked: once exit() has begun, the driver may be
         * torn down under this thread, and what it returns then is no
         * longer this test's question (only that nothing crashes). */
        zeCommandListAppendLaunchKernel(l, k, &g, NULL, 0, NULL);
        atomic_fetch_add_explicit(&launched, 1, memory_order_relaxed);
        if (!immediate && (i + 1) % BATCH == 0) {
            zeCommandListClose(l);
            zeCommandQueueExecuteCommandLists(q, 1, &l, NULL);
            zeCommandQueueSynchronize(q, UINT64_MAX);
            zeCommandListReset(l);
        }
    }
    return NULL;
}

static long exit_after;

static void *exiter(void *arg) {
    (void)arg;
    struct timespec ts = {0, 100000}; /* 0.1 ms */
    while (atomic_load_explicit(&launched, memory_order_relaxed) < exit_after) nanosleep(&ts, NULL);
    printf("exit-thread: exit(0) after %ld launches\n", atomic_load(&launched));
    fflush(stdout);
    exit(0);
}

int main(int argc, char **argv) {
    long threads = 3;
    exit_after = 20000;
    if (argc > 1) threads = strtol(argv[1], NULL, 0);
    if (argc > 2) exit_after = strtol(argv[2], NULL, 0);
    if (argc > 3) {
        if (strcmp(argv[3], "imm") == 0) mode = 0;
        else if (strcmp(argv[3], "regular") == 0) mode = 1;
        else if (strcmp(argv[3], "mixed") == 0) mode = 2;
        else app_die("mode must be imm, regular or mixed");
    }
    if (threads < 1 || threads > 64 || exit_after < 0)
        app_die("usage: zestall-exit-thread [launcher threads] [launches before exit] [imm|regular|mixed]");
    app_init(&env);
    mod = app_module(&env, "stream");
    char **names;
    uint32_t nk;
    kname = app_first_kernel_name(mod, &names, &nk);
    for (long i = 0; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, launcher, (void *)(intptr_t)i) != 0) app_die("pthread_create");
    }
    pthread_t e;
    if (pthread_create(&e, NULL, exiter, NULL) != 0) app_die("pthread_create");
    pthread_join(e, NULL);
    app_die("the exiting thread returned");
    return 1;
}
