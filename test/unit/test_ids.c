/*
 * Unit tests of cgo/ids.h, the ids the launch path gives kernels and
 * command lists: with the counter set near 2^32-1 (the test's hook: the
 * counter is the caller's), the last ids are given once each and every
 * later object gets 0 ("no id"), also when threads race at the limit.
 *
 *   unit_ids
 *
 * The last line of output is "N passed, N failed".
 */
#include "../../cgo/ids.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

/* Objects created before: the ids the next four get. */
static void test_sequence(void) {
    static const struct {
        const char *name;
        uint64_t created;
        uint32_t want[4];
    } tests[] = {
        {"first", 0, {1, 2, 3, 4}},
        {"below the limit", UINT32_MAX - 5, {UINT32_MAX - 4, UINT32_MAX - 3, UINT32_MAX - 2, UINT32_MAX - 1}},
        {"at the limit", UINT32_MAX - 2, {UINT32_MAX - 1, UINT32_MAX, 0, 0}},
        {"past the limit", UINT32_MAX, {0, 0, 0, 0}},
        {"far past the limit", (uint64_t)UINT32_MAX * 3, {0, 0, 0, 0}},
    };
    for (size_t t = 0; t < sizeof tests / sizeof tests[0]; t++) {
        atomic_uint_fast64_t created = tests[t].created;
        for (int i = 0; i < 4; i++) {
            uint32_t got = zl_id_take(&created);
            check(got == tests[t].want[i], "%s: id %d is %u, want %u", tests[t].name, i, got, tests[t].want[i]);
        }
        check(atomic_load(&created) == tests[t].created + 4, "%s: counter not advanced by 4", tests[t].name);
    }
}

/* Threads racing across the limit: every id left is given exactly once,
 * everyone else gets 0. */
#define RACE_THREADS 4
#define RACE_TAKES 1000
#define RACE_LEFT 1500 /* ids left below the limit when the race starts */
static atomic_uint_fast64_t race_counter;
static uint32_t race_ids[RACE_THREADS][RACE_TAKES];

static void *race(void *arg) {
    uint32_t *ids = arg;
    for (int i = 0; i < RACE_TAKES; i++) ids[i] = zl_id_take(&race_counter);
    return NULL;
}

static void test_race(void) {
    atomic_store(&race_counter, (uint64_t)UINT32_MAX - RACE_LEFT);
    pthread_t th[RACE_THREADS];
    for (int i = 0; i < RACE_THREADS; i++) pthread_create(&th[i], NULL, race, race_ids[i]);
    for (int i = 0; i < RACE_THREADS; i++) pthread_join(th[i], NULL);
    bool *seen = calloc(RACE_LEFT, sizeof *seen);
    int zeros = 0, dups = 0, outside = 0;
    for (int t = 0; t < RACE_THREADS; t++)
        for (int i = 0; i < RACE_TAKES; i++) {
            uint32_t id = race_ids[t][i];
            if (id == 0) {
                zeros++;
                continue;
            }
            if (id <= UINT32_MAX - RACE_LEFT) {
                outside++;
                continue;
            }
            uint32_t k = id - (UINT32_MAX - RACE_LEFT) - 1;
            if (seen[k]) dups++;
            seen[k] = true;
        }
    free(seen);
    check(zeros == RACE_THREADS * RACE_TAKES - RACE_LEFT, "race: %d objects without an id, want %d", zeros,
          RACE_THREADS * RACE_TAKES - RACE_LEFT);
    check(dups == 0, "race: %d ids given twice", dups);
    check(outside == 0, "race: %d ids below the counter's start", outside);
}

int main(void) {
    test_sequence();
    test_race();
    return check_summary();
}
