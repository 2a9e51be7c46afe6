/*
 * xpti.c — libzestall.so as an XPTI subscriber of the SYCL runtime.
 *
 * One loaded instance serves both roles, Level-Zero layer and XPTI
 * subscriber (docs/xpti.md §11 "One object for LD_PRELOAD and
 * XPTI_SUBSCRIBERS"): the C constructor below runs before the runtime
 * initialises XPTI and names this very file in XPTI_SUBSCRIBERS, so the
 * dispatcher's dlopen returns the instance that is already loaded.
 *
 * The callbacks run on the runtime's threads (docs/xpti.md §2.1 "Required
 * exports"), in C, with per-thread state and no lock on the common path:
 * the innermost open task of a thread is zx_tag, which the launch path
 * (launch.c) copies into the slot of every kernel appended on that thread
 * (docs/xpti.md §9 "Correlating a SYCL task with its Level-Zero launch").
 * Spans, nodes and edges go through a bounded lock-free ring that Go
 * drains; source locations are interned in a table Go reads. No XPTI
 * callback ever calls Go.
 */
#include "xpti.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- the XPTI ABI, as zestall reads it (docs/xpti.md §4, §5) ------------ */

/* xpti::trace_point_type_t values that did not change across versions
 * (docs/xpti.md §4.2 "xpti::trace_point_type_t (uint16)"). */
enum {
    ZX_TP_NODE_CREATE = 4,
    ZX_TP_EDGE_CREATE = 6,
    ZX_TP_TASK_BEGIN = 10,
    ZX_TP_TASK_END = 11,
    ZX_TP_BARRIER_BEGIN = 12,
    ZX_TP_BARRIER_END = 13,
    ZX_TP_WAIT_BEGIN = 22,
    ZX_TP_WAIT_END = 23,
};

/* payload_t flags (docs/xpti.md §4.3 "Other enumerations"). */
enum { ZX_PF_NAME = 1, ZX_PF_SOURCE = 2, ZX_PF_LINE = 8, ZX_PF_COLUMN = 16 };
enum { ZX_META_STRING = 1, ZX_META_SIGNED = 2, ZX_META_UNSIGNED = 3 };

/* xpti::payload_t, 80 bytes (docs/xpti.md §5.1 "xpti::payload_t — 80
 * bytes (legacy and current generation)"). */
typedef struct {
    const char *name;
    const char *stack_trace;
    const char *source_file;
    uint32_t line_no;
    uint32_t column_no;
    const void *code_ptr_va;
    uint64_t internal;
    uint64_t flags;
    uint64_t uid[3];
} zx_payload_t;
_Static_assert(sizeof(zx_payload_t) == 80, "payload_t is 80 bytes");

/* The legacy prefix of trace_event_data_t: only unique_id (the node id)
 * and, for edges, source_id/target_id are read (docs/xpti.md §5.2
 * "xpti::trace_event_data_t — treat as opaque"). */
typedef struct {
    uint64_t unique_id;
    uint64_t data_id;
    uint64_t instance_id;
    uint16_t event_type;
    uint16_t activity_type;
    uint32_t unused;
    int64_t source_id;
    int64_t target_id;
} zx_event_prefix_t;

/* xpti::object_data_t, returned by value (docs/xpti.md §5.4). */
typedef struct {
    size_t size;
    const char *data;
    uint8_t type;
} zx_object_t;

typedef void (*zx_callback_t)(uint16_t, void *, void *, uint64_t, const void *);

/* Dispatcher entry points (docs/xpti.md §3.1 "Signatures"), looked up at
 * run time: zestall never links the dispatcher. */
static struct {
    uint8_t (*register_stream)(const char *);
    int32_t (*register_callback)(uint8_t, uint16_t, zx_callback_t);
    const zx_payload_t *(*query_payload)(void *);
    void *(*query_metadata)(void *);
    int32_t (*register_string)(const char *, char **);
    zx_object_t (*lookup_object)(int32_t);
    int32_t (*get_stashed_tuple)(char **, uint64_t *);
    bool (*check_trace_enabled)(uint16_t, uint16_t);
} xf;

/* ---- what the constructor decided ---------------------------------------- */

static zx_setup_t setup = {.subscribers = "", .dispatcher = "", .problem = ""};
static atomic_int streams_registered;
static char self_path[4096];
static const char instance_var[] = "ZESTALL_XPTI_INSTANCE";

