/*
 * abi_timing.h — the launch path's slot contract between cgo/launch.c (C,
 * on the application's threads) and collector/timing (Go, the harvester):
 * slot kinds, slot flags and the event reference
 * passed to zl_release_events.
 *
 * The only home of these values: collector/timing/abi_timing.go is
 * generated from this header (go generate ./collector/timing, which runs
 * go tool cgo -godefs on collector/timing/abi_timing_defs.go), and
 * collector/timing's TestABIUpToDate fails when the two differ.
 */
#ifndef ZESTALL_CGO_ABI_TIMING_H
#define ZESTALL_CGO_ABI_TIMING_H

#include <stdint.h>

#include "abi.h"

enum {
    ZL_SLOT_LAUNCH = 1,   /* a kernel appended to a command list */
    ZL_SLOT_EXEC = 2,     /* a regular command list executed on a queue */
    ZL_SLOT_RESET = 3,    /* zeCommandListReset */
    ZL_SLOT_DESTROY = 4,  /* zeCommandListDestroy */
    ZL_SLOT_APP_TS = 5,   /* an app timestamp event read on the app thread */
    ZL_SLOT_APP_GONE = 6, /* an app timestamp event is being destroyed */
};

enum {
    ZL_FLAG_OURS = 1,       /* the event is zestall's (swapped in) */
    ZL_FLAG_APP_EVENT = 2,  /* the event is the app's own timestamp event */
    ZL_FLAG_IMMEDIATE = 4,  /* immediate command list */
    ZL_FLAG_NO_EVENT = 8,   /* no timestamp event; see reason */
    ZL_FLAG_SERIALIZED = 16, /* ran alone (ZESTALL_SERIALIZE=1) */
    ZL_FLAG_STOPPED = 32,   /* EXEC while collection is stopped: tracked, not recorded */
    ZL_FLAG_FAILED = 64,    /* EXEC: the submission failed (only its number counts) */
};

/* The no-timestamp reasons (ZL_REASON_*) are in abi.h. */

/* One of zestall's events and its context, for zl_release_events. */
typedef struct zl_event_ref {
    uint64_t context, event;
} zl_event_ref_t;

#endif
