/*
 * metrics_tracer.c — the experimental metric tracer and decoder (§10;
 * Intel's driver has stubs only, ours works with ZESIM_METRIC_TRACER=1)
 * and the metrics extension functions of
 * zeDriverGetExtensionFunctionAddress.
 */
#include "metrics.h"

sim_streamer_t *g_open, *g_free_streamers;
sim_decoder_t *g_free_decoders;

/* ------------------------------------------------------------------ */
/* Metric tracer (§10, experimental, extension functions only)         */
/* ------------------------------------------------------------------ */
/* Raw tracer data (our own format; Intel's driver has no implementation):
 * a sequence of 64-byte EU stall records exactly as the streamer returns
 * them, except that bytes 16-23 hold the sample's device timestamp (u64
 * ticks), bytes 24-27 a u32 that is 1 when the record comes from a
 * sub-device of a COMPOSITE root, and bytes 28-31 that sub-device's index. */
#define TR_TS_OFF 16
#define TR_ONSUB_OFF 24
#define TR_SUBID_OFF 28
#define TRACER_RATE_MULT 4 /* KMD default sampling rate multiplier (§4.2) */

static sim_streamer_t *tracer_of(sim_tracer_handle_t h) { return SIM_OBJ(sim_streamer_t, h, SIM_K_METRIC_TRACER); }

static ze_result_t ZE_APICALL sim_zetMetricTracerCreateExp(zet_context_handle_t hContext, zet_device_handle_t hDevice,
                                                           uint32_t metricGroupCount,
                                                           zet_metric_group_handle_t *phMetricGroups,
                                                           sim_tracer_desc_exp_t *desc,
                                                           ze_event_handle_t hNotificationEvent,
                                                           sim_tracer_handle_t *phMetricTracer) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_context_t *ctx = ctx_of(hContext);
    sim_device_t *dev = dev_of(hDevice);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phMetricTracer == NULL || (metricGroupCount > 0 && phMetricGroups == NULL))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (metricGroupCount != 1) return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* one tracer-based group exists */
    sim_metric_group_t *g = grp_of(phMetricGroups[0]);
    if (g == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (g->dev != dev) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (g->kind != GK_EUSS) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_event_t *ev = NULL;
    if (hNotificationEvent != NULL && (ev = sim_event_from_handle(hNotificationEvent)) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_metric_dev_t *md = mdev_of(dev);
    if (md == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&g_mx);
    ze_result_t r = ZE_RESULT_SUCCESS;
    sim_streamer_t *s = NULL;
    if (!is_activated(md, ctx, g)) r = ZE_RESULT_NOT_READY;
    else if (stream_busy(dev)) r = ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    else if ((s = streamer_alloc()) == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (r != ZE_RESULT_SUCCESS) {
        pthread_mutex_unlock(&g_mx);
        return r;
    }
    collect_tiles(s, dev);
    uint64_t cap = 0;
    for (uint32_t t = 0; t < s->ntiles; t++) cap += tile_max_reports(s->tiles[t]) * REC_SIZE;
    uint64_t nb = desc->notifyEveryNBytes;
    nb = (nb + REC_SIZE - 1) / REC_SIZE * REC_SIZE; /* whole records */
    if (nb < REC_SIZE) nb = REC_SIZE;
    if (nb > cap) nb = cap;
    if (nb > UINT32_MAX) nb = UINT32_MAX / REC_SIZE * REC_SIZE;
    desc->notifyEveryNBytes = (uint32_t)nb;
    sim_obj_init(&s->obj, SIM_K_METRIC_TRACER);
    s->is_tracer = true;
    s->dev = dev;
    s->group = g;
    s->event = ev;
    s->active = false; /* created disabled */
    s->notify_n = (uint32_t)nb;
    s->period_ns = TRACER_RATE_MULT * 251 * gpu_period_ns();
    s->t0_ns = s->gen_upto = sim_now_ns();
    stream_claim(s);
    pthread_mutex_unlock(&g_mx);
    if (ev != NULL) sim_event_attach_streamer(ev, s);
    *phMetricTracer = s;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricTracerDestroyExp(sim_tracer_handle_t h) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return close_stream(s);
}

static ze_result_t ZE_APICALL sim_zetMetricTracerEnableExp(sim_tracer_handle_t h, ze_bool_t synchronous) {
    (void)synchronous; /* takes effect at once either way */
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&g_mx);
    if (!s->active) {
        s->active = true;
        s->t0_ns = s->gen_upto = sim_now_ns();
        set_sampling_flags(sim_root(s->dev));
    }
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricTracerDisableExp(sim_tracer_handle_t h, ze_bool_t synchronous) {
    (void)synchronous;
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&g_mx);
    if (s->active) {
        gen_and_prune(s);
        s->active = false;
        set_sampling_flags(sim_root(s->dev));
    }
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricTracerReadDataExp(sim_tracer_handle_t h, size_t *pRawDataSize,
                                                             uint8_t *pRawData) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pRawDataSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&g_mx);
    if (s->active) gen_and_prune(s);
    uint64_t avail = 0;
    for (uint32_t t = 0; t < s->ntiles; t++) avail += tile_records(s->tiles[t]);
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (!s->active && avail == 0) {
        *pRawDataSize = 0;
        r = ZE_RESULT_NOT_READY;
    } else if (*pRawDataSize == 0) {
        *pRawDataSize = (size_t)(avail * REC_SIZE);
    } else if (pRawData == NULL) {
        r = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    } else {
        uint64_t n = *pRawDataSize / REC_SIZE, done = 0;
        bool dropped = false, xe2 = is_xe2(), i915 = is_i915();
        for (uint32_t t = 0; t < s->ntiles; t++) {
            sim_device_t *tile = s->tiles[t];
            sim_metric_dev_t *md = tile->metrics;
            bool onsub = tile->parent != NULL && tile->parent == s->dev;
            for (uint32_t i = 0; i < md->nbufs; i++) {
                ss_buf_t *b = &md->bufs[i];
                if (b->eio_pending) dropped = true;
                b->eio_pending = false;
                uint16_t flags = b->drop_mark ? I915_FLAG_DROP : 0;
                if (b->count > 0 && done < n) b->drop_mark = false;
                while (b->count > 0 && done < n) {
                    const ss_rec_t *rec = buf_front(b);
                    uint8_t *o = pRawData + done * REC_SIZE;
                    rec_encode(o, rec->ip, rec->raw, num_raw(), xe2, i915, (uint16_t)i, flags);
                    put64(o + TR_TS_OFF, sim_dev_ticks(tile, rec->t_ns));
                    put32(o + TR_ONSUB_OFF, onsub ? 1u : 0u);
                    put32(o + TR_SUBID_OFF, onsub ? tile->index : 0u);
                    buf_pop(b);
                    done++;
                }
            }
        }
        *pRawDataSize = (size_t)(done * REC_SIZE);
        if (dropped) r = ZE_RESULT_WARNING_DROPPED_DATA;
    }
    pthread_mutex_unlock(&g_mx);
    return r;
}

