/*
 * metrics_stream.c — metric streamers (docs/eu-stall-sampling.md §5 "zetMetricStreamerOpen", docs/eu-stall-sampling.md §6 "zetMetricStreamerReadData"): open with the kernel
 * drivers' rules (one stream per tile, period rounding, buffer sizes),
 * reads of FLAT and COMPOSITE devices, notification events, close; and
 * the unsupported marker/query entry points.
 */
#include "metrics.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint32_t kmd_rates[7] = {251, 502, 753, 1004, 1255, 1506, 1757}; /* docs/eu-stall-sampling.md §4.2 "xe (PVC on xe, Xe2 and later)" */

/* ------------------------------------------------------------------ */
/* Streamers                                                           */
/* ------------------------------------------------------------------ */
static uint64_t round_period(uint64_t req_ns) {
    uint64_t P = gpu_period_ns();
    uint64_t clocks = req_ns / P;
    if (is_i915()) {
        uint64_t unit = clocks / 251;
        if (unit < 1) unit = 1;
        if (unit > 7) unit = 7;
        return unit * 251 * P;
    }
    /* xe: nearest supported rate, ties to the higher one (docs/eu-stall-sampling.md §5.3 "samplingPeriod (nanoseconds)"). */
    uint64_t best = kmd_rates[0];
    if (clocks >= kmd_rates[6]) best = kmd_rates[6];
    else if (clocks > kmd_rates[0]) {
        for (int i = 0; i < 6; i++) {
            if (clocks >= kmd_rates[i] && clocks <= kmd_rates[i + 1]) {
                uint64_t dl = clocks - kmd_rates[i], dh = kmd_rates[i + 1] - clocks;
                best = dh <= dl ? kmd_rates[i + 1] : kmd_rates[i];
                break;
            }
        }
    }
    return best * P;
}

/* Reports one (sub)device's stream can hold: 8192 per Xe-core (docs/eu-stall-sampling.md §4.4 "Buffer size formula", docs/eu-stall-sampling.md §5.2 "notifyEveryNReports (a count of 64-byte reports)"). */
uint64_t tile_max_reports(const sim_device_t *tile) { return (uint64_t)XECORE_BUF_RECORDS * tile->xecores; }

/* getRequiredBufferSize(n) of a leaf device. */
static size_t required_size(const sim_device_t *tile, uint64_t n) {
    uint64_t m = tile_max_reports(tile);
    return (size_t)((n < m ? n : m) * REC_SIZE);
}

void collect_tiles(sim_streamer_t *s, sim_device_t *dev) {
    s->ntiles = 0;
    if (is_leaf(dev)) s->tiles[s->ntiles++] = dev;
    else
        for (uint32_t i = 0; i < dev->num_subdevices && s->ntiles < 8; i++) s->tiles[s->ntiles++] = dev->subdevices[i];
}

/* g_mx held. IN_USE if dev's stream, or (root) any sub-device's, is busy. */
bool stream_busy(sim_device_t *dev) {
    sim_metric_dev_t *md = dev->metrics;
    if (md == NULL) return true;
    if (md->claim != NULL || md->sub_claims > 0) return true;
    for (uint32_t i = 0; i < dev->num_subdevices; i++)
        if (dev->subdevices[i]->metrics == NULL || dev->subdevices[i]->metrics->claim != NULL) return true;
    return false;
}

/* exec_*.c keeps runs only while a stream of the family samples (g_mx held). */
void set_sampling_flags(sim_device_t *root) {
    bool any = false;
    for (sim_streamer_t *o = g_open; o != NULL; o = o->next)
        if (sim_root(o->dev) == root && o->active) any = true;
    atomic_store(&root->sampling_active, any);
    for (uint32_t i = 0; i < root->num_subdevices; i++) atomic_store(&root->subdevices[i]->sampling_active, any);
}

/* ---- one stream per tile across processes (ZESIM_MACHINE) ---------- */

/* The kernel driver allows one EU stall stream per tile, whichever process
 * asks. With ZESIM_MACHINE set, processes that give the same value share
 * that rule: a stream holds an flock() on one file per tile in the
 * machine's directory (ZESIM_MACHINE itself if it is an absolute path,
 * else ${XDG_RUNTIME_DIR:-/tmp}/zesim-<uid>/<ZESIM_MACHINE>). The kernel
 * drops the lock when the holder closes the stream or dies, so a killed
 * process frees its tile and leaves nothing behind that matters (the empty
 * lock files are reused). Unset: the process is a machine of its own, so
 * that parallel tests never collide. */
