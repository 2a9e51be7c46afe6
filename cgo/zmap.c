/* zmap.c — see zmap.h. */
#include "zmap.h"

#include <stdlib.h>

#define ZMAP_EMPTY ((uintptr_t)0)
#define ZMAP_TOMB ((uintptr_t)1)

static uint64_t zmap_hash(uintptr_t k) {
    uint64_t x = (uint64_t)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static zmap_table_t *table_new(uint64_t cap) {
    zmap_table_t *t = calloc(1, sizeof *t + cap * sizeof(zmap_entry_t));
    if (t) t->mask = cap - 1;
    return t;
}

void zmap_init(zmap_t *m, uint64_t capacity) {
    uint64_t cap = 64;
    while (cap < capacity) cap <<= 1;
    atomic_store(&m->table, table_new(cap));
    pthread_mutex_init(&m->lock, NULL);
    m->used = 0;
}

/* Under lock: place without resizing; the table has room. */
static void place(zmap_table_t *t, uintptr_t key, const uint64_t val[ZMAP_WORDS], uint64_t *used) {
    uint64_t i = zmap_hash(key) & t->mask;
    zmap_entry_t *tomb = NULL;
    for (;; i = (i + 1) & t->mask) {
        zmap_entry_t *e = &t->entries[i];
        uintptr_t k = atomic_load_explicit(&e->key, memory_order_relaxed);
        if (k == key) {
            for (int w = 0; w < ZMAP_WORDS; w++) atomic_store_explicit(&e->val[w], val[w], memory_order_relaxed);
            return;
        }
        if (k == ZMAP_TOMB && tomb == NULL) tomb = e;
        if (k == ZMAP_EMPTY) {
            zmap_entry_t *dst = tomb ? tomb : e;
            for (int w = 0; w < ZMAP_WORDS; w++) atomic_store_explicit(&dst->val[w], val[w], memory_order_relaxed);
            /* Publish the key last: a reader that sees it sees the value. */
            atomic_store_explicit(&dst->key, key, memory_order_release);
            if (dst == e) (*used)++;
            return;
        }
    }
}

bool zmap_put(zmap_t *m, uintptr_t key, const uint64_t val[ZMAP_WORDS]) {
    if (key <= ZMAP_TOMB) return false;
    pthread_mutex_lock(&m->lock);
    zmap_table_t *t = atomic_load(&m->table);
    if ((m->used + 1) * 2 > t->mask + 1) {
        /* Grow (and drop tombstones): copy live entries, publish, retire. */
        zmap_table_t *n = table_new((t->mask + 1) * 2);
        if (n == NULL) {
            pthread_mutex_unlock(&m->lock);
            return false;
        }
        uint64_t used = 0;
        for (uint64_t i = 0; i <= t->mask; i++) {
            uintptr_t k = atomic_load_explicit(&t->entries[i].key, memory_order_relaxed);
            if (k > ZMAP_TOMB) {
                uint64_t v[ZMAP_WORDS];
                for (int w = 0; w < ZMAP_WORDS; w++) v[w] = atomic_load_explicit(&t->entries[i].val[w], memory_order_relaxed);
                place(n, k, v, &used);
            }
        }
        n->older = t;
        m->used = used;
        atomic_store_explicit(&m->table, n, memory_order_release);
        t = n;
    }
    place(t, key, val, &m->used);
    pthread_mutex_unlock(&m->lock);
    return true;
}

bool zmap_get(zmap_t *m, uintptr_t key, uint64_t val[ZMAP_WORDS]) {
    if (key <= ZMAP_TOMB) return false;
    zmap_table_t *t = atomic_load_explicit(&m->table, memory_order_acquire);
    uint64_t i = zmap_hash(key) & t->mask;
    for (uint64_t n = 0; n <= t->mask; n++, i = (i + 1) & t->mask) {
        zmap_entry_t *e = &t->entries[i];
        uintptr_t k = atomic_load_explicit(&e->key, memory_order_acquire);
        if (k == key) {
            for (int w = 0; w < ZMAP_WORDS; w++) val[w] = atomic_load_explicit(&e->val[w], memory_order_relaxed);
            return true;
        }
        if (k == ZMAP_EMPTY) return false;
    }
    return false;
}

void zmap_del(zmap_t *m, uintptr_t key) {
    if (key <= ZMAP_TOMB) return;
    pthread_mutex_lock(&m->lock);
    zmap_table_t *t = atomic_load(&m->table);
    uint64_t i = zmap_hash(key) & t->mask;
    for (uint64_t n = 0; n <= t->mask; n++, i = (i + 1) & t->mask) {
        zmap_entry_t *e = &t->entries[i];
        uintptr_t k = atomic_load_explicit(&e->key, memory_order_relaxed);
        if (k == key) {
            atomic_store_explicit(&e->key, ZMAP_TOMB, memory_order_release);
            break;
        }
        if (k == ZMAP_EMPTY) break;
    }
    pthread_mutex_unlock(&m->lock);
}
