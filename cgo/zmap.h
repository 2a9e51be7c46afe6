/*
 * zmap.h — handle -> small value map for the launch path.
 *
 * Lookups are lock-free (they run on application threads at every kernel
 * launch); inserts and removals take a mutex (they run at object creation
 * and destruction). Open addressing with linear probing over atomic keys;
 * removed keys become tombstones. When the table grows, the old table is
 * kept alive (never freed) so a concurrent reader can finish its probe.
 */
#ifndef ZESTALL_ZMAP_H
#define ZESTALL_ZMAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define ZMAP_WORDS 3

typedef struct zmap_entry {
    _Atomic(uintptr_t) key;            /* 0 empty, 1 tombstone, else handle */
    _Atomic(uint64_t) val[ZMAP_WORDS];
} zmap_entry_t;

typedef struct zmap_table {
    uint64_t mask;                     /* capacity - 1 (power of two) */
    struct zmap_table *older;          /* retired tables, kept for readers */
    zmap_entry_t entries[];
} zmap_table_t;

typedef struct zmap {
    _Atomic(zmap_table_t *) table;
    pthread_mutex_t lock;
    uint64_t used;                     /* live + tombstones, under lock */
} zmap_t;

void zmap_init(zmap_t *m, uint64_t capacity);
/* Insert or replace. Returns false only when memory is exhausted. */
bool zmap_put(zmap_t *m, uintptr_t key, const uint64_t val[ZMAP_WORDS]);
/* Lock-free lookup; copies the value words. */
bool zmap_get(zmap_t *m, uintptr_t key, uint64_t val[ZMAP_WORDS]);
void zmap_del(zmap_t *m, uintptr_t key);

#endif