/* g_mx held. False when another process holds one of s's tiles (its
 * locks are then all released). */
bool machine_claim(sim_streamer_t *s) {
    for (uint32_t t = 0; t < 8; t++) s->tile_lock[t] = -1;
    char dir[700];
    if (!sim_machine_dir(dir, sizeof(dir))) return true;
    for (uint32_t t = 0; t < s->ntiles; t++) {
        sim_device_t *tile = s->tiles[t];
        char path[800];
        snprintf(path, sizeof(path), "%s/tile-%u.lock", dir, tile->node_tile);
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
            s->tile_lock[t] = fd;
            continue;
        }
        if (fd >= 0) close(fd);
        machine_release(s);
        return false;
    }
    /* The stream covers the whole tile: it reads the runs every process of
     * the machine publishes from now on (machine.c). */
    uint64_t now = sim_now_ns();
    for (uint32_t t = 0; t < s->ntiles; t++) sim_machine_reader_open(s->tiles[t], now);
    return true;
}

void machine_release(sim_streamer_t *s) {
    for (uint32_t t = 0; t < 8; t++) {
        if (s->tile_lock[t] >= 0) close(s->tile_lock[t]); /* drops the flock */
        s->tile_lock[t] = -1;
    }
}

/* g_mx held: claims dev's stream (and a root's sub-devices'), resets the
 * hardware buffers and links s into the open list. */
void stream_claim(sim_streamer_t *s) {
    sim_device_t *dev = s->dev;
    dev->metrics->claim = s;
    for (uint32_t i = 0; i < dev->num_subdevices; i++) dev->subdevices[i]->metrics->claim = s;
    if (dev->parent != NULL) dev->parent->metrics->sub_claims++;
    for (uint32_t t = 0; t < s->ntiles; t++) {
        sim_metric_dev_t *md = s->tiles[t]->metrics;
        for (uint32_t i = 0; i < md->nbufs; i++) buf_reset(&md->bufs[i]);
        md->eio_reported = false;
    }
    s->next = g_open;
    g_open = s;
    set_sampling_flags(sim_root(dev));
}

