/*
 * metrics_record.c — the EU stall unit's raw 64-byte records (§3), bit
 * exact for PVC and Xe2 and for both kernel drivers, and the per-Xe-core
 * record buffers of the "hardware" (§4.4).
 */
#include "metrics.h"

/* ------------------------------------------------------------------ */
/* Raw records (§3)                                                    */
/* ------------------------------------------------------------------ */
/* Encodes one record bit-exactly: PVC and Xe2 layouts share ip (29 bits)
 * and 8-bit counters from bit 29; Xe2 sets end_flag (bit 112). i915-prelim
 * appends {u16 subslice, u16 flags} at byte 48. */
void rec_encode(uint8_t out[REC_SIZE], uint32_t ip, const uint8_t *raw, uint32_t nraw, bool xe2, bool i915,
                       uint16_t subslice, uint16_t flags) {
    memset(out, 0, REC_SIZE);
    unsigned __int128 v = (unsigned __int128)(ip & IP_MASK);
    for (uint32_t k = 0; k < nraw; k++) v |= (unsigned __int128)raw[k] << (29 + 8 * k);
    if (xe2) v |= (unsigned __int128)1 << 112;
    for (int i = 0; i < 16; i++) out[i] = (uint8_t)(v >> (8 * i));
    if (i915) {
        out[48] = (uint8_t)subslice;
        out[49] = (uint8_t)(subslice >> 8);
        out[50] = (uint8_t)flags;
        out[51] = (uint8_t)(flags >> 8);
    }
}

uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Decodes like Intel's driver (§3.4): counter k is the u16 at byte 3 + k,
 * shifted right by 5. Returns the drop flag (PVC only looks at it). */
bool rec_decode(const uint8_t *rec, uint32_t *ip, uint8_t *raw, uint32_t nraw, bool pvc_drop_check) {
    *ip = (uint32_t)(le64(rec) & IP_MASK);
    for (uint32_t k = 0; k < nraw; k++) {
        uint16_t w = (uint16_t)(rec[3 + k] | rec[4 + k] << 8);
        raw[k] = (uint8_t)((w >> 5) & 0xff);
    }
    return pvc_drop_check && ((rec[50] | rec[51] << 8) & I915_FLAG_DROP) != 0;
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */
/* ------------------------------------------------------------------ */
void buf_reset(ss_buf_t *b) {
    b->head = b->count = 0;
    b->eio_pending = b->drop_mark = false;
    b->dropped = 0;
}

/* Appends a record; false if the 8192-record buffer is full (dropped). */
bool buf_push(ss_buf_t *b, const ss_rec_t *r) {
    if (b->count >= XECORE_BUF_RECORDS) {
        b->dropped++;
        b->eio_pending = true;
        b->drop_mark = true;
        return false;
    }
    if (b->count == b->alloc) {
        /* Grow the ring (doubling, unrolled so that head becomes 0). */
        uint32_t na = b->alloc ? b->alloc * 2 : 64;
        if (na > XECORE_BUF_RECORDS) na = XECORE_BUF_RECORDS;
        ss_rec_t *nr = malloc((size_t)na * sizeof(ss_rec_t));
        if (nr == NULL) {
            b->dropped++;
            b->eio_pending = b->drop_mark = true;
            return false;
        }
        for (uint32_t i = 0; i < b->count; i++) nr[i] = b->r[(b->head + i) % b->alloc];
        free(b->r);
        b->r = nr;
        b->alloc = na;
        b->head = 0;
    }
    b->r[(b->head + b->count) % b->alloc] = *r;
    b->count++;
    return true;
}

const ss_rec_t *buf_front(const ss_buf_t *b) { return &b->r[b->head]; }
void buf_pop(ss_buf_t *b) {
    b->head = (b->head + 1) % b->alloc;
    b->count--;
}

uint64_t tile_records(sim_device_t *tile) {
    sim_metric_dev_t *md = tile->metrics;
    uint64_t n = 0;
    if (md == NULL) return 0;
    for (uint32_t i = 0; i < md->nbufs; i++) n += md->bufs[i].count;
    return n;
}
