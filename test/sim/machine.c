/*
 * machine.c — what the processes of one simulated machine share through
 * files under ZESIM_MACHINE: per node tile, the kernel runs every process
 * starts on it (so that an EU stall stream opened in one process samples
 * the kernels of all of them, as the hardware's stream covers the whole
 * tile) and the processes using it (zesDeviceProcessesGetState); per
 * kernel that ran, its code (so that a sampler can place samples on
 * another process's instructions).
 *
 * Files, in the machine's directory (the one the stream locks use):
 *   tile-<n>.runs      mmap'd: a header (processes, ring head) and a ring
 *                      of RUN_SLOTS run records, lock-free, written by
 *                      every launching process, read by the stream holder.
 *   isa-<pid>-<nonce>-<kernel>
 *                      a kernel's code, written once before its first run
 *                      record (rename(): readers never see half a file).
 *
 * Robust to a process dying at any point: a record a writer claimed but
 * never finished is skipped after RUN_STUCK_NS; a dead process's entry in
 * the process table is taken over by the next process and never listed
 * (kill(pid, 0) says it is gone); a new stream reads only runs that end
 * after it opened, so records of earlier runs of the machine do not
 * matter; isa files of dead processes are removed when a stream opens.
 * The all-zero file is a valid empty state, so creation needs no lock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

#define RUN_SLOTS 16384u                      /* ring records per tile (~1.3 MB file) */
#define RUN_STUCK_NS 200000000ull             /* a claimed record unfinished this long: writer died */
#define PROC_SLOTS 64u                        /* processes per tile listed by Sysman */
#define MACHINE_TILES (SIM_MAX_CARDS * 2u)
#define ISA_MAGIC 0x3141534d49534d5aull       /* "ZMSIMSA1" */

typedef struct run_slot {
    _Atomic uint64_t seq; /* index + 1 once complete; 0 while being written */
    uint32_t pid, builtin;
    uint64_t nonce, launch_id, kernel_id, start_ns, end_ns, seed;
    uint32_t first_xecore, num_xecores;
} run_slot_t;

typedef struct proc_slot {
    _Atomic uint32_t pid;      /* 0: free */
    _Atomic uint32_t launched; /* 1 once the process ran a kernel on the tile */
} proc_slot_t;

typedef struct tile_shm {
    _Atomic uint64_t head; /* next ring index */
    proc_slot_t procs[PROC_SLOTS];
    run_slot_t ring[RUN_SLOTS];
} tile_shm_t;

/* Per node tile: the mapping (NULL: none), and the reader's position. */
typedef struct tile_state {
    pthread_once_t once;
    tile_shm_t *shm;
    uint64_t cursor;     /* next ring index to read */
    uint64_t since_ns;   /* runs ending before this are not wanted */
    uint64_t stuck_at;   /* index found unfinished, and since when */
    uint64_t stuck_since;
    uint64_t lost;       /* records overwritten before they were read */
    int proc_slot;       /* our slot in procs, -1 */
} tile_state_t;

static tile_state_t g_tiles[MACHINE_TILES];
static _Thread_local uint32_t tl_once_tile;
static uint64_t g_nonce;
static pthread_once_t g_nonce_once = PTHREAD_ONCE_INIT;
static uint32_t g_pid;

static void nonce_reset(void) {
    g_pid = (uint32_t)getpid();
    g_nonce = sim_mix64(sim_now_ns() ^ ((uint64_t)g_pid << 32));
}
/* A fork child is another process: its runs carry its own pid, and it
 * holds none of its parent's entries in the process tables. */
static void nonce_child(void) {
    nonce_reset();
    for (uint32_t n = 0; n < MACHINE_TILES; n++) g_tiles[n].proc_slot = -1;
}
static void nonce_init(void) {
    nonce_reset();
    pthread_atfork(NULL, NULL, nonce_child);
}

bool sim_machine_dir(char *out, size_t cap) {
    const char *m = getenv("ZESIM_MACHINE");
    if (m == NULL || *m == 0) return false;
    if (m[0] == '/') {
        snprintf(out, cap, "%s", m);
    } else {
        const char *rt = getenv("XDG_RUNTIME_DIR");
        char base[512];
        snprintf(base, sizeof(base), "%s/zesim-%u", rt && *rt ? rt : "/tmp", (unsigned)getuid());
        mkdir(base, 0700);
        snprintf(out, cap, "%s/%s", base, m);
    }
    mkdir(out, 0700);
    return true;
}

