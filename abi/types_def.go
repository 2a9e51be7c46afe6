//go:build ignore

// The input of `go tool cgo -godefs` (go generate ./abi): it names every
// constant of cgo/abi.h that Go uses, and abi.go is what cgo writes from
// it. Not compiled: it imports "C".

package abi

/*
#include "../cgo/abi.h"
*/
import "C"

// Layer state (collector.LayerState).
const (
	StateIdle       = C.ZESTALL_STATE_IDLE
	StateActive     = C.ZESTALL_STATE_ACTIVE
	StateNoTracing  = C.ZESTALL_STATE_NO_TRACING
	StateInitFailed = C.ZESTALL_STATE_INIT_FAILED
	StateShutdown   = C.ZESTALL_STATE_SHUTDOWN
	StateError      = C.ZESTALL_STATE_ERROR
)

// Requests of the control API (window.Op*).
const (
	OpStart     = C.ZC_OP_START
	OpStop      = C.ZC_OP_STOP
	OpFlush     = C.ZC_OP_FLUSH
	OpITTResume = C.ZC_OP_ITT_RESUME
	OpITTPause  = C.ZC_OP_ITT_PAUSE
)

// What blocks collection (window.Blockers): collection is on while
// none does.
const (
	BlockUser  = C.ZL_BLOCK_USER
	BlockTimer = C.ZL_BLOCK_TIMER
	BlockCount = C.ZL_BLOCK_COUNT
)

// Why EU stall sampling is off (proto StallSamplingOff).
const (
	StallOn            = C.ZS_OK
	StallOffDisabled   = C.ZS_OFF_DISABLED
	StallOffNoMetrics  = C.ZS_OFF_NO_METRICS
	StallOffNoGroup    = C.ZS_OFF_NO_GROUP
	StallOffOpenFailed = C.ZS_OFF_OPEN_FAILED
)

// Why a launch has no device times, decided by the launch path (proto
// NoTimestampReason).
const (
	NoTimestampPoolExhausted        = C.ZL_REASON_POOL_EXHAUSTED
	NoTimestampEventError           = C.ZL_REASON_EVENT_ERROR
	NoTimestampUnsupported          = C.ZL_REASON_UNSUPPORTED
	NoTimestampAppendedWhileStopped = C.ZL_REASON_APPENDED_WHILE_STOPPED
)

// MetricTypeIP is the zet_metric_type_t of the IP metric.
const MetricTypeIP = C.ZESTALL_METRIC_TYPE_IP

// How zestall took part in XPTI (proto SyclXptiState).
const (
	XptiUnknown    = C.ZX_XPTI_UNKNOWN
	XptiEnabled    = C.ZX_XPTI_ENABLED
	XptiAppended   = C.ZX_XPTI_APPENDED
	XptiListed     = C.ZX_XPTI_LISTED
	XptiOffUser    = C.ZX_XPTI_OFF_USER
	XptiOffEnv     = C.ZX_XPTI_OFF_ENV
	XptiSecondCopy = C.ZX_XPTI_SECOND_COPY
)

// Records of the XPTI ring (collector.SyclRecord.Kind).
const (
	SyclRecSpan = C.ZX_REC_SPAN
	SyclRecNode = C.ZX_REC_NODE
	SyclRecEdge = C.ZX_REC_EDGE
)

// Kinds of SYCL host span (proto SyclSpanKind).
const (
	SyclSpanTask    = C.ZX_SPAN_TASK
	SyclSpanBarrier = C.ZX_SPAN_BARRIER
	SyclSpanWait    = C.ZX_SPAN_WAIT
)

// SYCL streams the callbacks were registered on (a bit set).
const (
	SyclStream      = C.ZX_STREAM_SYCL
	SyclStreamDebug = C.ZX_STREAM_SYCL_DEBUG
)

// MaxCodeCopies is the most copies of one module (launch separation).
const MaxCodeCopies = C.ZESTALL_MAX_CODE_COPIES

// The launch rings' sizes in slots (ZESTALL_RING_SLOTS): a thread's
// first, the most one ring holds, and the default of the setting.
const (
	RingMinSlots     = C.ZESTALL_RING_MIN_SLOTS
	RingMaxSlots     = C.ZESTALL_RING_MAX_SLOTS
	RingDefaultSlots = C.ZESTALL_RING_DEFAULT_SLOTS
)