static ze_result_t ZE_APICALL sim_zetMetricDecoderCreateExp(sim_tracer_handle_t h, sim_decoder_handle_t *phDecoder) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phDecoder == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&g_mx);
    sim_decoder_t *d = g_free_decoders;
    if (d != NULL) g_free_decoders = d->next_free;
    else d = malloc(sizeof(*d));
    if (d != NULL) {
        memset(d, 0, sizeof(*d));
        sim_obj_init(&d->obj, SIM_K_METRIC_DECODER);
        d->dev = s->dev;
        d->group = s->group;
    }
    pthread_mutex_unlock(&g_mx);
    if (d == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *phDecoder = d;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricDecoderDestroyExp(sim_decoder_handle_t h) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_decoder_t *d = SIM_OBJ(sim_decoder_t, h, SIM_K_METRIC_DECODER);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&g_mx);
    sim_obj_kill(&d->obj);
    d->next_free = g_free_decoders;
    g_free_decoders = d;
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

/* The decodable metrics are the group's own metric handles. */
static ze_result_t ZE_APICALL sim_zetMetricDecoderGetDecodableMetricsExp(sim_decoder_handle_t h, uint32_t *pCount,
                                                                        zet_metric_handle_t *phMetrics) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_decoder_t *d = SIM_OBJ(sim_decoder_t, h, SIM_K_METRIC_DECODER);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return sim_zetMetricGet((zet_metric_group_handle_t)d->group, pCount, phMetrics);
}

/* Entries: for every record, one entry per requested metric (metricIndex =
 * position in phMetrics), grouped by set (= sub-device for a COMPOSITE
 * root, else one set). Only whole records are decoded; *pRawDataSize
 * reports the bytes consumed when fewer entries were requested. */