static void tile_attach(void) {
    uint32_t n = tl_once_tile;
    tile_state_t *ts = &g_tiles[n];
    ts->proc_slot = -1;
    char dir[700], path[800];
    if (!sim_machine_dir(dir, sizeof(dir))) return;
    snprintf(path, sizeof(path), "%s/tile-%u.runs", dir, n);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "zesim: ZESIM_MACHINE: cannot open %s: %s; this process's kernels are not sampled by other processes\n",
                path, strerror(errno));
        return;
    }
    struct stat st;
    /* Growing to the full size is idempotent: every process may do it. */
    if (fstat(fd, &st) != 0 || ((size_t)st.st_size < sizeof(tile_shm_t) && ftruncate(fd, sizeof(tile_shm_t)) != 0)) {
        close(fd);
        return;
    }
    void *p = mmap(NULL, sizeof(tile_shm_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return;
    ts->shm = p;
}

/* The shared state of node tile n, or NULL (no ZESIM_MACHINE, or failure). */
static tile_state_t *tile_get(uint32_t n) {
    if (n >= MACHINE_TILES) return NULL;
    pthread_once(&g_nonce_once, nonce_init);
    tile_state_t *ts = &g_tiles[n];
    tl_once_tile = n;
    pthread_once(&ts->once, tile_attach);
    return ts->shm ? ts : NULL;
}

static bool pid_alive(uint32_t pid) { return pid != 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH); }

/* ---- processes using a tile ---------------------------------------- */

void sim_machine_register(const sim_device_t *leaf) {
    tile_state_t *ts = tile_get(leaf->node_tile);
    if (ts == NULL || ts->proc_slot >= 0) return;
    for (uint32_t i = 0; i < PROC_SLOTS; i++) {
        uint32_t cur = atomic_load(&ts->shm->procs[i].pid);
        if (cur == g_pid) { /* a process that reuses our pid died without clearing it */
            ts->proc_slot = (int)i;
            atomic_store(&ts->shm->procs[i].launched, 0);
            return;
        }
        if (cur != 0 && pid_alive(cur)) continue;
        if (atomic_compare_exchange_strong(&ts->shm->procs[i].pid, &cur, g_pid)) {
            atomic_store(&ts->shm->procs[i].launched, 0);
            ts->proc_slot = (int)i;
            return;
        }
    }
}

__attribute__((destructor)) static void machine_fini(void) {
    if (g_pid == 0 || g_pid != (uint32_t)getpid()) return; /* a fork child does not own the slots */
    for (uint32_t n = 0; n < MACHINE_TILES; n++) {
        tile_state_t *ts = &g_tiles[n];
        if (ts->shm == NULL || ts->proc_slot < 0) continue;
        uint32_t me = g_pid;
        atomic_compare_exchange_strong(&ts->shm->procs[ts->proc_slot].pid, &me, 0);
    }
}

uint32_t sim_machine_processes(const sim_device_t *leaf, uint32_t *pids, uint32_t *launched, uint32_t cap) {
    tile_state_t *ts = tile_get(leaf->node_tile);
    if (ts == NULL) return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < PROC_SLOTS; i++) {
        uint32_t pid = atomic_load(&ts->shm->procs[i].pid);
        if (pid == 0 || !pid_alive(pid)) continue;
        if (n < cap) {
            pids[n] = pid;
            launched[n] = atomic_load(&ts->shm->procs[i].launched);
        }
        n++;
    }
    return n < cap ? n : cap;
}

/* ---- kernel code --------------------------------------------------- */

static void isa_path(char *out, size_t cap, const char *dir, uint32_t pid, uint64_t nonce, uint64_t kernel) {
    snprintf(out, cap, "%s/isa-%u-%016" PRIx64 "-%" PRIu64, dir, pid, nonce, kernel);
}

static void isa_write(sim_isa_t *isa);

static bool write_all(int fd, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        b += w;
        n -= (size_t)w;
    }
    return true;
}

/* Writes isa's file once per process (the flag is in the isa), before any
 * record of a run of it can be read. */
static pthread_mutex_t g_share_mx = PTHREAD_MUTEX_INITIALIZER;
static void isa_share(sim_isa_t *isa) {
    if (atomic_load_explicit(&isa->machine_shared, memory_order_acquire)) return;
    pthread_mutex_lock(&g_share_mx);
    if (!atomic_load(&isa->machine_shared)) {
        isa_write(isa);
        atomic_store_explicit(&isa->machine_shared, true, memory_order_release);
    }
    pthread_mutex_unlock(&g_share_mx);
}