static void stream_release(sim_streamer_t *s) {
    machine_release(s);
    sim_device_t *dev = s->dev;
    dev->metrics->claim = NULL;
    for (uint32_t i = 0; i < dev->num_subdevices; i++) dev->subdevices[i]->metrics->claim = NULL;
    if (dev->parent != NULL && dev->parent->metrics->sub_claims > 0) dev->parent->metrics->sub_claims--;
    for (uint32_t t = 0; t < s->ntiles; t++) {
        sim_metric_dev_t *md = s->tiles[t]->metrics;
        for (uint32_t i = 0; i < md->nbufs; i++) buf_reset(&md->bufs[i]);
    }
    for (sim_streamer_t **pp = &g_open; *pp != NULL; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    set_sampling_flags(sim_root(dev));
}

sim_streamer_t *streamer_alloc(void) {
    sim_streamer_t *s = g_free_streamers;
    if (s != NULL) g_free_streamers = s->next;
    else s = malloc(sizeof(*s));
    if (s != NULL) memset(s, 0, sizeof(*s));
    return s;
}
static void streamer_free(sim_streamer_t *s) {
    sim_obj_kill(&s->obj);
    s->next = g_free_streamers;
    g_free_streamers = s;
}

static ze_result_t ZE_APICALL sim_zetMetricStreamerOpen(zet_context_handle_t hContext, zet_device_handle_t hDevice,
                                                        zet_metric_group_handle_t hMetricGroup,
                                                        zet_metric_streamer_desc_t *desc,
                                                        ze_event_handle_t hNotificationEvent,
                                                        zet_metric_streamer_handle_t *phMetricStreamer) {
    sim_context_t *ctx = ctx_of(hContext);
    sim_device_t *dev = dev_of(hDevice);
    sim_metric_group_t *g = grp_of(hMetricGroup);
    if (ctx == NULL || dev == NULL || g == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phMetricStreamer == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_event_t *ev = NULL;
    if (hNotificationEvent != NULL && (ev = sim_event_from_handle(hNotificationEvent)) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (g->dev != dev) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (g->kind != GK_EUSS) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; /* placeholder OA groups */
    sim_metric_dev_t *md = mdev_of(dev);
    if (md == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;

    pthread_mutex_lock(&g_mx);
    ze_result_t r = ZE_RESULT_SUCCESS;
    sim_streamer_t *s = NULL;
    if (!is_activated(md, ctx, g)) r = ZE_RESULT_NOT_READY;                     /* docs/eu-stall-sampling.md §5.1 "Preconditions and results" order */
    else if (stream_busy(dev)) r = ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    else if (desc->notifyEveryNReports == 0) r = ZE_RESULT_ERROR_UNKNOWN;       /* KMD refuses 0 */
    else if ((s = streamer_alloc()) == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (r != ZE_RESULT_SUCCESS) {
        pthread_mutex_unlock(&g_mx);
        return r;
    }
    collect_tiles(s, dev);
    /* Another process's stream on one of the tiles: the kernel driver
     * refuses the open, which Intel's driver reports as UNKNOWN (docs/eu-stall-sampling.md §5.1 "Preconditions and results"). */
    if (!machine_claim(s)) {
        s->next = g_free_streamers;
        g_free_streamers = s;
        pthread_mutex_unlock(&g_mx);
        return ZE_RESULT_ERROR_UNKNOWN;
    }
    /* A root opens one stream per sub-device with the same descriptor, so
     * the write-back is the sub-device's clamp. */
    uint64_t maxn = tile_max_reports(s->tiles[0]);
    if (desc->notifyEveryNReports > maxn) desc->notifyEveryNReports = (uint32_t)maxn;
    desc->samplingPeriod = (uint32_t)round_period(desc->samplingPeriod);
    int guard = 0;
    for (sim_base_desc_t *e = (sim_base_desc_t *)desc->pNext; e != NULL && guard < MAX_PNEXT_CHAIN;
         e = (sim_base_desc_t *)e->pNext, guard++)
        if (e->stype == SIM_STYPE_INTEL_METRIC_HW_BUFFER_SIZE_EXP_DESC)
            ((sim_hw_buffer_size_exp_t *)e)->sizeInBytes = required_size(s->tiles[0], UINT32_MAX) * s->ntiles;

    sim_obj_init(&s->obj, SIM_K_STREAMER);
    s->dev = dev;
    s->group = g;
    s->event = ev;
    s->active = true;
    s->notify_n = desc->notifyEveryNReports;
    s->period_ns = desc->samplingPeriod;
    s->t0_ns = s->gen_upto = sim_now_ns();
    stream_claim(s);
    pthread_mutex_unlock(&g_mx);
    if (ev != NULL) sim_event_attach_streamer(ev, s);
    *phMetricStreamer = (zet_metric_streamer_handle_t)s;
    return ZE_RESULT_SUCCESS;
}

ze_result_t close_stream(sim_streamer_t *s) {
    /* Detach first, without g_mx: exec_*.c may query the event concurrently. */
    pthread_mutex_lock(&g_mx);
    sim_event_t *ev = s->obj.magic == SIM_MAGIC ? s->event : NULL;
    s->event = NULL;
    pthread_mutex_unlock(&g_mx);
    if (ev != NULL) sim_event_attach_streamer(ev, NULL);
    pthread_mutex_lock(&g_mx);
    if (s->obj.magic != SIM_MAGIC) {
        pthread_mutex_unlock(&g_mx);
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    /* Generate up to now so that the ground truth lists every sample the
     * hardware took while the stream was open; the buffers then vanish. */
    uint64_t now = sim_now_ns();
    s->closing = true;
    gen_streamer(s, now);
    s->closing = false;
    s->active = false;
    stream_release(s);
    prune_family(sim_root(s->dev), now);
    streamer_free(s);
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricStreamerClose(zet_metric_streamer_handle_t hMetricStreamer) {
    sim_streamer_t *s = SIM_OBJ(sim_streamer_t, hMetricStreamer, SIM_K_STREAMER);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return close_stream(s);
}

/* One KMD read() of a leaf device's stream (docs/eu-stall-sampling.md §4.2 "xe (PVC on xe, Xe2 and later)", docs/eu-stall-sampling.md §4.3 "Mapping of read() results to L0 results"): whole records,
 * Xe-core buffers in order; -EIO once after drops; empty -> 0 bytes. */
static ze_result_t tile_read(sim_device_t *tile, uint8_t *out, size_t *size) {
    sim_metric_dev_t *md = tile->metrics;
    uint64_t n = *size / REC_SIZE;
    if (n == 0) {
        *size = 0;
        return ZE_RESULT_ERROR_UNKNOWN; /* read() of less than one record: -EINVAL */
    }
    /* Like the xe KMD: drops are reported (-EIO) once, before any data;
     * the next read copies data even if the buffers keep dropping, and a
     * buffer's drop state clears when it is read from. */
    bool pending = false;
    for (uint32_t i = 0; i < md->nbufs; i++) pending = pending || md->bufs[i].eio_pending;
    if (pending && !md->eio_reported) {
        md->eio_reported = true;
        *size = 0;
        return ZE_RESULT_WARNING_DROPPED_DATA;
    }
    uint64_t done = 0;
    bool xe2 = is_xe2(), i915 = is_i915();
    for (uint32_t i = 0; i < md->nbufs && done < n; i++) {
        ss_buf_t *b = &md->bufs[i];
        if (b->count == 0) continue;
        /* i915-prelim flags the records it delivers from a buffer that
         * dropped rows since it was last read (docs/eu-stall-sampling.md §3.3 "i915-prelim additions and the drop flag"). */
        uint16_t flags = b->drop_mark ? I915_FLAG_DROP : 0;
        b->drop_mark = b->eio_pending = false;
        while (b->count > 0 && done < n) {
            const ss_rec_t *r = buf_front(b);
            rec_encode(out + done * REC_SIZE, r->ip, r->raw, num_raw(), xe2, i915, (uint16_t)i, flags);
            buf_pop(b);
            done++;
        }
    }
    pending = false;
    for (uint32_t i = 0; i < md->nbufs; i++) pending = pending || md->bufs[i].eio_pending;
    if (!pending) md->eio_reported = false;
    *size = (size_t)(done * REC_SIZE);
    return ZE_RESULT_SUCCESS;
}

/* FLAT device or sub-device (docs/eu-stall-sampling.md §6.1 "FLAT device or sub-device"). */
static ze_result_t leaf_read(sim_device_t *tile, uint32_t maxReportCount, size_t *pRawDataSize, uint8_t *pRawData) {
    if (*pRawDataSize == 0) {
        *pRawDataSize = required_size(tile, maxReportCount);
        return ZE_RESULT_SUCCESS;
    }
    if (pRawData == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (maxReportCount != UINT32_MAX) {
        size_t m = required_size(tile, maxReportCount);
        if (m < *pRawDataSize) *pRawDataSize = m;
    }
    return tile_read(tile, pRawData, pRawDataSize);
}

/* COMPOSITE root (docs/eu-stall-sampling.md §6.2 "Root device with sub-devices (COMPOSITE)"): a 16-byte header before each sub-device's data,
 * sub-devices in index order, stop when less than a record fits. */
static ze_result_t root_read(sim_streamer_t *s, uint32_t maxReportCount, size_t *pRawDataSize, uint8_t *pRawData) {
    uint32_t nsub = s->ntiles;
    size_t hdrs = (size_t)HDR_SIZE * nsub;
    uint64_t maxsup = tile_max_reports(s->tiles[0]) * nsub;
    uint64_t maxrep = maxReportCount < maxsup ? maxReportCount : maxsup;
    if (*pRawDataSize == 0) {
        *pRawDataSize = (size_t)(REC_SIZE * maxrep) + hdrs;
        return ZE_RESULT_SUCCESS;
    }
    if (pRawData == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t calc = *pRawDataSize > hdrs ? *pRawDataSize - hdrs : 0;
    if (calc > REC_SIZE * maxrep) calc = (size_t)(REC_SIZE * maxrep);
    if (calc < REC_SIZE) {
        /* Intel's driver would write a header past a too-small buffer; a
         * sub-device read of less than one record fails (-EINVAL). */
        *pRawDataSize = 0;
        return ZE_RESULT_ERROR_UNKNOWN;
    }
    uint8_t *cur = pRawData;
    size_t remain = calc;
    uint64_t maxleft = calc / REC_SIZE;
    for (uint32_t i = 0; i < nsub; i++) {
        uint8_t *hdr = cur;
        cur += HDR_SIZE;
        size_t got = remain;
        ze_result_t r = leaf_read(s->tiles[i], (uint32_t)maxleft, &got, cur);
        if (r != ZE_RESULT_SUCCESS) {
            /* Records already taken from earlier sub-devices are lost, as
             * with Intel's driver. */
            *pRawDataSize = 0;
            return r;
        }
        memset(hdr, 0, HDR_SIZE);
        put32(hdr, HDR_MAGIC);
        put32(hdr + 4, (uint32_t)got);
        put32(hdr + 8, i);
        remain -= got;
        cur += got;
        if (remain < REC_SIZE) break;
        maxleft -= got / REC_SIZE;
    }
    *pRawDataSize = (size_t)(cur - pRawData);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricStreamerReadData(zet_metric_streamer_handle_t hMetricStreamer,
                                                            uint32_t maxReportCount, size_t *pRawDataSize,
                                                            uint8_t *pRawData) {
    sim_streamer_t *s = SIM_OBJ(sim_streamer_t, hMetricStreamer, SIM_K_STREAMER);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pRawDataSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&g_mx);
    if (s->obj.magic != SIM_MAGIC) {
        pthread_mutex_unlock(&g_mx);
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (*pRawDataSize != 0) gen_and_prune(s); /* a size query reads nothing */
    ze_result_t r = is_leaf(s->dev) ? leaf_read(s->dev, maxReportCount, pRawDataSize, pRawData)
                                    : root_read(s, maxReportCount, pRawDataSize, pRawData);
    pthread_mutex_unlock(&g_mx);
    return r;
}

bool sim_metrics_notify_state(struct sim_streamer *s) {
    if (s == NULL) return false;
    pthread_mutex_lock(&g_mx);
    bool on = false;
    if (s->obj.magic == SIM_MAGIC && s->active) gen_and_prune(s);
    if (s->obj.magic == SIM_MAGIC) {
        if (s->is_tracer) {
            uint64_t n = 0;
            for (uint32_t t = 0; t < s->ntiles; t++) n += tile_records(s->tiles[t]);
            on = n * REC_SIZE >= s->notify_n;
        } else {
            /* Per KMD stream; a root is signalled if any sub-device is. */
            for (uint32_t t = 0; t < s->ntiles && !on; t++) on = tile_records(s->tiles[t]) >= s->notify_n;
        }
    }
    pthread_mutex_unlock(&g_mx);
    return on;
}

/* ------------------------------------------------------------------ */
/* Unsupported (docs/eu-stall-sampling.md §5.6 "Unsupported calls")                                                  */
/* ------------------------------------------------------------------ */
static ze_result_t ZE_APICALL unsup_marker(zet_command_list_handle_t a, zet_metric_streamer_handle_t b, uint32_t c) {
    (void)a, (void)b, (void)c;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_begin(zet_command_list_handle_t a, zet_metric_query_handle_t b) {
    (void)a, (void)b;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_end(zet_command_list_handle_t a, zet_metric_query_handle_t b,
                                              ze_event_handle_t c, uint32_t d, ze_event_handle_t *e) {
    (void)a, (void)b, (void)c, (void)d, (void)e;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_barrier(zet_command_list_handle_t a) {
    (void)a;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_pool_create(zet_context_handle_t a, zet_device_handle_t b,
                                                zet_metric_group_handle_t c, const zet_metric_query_pool_desc_t *d,
                                                zet_metric_query_pool_handle_t *e) {
    (void)a, (void)b, (void)c, (void)d, (void)e;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_pool_destroy(zet_metric_query_pool_handle_t a) {
    (void)a;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_create(zet_metric_query_pool_handle_t a, uint32_t b,
                                                 zet_metric_query_handle_t *c) {
    (void)a, (void)b, (void)c;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_destroy(zet_metric_query_handle_t a) {
    (void)a;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_getdata(zet_metric_query_handle_t a, size_t *b, uint8_t *c) {
    (void)a, (void)b, (void)c;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
/* Extension-only entry points of newer specs (programmables, markers,
 * groups from metrics): any signature, never reached with arguments. */
ze_result_t ZE_APICALL unsup_any(void) { return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; }

/* ------------------------------------------------------------------ */
/* DDI getters                                                         */
/* ------------------------------------------------------------------ */
SIM_EXPORT ze_result_t ZE_APICALL zetGetCommandListProcAddrTable(ze_api_version_t version,
                                                                 zet_command_list_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnAppendMetricStreamerMarker = unsup_marker;
    t->pfnAppendMetricQueryBegin = unsup_query_begin;
    t->pfnAppendMetricQueryEnd = unsup_query_end;
    t->pfnAppendMetricMemoryBarrier = unsup_barrier;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricStreamerProcAddrTable(ze_api_version_t version,
                                                                    zet_metric_streamer_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnOpen = sim_zetMetricStreamerOpen;
    t->pfnClose = sim_zetMetricStreamerClose;
    t->pfnReadData = sim_zetMetricStreamerReadData;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricQueryPoolProcAddrTable(ze_api_version_t version,
                                                                     zet_metric_query_pool_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = unsup_pool_create;
    t->pfnDestroy = unsup_pool_destroy;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricQueryProcAddrTable(ze_api_version_t version,
                                                                 zet_metric_query_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = unsup_query_create;
    t->pfnDestroy = unsup_query_destroy;
    t->pfnReset = unsup_query_destroy;
    t->pfnGetData = unsup_query_getdata;
    return ZE_RESULT_SUCCESS;
}
