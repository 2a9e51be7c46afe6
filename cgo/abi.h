/*
 * abi.h — the constants zestall's C code and its Go code share, other than
 * the launch-slot contract (launch.h): this file is their only home.
 *
 * Go reads them through package abi (abi/abi.go), generated from this
 * file with `go tool cgo -godefs` (go generate ./abi); abi's
 * TestGeneratedUpToDate fails when the committed mirror differs, and its
 * TestProtoAgrees checks the values that the output schema
 * (proto/zestall.proto) also defines. Change a value here, regenerate,
 * commit both. Plain enums and defines only: no types, no includes.
 */
#ifndef ZESTALL_CGO_ABI_H
#define ZESTALL_CGO_ABI_H

/* Layer state (layer.c's zestall_state(); collector.LayerState). */
enum {
    ZESTALL_STATE_IDLE = 0,        /* no zeInit seen yet */
    ZESTALL_STATE_ACTIVE = 1,      /* tracer enabled */
    ZESTALL_STATE_NO_TRACING = 2,  /* zeInit ok, tracing layer not enabled */
    ZESTALL_STATE_INIT_FAILED = 3, /* zeInit failed: make no L0 call ever */
    ZESTALL_STATE_SHUTDOWN = 4,    /* exit in progress / done */
    ZESTALL_STATE_ERROR = 5,       /* tracer could not be created */
};

/* Requests of the control API to Go (control.c; collector.Op*). A request
 * made before activation is remembered as ZC_OP_START or ZC_OP_STOP
 * (zc_early_request), 0 for none. */
enum {
    ZC_OP_START = 1,
    ZC_OP_STOP = 2,
    ZC_OP_FLUSH = 3,
    ZC_OP_ITT_RESUME = 4, /* __itt_resume() */
    ZC_OP_ITT_PAUSE = 5,  /* __itt_pause() */
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

#endif
