/*
 * sycl_app.c — a stand-in for a SYCL application and its runtime, written
 * by this project from docs/xpti.md §12.2 "Stand-in dispatcher and
 * runtime, written from the documented ABI". It loads the dispatcher the
 * way the runtime's XPTI proxy does (all entry points or none), initialises
 * the sycl, sycl.debug and ur.call streams, and on each of N threads makes
 * M "SYCL submissions" with the event order of the fast path
 * (docs/xpti.md §8.1 "Fast path (scheduler bypass)"): node_create (payload
 * with name, file, line, column; metadata kernel_name and sym_*; the
 * queue id stashed), edge_create from the thread's previous node,
 * task_begin, ur.call function_with_args_begin, a real
 * zeCommandListAppendLaunchKernel through the Level-Zero loader, _end,
 * signal, task_end. Every notification goes to the active SYCL stream
 * (sycl.debug as soon as anyone listens there: docs/xpti.md §10 "The sycl
 * / sycl.debug routing trap").
 *
 * Mixed in on purpose: a task nested in another on the same thread (the
 * outer task's own launch comes after the inner one ended), Level-Zero
 * launches outside any task, barrier and wait spans.
 *
 *   zestall-sycl-app THREADS SUBMISSIONS TRUTH
 *
 * Every eighth submission or so takes the scheduler path instead
 * (docs/xpti.md §8.2 "Scheduler path"): node_create on the submitting
 * thread, the task and its launch on a scheduler thread.
 *
 * TRUTH receives one line per kernel launch, what the submission carried:
 *   <tid> <sycl kernel name|-> <file|-> <line> <column> <level-zero kernel> <fast|sched|direct>
 * ("-" and 0 for a launch outside any task; tid is the appending thread).
 * Stdout is the same with and without XPTI and zestall. Each submission has
 * a source line of its own, unless SYCL_APP_SITES=n: then n call sites
 * per thread are used in turn (as a loop would).
 */
#include "../apps/app_common.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xpti_abi.h"

/* ---- the runtime's XPTI proxy -------------------------------------------- */

static struct {
    void (*framework_initialize)(void);
    void (*framework_finalize)(void);
    int32_t (*initialize)(const char *, uint32_t, uint32_t, const char *);
    void (*finalize)(const char *);
    bool (*trace_enabled)(void);
    bool (*check_trace_enabled)(uint16_t, uint16_t);
    uint8_t (*register_stream)(const char *);
    int32_t (*notify)(uint8_t, uint16_t, xpti_event_t *, xpti_event_t *, uint64_t, const void *);
    xpti_event_t *(*make_event)(const char *, xpti_payload_t *, uint16_t, int, uint64_t *);
    int32_t (*add_metadata)(xpti_event_t *, const char *, xpti_object_id_t);
    xpti_object_id_t (*register_object)(const char *, size_t, uint8_t);
    int32_t (*stash)(const char *, uint64_t);
    void (*unstash)(void);
} X;
static bool tracing;
static uint8_t sycl_stream, sycl_debug_stream, ur_stream;
static xpti_event_t *graph_event;

static bool env_on(const char *v) { return v != NULL && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0); }

/* All entry points or none, as the proxy does (docs/xpti.md §1.1 "Who
 * loads whom"). */
