/*
 * ids.h — the 32-bit ids the launch path gives kernels and command lists
 * (launch_maps.c): a launch slot and the output name a kernel or a list
 * by one (Launch.kernel_id, Launch.command_list_id). An id is never given
 * twice in a run: past 2^32-1 objects of a kind the next gets 0, "no id",
 * and zestall counts it (kernels: Go's "kernels created without an id";
 * lists: zl_lists_without_id) instead of giving an id that could be
 * another's. Also built alone by test/unit/test_ids.c.
 */
#ifndef ZESTALL_CGO_IDS_H
#define ZESTALL_CGO_IDS_H

#include <stdatomic.h>
#include <stdint.h>

/* The id of the next object counted in created: 1, 2, ... 2^32-1, then 0
 * for every later one (created itself is 64 bits: it does not wrap). */
static inline uint32_t zl_id_take(atomic_uint_fast64_t *created) {
    uint64_t n = atomic_fetch_add_explicit(created, 1, memory_order_relaxed) + 1;
    return n > UINT32_MAX ? 0 : (uint32_t)n;
}

#endif