static ze_result_t ZE_APICALL sim_zetMetricTracerDecodeExp(sim_decoder_handle_t h, size_t *pRawDataSize,
                                                           uint8_t *pRawData, uint32_t metricsCount,
                                                           zet_metric_handle_t *phMetrics, uint32_t *pSetCount,
                                                           uint32_t *pMetricEntriesCountPerSet,
                                                           uint32_t *pMetricEntriesCount,
                                                           sim_metric_entry_exp_t *pMetricEntries) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_decoder_t *d = SIM_OBJ(sim_decoder_t, h, SIM_K_METRIC_DECODER);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pRawDataSize == NULL || pSetCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pRawDataSize > 0 && pRawData == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (metricsCount > 0 && phMetrics == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pRawDataSize % REC_SIZE != 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    uint32_t midx[16];
    if (metricsCount > 16) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < metricsCount; i++) {
        sim_metric_t *m = SIM_OBJ(sim_metric_t, phMetrics[i], SIM_K_METRIC);
        if (m == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (m->group->kind != GK_EUSS) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        midx[i] = m->index;
    }
    uint32_t nsets = is_leaf(d->dev) ? 1 : d->dev->num_subdevices;
    size_t nrec = *pRawDataSize / REC_SIZE;
    uint64_t total = (uint64_t)nrec * metricsCount;
    if (pMetricEntriesCount == NULL) {
        *pSetCount = nsets;
        return ZE_RESULT_SUCCESS;
    }
    if (*pMetricEntriesCount == 0 || *pSetCount == 0) {
        *pSetCount = nsets;
        *pMetricEntriesCount = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
        return ZE_RESULT_SUCCESS;
    }
    if (pMetricEntries == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t use = metricsCount ? *pMetricEntriesCount / metricsCount : nrec;
    if (use > nrec) use = nrec;
    uint32_t nraw = num_raw();
    const uint8_t *map = metric_raw_map();
    uint32_t out_sets = *pSetCount < nsets ? *pSetCount : nsets;
    uint64_t w = 0;
    for (uint32_t set = 0; set < out_sets; set++) {
        uint64_t before = w;
        for (size_t i = 0; i < use; i++) {
            const uint8_t *rec = pRawData + i * REC_SIZE;
            uint32_t onsub = le32(rec + TR_ONSUB_OFF), sub = le32(rec + TR_SUBID_OFF);
            uint32_t rset = (nsets > 1 && onsub) ? sub : 0;
            if (rset != set) continue;
            uint32_t ip;
            uint8_t raw[MAX_COUNTERS];
            rec_decode(rec, &ip, raw, nraw, false);
            uint64_t ts = le64(rec + TR_TS_OFF);
            for (uint32_t m = 0; m < metricsCount; m++) {
                sim_metric_entry_exp_t *e = &pMetricEntries[w++];
                memset(e, 0, sizeof(*e));
                e->value.ui64 = midx[m] == 0 ? ip : raw[map[midx[m]]];
                e->timeStamp = ts;
                e->metricIndex = m;
                e->onSubdevice = (nsets > 1 && onsub) ? 1 : 0;
                e->subdeviceId = e->onSubdevice ? sub : 0;
            }
        }
        if (pMetricEntriesCountPerSet != NULL) pMetricEntriesCountPerSet[set] = (uint32_t)(w - before);
    }
    *pSetCount = out_sets;
    *pMetricEntriesCount = (uint32_t)w;
    *pRawDataSize = use * REC_SIZE;
    return ZE_RESULT_SUCCESS;
}

/* Intel's open-source driver: every tracer/decoder function answers
 * UNSUPPORTED_FEATURE (§10). Without ZESIM_METRIC_TRACER=1 the functions
 * above do the same (first line of each). */
void *sim_metrics_extension(const char *name) {
    static const struct {
        const char *name;
        void *fn;
    } tab[] = {
        {"zetIntelDeviceEnableMetricsExp", (void *)sim_zetIntelDeviceEnableMetricsExp},
        {"zetIntelDeviceDisableMetricsExp", (void *)sim_zetIntelDeviceDisableMetricsExp},
        {"zetMetricTracerCreateExp", (void *)sim_zetMetricTracerCreateExp},
        {"zetMetricTracerDestroyExp", (void *)sim_zetMetricTracerDestroyExp},
        {"zetMetricTracerEnableExp", (void *)sim_zetMetricTracerEnableExp},
        {"zetMetricTracerDisableExp", (void *)sim_zetMetricTracerDisableExp},
        {"zetMetricTracerReadDataExp", (void *)sim_zetMetricTracerReadDataExp},
        {"zetMetricTracerDecodeExp", (void *)sim_zetMetricTracerDecodeExp},
        {"zetMetricDecoderCreateExp", (void *)sim_zetMetricDecoderCreateExp},
        {"zetMetricDecoderDestroyExp", (void *)sim_zetMetricDecoderDestroyExp},
        {"zetMetricDecoderGetDecodableMetricsExp", (void *)sim_zetMetricDecoderGetDecodableMetricsExp},
        {"zetDeviceCreateMetricGroupsFromMetricsExp", (void *)unsup_any},
        {"zetMetricProgrammableGetExp", (void *)unsup_any},
        {"zetCommandListAppendMarkerExp", (void *)unsup_any},
        {"zetIntelCommandListAppendMarkerExp", (void *)unsup_any},
    };
    if (name == NULL) return NULL;
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (strcmp(name, tab[i].name) == 0) return tab[i].fn;
    return NULL;
}