static void proxy_load(void) {
    const char *d = getenv("XPTI_FRAMEWORK_DISPATCHER");
    if (!env_on(getenv("XPTI_TRACE_ENABLE")) || d == NULL || *d == 0) return;
    void *h = dlopen(d, RTLD_LAZY);
    if (h == NULL) return;
    struct {
        void **slot;
        const char *name;
    } syms[] = {
        {(void **)&X.framework_initialize, "xptiFrameworkInitialize"},
        {(void **)&X.framework_finalize, "xptiFrameworkFinalize"},
        {(void **)&X.initialize, "xptiInitialize"},
        {(void **)&X.finalize, "xptiFinalize"},
        {(void **)&X.trace_enabled, "xptiTraceEnabled"},
        {(void **)&X.check_trace_enabled, "xptiCheckTraceEnabled"},
        {(void **)&X.register_stream, "xptiRegisterStream"},
        {(void **)&X.notify, "xptiNotifySubscribers"},
        {(void **)&X.make_event, "xptiMakeEvent"},
        {(void **)&X.add_metadata, "xptiAddMetadata"},
        {(void **)&X.register_object, "xptiRegisterObject"},
        {(void **)&X.stash, "xptiStashTuple"},
        {(void **)&X.unstash, "xptiUnstashTuple"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(h, syms[i].name);
        if (*syms[i].slot == NULL) {
            dlclose(h);
            memset(&X, 0, sizeof X);
            return;
        }
    }
    if (!X.trace_enabled()) return;
    tracing = true;
    X.framework_initialize();
    const char *names[] = {"sycl", "sycl.debug", "ur.call"};
    uint8_t *ids[] = {&sycl_stream, &sycl_debug_stream, &ur_stream};
    for (int i = 0; i < 3; i++) {
        *ids[i] = X.register_stream(names[i]);
        X.initialize(names[i], 8, 0, "sycl 8.0");
    }
}

static uint8_t active_stream(void) {
    return X.check_trace_enabled(sycl_debug_stream, 0) ? sycl_debug_stream : sycl_stream;
}

static void notify(uint8_t stream, uint16_t type, xpti_event_t *parent, xpti_event_t *ev, uint64_t inst,
                   const void *ud) {
    if (tracing && X.check_trace_enabled(stream, type)) X.notify(stream, type, parent, ev, inst, ud);
}

/* ---- the application ------------------------------------------------------ */

static app_env_t env;
static ze_module_handle_t module;
static char **knames;
static uint32_t nk;
static void *bufs[3];
static long submissions;
static long sites; /* SYCL_APP_SITES: call sites per thread (0: one per submission) */

typedef struct {
    int index;
    FILE *truth; /* memory stream, merged at the end */
    char *text;
    size_t len;
    long launches, direct;
} worker_t;

typedef struct {
    xpti_event_t *ev;
    uint64_t inst;
} task_t;

static void mangle(char *out, size_t cap, const char *name) {
    /* what typeid(T).name() gives for a kernel-name class T declared in
     * main(): "Z4mainE" <length> <name> */
    snprintf(out, cap, "Z4mainE%zu%s", strlen(name), name);
}

/* node_create of one submission (and an edge from the thread's previous
 * node), with the queue id stashed; the caller unstashes. */
static task_t node_create(const char *sycl_name, const char *file, uint32_t line, uint32_t col, uint64_t queue_id,
                          xpti_event_t **prev_node) {
    task_t t = {NULL, 0};
    if (!tracing) return t;
    xpti_payload_t p = {.name = "worker", .source_file = file, .line_no = line, .column_no = col,
                        .flags = XPTI_PF_NAME | XPTI_PF_SOURCE | XPTI_PF_LINE | XPTI_PF_COLUMN};
    t.ev = X.make_event("ExecCG", &p, XPTI_EVENT_ALGORITHM, 0, &t.inst);
    char mangled[256];
    mangle(mangled, sizeof mangled, sycl_name);
    X.add_metadata(t.ev, "kernel_name", X.register_object(mangled, strlen(mangled), XPTI_META_STRING));
    X.add_metadata(t.ev, "sym_source_file_name", X.register_object(file, strlen(file), XPTI_META_STRING));
    int32_t l = (int32_t)line, c = (int32_t)col;
    X.add_metadata(t.ev, "sym_line_no", X.register_object((const char *)&l, 4, XPTI_META_SIGNED));
    X.add_metadata(t.ev, "sym_column_no", X.register_object((const char *)&c, 4, XPTI_META_SIGNED));
    X.stash("queue_id", queue_id);
    uint8_t s = active_stream();
    notify(s, XPTI_NODE_CREATE, graph_event, t.ev, t.inst, "command_group_node");
    if (*prev_node != NULL) {
        uint64_t ei;
        xpti_payload_t ep = {.name = "edge", .flags = XPTI_PF_NAME};
        xpti_event_t *edge = X.make_event("edge", &ep, XPTI_EVENT_GRAPH, 0, &ei);
        edge->source_id = (int64_t)(*prev_node)->unique_id;
        edge->target_id = (int64_t)t.ev->unique_id;
        notify(s, XPTI_EDGE_CREATE, graph_event, edge, ei, NULL);
    }
    *prev_node = t.ev;
    return t;
}

static void task_begin_notify(task_t t) {
    if (tracing && t.ev != NULL) notify(active_stream(), XPTI_TASK_BEGIN, graph_event, t.ev, t.inst, NULL);
}

/* The fast path's node_create and task_begin on the submitting thread
 * (docs/xpti.md §8.1 "Fast path (scheduler bypass)"). */
static task_t task_begin(const char *sycl_name, const char *file, uint32_t line, uint32_t col, uint64_t queue_id,
                         xpti_event_t **prev_node) {
    task_t t = node_create(sycl_name, file, line, col, queue_id, prev_node);
    task_begin_notify(t);
    if (tracing) X.unstash();
    return t;
}

static void task_end(task_t t) {
    if (!tracing || t.ev == NULL) return;
    uint8_t s = active_stream();
    notify(s, XPTI_SIGNAL, graph_event, t.ev, t.inst, (const void *)0x1234);
    notify(s, XPTI_TASK_END, graph_event, t.ev, t.inst, NULL);
}

/* The UR call around the Level-Zero append, and the append itself. */
static void launch(worker_t *w, ze_command_list_handle_t l, ze_kernel_handle_t *k, uint32_t ki, const char *sycl,
                   const char *file, uint32_t line, uint32_t col, pid_t tid, const char *path) {
    xpti_event_t *ur = NULL;
    uint64_t ui = 0;
    if (tracing && sycl != NULL) {
        xpti_payload_t p = {.name = "urEnqueueKernelLaunch", .flags = XPTI_PF_NAME};
        ur = X.make_event("urEnqueueKernelLaunch", &p, XPTI_EVENT_ALGORITHM, 0, &ui);
        notify(ur_stream, XPTI_FUNCTION_WITH_ARGS_BEGIN, NULL, ur, ui, NULL);
    }
    ze_group_count_t g = {16, 1, 1};
    CK(zeCommandListAppendLaunchKernel(l, k[ki], &g, NULL, 0, NULL));
    if (ur != NULL) notify(ur_stream, XPTI_FUNCTION_WITH_ARGS_END, NULL, ur, ui, NULL);
    char mangled[256];
    if (sycl != NULL) mangle(mangled, sizeof mangled, sycl);
    fprintf(w->truth, "%d %s %s %u %u %s %s\n", (int)tid, sycl ? sycl : "-", sycl ? file : "-", sycl ? line : 0,
            sycl ? col : 0, knames[ki], path);
    w->launches++;
}

/* Waits until everything appended to l ran. */
static void sync_list(ze_command_list_handle_t l, ze_event_handle_t done) {
    CK(zeCommandListAppendBarrier(l, done, 0, NULL));
    CK(zeEventHostSynchronize(done, UINT64_MAX));
    CK(zeEventHostReset(done));
}

static void span(uint16_t begin, const char *name, ze_command_list_handle_t l, ze_event_handle_t done) {
    xpti_event_t *ev = NULL;
    uint64_t inst = 0;
    if (tracing) {
        xpti_payload_t p = {.name = name, .flags = XPTI_PF_NAME};
        ev = X.make_event(name, &p, XPTI_EVENT_BARRIER, 0, &inst);
        notify(active_stream(), begin, graph_event, ev, inst, NULL);
    }
    sync_list(l, done);
    if (ev != NULL) notify(active_stream(), (uint16_t)(begin + 1), graph_event, ev, inst, NULL);
}

/* ---- the scheduler path (docs/xpti.md §8.2 "Scheduler path") -------------
 * node_create on the submitting thread; task_begin, the append, signal
 * and task_end later on the scheduler's thread. The submitter waits for
 * its job, so its command list is never used by two threads at once. */

typedef struct {
    worker_t *w;
    ze_command_list_handle_t l;
    ze_kernel_handle_t *k;
    uint32_t ki, line, col;
    const char *sycl, *file;
    task_t t;
    bool done;
} job_t;

static pthread_mutex_t sched_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sched_cv = PTHREAD_COND_INITIALIZER;
static job_t *sched_job;
static bool sched_stop;

static void *scheduler(void *arg) {
    (void)arg;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    pthread_mutex_lock(&sched_mu);
    for (;;) {
        while (sched_job == NULL && !sched_stop) pthread_cond_wait(&sched_cv, &sched_mu);
        if (sched_job == NULL) break;
        job_t *j = sched_job;
        sched_job = NULL;
        pthread_mutex_unlock(&sched_mu);
        task_begin_notify(j->t);
        launch(j->w, j->l, j->k, j->ki, j->sycl, j->file, j->line, j->col, tid, "sched");
        task_end(j->t);
        pthread_mutex_lock(&sched_mu);
        j->done = true;
        pthread_cond_broadcast(&sched_cv);
    }
    pthread_mutex_unlock(&sched_mu);
    return NULL;
}

static void schedule(job_t *j) {
    pthread_mutex_lock(&sched_mu);
    while (sched_job != NULL) pthread_cond_wait(&sched_cv, &sched_mu);
    sched_job = j;
    pthread_cond_broadcast(&sched_cv);
    while (!j->done) pthread_cond_wait(&sched_cv, &sched_mu);
    pthread_mutex_unlock(&sched_mu);
}

static void *worker(void *arg) {
    worker_t *w = arg;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    w->truth = open_memstream(&w->text, &w->len);
    if (w->truth == NULL) app_die("open_memstream");
    ze_command_list_handle_t l = app_imm_list(&env, env.compute_ordinal, APP_COMMAND_QUEUE_FLAG_IN_ORDER);
    ze_event_pool_handle_t pool = app_pool(&env, 0, 1);
    ze_event_handle_t done = app_event(pool, 0, true);
    ze_kernel_handle_t *k = calloc(nk, sizeof *k);
    if (k == NULL) app_die("out of memory");
    for (uint32_t i = 0; i < nk; i++) {
        k[i] = app_kernel(module, knames[i]);
        app_set_args(k[i], knames[i], bufs, 3, 64, 256);
    }
    char file[64], sycl[128], inner_sycl[128];
    snprintf(file, sizeof file, "src/worker%d.cpp", w->index);
    xpti_event_t *prev = NULL;
    uint64_t queue_id = 100 + (uint64_t)w->index;
    for (long i = 0; i < submissions; i++) {
        uint32_t ki = (uint32_t)((w->index + i) % nk);
        uint32_t site = (uint32_t)(sites > 0 ? i % sites : i);
        uint32_t line = 100 + site, col = 1 + (uint32_t)w->index;
        snprintf(sycl, sizeof sycl, "K%d_%s", w->index, knames[ki]);
        if (i % 8 == 5 && i % 10 != 3) {
            job_t j = {.w = w, .l = l, .k = k, .ki = ki, .line = line, .col = col, .sycl = sycl, .file = file};
            j.t = node_create(sycl, file, line, col, queue_id, &prev);
            if (tracing) X.unstash();
            schedule(&j);
        } else {
            task_t t = task_begin(sycl, file, line, col, queue_id, &prev);
            if (i % 10 == 3) {
                /* a task nested in this one, with its own launch first */
                uint32_t kj = (ki + 1) % nk;
                snprintf(inner_sycl, sizeof inner_sycl, "Inner%d_%s", w->index, knames[kj]);
                task_t in = task_begin(inner_sycl, file, 5000 + site, col, queue_id, &prev);
                launch(w, l, k, kj, inner_sycl, file, 5000 + site, col, tid, "fast");
                task_end(in);
            }
            launch(w, l, k, ki, sycl, file, line, col, tid, "fast");
            task_end(t);
        }
        if (i % 16 == 7) {
            launch(w, l, k, ki, NULL, NULL, 0, 0, tid, "direct"); /* direct Level Zero, outside any task */
            w->direct++;
        }
        if (i % 50 == 49) span(XPTI_WAIT_BEGIN, "queue.wait", l, done);
        if (i % 25 == 24) span(XPTI_BARRIER_BEGIN, "barrier", l, done);
    }
    sync_list(l, done);
    CK(zeEventDestroy(done));
    CK(zeEventPoolDestroy(pool));
    for (uint32_t i = 0; i < nk; i++) CK(zeKernelDestroy(k[i]));
    free(k);
    CK(zeCommandListDestroy(l));
    fclose(w->truth);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) app_die("usage: zestall-sycl-app THREADS SUBMISSIONS TRUTH");
    int threads = atoi(argv[1]);
    submissions = atol(argv[2]);
    sites = getenv("SYCL_APP_SITES") ? atol(getenv("SYCL_APP_SITES")) : 0;
    if (threads < 1 || threads > 64 || submissions < 1) app_die("bad arguments");
    proxy_load(); /* the runtime initialises XPTI before the device */
    if (tracing) {
        uint64_t gi;
        graph_event = X.make_event("sycl.application.graph", NULL, XPTI_EVENT_GRAPH, 0, &gi);
        notify(active_stream(), XPTI_GRAPH_CREATE, NULL, graph_event, gi, NULL);
    }
    app_init(&env);
    module = app_module(&env, "stream");
    nk = app_kernel_names(module, &knames);
    if (nk == 0) app_die("module has no kernels");
    for (int i = 0; i < 3; i++) bufs[i] = app_alloc_device(&env, 1 << 16);

    pthread_t sched;
    if (pthread_create(&sched, NULL, scheduler, NULL) != 0) app_die("pthread_create");
    worker_t *w = calloc((size_t)threads, sizeof *w);
    pthread_t *th = calloc((size_t)threads, sizeof *th);
    if (w == NULL || th == NULL) app_die("out of memory");
    for (int i = 0; i < threads; i++) {
        w[i].index = i;
        if (pthread_create(&th[i], NULL, worker, &w[i]) != 0) app_die("pthread_create");
    }
    FILE *truth = fopen(argv[3], "w");
    if (truth == NULL) app_die("cannot write the truth file");
    long launches = 0, direct = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        fwrite(w[i].text, 1, w[i].len, truth);
        free(w[i].text);
        launches += w[i].launches;
        direct += w[i].direct;
    }
    fclose(truth);
    pthread_mutex_lock(&sched_mu);
    sched_stop = true;
    pthread_cond_broadcast(&sched_cv);
    pthread_mutex_unlock(&sched_mu);
    pthread_join(sched, NULL);
    for (int i = 0; i < 3; i++) CK(zeMemFree(env.context, bufs[i]));
    CK(zeModuleDestroy(module));
    app_fini(&env);
    app_free_names(knames, nk);
    if (tracing) {
        const char *names[] = {"sycl", "sycl.debug", "ur.call"};
        for (int i = 0; i < 3; i++) X.finalize(names[i]);
        X.framework_finalize();
    }
    printf("sycl-app: threads %d, submissions %ld, launches %ld, outside tasks %ld\n", threads, submissions,
           launches, direct);
    free(w);
    free(th);
    return 0;
}