void zx_get_setup(zx_setup_t *out) {
    *out = setup;
    out->streams = atomic_load(&streams_registered);
}

static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Is a XPTI_SUBSCRIBERS entry this library? The same file (also through a
 * symlink), or a bare name equal to this file's name (found through the
 * library path, as unitrace does). */
static bool names_self(const char *entry) {
    if (*entry == 0) return false;
    if (strchr(entry, '/') != NULL) return same_file(entry, self_path);
    const char *base = strrchr(self_path, '/');
    return strcmp(entry, base ? base + 1 : self_path) == 0;
}

static bool env_off(const char *v) { return v != NULL && (strcmp(v, "0") == 0 || strcmp(v, "false") == 0); }

/* Enables XPTI for the application before its SYCL runtime initialises
 * (docs/xpti.md §1.2 "Environment variables", §11 "One object for
 * LD_PRELOAD and XPTI_SUBSCRIBERS"). A C constructor, not Go's init: Go's
 * package initialisation of a c-shared library may finish after other
 * constructors ran. */
__attribute__((constructor)) static void zx_ctor(void) {
    if (env_off(getenv("ZESTALL_XPTI"))) {
        setup.state = ZX_XPTI_OFF_USER;
        return;
    }
    Dl_info info;
    if (dladdr((void *)zx_ctor, &info) == 0 || info.dli_fname == NULL) return;
    if (realpath(info.dli_fname, self_path) == NULL) {
        snprintf(self_path, sizeof self_path, "%s", info.dli_fname);
    }
    /* A second copy of this library in the process (another file, e.g.
     * given as subscriber): its XPTI state would never reach the launch
     * path of the preloaded instance. The process image is named by its
     * pid and where the kernel put its AT_RANDOM bytes (on the new
     * image's randomised stack): an exec keeps the pid and the
     * environment (shell wrappers, pyenv shims) and must not make the
     * new image's instance look like a copy. (The bytes themselves are
     * no name: Go's runtime overwrites them once it has used them.) */
    uint64_t rnd = (uint64_t)getauxval(AT_RANDOM);
    char image[64], mine[96];
    int ni = snprintf(image, sizeof image, "%ld:%016llx:", (long)getpid(), (unsigned long long)rnd);
    snprintf(mine, sizeof mine, "%s%p", image, (void *)zx_ctor);
    const char *first = getenv(instance_var);
    if (first != NULL && strncmp(first, image, (size_t)ni) == 0 && strcmp(first, mine) != 0) {
        setup.state = ZX_XPTI_SECOND_COPY;
        fprintf(stderr,
                "zestall: %s is a second copy of libzestall.so in this process (loaded as an XPTI subscriber?); "
                "it ignores XPTI: name the preloaded file itself in XPTI_SUBSCRIBERS, or leave XPTI_SUBSCRIBERS "
                "alone (zestall adds itself)\n",
                self_path);
        return;
    }
    setenv(instance_var, mine, 1);

    const char *enable = getenv("XPTI_TRACE_ENABLE");
    if (env_off(enable)) {
        setup.state = ZX_XPTI_OFF_ENV;
        return;
    }
    if (enable == NULL || *enable == 0) setenv("XPTI_TRACE_ENABLE", "1", 1);
    const char *disp = getenv("XPTI_FRAMEWORK_DISPATCHER");
    if (disp == NULL || *disp == 0) setenv("XPTI_FRAMEWORK_DISPATCHER", "libxptifw.so", 1);

    const char *subs = getenv("XPTI_SUBSCRIBERS");
    bool listed = false;
    int others = 0;
    if (subs != NULL) {
        char *copy = strdup(subs);
        if (copy != NULL) {
            char *save = NULL;
            for (char *e = strtok_r(copy, ",", &save); e != NULL; e = strtok_r(NULL, ",", &save)) {
                if (names_self(e))
                    listed = true;
                else if (*e != 0)
                    others++;
            }
            free(copy);
        }
    }
    setup.debug_policy = others > 0;
    if (listed) {
        setup.state = ZX_XPTI_LISTED;
    } else {
        size_t n = (subs ? strlen(subs) : 0) + strlen(self_path) + 2;
        char *v = malloc(n);
        if (v == NULL) return;
        if (subs != NULL && *subs != 0)
            snprintf(v, n, "%s,%s", subs, self_path);
        else
            snprintf(v, n, "%s", self_path);
        setenv("XPTI_SUBSCRIBERS", v, 1);
        free(v);
        setup.state = others > 0 ? ZX_XPTI_APPENDED : ZX_XPTI_ENABLED;
    }
    /* The values the runtime will read, kept for the file's header. */
    setup.subscribers = strdup(getenv("XPTI_SUBSCRIBERS") ? getenv("XPTI_SUBSCRIBERS") : "");
    setup.dispatcher = strdup(getenv("XPTI_FRAMEWORK_DISPATCHER") ? getenv("XPTI_FRAMEWORK_DISPATCHER") : "");
    if (setup.subscribers == NULL) setup.subscribers = "";
    if (setup.dispatcher == NULL) setup.dispatcher = "";
}

