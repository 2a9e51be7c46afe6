/*
 * zestall-fork: fork() without exec after Level-Zero is in use
 * (docs/level-zero-loader.md §10 "Hazards",
 * P8: a Go runtime that runs, and allocates, in a forked child
 * hangs it, because the child has only the forking thread).
 *
 * The parent initialises Level Zero, creates the stream module and its
 * kernels, launches every kernel a few times and synchronises. Then it
 * fork()s. The child calls zeInit again, sets everything up anew and runs
 * `rounds` (argument, default 200) rounds of: create the module and its
 * kernels, allocate and free device memory, launch every kernel, sync,
 * destroy everything. Each round is one module and several kernels a
 * profiler would copy (zebin + debug info): far more than a Go heap needs to
 * start a garbage collection if Go code ran in the child. The child exits
 * with exit() (destructors run) and status 0, or with _exit() when the
 * second argument is "_exit". With a third argument "inherit" the child
 * finally destroys the objects it inherited from the parent (event, pool,
 * immediate list, context), as a runtime's cleanup code in a forked worker
 * would; the parent's copies are untouched by that.
 *
 * With a fourth argument `forks` (default 1) the parent repeats "one round,
 * fork, wait" that many times: repeated forks land at random moments of
 * whatever a profiler's own threads are doing (holding a lock, inside the
 * driver), which a single fork rarely hits.
 *
 * The parent waits for each child at most 30 s (then kills it and exits 2:
 * "child hung"; 3 when the child failed), checks its status, runs one more
 * round of its own, and prints a deterministic summary. Every line is flushed before fork so no
 * buffered output is duplicated.
 */
#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app_common.h"

#define N 1024
#define PARENT_LAUNCHES 3
#define CHILD_WAIT_SECONDS 30

/* One round on an initialised environment: module, kernels, memory,
 * `launches` launches of every kernel, sync, teardown. Returns launches. */
static long round_trip(app_env_t *env, ze_command_list_handle_t imm, ze_event_handle_t done, int launches) {
    ze_module_handle_t m = app_module(env, "stream");
    char **names;
    uint32_t nk = app_kernel_names(m, &names);
    if (nk == 0) app_die("module has no kernels");
    void *bufs[3] = {app_alloc_device(env, N * 4), app_alloc_device(env, N * 4), app_alloc_shared(env, N * 4)};
    ze_group_count_t g = {N / 64, 1, 1};
    long n = 0;
    ze_kernel_handle_t *k = app_kernels(m, names, nk, bufs);
    for (int it = 0; it < launches; it++)
        for (uint32_t i = 0; i < nk; i++, n++) CK(zeCommandListAppendLaunchKernel(imm, k[i], &g, NULL, 0, NULL));
    CK(zeCommandListAppendBarrier(imm, done, 0, NULL));
    CK(zeEventHostSynchronize(done, UINT64_MAX));
    CK(zeEventHostReset(done));
    for (uint32_t i = 0; i < nk; i++) CK(zeKernelDestroy(k[i]));
    for (int i = 0; i < 3; i++) CK(zeMemFree(env->context, bufs[i]));
    CK(zeModuleDestroy(m));
    app_free_names(names, nk);
    free(k);
    return n;
}

typedef struct {
    app_env_t env;
    ze_command_list_handle_t imm;
    ze_event_pool_handle_t pool;
    ze_event_handle_t done;
} setup_t;

static void setup(setup_t *s) {
    app_init(&s->env);
    s->imm = app_imm_list(&s->env, s->env.compute_ordinal, 0);
    s->pool = app_pool(&s->env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    s->done = app_event(s->pool, 0, true);
}

static void teardown(setup_t *s) {
    CK(zeEventDestroy(s->done));
    CK(zeEventPoolDestroy(s->pool));
    CK(zeCommandListDestroy(s->imm));
    app_fini(&s->env);
}

static int child(long rounds, int use_exit, setup_t *inherited) {
    setup_t s;
    setup(&s); /* zeInit again, new context */
    long launches = 0;
    for (long r = 0; r < rounds; r++) {
        launches += round_trip(&s.env, s.imm, s.done, 2);
        /* plain heap churn as well */
        void *p = malloc(64 << 10);
        if (!p) app_die("out of memory");
        memset(p, (int)r, 64 << 10);
        free(p);
    }
    teardown(&s);
    /* Like a runtime's cleanup code running in a forked worker: destroy
     * the objects inherited from the parent, its context included. */
    if (inherited != NULL) teardown(inherited);
    printf("fork child: rounds %ld, launches %ld%s\n", rounds, launches,
           inherited ? ", parent's context destroyed" : "");
    fflush(stdout);
    if (!use_exit) _exit(0);
    exit(0);
}

/* Waits for the child with a deadline: a hung child is reported (exit 2),
 * not waited for forever. Returns 0 when it exited 0. */
static int wait_child(pid_t pid) {
    int status = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) {
            perror("waitpid");
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= CHILD_WAIT_SECONDS) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stderr, "error: fork child hung (killed after %d s)\n", CHILD_WAIT_SECONDS);
            return 2;
        }
        usleep(1000);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status))
            fprintf(stderr, "error: fork child killed by signal %d\n", WTERMSIG(status));
        else
            fprintf(stderr, "error: fork child exited with status %d\n", WEXITSTATUS(status));
        return 3;
    }
    return 0;
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? strtol(argv[1], NULL, 0) : 200;
    int use_exit = !(argc > 2 && strcmp(argv[2], "_exit") == 0);
    int inherit = argc > 3 && strcmp(argv[3], "inherit") == 0;
    long forks = argc > 4 ? strtol(argv[4], NULL, 0) : 1;
    if (rounds < 1 || rounds > 1000000 || forks < 1 || forks > 100000)
        app_die("usage: zestall-fork [child rounds] [exit|_exit] [inherit|keep] [forks]");

    setup_t s;
    setup(&s);
    long launches = 0;
    for (long f = 0; f < forks; f++) {
        launches += round_trip(&s.env, s.imm, s.done, PARENT_LAUNCHES);
        if (f == 0) printf("fork parent: before fork, launches %ld\n", launches);
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) return child(rounds, use_exit, inherit ? &s : NULL);
        int rc = wait_child(pid);
        if (rc != 0) {
            fprintf(stderr, "error: at fork %ld of %ld\n", f + 1, forks);
            return rc;
        }
    }
    /* The parent keeps using Level Zero after the fork. */
    launches += round_trip(&s.env, s.imm, s.done, PARENT_LAUNCHES);
    teardown(&s);
    printf("fork parent: %ld children exited 0, launches %ld\n", forks, launches);
    return 0;
}
