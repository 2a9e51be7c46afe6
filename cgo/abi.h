/*
 * abi.h — everything zestall's C code and its Go code share: this file is
 * its only home.
 *
 * Go reads it through generated mirrors, written with `go tool cgo -godefs`
 * and checked for drift by a test each: package abi (abi/abi.go, go
 * generate ./abi) holds the constants several packages use and checks the
 * values the output schema (proto/zestall.proto) also defines; package
 * collector/timing (abi_timing.go, go generate ./collector/timing) holds
 * the launch-slot contract between the launch path (cgo/launch.c,
 * cgo/regular_lists.c) and the harvester. Change
 * a value here, regenerate, commit all.
 */
#ifndef ZESTALL_CGO_ABI_H
#define ZESTALL_CGO_ABI_H

#include <stdint.h>

/* Layer state (layer.c's zestall_state(); collector.LayerState). */
enum {
    ZESTALL_STATE_IDLE = 0,        /* no zeInit seen yet */
    ZESTALL_STATE_ACTIVE = 1,      /* tracer enabled */
    ZESTALL_STATE_NO_TRACING = 2,  /* zeInit ok, tracing layer not enabled */
    ZESTALL_STATE_INIT_FAILED = 3, /* zeInit failed: make no L0 call ever */
    ZESTALL_STATE_SHUTDOWN = 4,    /* exit in progress / done */
    ZESTALL_STATE_ERROR = 5,       /* tracer could not be created */
};

/* Requests of the control API to Go (control.c; window.Op*). A request
 * made before activation is remembered as ZC_OP_START or ZC_OP_STOP
 * (zc_early_request), 0 for none. */
enum {
    ZC_OP_START = 1,
    ZC_OP_STOP = 2,
    ZC_OP_FLUSH = 3,
    ZC_OP_ITT_RESUME = 4, /* __itt_resume() */
    ZC_OP_ITT_PAUSE = 5,  /* __itt_pause() */
};

/* What blocks collection (cgo/launch.c's condition word, zl_block;
 * collector/window). Collection is on while no condition blocks it:
 * the word is the set of conditions that block it now, 0 when collecting.
 * Go owns USER and TIMER (it sets and clears them with zl_block); the
 * launch path owns COUNT, set outside the ZESTALL_LAUNCHES window and
 * changed only at the window's two edges, each announced to Go
 * (zestallLaunchEdge). */
enum {
    ZL_BLOCK_USER = 1,  /* ZESTALL_START=paused, zestall_stop(), __itt_pause(), the toggle signal */
    ZL_BLOCK_TIMER = 2, /* before ZESTALL_DELAY, after ZESTALL_DELAY + ZESTALL_DURATION */
    ZL_BLOCK_COUNT = 4, /* outside the ZESTALL_LAUNCHES window */
};

/* Why EU stall sampling is off on a device (stall.c's zs_stream_t.status;
 * the values of proto StallSamplingOff). 1, sampling turned off by the
 * user, is decided in Go and never set by C. */
enum {
    ZS_OK = 0,
    ZS_OFF_DISABLED = 1,    /* ZESTALL_SAMPLING=0 */
    ZS_OFF_NO_METRICS = 2,  /* the driver exposes no metric groups at all */
    ZS_OFF_NO_GROUP = 3,    /* no EuStallSampling group on this device */
    ZS_OFF_OPEN_FAILED = 4, /* activation or zetMetricStreamerOpen failed */
};

/* Why a launch has no device times, when the launch path decides it
 * (zl_slot_t.reason with ZL_FLAG_NO_EVENT; the values of proto
 * NoTimestampReason, which has more, decided in Go). */
enum {
    ZL_REASON_POOL_EXHAUSTED = 1,
    ZL_REASON_EVENT_ERROR = 2,
    ZL_REASON_UNSUPPORTED = 6,
    ZL_REASON_APPENDED_WHILE_STOPPED = 16,
};

/* zet_metric_type_t of the EuStallSampling group's IP metric:
 * ZET_METRIC_TYPE_IP_EXP in the loader 1.8 headers, ZET_METRIC_TYPE_IP in
 * later ones (same value): docs/eu-stall-sampling.md §0 "Conventions,
 * sources, constants missing from Debian's headers". The output stores it
 * in Metric.metric_type. */
#define ZESTALL_METRIC_TYPE_IP 0x7ffffffe

/* Launch separation by module copies (cgo/separate.c): the most copies of
 * one module (ZESTALL_SEPARATE_COPIES, collector/config). A launch record
 * names the code it ran with 0 (the original) … this (Launch.code_copy). */
#define ZESTALL_MAX_CODE_COPIES 64