/* ---- the record ring: many producers, one consumer (Go) ------------------ */

#define ZX_RING 65536 /* records (88 bytes each); a power of two */

/* A bounded queue of cells with sequence numbers (many producers, one
 * consumer). A cell's seq is stored minus its index, so that a zeroed
 * cell is an empty one of the first lap: the ring comes from calloc and
 * its pages are touched only as far as it ever fills. */
typedef struct {
    _Atomic uint64_t seq;
    zx_record_t rec;
} zx_cell_t;

#define ZX_IDX(pos) ((pos) & (ZX_RING - 1))

static zx_cell_t *ring;
static _Atomic uint64_t ring_head; /* next position to fill */
static _Atomic uint64_t ring_tail; /* next position to drain (written by Go's goroutine only) */
static atomic_ullong lost, tasks;

static void ring_init(void) {
    ring = calloc(ZX_RING, sizeof(zx_cell_t));
}

static uint64_t now_ns(void);
static atomic_bool draining; /* Go drains the ring (a session collects) */

/* How long a full ring may hold back the notifying thread before the
 * record is dropped (counted): a burst waits for the drain instead of
 * losing records. Once a wait ran out, threads drop at once until the
 * drain moves again, so a stalled drain costs the application one such
 * wait, not one per record. */
#define ZX_FULL_WAIT_NS 20000000
static _Atomic uint64_t stuck_at = UINT64_MAX; /* ring_tail when a wait ran out */

static void push(const zx_record_t *rec) {
    if (ring == NULL) {
        atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
        return;
    }
    uint64_t pos = atomic_load_explicit(&ring_head, memory_order_relaxed);
    uint64_t waited_since = 0;
    zx_cell_t *c;
    for (;;) {
        c = &ring[ZX_IDX(pos)];
        uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire) + ZX_IDX(pos);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&ring_head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
        } else if (dif < 0) {
            /* full: wait for the drain, bounded; no drain, no wait */
            uint64_t now = now_ns(), tail = atomic_load_explicit(&ring_tail, memory_order_relaxed);
            if (waited_since == 0) waited_since = now;
            bool gave_up = atomic_load_explicit(&stuck_at, memory_order_relaxed) == tail;
            if (!atomic_load_explicit(&draining, memory_order_relaxed) || gave_up ||
                now - waited_since > ZX_FULL_WAIT_NS) {
                if (!gave_up) atomic_store_explicit(&stuck_at, tail, memory_order_relaxed);
                atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
                return;
            }
            sched_yield();
            pos = atomic_load_explicit(&ring_head, memory_order_relaxed);
        } else {
            pos = atomic_load_explicit(&ring_head, memory_order_relaxed);
        }
    }
    c->rec = *rec;
    atomic_store_explicit(&c->seq, pos + 1 - ZX_IDX(pos), memory_order_release);
}

uint32_t zx_drain(zx_record_t *dst, uint32_t cap) {
    uint32_t n = 0;
    atomic_store_explicit(&draining, true, memory_order_relaxed);
    if (ring == NULL) return 0;
    uint64_t tail = atomic_load_explicit(&ring_tail, memory_order_relaxed);
    while (n < cap) {
        zx_cell_t *c = &ring[ZX_IDX(tail)];
        if (atomic_load_explicit(&c->seq, memory_order_acquire) + ZX_IDX(tail) != tail + 1) break;
        dst[n++] = c->rec;
        atomic_store_explicit(&c->seq, tail + ZX_RING - ZX_IDX(tail), memory_order_release);
        tail++;
    }
    atomic_store_explicit(&ring_tail, tail, memory_order_relaxed);
    return n;
}