static void isa_write(sim_isa_t *isa) {
    char dir[700], path[800], tmp[820];
    if (!sim_machine_dir(dir, sizeof(dir))) return;
    isa_path(path, sizeof(path), dir, g_pid, g_nonce, isa->kernel_id);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    uint64_t hdr[6] = {ISA_MAGIC, isa->kernel_id, isa->gpu_va, isa->size, isa->code_size,
                       ((uint64_t)isa->num_insts << 32) | (uint64_t)strlen(isa->kernel_name)};
    bool ok = write_all(fd, hdr, sizeof(hdr)) && write_all(fd, isa->kernel_name, strlen(isa->kernel_name)) &&
              write_all(fd, isa->bytes, isa->size) &&
              write_all(fd, isa->inst_offset, isa->num_insts * sizeof(uint32_t)) &&
              write_all(fd, isa->inst_opcode, isa->num_insts) && write_all(fd, isa->inst_size, isa->num_insts);
    close(fd);
    if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

/* Another process's kernel, read from its file (NULL if gone or bad). */
static sim_isa_t *isa_load(const char *dir, uint32_t pid, uint64_t nonce, uint64_t kernel) {
    char path[800];
    isa_path(path, sizeof(path), dir, pid, nonce, kernel);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    uint64_t hdr[6];
    sim_isa_t *isa = NULL;
    if (fread(hdr, sizeof(hdr), 1, f) != 1 || hdr[0] != ISA_MAGIC || hdr[3] > (64u << 20) || hdr[4] > hdr[3]) goto out;
    uint32_t ninst = (uint32_t)(hdr[5] >> 32), nlen = (uint32_t)hdr[5];
    if (ninst > hdr[3] / 8 + 1 || nlen > 4096) goto out;
    isa = calloc(1, sizeof(*isa));
    if (isa == NULL) goto out;
    atomic_init(&isa->refs, 1);
    isa->kernel_id = hdr[1];
    isa->gpu_va = hdr[2];
    isa->size = hdr[3];
    isa->code_size = hdr[4];
    isa->num_insts = ninst;
    isa->kernel_name = calloc(1, nlen + 1);
    uint8_t *bytes = malloc(isa->size ? isa->size : 1);
    isa->bytes = bytes;
    isa->inst_offset = malloc((ninst ? ninst : 1) * sizeof(uint32_t));
    isa->inst_opcode = malloc(ninst ? ninst : 1);
    isa->inst_size = malloc(ninst ? ninst : 1);
    pthread_once_t once = PTHREAD_ONCE_INIT;
    isa->profile_once = once;
    if (isa->kernel_name == NULL || bytes == NULL || isa->inst_offset == NULL || isa->inst_opcode == NULL ||
        isa->inst_size == NULL || fread(isa->kernel_name, 1, nlen, f) != nlen ||
        fread(bytes, 1, isa->size, f) != isa->size ||
        fread(isa->inst_offset, sizeof(uint32_t), ninst, f) != ninst || fread(isa->inst_opcode, 1, ninst, f) != ninst ||
        fread(isa->inst_size, 1, ninst, f) != ninst) {
        sim_isa_unref(isa);
        isa = NULL;
    }
out:
    fclose(f);
    return isa;
}

/* The reader's cache of other processes' kernels: they stay for the
 * process's life (bounded by the kernels other processes ran, not by
 * their launches). Reader side only (g_mx of metrics held). */
typedef struct foreign_isa {
    uint32_t pid;
    uint64_t nonce, kernel;
    sim_isa_t *isa; /* NULL: its file could not be read (counted once) */
    struct foreign_isa *next;
} foreign_isa_t;
static foreign_isa_t *g_foreign;

static sim_isa_t *foreign_isa(uint32_t pid, uint64_t nonce, uint64_t kernel) {
    for (foreign_isa_t *f = g_foreign; f; f = f->next)
        if (f->pid == pid && f->nonce == nonce && f->kernel == kernel) return f->isa;
    foreign_isa_t *f = calloc(1, sizeof(*f));
    if (f == NULL) return NULL;
    char dir[700];
    f->pid = pid;
    f->nonce = nonce;
    f->kernel = kernel;
    f->isa = sim_machine_dir(dir, sizeof(dir)) ? isa_load(dir, pid, nonce, kernel) : NULL;
    if (f->isa == NULL)
        sim_log("machine: code of kernel %" PRIu64 " of process %u is gone; its runs are not sampled", kernel, pid);
    f->next = g_foreign;
    g_foreign = f;
    return f->isa;
}

/* ---- runs ---------------------------------------------------------- */

void sim_machine_publish(const sim_run_t *r, bool builtin) {
    sim_device_t *leaf = r->device;
    tile_state_t *ts = tile_get(leaf->node_tile);
    if (ts == NULL) return;
    isa_share(r->isa);
    if (ts->proc_slot >= 0) atomic_store_explicit(&ts->shm->procs[ts->proc_slot].launched, 1, memory_order_relaxed);
    uint64_t idx = atomic_fetch_add_explicit(&ts->shm->head, 1, memory_order_relaxed);
    run_slot_t *s = &ts->shm->ring[idx % RUN_SLOTS];
    atomic_store_explicit(&s->seq, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    s->pid = g_pid;
    s->builtin = builtin;
    s->nonce = g_nonce;
    s->launch_id = r->launch_id;
    s->kernel_id = r->isa->kernel_id;
    s->start_ns = r->start_ns;
    s->end_ns = r->end_ns;
    s->seed = r->seed;
    s->first_xecore = r->first_xecore;
    s->num_xecores = r->num_xecores;
    atomic_store_explicit(&s->seq, idx + 1, memory_order_release);
}

void sim_machine_reader_open(sim_device_t *leaf, uint64_t since_ns) {
    tile_state_t *ts = tile_get(leaf->node_tile);
    if (ts == NULL) return;
    uint64_t head = atomic_load(&ts->shm->head);
    /* Runs published before the open may still be running: look back. */
    ts->cursor = head > RUN_SLOTS ? head - RUN_SLOTS : 0;
    ts->since_ns = since_ns;
    ts->stuck_at = UINT64_MAX;
    /* Code files of processes that are gone are of no use any more. */
    char dir[700];
    if (!sim_machine_dir(dir, sizeof(dir))) return;
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        unsigned pid = 0;
        if (sscanf(e->d_name, "isa-%u-", &pid) != 1 || pid_alive(pid)) continue;
        char path[1000];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static void run_push_incoming(sim_device_t *dev, sim_run_t *r) {
    sim_run_t *h = atomic_load_explicit(&dev->runs_incoming, memory_order_relaxed);
    do {
        r->next = h;
    } while (!atomic_compare_exchange_weak_explicit(&dev->runs_incoming, &h, r, memory_order_release,
                                                    memory_order_relaxed));
    atomic_fetch_add_explicit(&dev->runs_incoming_n, 1, memory_order_relaxed);
}

uint64_t sim_machine_ingest(sim_device_t *leaf, uint64_t now) {
    tile_state_t *ts = tile_get(leaf->node_tile);
    if (ts == NULL) return 0;
    uint64_t head = atomic_load_explicit(&ts->shm->head, memory_order_acquire), added = 0;
    if (head > ts->cursor + RUN_SLOTS) {
        ts->lost += head - RUN_SLOTS - ts->cursor;
        sim_log("machine: tile %u: %" PRIu64 " run records overwritten before they were read", leaf->node_tile,
                head - RUN_SLOTS - ts->cursor);
        ts->cursor = head - RUN_SLOTS;
    }
    while (ts->cursor < head) {
        uint64_t idx = ts->cursor;
        run_slot_t *s = &ts->shm->ring[idx % RUN_SLOTS];
        uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (seq != idx + 1) {
            if (seq > idx + 1) { /* overwritten by a later lap */
                ts->lost++;
                ts->cursor++;
                continue;
            }
            /* Being written, or its writer died while writing it. */
            if (ts->stuck_at != idx) {
                ts->stuck_at = idx;
                ts->stuck_since = now;
                break;
            }
            if (now - ts->stuck_since < RUN_STUCK_NS) break;
            ts->cursor++;
            continue;
        }
        run_slot_t c;
        c.pid = s->pid;
        c.builtin = s->builtin;
        c.nonce = s->nonce;
        c.launch_id = s->launch_id;
        c.kernel_id = s->kernel_id;
        c.start_ns = s->start_ns;
        c.end_ns = s->end_ns;
        c.seed = s->seed;
        c.first_xecore = s->first_xecore;
        c.num_xecores = s->num_xecores;
        atomic_thread_fence(memory_order_acquire);
        ts->cursor++;
        if (atomic_load_explicit(&s->seq, memory_order_relaxed) != idx + 1) continue; /* overwritten meanwhile */
        if (c.pid == g_pid && c.nonce == g_nonce) continue; /* ours: already in the local lists */
        if (c.end_ns <= ts->since_ns || c.num_xecores == 0) continue;
        sim_isa_t *isa = foreign_isa(c.pid, c.nonce, c.kernel_id);
        if (isa == NULL) continue;
        sim_run_t *r = malloc(sizeof(*r));
        if (r == NULL) continue;
        r->launch_id = c.launch_id;
        r->device = leaf;
        r->isa = sim_isa_ref(isa);
        r->start_ns = c.start_ns;
        r->end_ns = c.end_ns;
        r->first_xecore = c.first_xecore % (leaf->xecores ? leaf->xecores : 1);
        r->num_xecores = c.num_xecores > leaf->xecores ? leaf->xecores : c.num_xecores;
        r->seed = c.seed;
        r->pid = c.pid;
        run_push_incoming(leaf, r);
        added++;
    }
    return added;
}

uint32_t sim_machine_pid(void) {
    pthread_once(&g_nonce_once, nonce_init);
    return g_pid;
}