/* The launch rings' sizes (cgo/launch_rings.c, "Ring capacity"): a
 * thread's ring starts with ZESTALL_RING_MIN_SLOTS slots and doubles, up
 * to ZESTALL_RING_MAX_SLOTS, while all rings' growth fits the budget.
 * ZESTALL_RING_SLOTS (collector/config) is the slots a lone thread's ring
 * may reach, ZESTALL_RING_DEFAULT_SLOTS unless set: the budget is that
 * less ZESTALL_RING_MIN_SLOTS. */
#define ZESTALL_RING_MIN_SLOTS 1024
#define ZESTALL_RING_MAX_SLOTS 32768
#define ZESTALL_RING_DEFAULT_SLOTS 16384

/* The launch-slot contract: the launch path (cgo/launch.c,
 * cgo/regular_lists.c; the application's threads) writes slots,
 * collector/timing's harvester reads them. */
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

/* Device-side copies of immediate lists' timestamps
 * (cgo/timestamp_copies.c; collector/timing's harvester): what
 * zl_copy_start made of a batch, and the most events one copy takes. */
enum {
    ZL_COPY_STARTED = 0,     /* the copy runs: poll it (zl_copy_results) */
    ZL_COPY_BUSY = 1,        /* every copy of the (context, device) is in flight: try again later */
    ZL_COPY_FAILED = 2,      /* this batch could not be copied: read its events on the host */
    ZL_COPY_UNAVAILABLE = 3, /* the device cannot copy (no compute queue of zestall's own): read on the host */
};
#define ZL_COPY_MAX_EVENTS 16384

/* One of zestall's events and its context, for zl_release_events. */
typedef struct zl_event_ref {
    uint64_t context, event;
} zl_event_ref_t;

/* XPTI (cgo/xpti.c; docs/xpti.md). How zestall took part in XPTI, decided
 * by the library's constructor (proto SyclXptiState, Header.sycl). */
enum {
    ZX_XPTI_UNKNOWN = 0,     /* the constructor did not run */
    ZX_XPTI_ENABLED = 1,     /* zestall enabled XPTI and is the only subscriber */
    ZX_XPTI_APPENDED = 2,    /* zestall appended itself to other subscribers */
    ZX_XPTI_LISTED = 3,      /* XPTI_SUBSCRIBERS already named this library */
    ZX_XPTI_OFF_USER = 4,    /* ZESTALL_XPTI=0 */
    ZX_XPTI_OFF_ENV = 5,     /* XPTI_TRACE_ENABLE=0 (or false) set by the user */
    ZX_XPTI_SECOND_COPY = 6, /* this instance is a second copy of the library: ignored */
};

/* What the XPTI callbacks hand to Go (zx_record_t.kind). */
enum {
    ZX_REC_SPAN = 1, /* a host span: task, barrier or wait */
    ZX_REC_NODE = 2, /* node_create: a node of the SYCL task graph */
    ZX_REC_EDGE = 3, /* edge_create: a dependency between two nodes */
};

/* Kinds of host span (zx_record_t.span; proto SyclSpanKind). */
enum {
    ZX_SPAN_TASK = 1,    /* task_begin .. task_end */
    ZX_SPAN_BARRIER = 2, /* barrier_begin .. barrier_end */
    ZX_SPAN_WAIT = 3,    /* wait_begin .. wait_end */
};

/* Which SYCL streams the callbacks were registered on (a bit set). */
enum {
    ZX_STREAM_SYCL = 1,       /* "sycl" */
    ZX_STREAM_SYCL_DEBUG = 2, /* "sycl.debug" (only when other subscribers are listed) */
};

/* One record of the XPTI ring (xpti.c pushes on the notifying thread,
 * Go drains on the harvester's goroutine). */
typedef struct zx_record {
    uint64_t begin_ns;  /* SPAN: begin; NODE, EDGE: when notified (host ns) */
    uint64_t end_ns;    /* SPAN: end */
    uint64_t id;        /* SPAN of a task: the task id launches carry */
    uint64_t node;      /* SPAN, NODE: the node's id (event unique_id); EDGE: source node */
    uint64_t target;    /* EDGE: target node */
    uint64_t queue;     /* SPAN, NODE: the stashed "queue_id" (see has_queue) */
    uint64_t instance;  /* SPAN, NODE: the instance number of the notification */
    uint32_t location;  /* SPAN, NODE: id of the source location (0: none) */
    uint32_t tid;       /* the notifying OS thread */
    uint8_t kind;       /* ZX_REC_* */
    uint8_t span;       /* ZX_SPAN_* for a SPAN */
    uint8_t has_queue;  /* queue is valid */
    uint8_t depth;      /* SPAN: how many spans were open below it on its thread */
    uint32_t pad_;
} zx_record_t;

#endif