void zx_stop_draining(void) { atomic_store(&draining, false); }
uint64_t zx_lost(void) { return atomic_load(&lost); }
uint64_t zx_tasks(void) { return atomic_load(&tasks); }

/* ---- source locations, interned ----------------------------------------- */

#define ZX_MAX_LOCS 16384 /* call sites; more are counted as lost */
#define ZX_LOC_HASH 32768 /* index slots; a power of two, > ZX_MAX_LOCS */

static zx_location_t locs[ZX_MAX_LOCS + 1]; /* [0] unused */
static uint64_t loc_hash[ZX_MAX_LOCS + 1];
static _Atomic uint32_t loc_index[ZX_LOC_HASH]; /* location ids, 0: empty */
static _Atomic uint32_t nlocs;
static pthread_mutex_t loc_mu = PTHREAD_MUTEX_INITIALIZER;

uint32_t zx_location_count(void) { return atomic_load_explicit(&nlocs, memory_order_acquire); }

const zx_location_t *zx_location(uint32_t id) {
    if (id == 0 || id > zx_location_count()) return NULL;
    return &locs[id];
}

/* A location's text, for interning: the strings are borrowed until
 * interned, then copied. kernel_name has a length (metadata strings are
 * not NUL-terminated: docs/xpti.md §5.5 "Metadata access rules"). */
typedef struct {
    const char *kernel;
    size_t kernel_len;
    const char *function, *file;
    uint32_t line, column;
} zx_key_t;

