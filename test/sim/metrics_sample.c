/*
 * metrics_sample.c — sample generation: what the EU stall unit would
 * have sampled, produced lazily on the reading thread (never on a
 * launching thread) from the kernel runs that exec_run.c publishes, with
 * a per-kernel profile of hot instructions, deterministic for a seed, and
 * the "sample" lines of the ground truth.
 */
#include "metrics.h"

/* ------------------------------------------------------------------ */
/* Sampling profile of a kernel                                        */
/* ------------------------------------------------------------------ */
typedef struct euss_profile {
    uint32_t n;        /* sampled instructions */
    uint32_t *idx;     /* instruction index (into isa->inst_*) */
    uint64_t *cum;     /* cumulative weights */
    uint64_t total;
} euss_profile_t;

static _Thread_local sim_isa_t *tl_profile_isa;

static void profile_destroy(void *pv) {
    euss_profile_t *p = pv;
    if (p == NULL) return;
    free(p->idx);
    free(p->cum);
    free(p);
}

static uint64_t rng_next(uint64_t *s) {
    *s = sim_mix64(*s);
    return *s;
}
static uint32_t rng_range(uint64_t *s, uint32_t lo, uint32_t hi) { /* inclusive */
    return lo + (uint32_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

static bool op_is_send(uint8_t op) { return op == 0x31 || op == 0x32 || op == 0x33 || op == 0x34; }
static bool op_is_branch(uint8_t op) { return op >= 0x20 && op <= 0x2f; }

/* Built once per sim_isa_t (pthread_once has no argument: the isa comes
 * through a thread-local). 2-4 hot instructions (sends and instructions of
 * backward-branch loops preferred) get ~90% of the weight. */
static void profile_build(void) {
    sim_isa_t *isa = tl_profile_isa;
    euss_profile_t *p = calloc(1, sizeof(*p));
    if (p == NULL || isa == NULL) {
        free(p);
        return;
    }
    isa->profile_free = profile_destroy;
    uint32_t n = 0;
    for (uint32_t i = 0; i < isa->num_insts; i++)
        if (isa->inst_offset != NULL && isa->inst_offset[i] < isa->code_size) n++;
    if (n == 0) {
        isa->profile = p; /* empty: samples fall on offset 0 */
        return;
    }
    p->idx = calloc(n, sizeof(uint32_t));
    p->cum = calloc(n, sizeof(uint64_t));
    uint8_t *loop = calloc(n, 1);
    uint64_t *w = calloc(n, sizeof(uint64_t));
    if (p->idx == NULL || p->cum == NULL || loop == NULL || w == NULL) {
        free(p->idx);
        free(p->cum);
        free(loop);
        free(w);
        p->idx = NULL;
        p->cum = NULL;
        isa->profile = p;
        return;
    }
    uint32_t j = 0;
    for (uint32_t i = 0; i < isa->num_insts; i++)
        if (isa->inst_offset[i] < isa->code_size) p->idx[j++] = i;
    p->n = n;
    /* Backward branches: a 16-byte branch holds its jump target relative to
     * itself in dword 3 (checked with IGA on PVC code: jmpi at 0x190 with
     * -56 -> 0x158). Everything between target and branch is a loop. */
    for (uint32_t a = 0; a < n; a++) {
        uint32_t i = p->idx[a];
        uint32_t off = isa->inst_offset[i];
        uint8_t op = isa->inst_opcode ? isa->inst_opcode[i] : 0;
        uint8_t sz = isa->inst_size ? isa->inst_size[i] : 16;
        if (!op_is_branch(op) || sz != 16 || isa->bytes == NULL || (size_t)off + 16 > isa->size) continue;
        int32_t jip = (int32_t)le32(isa->bytes + off + 12);
        if (jip >= 0 || (uint32_t)(-(int64_t)jip) > off) continue;
        uint32_t target = off - (uint32_t)(-(int64_t)jip);
        for (uint32_t b = 0; b < n; b++) {
            uint32_t o = isa->inst_offset[p->idx[b]];
            if (o >= target && o <= off) loop[b] = 1;
        }
    }
    uint64_t rs = sim_mix64(sim_hash_str(isa->kernel_name) ^ sim_mix64(isa->code_size) ^ sim_cfg.seed);
    /* Score the candidates; the EOT send (last instruction) only if alone. */
    uint32_t hot_n = 2 + (uint32_t)(rng_next(&rs) % 3);
    if (hot_n > n) hot_n = n;
    uint64_t *score = calloc(n, sizeof(uint64_t));
    if (score != NULL) {
        for (uint32_t a = 0; a < n; a++) {
            uint8_t op = isa->inst_opcode ? isa->inst_opcode[p->idx[a]] : 0;
            uint64_t s = 1;
            if (loop[a]) s += 4;
            if (op_is_send(op)) s += 3;
            if (op == 0x5b || op == 0x38 || op == 0x41) s += 1; /* mad, math, mul */
            if (a == n - 1 && n > 1) s = 0;
            score[a] = (s << 32) | (rng_next(&rs) & 0xffffffffu);
        }
        for (uint32_t h = 0; h < hot_n; h++) {
            uint32_t best = 0;
            for (uint32_t a = 1; a < n; a++)
                if (score[a] > score[best]) best = a;
            if (score[best] == 0) break;
            score[best] = 0;
            w[best] = (uint64_t)n * rng_range(&rs, 2, 6);
        }
        free(score);
    }
    uint64_t cum = 0;
    for (uint32_t a = 0; a < n; a++) {
        cum += w[a] + 1;
        p->cum[a] = cum;
    }
    p->total = cum;
    free(loop);
    free(w);
    isa->profile = p;
}

static const euss_profile_t *profile_of(sim_isa_t *isa) {
    tl_profile_isa = isa;
    pthread_once(&isa->profile_once, profile_build);
    tl_profile_isa = NULL;
    return (const euss_profile_t *)isa->profile;
}

/* Picks an instruction; returns the instruction index or UINT32_MAX. */
static uint32_t profile_pick(const euss_profile_t *p, uint64_t *rs) {
    if (p == NULL || p->n == 0 || p->cum == NULL) return UINT32_MAX;
    uint64_t u = rng_next(rs) % p->total;
    uint32_t lo = 0, hi = p->n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->cum[mid] > u) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Plausible 8-bit counters for an instruction (docs/eu-stall-sampling.md §3.6 "What a record means"): Active plus stall
 * reasons typical of its kind. Raw order per platform (docs/eu-stall-sampling.md §3.4 "Decoding rule"). */
static void make_counters(uint8_t op, uint32_t pos, uint64_t *rs, uint8_t *raw) {
    uint32_t active = rng_range(rs, 1, 24), other = 0, control = 0, pipe = 0, send = 0, dist = 0, sbid = 0,
             sync = 0, ifetch = 0, tdr = 0;
    if (op_is_send(op)) {
        sbid = rng_range(rs, 16, 200);
        if (rng_next(rs) % 2) send = rng_range(rs, 4, 80);
    } else if (op_is_branch(op)) {
        control = rng_range(rs, 8, 96);
    } else if (op == 0x01) { /* sync */
        sync = rng_range(rs, 16, 160);
    } else if (op == 0x38) { /* math */
        dist = rng_range(rs, 8, 90);
        pipe = rng_range(rs, 8, 120);
    } else {
        active = rng_range(rs, 8, 64);
        pipe = rng_range(rs, 0, 60);
        if (rng_next(rs) % 2) dist = rng_range(rs, 4, 48);
    }
    if (pos < 2) ifetch = rng_range(rs, 8, 120);
    if (rng_next(rs) % 10 == 0) other = rng_range(rs, 1, 12);
    if (is_xe2()) {
        uint8_t r[10] = {(uint8_t)tdr, (uint8_t)other, (uint8_t)control, (uint8_t)pipe, (uint8_t)send,
                         (uint8_t)dist, (uint8_t)sbid, (uint8_t)sync, (uint8_t)ifetch, (uint8_t)active};
        memcpy(raw, r, 10);
    } else {
        uint8_t r[9] = {(uint8_t)active, (uint8_t)other, (uint8_t)control, (uint8_t)pipe, (uint8_t)send,
                        (uint8_t)dist, (uint8_t)sbid, (uint8_t)sync, (uint8_t)ifetch};
        memcpy(raw, r, 9);
        raw[9] = 0;
    }
}

/* ------------------------------------------------------------------ */
/* Sample generation                                                   */
/* ------------------------------------------------------------------ */
typedef struct run_snap {
    sim_isa_t *isa; /* reference held */
    sim_device_t *device;
    uint64_t launch_id, start, end, seed;
    uint32_t first_xecore, num_xecores;
    uint32_t pid; /* the process that ran it (ground truth) */
    uint64_t k_lo, k_hi, k_first; /* sample indices [k_lo, k_hi); k_first: the run's first */
} run_snap_t;

static int snap_cmp(const void *a, const void *b) {
    const run_snap_t *x = a, *y = b;
    if (x->k_lo != y->k_lo) return x->k_lo < y->k_lo ? -1 : 1;
    if (x->launch_id != y->launch_id) return x->launch_id < y->launch_id ? -1 : 1;
    /* Another process's run with the same id (ZESIM_MACHINE): ours first,
     * then by pid, whatever order the lists held them in. */
    return x->pid < y->pid ? -1 : (x->pid > y->pid);
}

/* Ground-truth lines are batched to keep sim_gt_printf calls few. */
typedef struct gt_batch {
    char buf[1 << 16];
    size_t len;
} gt_batch_t;
static void gt_flush_batch(gt_batch_t *g) {
    if (g->len > 0) sim_gt_printf("%.*s", (int)(g->len - 1), g->buf); /* drop the last '\n': gt adds one */
    g->len = 0;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* The buffer record x of run r goes to, or NULL if outside the stream. */
static ss_buf_t *target_buf(const sim_streamer_t *s, const run_snap_t *r, uint32_t x) {
    sim_device_t *rd = r->device;
    if (rd->xecores == 0) return NULL;
    uint32_t g = rd->first_xecore + (r->first_xecore + x) % rd->xecores;
    for (uint32_t i = 0; i < s->ntiles; i++) {
        sim_device_t *t = s->tiles[i];
        if (g >= t->first_xecore && g < t->first_xecore + t->xecores && t->metrics != NULL &&
            g - t->first_xecore < t->metrics->nbufs)
            return &t->metrics->bufs[g - t->first_xecore];
    }
    return NULL;
}

static void emit_sample(sim_streamer_t *s, const run_snap_t *r, uint64_t k, uint32_t x, uint64_t t, gt_batch_t *gt) {
    sim_device_t *rd = r->device;
    if (rd->xecores == 0) return;
    uint32_t g = rd->first_xecore + (r->first_xecore + x) % rd->xecores;
    sim_device_t *tile = NULL;
    for (uint32_t i = 0; i < s->ntiles; i++)
        if (g >= s->tiles[i]->first_xecore && g < s->tiles[i]->first_xecore + s->tiles[i]->xecores) tile = s->tiles[i];
    ss_buf_t *b = target_buf(s, r, x);
    if (tile == NULL || b == NULL) return;
    uint32_t local = g - tile->first_xecore;
    if (b->count >= XECORE_BUF_RECORDS && !sim_gt_enabled()) {
        /* Full and nobody records the ground truth: the content of a
         * dropped record does not matter. */
        b->dropped++;
        b->eio_pending = b->drop_mark = true;
        return;
    }
    /* Content depends on the run's seed, the sample's index within the run
     * and the run-relative Xe-core only: deterministic for a seed. */
    uint64_t rs = sim_mix64(r->seed ^ sim_mix64((k - r->k_first) * 0x100000001b3ull + x));
    const euss_profile_t *p = profile_of(r->isa);
    int nrec = (rng_next(&rs) % 4 == 0) ? 2 : 1;
    uint32_t prev = UINT32_MAX;
    for (int e = 0; e < nrec; e++) {
        uint32_t a = profile_pick(p, &rs);
        if (e == 1) {
            for (int tries = 0; tries < 4 && a == prev && p != NULL && p->n > 1; tries++) a = profile_pick(p, &rs);
            if (a == prev) break;
        }
        prev = a;
        uint32_t inst = (a == UINT32_MAX) ? UINT32_MAX : p->idx[a];
        uint32_t off = inst == UINT32_MAX ? 0 : r->isa->inst_offset[inst];
        uint8_t op = (inst == UINT32_MAX || r->isa->inst_opcode == NULL) ? 0 : r->isa->inst_opcode[inst];
        ss_rec_t rec;
        memset(&rec, 0, sizeof(rec));
        rec.t_ns = t;
        rec.ip = (uint32_t)(((r->isa->gpu_va + off) >> 3) & IP_MASK);
        make_counters(op, a == UINT32_MAX ? 0 : a, &rs, rec.raw);
        bool ok = buf_push(b, &rec);
        if (sim_gt_enabled()) {
            if (sizeof(gt->buf) - gt->len < 512) gt_flush_batch(gt);
            int sub = tile->parent ? (int)tile->index : -1;
            char cnt[64];
            size_t cl = 0;
            for (uint32_t k2 = 0; k2 < num_raw(); k2++)
                cl += (size_t)snprintf(cnt + cl, sizeof(cnt) - cl, "%s%u", k2 ? "," : "", rec.raw[k2]);
            int w = snprintf(gt->buf + gt->len, sizeof(gt->buf) - gt->len,
                             "{\"type\":\"sample\",\"launch\":%llu,\"kernel\":%llu,\"device\":%u,\"subdevice\":%d,"
                             "\"xecore\":%u,\"ip\":%u,\"offset\":%u,\"counters\":[%s],\"t_ns\":%llu,\"dropped\":%s%s,"
                             "\"pid\":%u%s}\n",
                             (unsigned long long)r->launch_id, (unsigned long long)r->isa->kernel_id,
                             sim_root(tile)->index, sub, local, rec.ip, off, cnt, (unsigned long long)t,
                             ok ? "false" : "true", s->closing ? ",\"undelivered\":true" : "",
                             r->pid ? r->pid : sim_machine_pid(), r->pid ? ",\"foreign\":true" : "");
            if (w > 0 && (size_t)w < sizeof(gt->buf) - gt->len) gt->len += (size_t)w;
        }
    }
}

/* True when every buffer run r writes to is full: buffers only fill up
 * during one generation pass, so without ground truth the rest of the
 * run's samples would all be dropped and need not be produced one by one
 * (keeps a read after a long unread stretch cheap). */
static bool run_targets_full(const sim_streamer_t *s, const run_snap_t *r) {
    for (uint32_t x = 0; x < r->num_xecores; x++) {
        ss_buf_t *b = target_buf(s, r, x);
        if (b != NULL && b->count < XECORE_BUF_RECORDS) return false;
    }
    return true;
}

static bool run_covers(const sim_streamer_t *s, const sim_run_t *r) {
    sim_device_t *rd = r->device;
    if (rd == NULL || rd->xecores == 0 || r->num_xecores == 0 || r->isa == NULL) return false;
    uint32_t lo = s->tiles[0]->first_xecore;
    uint32_t hi = s->tiles[s->ntiles - 1]->first_xecore + s->tiles[s->ntiles - 1]->xecores;
    /* The device's cores overlap the stream's range. */
    return rd->first_xecore < hi && rd->first_xecore + rd->xecores > lo;
}

typedef struct snap_ctx {
    const sim_streamer_t *s;
    uint64_t from, now, p, t0;
    run_snap_t *v;
    size_t nv, cap;
    bool oom;
} snap_ctx_t;

/* Snapshots run r if it overlaps [from, now) (sim_runs_foreach_locked). */
static void snap_add(void *ctx, const sim_run_t *r) {
    snap_ctx_t *c = ctx;
    uint64_t from = c->from, now = c->now, p = c->p, t0 = c->t0;
    if (c->oom || r->end_ns <= from || r->start_ns >= now || !run_covers(c->s, r)) return;
    uint64_t a = r->start_ns > from ? r->start_ns : from;
    uint64_t e = r->end_ns < now ? r->end_ns : now;
    /* t = t0 + k p, k >= 1, a <= t < e */
    uint64_t k_lo = a > t0 ? ceil_div(a - t0, p) : 1;
    uint64_t k_hi = e > t0 ? ceil_div(e - t0, p) : 1;
    if (k_lo < 1) k_lo = 1;
    if (k_hi <= k_lo) return;
    if (c->nv == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 16;
        run_snap_t *nvv = realloc(c->v, nc * sizeof(*c->v));
        if (nvv == NULL) {
            c->oom = true;
            return;
        }
        c->v = nvv;
        c->cap = nc;
    }
    run_snap_t *sn = &c->v[c->nv++];
    sn->isa = sim_isa_ref(r->isa);
    sn->device = r->device;
    sn->launch_id = r->launch_id;
    sn->start = r->start_ns;
    sn->end = r->end_ns;
    sn->seed = r->seed;
    sn->first_xecore = r->first_xecore;
    sn->num_xecores = r->num_xecores;
    sn->pid = r->pid;
    sn->k_lo = k_lo;
    sn->k_hi = k_hi;
    sn->k_first = r->start_ns > t0 ? ceil_div(r->start_ns - t0, p) : 1;
    if (sn->k_first < 1) sn->k_first = 1;
}

/* Generates s's samples up to now (g_mx held). Hardware samples exist only
 * while the stream is open: every period boundary t0 + k*period inside a
 * run gives each of its Xe-cores one record (25%: two). */
void gen_streamer(sim_streamer_t *s, uint64_t now) {
    if (!s->active || now <= s->gen_upto) return;
    uint64_t from = s->gen_upto;
    sim_device_t *root = sim_root(s->dev);
    sim_exec_progress(root, now);

    run_snap_t *v = NULL;
    size_t nv = 0;
    uint64_t p = s->period_ns, t0 = s->t0_ns;
    snap_ctx_t sc = {.s = s, .from = from, .now = now, .p = p, .t0 = t0};
    uint32_t nfam = 1 + root->num_subdevices;
    /* Kernels of the other processes on the stream's tiles (ZESIM_MACHINE). */
    for (uint32_t i = 0; i < s->ntiles; i++) sim_machine_ingest(s->tiles[i], now);
    for (uint32_t f = 0; f < nfam; f++) {
        sim_device_t *fd = f == 0 ? root : root->subdevices[f - 1];
        if (fd == NULL) continue;
        pthread_mutex_lock(&fd->run_lock);
        sim_runs_collect_locked(fd);
        sim_runs_foreach_locked(fd, snap_add, &sc);
        pthread_mutex_unlock(&fd->run_lock);
    }
    v = sc.v;
    nv = sc.nv;
    s->gen_upto = now;
    if (nv == 0) {
        free(v);
        return;
    }
    qsort(v, nv, sizeof(*v), snap_cmp);

    /* Sweep the period boundaries in time order so that every Xe-core
     * buffer receives its records in time order, skipping idle stretches. */
    gt_batch_t *gt = sim_gt_enabled() ? malloc(sizeof(gt_batch_t)) : NULL;
    if (gt != NULL) gt->len = 0;
    size_t *act = malloc(nv * sizeof(size_t));
    if (act != NULL) {
        size_t nact = 0, next = 0;
        uint64_t k = v[0].k_lo;
        for (;;) {
            while (next < nv && v[next].k_lo <= k) act[nact++] = next++;
            size_t w = 0;
            for (size_t i = 0; i < nact; i++)
                if (v[act[i]].k_hi > k) act[w++] = act[i];
            nact = w;
            if (nact == 0) {
                if (next >= nv) break;
                k = v[next].k_lo;
                continue;
            }
            uint64_t t = t0 + k * p;
            for (size_t i = 0; i < nact; i++) {
                run_snap_t *r = &v[act[i]];
                if (gt == NULL && (k & 255) == 0 && run_targets_full(s, r)) {
                    r->k_hi = k; /* removed from the active set next step */
                    continue;
                }
                for (uint32_t x = 0; x < r->num_xecores; x++) emit_sample(s, r, k, x, t, gt);
            }
            k++;
        }
        free(act);
    }
    if (gt != NULL) {
        gt_flush_batch(gt);
        free(gt);
        /* Samples reach the file at every read/query/close, so a process
         * that ends with _exit() still leaves them complete. */
        sim_gt_flush();
    }
    for (size_t i = 0; i < nv; i++) sim_isa_unref(v[i].isa);
    free(v);
}

/* Frees runs no open stream of the family still needs (g_mx held). */
void prune_family(sim_device_t *root, uint64_t now) {
    uint64_t keep = now;
    for (sim_streamer_t *o = g_open; o != NULL; o = o->next)
        if (sim_root(o->dev) == root && o->active && o->gen_upto < keep) keep = o->gen_upto;
    sim_runs_prune(root, keep);
    for (uint32_t i = 0; i < root->num_subdevices; i++)
        if (root->subdevices[i] != NULL) sim_runs_prune(root->subdevices[i], keep);
}

/* How far a read can see at host time now. The KMD copies only the records
 * its last write-pointer poll found (docs/eu-stall-sampling.md §4.2 "xe (PVC on xe, Xe2 and later)": xe polls every 5 ms; i915-prelim
 * every POLL_PERIOD, 10 ms from Intel's driver): with ZESIM_EUSS_POLL_NS
 * the polls fall every period from the stream's start, and a record is
 * visible from the first poll after it was taken. 0: at once. */
static uint64_t visible_upto(const sim_streamer_t *s, uint64_t now) {
    uint64_t p = sim_cfg.euss_poll_ns;
    if (p == 0 || s->is_tracer || now <= s->t0_ns) return now;
    return s->t0_ns + (now - s->t0_ns) / p * p;
}

void gen_and_prune(sim_streamer_t *s) {
    uint64_t now = sim_now_ns();
    gen_streamer(s, visible_upto(s, now));
    prune_family(sim_root(s->dev), now);
}
