/*
 * node.c — which physical tiles of the simulated node this process sees:
 * ZESIM_CARDS cards of the model's tiles, filtered by ZE_AFFINITY_MASK the
 * way Intel's driver filters them, and grouped into root devices by the
 * hierarchy mode (docs/mpi.md §5 "ZE_AFFINITY_MASK"). Pure: core_driver.c turns
 * the result into device objects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* Parses a decimal index ("0", "12"); false for anything else (empty,
 * signs, spaces, other bases), so that a typo never selects a device. */
static bool parse_index(const char *s, size_t n, uint32_t *out) {
    if (n == 0 || n > 9) return false;
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

/* Marks the tiles one mask entry selects. Intel's driver splits the mask
 * at ',' and each entry at '.': in FLAT (and COMBINED) mode an entry is
 * the index of a tile in the flat list (card-major), and "X.Y" entries are
 * ignored; in COMPOSITE mode "X" is every tile of card X and "X.Y" tile Y
 * of card X. Indices out of range are ignored. Returns false for an entry
 * that is not of these forms (ignored too, but worth a warning). */
static bool mask_entry(const char *e, size_t n, uint32_t cards, uint32_t tiles, bool composite, bool *on) {
    const char *dot = memchr(e, '.', n);
    uint32_t a = 0, b = 0;
    if (dot == NULL) {
        if (!parse_index(e, n, &a)) return false;
        if (!composite) {
            if (a < cards * tiles) on[a] = true;
        } else if (a < cards) {
            for (uint32_t t = 0; t < tiles; t++) on[a * tiles + t] = true;
        }
        return true;
    }
    size_t na = (size_t)(dot - e), nb = n - na - 1;
    if (memchr(dot + 1, '.', nb) != NULL) return true; /* X.Y.Z (CCS level): not simulated, ignored */
    if (!parse_index(e, na, &a) || !parse_index(dot + 1, nb, &b)) return false;
    if (composite && a < cards && b < tiles) on[a * tiles + b] = true;
    return true;
}

uint32_t sim_node_select(uint32_t cards, uint32_t tiles, bool composite, const char *mask, sim_node_dev_t *out,
                         uint32_t cap, char *bad, size_t badcap) {
    uint32_t total = cards * tiles;
    bool *on = calloc(total ? total : 1, sizeof(bool));
    if (on == NULL) return 0;
    if (bad != NULL && badcap > 0) bad[0] = '\0';
    if (mask == NULL || mask[0] == '\0' || strcmp(mask, "default") == 0) {
        for (uint32_t i = 0; i < total; i++) on[i] = true;
    } else {
        const char *p = mask;
        for (;;) {
            const char *c = strchr(p, ',');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            if (!mask_entry(p, n, cards, tiles, composite, on) && bad != NULL && bad[0] == '\0')
                snprintf(bad, badcap, "%.*s", (int)(n > 64 ? 64 : n), p);
            if (c == NULL) break;
            p = c + 1;
        }
    }
    /* Root devices in physical order, whatever the order of the mask (the
     * driver keeps a bit set per card, not a list). */
    uint32_t n = 0;
    for (uint32_t c = 0; c < cards; c++) {
        if (composite) {
            uint32_t bits = 0;
            for (uint32_t t = 0; t < tiles && t < 32; t++)
                if (on[c * tiles + t]) bits |= 1u << t;
            if (bits == 0) continue;
            if (n < cap) out[n] = (sim_node_dev_t){c, bits};
            n++;
        } else {
            for (uint32_t t = 0; t < tiles && t < 32; t++) {
                if (!on[c * tiles + t]) continue;
                if (n < cap) out[n] = (sim_node_dev_t){c, 1u << t};
                n++;
            }
        }
    }
    free(on);
    return n < cap ? n : cap;
}