static uint64_t fnv(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

static uint64_t key_hash(const zx_key_t *k) {
    uint64_t h = 14695981039346656037ull;
    h = fnv(h, k->kernel, k->kernel_len);
    h = fnv(h, "\0", 1);
    h = fnv(h, k->function, strlen(k->function));
    h = fnv(h, "\0", 1);
    h = fnv(h, k->file, strlen(k->file));
    uint32_t lc[2] = {k->line, k->column};
    return fnv(h, (const char *)lc, sizeof lc);
}

static bool key_is(const zx_key_t *k, uint32_t id) {
    const zx_location_t *l = &locs[id];
    return l->line == k->line && l->column == k->column && strlen(l->kernel_name) == k->kernel_len &&
           memcmp(l->kernel_name, k->kernel, k->kernel_len) == 0 && strcmp(l->function_name, k->function) == 0 &&
           strcmp(l->file, k->file) == 0;
}

static uint32_t probe(const zx_key_t *k, uint64_t h, uint32_t *free_slot) {
    for (uint32_t i = 0; i < ZX_LOC_HASH; i++) {
        uint32_t slot = (uint32_t)(h + i) & (ZX_LOC_HASH - 1);
        uint32_t id = atomic_load_explicit(&loc_index[slot], memory_order_acquire);
        if (id == 0) {
            *free_slot = slot;
            return 0;
        }
        if (loc_hash[id] == h && key_is(k, id)) return id;
    }
    *free_slot = UINT32_MAX;
    return 0;
}

/* The id of a location, interned on first sight: lock-free when known,
 * a mutex only for a new call site. 0 when the table is full. */
static uint32_t intern(const zx_key_t *k) {
    uint64_t h = key_hash(k);
    uint32_t slot;
    uint32_t id = probe(k, h, &slot);
    if (id != 0) return id;
    pthread_mutex_lock(&loc_mu);
    id = probe(k, h, &slot);
    uint32_t n = atomic_load_explicit(&nlocs, memory_order_relaxed);
    if (id == 0 && slot != UINT32_MAX && n < ZX_MAX_LOCS) {
        char *kn = strndup(k->kernel, k->kernel_len), *fn = strdup(k->function), *file = strdup(k->file);
        if (kn != NULL && fn != NULL && file != NULL) {
            id = n + 1;
            locs[id] = (zx_location_t){kn, fn, file, k->line, k->column};
            loc_hash[id] = h;
            atomic_store_explicit(&nlocs, id, memory_order_release);
            atomic_store_explicit(&loc_index[slot], id, memory_order_release);
        } else {
            free(kn);
            free(fn);
            free(file);
        }
    }
    pthread_mutex_unlock(&loc_mu);
    if (id == 0) atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
    return id;
}

/* ---- per-thread state ---------------------------------------------------- */

__thread zx_tag_t zx_tag __attribute__((tls_model("initial-exec")));

#define ZX_DEPTH 16 /* open spans per thread */

typedef struct {
    const void *event;
    uint64_t instance, id, node, queue, begin;
    uint32_t location;
    uint8_t span, has_queue;
} zx_open_t;

static __thread struct {
    zx_open_t open[ZX_DEPTH];
    int n;
    uint32_t tid;
    /* The last node_create on this thread: task_begin of the same event
     * reuses its location (docs/xpti.md §8.1 "Fast path (scheduler
     * bypass)"). */
    const void *node_event;
    uint64_t node_instance, node_queue;
    uint32_t node_location;
    uint8_t node_has_queue;
} tl __attribute__((tls_model("initial-exec")));

static uint32_t tid(void) {
    if (tl.tid == 0) tl.tid = (uint32_t)syscall(SYS_gettid);
    return tl.tid;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Metadata keys, registered once the dispatcher is known. */
static int32_t key_kernel_name = -1, key_file = -1, key_line = -1, key_column = -1;

/* A metadata value of event: its object, or false. */
static bool meta(void *event, int32_t key, zx_object_t *out) {
    if (key < 0 || xf.query_metadata == NULL || xf.lookup_object == NULL) return false;
    void *map = xf.query_metadata(event);
    if (map == NULL) return false;
    int32_t obj = zx_metadata_find(map, key);
    if (obj < 0) return false;
    *out = xf.lookup_object(obj);
    return out->data != NULL;
}

static uint32_t meta_u32(const zx_object_t *o) {
    if (o->size == 4) {
        uint32_t v;
        memcpy(&v, o->data, 4);
        return v;
    }
    if (o->size == 8) {
        uint64_t v;
        memcpy(&v, o->data, 8);
        return (uint32_t)v;
    }
    return 0;
}

/* The source location of an event: payload name, file, line and column
 * (present on every stream, docs/xpti.md §8.4 "Metadata trimming on the
 * plain sycl stream"), kernel_name from the metadata; sym_* metadata only
 * when the payload has no source. */
static uint32_t location_of(void *event) {
    zx_key_t k = {.kernel = "", .function = "", .file = ""};
    const zx_payload_t *p = xf.query_payload ? xf.query_payload(event) : NULL;
    if (p != NULL) {
        if ((p->flags & ZX_PF_NAME) && p->name) k.function = p->name;
        if ((p->flags & ZX_PF_SOURCE) && p->source_file) k.file = p->source_file;
        if (p->flags & ZX_PF_LINE) k.line = p->line_no;
        if (p->flags & ZX_PF_COLUMN) k.column = p->column_no;
    }
    zx_object_t o;
    if (meta(event, key_kernel_name, &o) && o.type == ZX_META_STRING) {
        k.kernel = o.data;
        k.kernel_len = o.size;
        while (k.kernel_len > 0 && k.kernel[k.kernel_len - 1] == 0) k.kernel_len--;
    }
    char file[1024];
    if (*k.file == 0 && meta(event, key_file, &o) && o.type == ZX_META_STRING) {
        size_t n = o.size < sizeof file - 1 ? o.size : sizeof file - 1;
        memcpy(file, o.data, n);
        file[n] = 0;
        k.file = file;
        if (k.line == 0 && meta(event, key_line, &o)) k.line = meta_u32(&o);
        if (k.column == 0 && meta(event, key_column, &o)) k.column = meta_u32(&o);
    }
    if (*k.file == 0 && *k.function == 0 && k.kernel_len == 0) return 0;
    return intern(&k);
}

static bool stashed_queue(uint64_t *q) {
    char *key = NULL;
    uint64_t v = 0;
    if (xf.get_stashed_tuple == NULL || xf.get_stashed_tuple(&key, &v) != 0 || key == NULL) return false;
    if (strcmp(key, "queue_id") != 0) return false;
    *q = v;
    return true;
}

static uint64_t node_id(const void *event) { return event ? ((const zx_event_prefix_t *)event)->unique_id : 0; }

static void retag(void) {
    for (int i = tl.n - 1; i >= 0; i--) {
        if (tl.open[i].span == ZX_SPAN_TASK) {
            zx_tag.task = tl.open[i].id;
            zx_tag.location = tl.open[i].location;
            return;
        }
    }
    zx_tag.task = 0;
    zx_tag.location = 0;
}

static atomic_ullong next_task;

static void span_begin(uint8_t span, void *event, uint64_t instance) {
    if (tl.n == ZX_DEPTH) {
        atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
        return;
    }
    zx_open_t *o = &tl.open[tl.n];
    memset(o, 0, sizeof *o);
    o->span = span;
    o->event = event;
    o->instance = instance;
    o->node = node_id(event);
    if (span == ZX_SPAN_TASK) {
        o->id = atomic_fetch_add_explicit(&next_task, 1, memory_order_relaxed) + 1;
        if (event != NULL && event == tl.node_event && instance == tl.node_instance) {
            o->location = tl.node_location;
            o->queue = tl.node_queue;
            o->has_queue = tl.node_has_queue;
        } else {
            o->location = location_of(event);
            o->has_queue = stashed_queue(&o->queue);
        }
    } else if (event != NULL) {
        o->location = location_of(event);
    }
    tl.n++;
    o->begin = now_ns();
    if (span == ZX_SPAN_TASK) retag();
}

static void span_end(uint8_t span, void *event, uint64_t instance) {
    uint64_t end = now_ns();
    for (int i = tl.n - 1; i >= 0; i--) {
        zx_open_t *o = &tl.open[i];
        if (o->span != span || o->event != event || o->instance != instance) continue;
        zx_record_t r = {.begin_ns = o->begin, .end_ns = end, .id = o->id, .node = o->node, .queue = o->queue,
                         .instance = o->instance, .location = o->location, .tid = tid(), .kind = ZX_REC_SPAN,
                         .span = span, .has_queue = o->has_queue, .depth = (uint8_t)i};
        push(&r);
        if (span == ZX_SPAN_TASK) atomic_fetch_add_explicit(&tasks, 1, memory_order_relaxed);
        memmove(o, o + 1, (size_t)(tl.n - i - 1) * sizeof *o);
        tl.n--;
        if (span == ZX_SPAN_TASK) retag();
        return;
    }
    /* an end without its begin (the begin overflowed, or came before
     * zestall subscribed): nothing to close */
}

static void callback(uint16_t type, void *parent, void *event, uint64_t instance, const void *user_data) {
    (void)parent;
    (void)user_data;
    switch (type) {
    case ZX_TP_NODE_CREATE: {
        tl.node_event = event;
        tl.node_instance = instance;
        tl.node_location = location_of(event);
        tl.node_has_queue = stashed_queue(&tl.node_queue);
        zx_record_t r = {.begin_ns = now_ns(), .node = node_id(event), .queue = tl.node_queue,
                         .instance = instance, .location = tl.node_location, .tid = tid(), .kind = ZX_REC_NODE,
                         .has_queue = tl.node_has_queue};
        push(&r);
        break;
    }
    case ZX_TP_EDGE_CREATE: {
        if (event == NULL) break;
        const zx_event_prefix_t *e = event;
        zx_record_t r = {.begin_ns = now_ns(), .node = (uint64_t)e->source_id, .target = (uint64_t)e->target_id,
                         .tid = tid(), .kind = ZX_REC_EDGE};
        push(&r);
        break;
    }
    case ZX_TP_TASK_BEGIN: span_begin(ZX_SPAN_TASK, event, instance); break;
    case ZX_TP_TASK_END: span_end(ZX_SPAN_TASK, event, instance); break;
    case ZX_TP_BARRIER_BEGIN: span_begin(ZX_SPAN_BARRIER, event, instance); break;
    case ZX_TP_BARRIER_END: span_end(ZX_SPAN_BARRIER, event, instance); break;
    case ZX_TP_WAIT_BEGIN: span_begin(ZX_SPAN_WAIT, event, instance); break;
    case ZX_TP_WAIT_END: span_end(ZX_SPAN_WAIT, event, instance); break;
    }
}

/* ---- the subscriber exports (docs/xpti.md §2.1 "Required exports") ------- */

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static bool resolved;

static void *sym(void *h, const char *name) {
    void *p = h ? dlsym(h, name) : NULL;
    return p ? p : dlsym(RTLD_DEFAULT, name);
}

/* The dispatcher's functions, from the dispatcher already loaded (never a
 * second copy: RTLD_NOLOAD), docs/xpti.md §3.2 "Resolving them from a
 * subscriber that is not C++". */
static void resolve(void) {
    const char *name = getenv("XPTI_FRAMEWORK_DISPATCHER");
    void *h = (name && *name) ? dlopen(name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    xf.register_stream = (uint8_t(*)(const char *))sym(h, "xptiRegisterStream");
    xf.register_callback = (int32_t(*)(uint8_t, uint16_t, zx_callback_t))sym(h, "xptiRegisterCallback");
    xf.query_payload = (const zx_payload_t *(*)(void *))sym(h, "xptiQueryPayload");
    xf.query_metadata = (void *(*)(void *))sym(h, "xptiQueryMetadata");
    xf.register_string = (int32_t(*)(const char *, char **))sym(h, "xptiRegisterString");
    xf.lookup_object = (zx_object_t(*)(int32_t))sym(h, "xptiLookupObject");
    xf.get_stashed_tuple = (int32_t(*)(char **, uint64_t *))sym(h, "xptiGetStashedTuple");
    xf.check_trace_enabled = (bool (*)(uint16_t, uint16_t))sym(h, "xptiCheckTraceEnabled");
    if (h != NULL) dlclose(h); /* drops the reference RTLD_NOLOAD took */
    if (xf.register_stream == NULL || xf.register_callback == NULL || xf.query_payload == NULL) {
        setup.problem = "the XPTI dispatcher lacks xptiRegisterStream, xptiRegisterCallback or xptiQueryPayload";
        fprintf(stderr, "zestall: %s: SYCL tasks are not recorded\n", setup.problem);
        return;
    }
    if (xf.register_string != NULL) {
        char *tmp;
        key_kernel_name = xf.register_string("kernel_name", &tmp);
        key_file = xf.register_string("sym_source_file_name", &tmp);
        key_line = xf.register_string("sym_line_no", &tmp);
        key_column = xf.register_string("sym_column_no", &tmp);
    }
    ring_init();
    resolved = true;
}

static const uint16_t trace_points[] = {ZX_TP_NODE_CREATE, ZX_TP_EDGE_CREATE,   ZX_TP_TASK_BEGIN,
                                        ZX_TP_TASK_END,    ZX_TP_BARRIER_BEGIN, ZX_TP_BARRIER_END,
                                        ZX_TP_WAIT_BEGIN,  ZX_TP_WAIT_END};

static void register_on(const char *stream, int bit) {
    uint8_t id = xf.register_stream(stream);
    for (size_t i = 0; i < sizeof trace_points / sizeof trace_points[0]; i++)
        xf.register_callback(id, trace_points[i], callback); /* DUPLICATE on a repeated init: fine */
    atomic_fetch_or(&streams_registered, bit);
}

/* Called once per stream (maybe more: docs/xpti.md §2.1 "Required
 * exports"). "sycl" always. "sycl.debug" only when another subscriber
 * listens there: any callback on it moves all the runtime's notifications
 * to it (docs/xpti.md §10 "The sycl / sycl.debug routing trap"), so
 * zestall must follow, but registering there itself would starve another
 * subscriber that listens on "sycl" only. The dispatcher initialises the
 * subscribers of a stream in list order and zestall comes after the
 * others it found listed, so each later xptiTraceInit checks again. A
 * dispatcher without xptiCheckTraceEnabled gets both streams (the
 * reference's plain policy). Other streams are ignored. */
__attribute__((visibility("default"))) void xptiTraceInit(unsigned int major, unsigned int minor,
                                                          const char *version, const char *stream) {
    (void)major;
    (void)minor;
    (void)version;
    if (stream == NULL) return;
    if (setup.state == ZX_XPTI_SECOND_COPY || setup.state == ZX_XPTI_OFF_USER) return;
    pthread_once(&resolve_once, resolve);
    if (!resolved) return;
    if (strcmp(stream, "sycl") == 0) register_on("sycl", ZX_STREAM_SYCL);
    if (!setup.debug_policy || (atomic_load(&streams_registered) & ZX_STREAM_SYCL_DEBUG)) return;
    bool others_there = xf.check_trace_enabled == NULL ||
                        xf.check_trace_enabled(xf.register_stream("sycl.debug"), 0);
    if (others_there) register_on("sycl.debug", ZX_STREAM_SYCL_DEBUG);
}

/* Records stay in the ring until Go drains them (at the latest at exit). */
__attribute__((visibility("default"))) void xptiTraceFinish(const char *stream) { (void)stream; }
