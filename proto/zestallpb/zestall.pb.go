// The zestall output format: what libzestall.so writes and what offline
// tools read. This file is a public contract. It is written for people who
// read zestall files without zestall's own Go reader, so it states every rule
// a reader needs; the Go reader (package github.com/zestall/zestall/proto/pbstream)
// implements exactly these rules.
//
// # Framing
//
// A zestall file is:
//
//   1. An 8-byte prefix: the seven ASCII bytes "ZESTALL" followed by one byte,
//      the framing version, currently 2 (see "Compatibility and versioning").
//   2. Zero or more Zstandard frames (RFC 8878), concatenated, each with a
//      content checksum. The writer ends the current frame at every flush:
//      at least once per second while the application runs, and at exit. A
//      run that is killed therefore leaves a file whose complete frames are
//      all readable; only the frame being written when it died is lost.
//      Zstandard skippable frames (magic 0x184D2A50 to 0x184D2A5F) may appear
//      between frames and must be ignored. No dictionaries are used.
//   3. Each frame decompresses to a sequence of records. A record is an
//      unsigned LEB128 varint holding a byte count n, followed by n bytes: one
//      serialized Record message (the "length-delimited" encoding of Java's
//      writeDelimitedTo and Go's encoding/protodelim). A record never spans
//      two frames, and a frame never ends inside a record.
//   4. Frames decode independently: the only encoding with state, the
//      compact form of Launch, starts afresh in every frame. (Ids in a
//      record may still name records of earlier frames.)
//
// Limits a reader may enforce (the Go reader does): a record is at most
// 256 MiB; a frame decompresses to at most 512 MiB; a frame's window is at
// most 64 MiB. zestall never writes anything larger.
//
// # Order of records
//
//   - Header is the first record of the file and occurs exactly once.
//   - A record that refers to an id comes after the record that defines it:
//     Kernel after its Module, Launch after its Kernel, StallRows after the
//     Kernel and the Launches it names. ModuleDestroyed and KernelDestroyed
//     come after the record they end. SyclLocation comes before the
//     records that name it; a Launch's sycl_task_id may name a SyclSpan
//     that comes later (the span is written when the task ends).
//   - Launch records appear in the order the writer learned their device
//     times, not in append order.
//   - Counters may appear many times (zestall writes them periodically, so
//     that a killed run keeps recent totals); each holds running totals since
//     the start of the run, so the last one read is the most recent. The one written at a clean exit has
//     final = true; a file without it ended abnormally.
//
// # Units
//
//   - "host ns": nanoseconds of the host clock CLOCK_MONOTONIC_RAW, the clock
//     in which zeDeviceGetGlobalTimestamps reports host time on Linux. Device
//     timestamps are converted to host ns by the writer, counter wraps
//     (kernelTimestampValidBits) already undone, so all times in a file are
//     comparable. Header.start_unix_ns relates host ns to wall-clock time.
//   - Durations and periods: nanoseconds. Sizes: bytes. Frequencies: Hz.
//   - Addresses: byte addresses in the GPU virtual address space.
//   - Stall counters: numbers of EU stall samples, as the driver's
//     calculation (zetMetricGroupCalculateMultipleMetricValuesExp) reports
//     them ("Events").
//
// # Ids
//
// Device, module, kernel, launch, queue and command-list ids are small
// integers assigned by the writer. Each is unique among ids of its kind in
// one file and never reused in that file, even when the Level-Zero handle it
// stands for is destroyed and its value reused. Id 0 is never assigned: a
// field holding 0 means "none" or "unknown". Ids are not Level-Zero handles
// and mean nothing outside their file (a merge tool renumbers them).
//
// # Zero values
//
// In proto3 a scalar field holding 0, false or "" is absent on the wire and
// reads back as that zero value. Each field's comment says what its zero
// means. Fields declared `optional` have presence: for them "absent" and
// "zero" differ.
//
// # Compatibility and versioning
//
//   - Fields are only ever added. A field number is never reused, renumbered
//     or given another type or meaning; the number and name of a removed
//     field are `reserved`.
//   - New kinds of record are added as new members of Record.kind. A reader
//     skips records whose kind it does not know (in Go: Record.Kind is nil)
//     and ignores fields it does not know.
//   - Header.format_version counts schema revisions: it grows by one with
//     every change to this file that adds fields, record kinds or enum
//     values. A reader never needs it to parse a file, but may use it to
//     tell "not written by this writer's version" from "zero".
//   - The framing version in the prefix changes only if the framing above
//     changes incompatibly, or a kind of record is added that a reader must
//     not skip. A reader refuses framing versions it does not know. Version
//     2 (with revision 8) added LaunchRun, which a reader must expand to
//     resolve the compact Launch records after it; a version 1 file is a
//     version 2 file without LaunchRun records.

// Code generated by protoc-gen-go. DO NOT EDIT.
// versions:
// 	protoc-gen-go v1.36.12
// 	protoc        v3.21.12
// source: zestall.proto

package zestallpb

import (
	protoreflect "google.golang.org/protobuf/reflect/protoreflect"
	protoimpl "google.golang.org/protobuf/runtime/protoimpl"
	reflect "reflect"
	sync "sync"
	unsafe "unsafe"
)

const (
	// Verify that this generated code is sufficiently up-to-date.
	_ = protoimpl.EnforceVersion(20 - protoimpl.MinVersion)
	// Verify that runtime/protoimpl is sufficiently up-to-date.
	_ = protoimpl.EnforceVersion(protoimpl.MaxVersion - 20)
)

// How zestall took part in XPTI.
type SyclXptiState int32

const (
	// zestall's constructor did not run (or the file predates revision 5).
	SyclXptiState_SYCL_XPTI_STATE_UNKNOWN SyclXptiState = 0
	// zestall enabled XPTI (XPTI_TRACE_ENABLE, XPTI_FRAMEWORK_DISPATCHER
	// when unset) and is the only subscriber.
	SyclXptiState_SYCL_XPTI_STATE_ENABLED SyclXptiState = 1
	// Other subscribers were listed; zestall appended itself and also
	// subscribes to "sycl.debug".
	SyclXptiState_SYCL_XPTI_STATE_APPENDED SyclXptiState = 2
	// XPTI_SUBSCRIBERS already named libzestall.so.
	SyclXptiState_SYCL_XPTI_STATE_LISTED SyclXptiState = 3
	// ZESTALL_XPTI=0: zestall left XPTI alone.
	SyclXptiState_SYCL_XPTI_STATE_OFF_USER SyclXptiState = 4
	// XPTI_TRACE_ENABLE=0 (or false) was set: zestall left XPTI off.
	SyclXptiState_SYCL_XPTI_STATE_OFF_ENV SyclXptiState = 5
	// This copy of libzestall.so found another copy loaded first and
	// ignores XPTI (a copy of the file was given to XPTI instead of the
	// preloaded file itself).
	SyclXptiState_SYCL_XPTI_STATE_SECOND_COPY SyclXptiState = 6
)

// Enum value maps for SyclXptiState.
var (
	SyclXptiState_name = map[int32]string{
		0: "SYCL_XPTI_STATE_UNKNOWN",
		1: "SYCL_XPTI_STATE_ENABLED",
		2: "SYCL_XPTI_STATE_APPENDED",
		3: "SYCL_XPTI_STATE_LISTED",
		4: "SYCL_XPTI_STATE_OFF_USER",
		5: "SYCL_XPTI_STATE_OFF_ENV",
		6: "SYCL_XPTI_STATE_SECOND_COPY",
	}
	SyclXptiState_value = map[string]int32{
		"SYCL_XPTI_STATE_UNKNOWN":     0,
		"SYCL_XPTI_STATE_ENABLED":     1,
		"SYCL_XPTI_STATE_APPENDED":    2,
		"SYCL_XPTI_STATE_LISTED":      3,
		"SYCL_XPTI_STATE_OFF_USER":    4,
		"SYCL_XPTI_STATE_OFF_ENV":     5,
		"SYCL_XPTI_STATE_SECOND_COPY": 6,
	}
)

func (x SyclXptiState) Enum() *SyclXptiState {
	p := new(SyclXptiState)
	*p = x
	return p
}

func (x SyclXptiState) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (SyclXptiState) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[0].Descriptor()
}

func (SyclXptiState) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[0]
}

func (x SyclXptiState) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use SyclXptiState.Descriptor instead.
func (SyclXptiState) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{0}
}

// How launches of one kernel are told apart in stall attribution.
type LaunchSeparation int32

const (
	// Read windows only: two launches of one kernel are separated when a
	// read falls between them (see StallRows).
	LaunchSeparation_LAUNCH_SEPARATION_TIME_WINDOWS LaunchSeparation = 0
	// Instruction-address colouring: consecutive launches of a kernel of an
	// eligible module run on different copies of its code (Module.code_copies,
	// Launch.code_copy), so a sample's address names the copy, and read
	// windows only decide between launches of one copy. Samples of a copy
	// are given to the original kernel at the same offsets.
	LaunchSeparation_LAUNCH_SEPARATION_COPIES LaunchSeparation = 1
)

// Enum value maps for LaunchSeparation.
var (
	LaunchSeparation_name = map[int32]string{
		0: "LAUNCH_SEPARATION_TIME_WINDOWS",
		1: "LAUNCH_SEPARATION_COPIES",
	}
	LaunchSeparation_value = map[string]int32{
		"LAUNCH_SEPARATION_TIME_WINDOWS": 0,
		"LAUNCH_SEPARATION_COPIES":       1,
	}
)

func (x LaunchSeparation) Enum() *LaunchSeparation {
	p := new(LaunchSeparation)
	*p = x
	return p
}

func (x LaunchSeparation) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (LaunchSeparation) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[1].Descriptor()
}

func (LaunchSeparation) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[1]
}

func (x LaunchSeparation) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use LaunchSeparation.Descriptor instead.
func (LaunchSeparation) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{1}
}

// Why EU stall sampling is off on a device.
type StallSamplingOff int32

const (
	// Sampling is on, or the reason is not known.
	StallSamplingOff_STALL_SAMPLING_OFF_UNSPECIFIED StallSamplingOff = 0
	// Disabled by zestall's configuration: ZESTALL_SAMPLING=0, or a rank
	// outside ZESTALL_SAMPLE_RANKS (see Header.config).
	StallSamplingOff_STALL_SAMPLING_OFF_DISABLED StallSamplingOff = 1
	// The driver exposes no metrics (ZET_ENABLE_METRICS is not 1).
	StallSamplingOff_STALL_SAMPLING_OFF_METRICS_NOT_ENABLED StallSamplingOff = 2
	// The device has no "EuStallSampling" metric group (e.g. DG2, or the
	// kernel driver refused access: see perf_stream_paranoid /
	// observation_paranoid).
	StallSamplingOff_STALL_SAMPLING_OFF_NO_GROUP StallSamplingOff = 3
	// Activating the group or opening the streamer failed.
	StallSamplingOff_STALL_SAMPLING_OFF_OPEN_FAILED StallSamplingOff = 4
	// Sampling was set up on the root device; this sub-device's data is in
	// the root device's records.
	StallSamplingOff_STALL_SAMPLING_OFF_VIA_ROOT StallSamplingOff = 5
)

// Enum value maps for StallSamplingOff.
var (
	StallSamplingOff_name = map[int32]string{
		0: "STALL_SAMPLING_OFF_UNSPECIFIED",
		1: "STALL_SAMPLING_OFF_DISABLED",
		2: "STALL_SAMPLING_OFF_METRICS_NOT_ENABLED",
		3: "STALL_SAMPLING_OFF_NO_GROUP",
		4: "STALL_SAMPLING_OFF_OPEN_FAILED",
		5: "STALL_SAMPLING_OFF_VIA_ROOT",
	}
	StallSamplingOff_value = map[string]int32{
		"STALL_SAMPLING_OFF_UNSPECIFIED":         0,
		"STALL_SAMPLING_OFF_DISABLED":            1,
		"STALL_SAMPLING_OFF_METRICS_NOT_ENABLED": 2,
		"STALL_SAMPLING_OFF_NO_GROUP":            3,
		"STALL_SAMPLING_OFF_OPEN_FAILED":         4,
		"STALL_SAMPLING_OFF_VIA_ROOT":            5,
	}
)

func (x StallSamplingOff) Enum() *StallSamplingOff {
	p := new(StallSamplingOff)
	*p = x
	return p
}

func (x StallSamplingOff) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (StallSamplingOff) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[2].Descriptor()
}

func (StallSamplingOff) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[2]
}

func (x StallSamplingOff) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use StallSamplingOff.Descriptor instead.
func (StallSamplingOff) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{2}
}

// The append function of a launch.
type LaunchKind int32

const (
	// zeCommandListAppendLaunchKernel (also the zero value).
	LaunchKind_LAUNCH_KIND_KERNEL LaunchKind = 0
	// zeCommandListAppendLaunchCooperativeKernel.
	LaunchKind_LAUNCH_KIND_COOPERATIVE LaunchKind = 1
	// zeCommandListAppendLaunchKernelIndirect: group counts are read by the
	// device, so group_count_* are 0.
	LaunchKind_LAUNCH_KIND_INDIRECT LaunchKind = 2
	// One kernel of zeCommandListAppendLaunchMultipleKernelsIndirect.
	LaunchKind_LAUNCH_KIND_MULTIPLE_INDIRECT LaunchKind = 3
)

// Enum value maps for LaunchKind.
var (
	LaunchKind_name = map[int32]string{
		0: "LAUNCH_KIND_KERNEL",
		1: "LAUNCH_KIND_COOPERATIVE",
		2: "LAUNCH_KIND_INDIRECT",
		3: "LAUNCH_KIND_MULTIPLE_INDIRECT",
	}
	LaunchKind_value = map[string]int32{
		"LAUNCH_KIND_KERNEL":            0,
		"LAUNCH_KIND_COOPERATIVE":       1,
		"LAUNCH_KIND_INDIRECT":          2,
		"LAUNCH_KIND_MULTIPLE_INDIRECT": 3,
	}
)

func (x LaunchKind) Enum() *LaunchKind {
	p := new(LaunchKind)
	*p = x
	return p
}

func (x LaunchKind) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (LaunchKind) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[3].Descriptor()
}

func (LaunchKind) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[3]
}

func (x LaunchKind) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use LaunchKind.Descriptor instead.
func (LaunchKind) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{3}
}

// Bits of Launch.flags.
type LaunchFlag int32

const (
	LaunchFlag_LAUNCH_FLAG_NONE LaunchFlag = 0
	// The application passed no signal event, or one without kernel-timestamp
	// capability; zestall substituted an event of its own and signalled the
	// application's event after it.
	LaunchFlag_LAUNCH_FLAG_TIMESTAMP_SWAPPED LaunchFlag = 1
	// The launch has no device times; see Launch.no_timestamp_reason.
	LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP LaunchFlag = 2
	// The device times came from the application's own kernel-timestamp
	// event, read without changing it.
	LaunchFlag_LAUNCH_FLAG_APP_EVENT LaunchFlag = 4
	// The kernel timestamp counter wrapped during the kernel; the writer
	// corrected device_end_ns for it.
	LaunchFlag_LAUNCH_FLAG_WRAPPED LaunchFlag = 8
	// The launch ran while ZESTALL_SERIALIZE=1 made it run alone: its stall
	// samples are attributed exactly.
	LaunchFlag_LAUNCH_FLAG_SERIALIZED LaunchFlag = 16
	// The kernel was appended to an immediate command list (it ran without a
	// zeCommandQueueExecuteCommandLists). Clear for a regular command list.
	LaunchFlag_LAUNCH_FLAG_IMMEDIATE LaunchFlag = 32
)

// Enum value maps for LaunchFlag.
var (
	LaunchFlag_name = map[int32]string{
		0:  "LAUNCH_FLAG_NONE",
		1:  "LAUNCH_FLAG_TIMESTAMP_SWAPPED",
		2:  "LAUNCH_FLAG_NO_TIMESTAMP",
		4:  "LAUNCH_FLAG_APP_EVENT",
		8:  "LAUNCH_FLAG_WRAPPED",
		16: "LAUNCH_FLAG_SERIALIZED",
		32: "LAUNCH_FLAG_IMMEDIATE",
	}
	LaunchFlag_value = map[string]int32{
		"LAUNCH_FLAG_NONE":              0,
		"LAUNCH_FLAG_TIMESTAMP_SWAPPED": 1,
		"LAUNCH_FLAG_NO_TIMESTAMP":      2,
		"LAUNCH_FLAG_APP_EVENT":         4,
		"LAUNCH_FLAG_WRAPPED":           8,
		"LAUNCH_FLAG_SERIALIZED":        16,
		"LAUNCH_FLAG_IMMEDIATE":         32,
	}
)

func (x LaunchFlag) Enum() *LaunchFlag {
	p := new(LaunchFlag)
	*p = x
	return p
}

func (x LaunchFlag) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (LaunchFlag) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[4].Descriptor()
}

func (LaunchFlag) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[4]
}

func (x LaunchFlag) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use LaunchFlag.Descriptor instead.
func (LaunchFlag) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{4}
}

// Why a launch has no device times.
type NoTimestampReason int32

const (
	NoTimestampReason_NO_TIMESTAMP_REASON_UNSPECIFIED NoTimestampReason = 0
	// zestall's event pool was exhausted and could not grow.
	NoTimestampReason_NO_TIMESTAMP_REASON_POOL_EXHAUSTED NoTimestampReason = 1
	// Creating or appending zestall's event failed (Level-Zero error).
	NoTimestampReason_NO_TIMESTAMP_REASON_EVENT_ERROR NoTimestampReason = 2
	// The event never signalled before the command list was reset or
	// destroyed, or before exit.
	NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED NoTimestampReason = 3
	// The process ended (or zestall stopped collecting) before the timestamp
	// could be read.
	NoTimestampReason_NO_TIMESTAMP_REASON_EXIT NoTimestampReason = 4
	// Timestamp injection is disabled by configuration.
	NoTimestampReason_NO_TIMESTAMP_REASON_DISABLED NoTimestampReason = 5
	// The launch kind or command-list type cannot carry an injected event.
	NoTimestampReason_NO_TIMESTAMP_REASON_UNSUPPORTED NoTimestampReason = 6
	// Reading the timestamp failed (Level-Zero error, device lost).
	NoTimestampReason_NO_TIMESTAMP_REASON_QUERY_FAILED NoTimestampReason = 7
	// A later launch signalled the same event before zestall read it, so
	// this launch's timestamps were overwritten (an event the application
	// reuses, or a regular command list executed again before the previous
	// execution's timestamps were read). Added in revision 2.
	NoTimestampReason_NO_TIMESTAMP_REASON_OVERWRITTEN NoTimestampReason = 8
	// A regular command list's launch appended while collection was stopped
	// and executed in a collection window: zestall changes nothing while
	// stopped, so the launch has no timestamp event (re-record the list, or
	// start collecting before recording it, to time it). Added in revision 3.
	NoTimestampReason_NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED NoTimestampReason = 16
)

// Enum value maps for NoTimestampReason.
var (
	NoTimestampReason_name = map[int32]string{
		0:  "NO_TIMESTAMP_REASON_UNSPECIFIED",
		1:  "NO_TIMESTAMP_REASON_POOL_EXHAUSTED",
		2:  "NO_TIMESTAMP_REASON_EVENT_ERROR",
		3:  "NO_TIMESTAMP_REASON_NOT_COMPLETED",
		4:  "NO_TIMESTAMP_REASON_EXIT",
		5:  "NO_TIMESTAMP_REASON_DISABLED",
		6:  "NO_TIMESTAMP_REASON_UNSUPPORTED",
		7:  "NO_TIMESTAMP_REASON_QUERY_FAILED",
		8:  "NO_TIMESTAMP_REASON_OVERWRITTEN",
		16: "NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED",
	}
	NoTimestampReason_value = map[string]int32{
		"NO_TIMESTAMP_REASON_UNSPECIFIED":            0,
		"NO_TIMESTAMP_REASON_POOL_EXHAUSTED":         1,
		"NO_TIMESTAMP_REASON_EVENT_ERROR":            2,
		"NO_TIMESTAMP_REASON_NOT_COMPLETED":          3,
		"NO_TIMESTAMP_REASON_EXIT":                   4,
		"NO_TIMESTAMP_REASON_DISABLED":               5,
		"NO_TIMESTAMP_REASON_UNSUPPORTED":            6,
		"NO_TIMESTAMP_REASON_QUERY_FAILED":           7,
		"NO_TIMESTAMP_REASON_OVERWRITTEN":            8,
		"NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED": 16,
	}
)

func (x NoTimestampReason) Enum() *NoTimestampReason {
	p := new(NoTimestampReason)
	*p = x
	return p
}

func (x NoTimestampReason) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (NoTimestampReason) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[5].Descriptor()
}

func (NoTimestampReason) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[5]
}

func (x NoTimestampReason) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use NoTimestampReason.Descriptor instead.
func (NoTimestampReason) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{5}
}

// How stall samples are attributed to launches.
type StallAttribution int32

const (
	// Attributed to the kernel only: no launch could be named (no launch
	// with times overlaps the window), or per-launch attribution is off.
	StallAttribution_STALL_ATTRIBUTION_KERNEL StallAttribution = 0
	// Attributed to exactly one launch, launch_id.
	StallAttribution_STALL_ATTRIBUTION_LAUNCH StallAttribution = 1
	// Shared by the launches in candidate_launch_ids, which overlap.
	StallAttribution_STALL_ATTRIBUTION_SHARED StallAttribution = 2
	// Shared by the launches in the ranges of candidate_launch_id_ranges,
	// which overlap: STALL_ATTRIBUTION_SHARED with the ids given as ranges.
	// zestall writes it when the ranges take less room than the list and
	// name at least 16 launches. A reader older than revision 11 sees an
	// enum value it does not know rather than a list that would look
	// complete. Added in revision 11.
	StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES StallAttribution = 3
)

// Enum value maps for StallAttribution.
var (
	StallAttribution_name = map[int32]string{
		0: "STALL_ATTRIBUTION_KERNEL",
		1: "STALL_ATTRIBUTION_LAUNCH",
		2: "STALL_ATTRIBUTION_SHARED",
		3: "STALL_ATTRIBUTION_SHARED_RANGES",
	}
	StallAttribution_value = map[string]int32{
		"STALL_ATTRIBUTION_KERNEL":        0,
		"STALL_ATTRIBUTION_LAUNCH":        1,
		"STALL_ATTRIBUTION_SHARED":        2,
		"STALL_ATTRIBUTION_SHARED_RANGES": 3,
	}
)

func (x StallAttribution) Enum() *StallAttribution {
	p := new(StallAttribution)
	*p = x
	return p
}

func (x StallAttribution) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (StallAttribution) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[6].Descriptor()
}

func (StallAttribution) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[6]
}

func (x StallAttribution) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use StallAttribution.Descriptor instead.
func (StallAttribution) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{6}
}

// What ran at addresses that belong to no kernel of the profiled process.
type UnattributedCause int32

const (
	// Unknown: zestall could not ask which processes use the device.
	UnattributedCause_UNATTRIBUTED_CAUSE_UNKNOWN UnattributedCause = 0
	// No other process ran kernels on the device during the window: the
	// addresses belong to the driver's own kernels (Intel's driver runs
	// memory copies and fills on compute engines as built-in kernels on the
	// EUs, at addresses no application module covers).
	UnattributedCause_UNATTRIBUTED_CAUSE_DRIVER_INTERNAL UnattributedCause = 1
	// Other processes ran kernels on the device during the window
	// (Unattributed.other_pids): the samples are most likely theirs (the
	// stall unit samples the whole tile); driver-internal kernels are not
	// excluded.
	UnattributedCause_UNATTRIBUTED_CAUSE_OTHER_PROCESS UnattributedCause = 2
)

// Enum value maps for UnattributedCause.
var (
	UnattributedCause_name = map[int32]string{
		0: "UNATTRIBUTED_CAUSE_UNKNOWN",
		1: "UNATTRIBUTED_CAUSE_DRIVER_INTERNAL",
		2: "UNATTRIBUTED_CAUSE_OTHER_PROCESS",
	}
	UnattributedCause_value = map[string]int32{
		"UNATTRIBUTED_CAUSE_UNKNOWN":         0,
		"UNATTRIBUTED_CAUSE_DRIVER_INTERNAL": 1,
		"UNATTRIBUTED_CAUSE_OTHER_PROCESS":   2,
	}
)

func (x UnattributedCause) Enum() *UnattributedCause {
	p := new(UnattributedCause)
	*p = x
	return p
}

func (x UnattributedCause) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (UnattributedCause) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[7].Descriptor()
}

func (UnattributedCause) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[7]
}

func (x UnattributedCause) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use UnattributedCause.Descriptor instead.
func (UnattributedCause) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{7}
}

type WindowEdge int32

const (
	WindowEdge_WINDOW_EDGE_UNSPECIFIED WindowEdge = 0
	WindowEdge_WINDOW_EDGE_START       WindowEdge = 1
	WindowEdge_WINDOW_EDGE_STOP        WindowEdge = 2
)

// Enum value maps for WindowEdge.
var (
	WindowEdge_name = map[int32]string{
		0: "WINDOW_EDGE_UNSPECIFIED",
		1: "WINDOW_EDGE_START",
		2: "WINDOW_EDGE_STOP",
	}
	WindowEdge_value = map[string]int32{
		"WINDOW_EDGE_UNSPECIFIED": 0,
		"WINDOW_EDGE_START":       1,
		"WINDOW_EDGE_STOP":        2,
	}
)

func (x WindowEdge) Enum() *WindowEdge {
	p := new(WindowEdge)
	*p = x
	return p
}

func (x WindowEdge) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (WindowEdge) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[8].Descriptor()
}

func (WindowEdge) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[8]
}

func (x WindowEdge) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use WindowEdge.Descriptor instead.
func (WindowEdge) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{8}
}

type WindowCause int32

const (
	WindowCause_WINDOW_CAUSE_UNSPECIFIED WindowCause = 0
	// Collection began after a successful zeInit.
	WindowCause_WINDOW_CAUSE_INIT WindowCause = 1
	// The process is exiting.
	WindowCause_WINDOW_CAUSE_EXIT WindowCause = 2
	// Requested by the user, by a means not listed below.
	WindowCause_WINDOW_CAUSE_USER WindowCause = 3
	// A streamer error or device loss ended sampling on a device.
	WindowCause_WINDOW_CAUSE_ERROR WindowCause = 4
	// A forked child stopped collecting (it writes nothing further).
	WindowCause_WINDOW_CAUSE_FORK WindowCause = 5
	// The C control API: zestall_start() or zestall_stop() (detail names it).
	// This value and the ones below were added in revision 3.
	WindowCause_WINDOW_CAUSE_API WindowCause = 6
	// The toggle signal (ZESTALL_TOGGLE_SIGNAL; detail names the signal).
	WindowCause_WINDOW_CAUSE_SIGNAL WindowCause = 7
	// The time window of ZESTALL_DELAY / ZESTALL_DURATION.
	WindowCause_WINDOW_CAUSE_TIMER WindowCause = 8
	// The launch-count window of ZESTALL_LAUNCHES: a start edge at the
	// launch numbered <from>, a stop edge at the launch numbered <to>
	// (launches numbered from 0 in append order over all threads).
	WindowCause_WINDOW_CAUSE_LAUNCH_COUNT WindowCause = 9
	// ZESTALL_START=paused: collection is off from the start (a stop edge
	// at the time collection would otherwise have begun).
	WindowCause_WINDOW_CAUSE_START_PAUSED WindowCause = 10
	// The ITT API: __itt_pause() or __itt_resume() of an application built
	// with Intel's ittnotify, with INTEL_LIBITTNOTIFY64 naming libzestall.so.
	WindowCause_WINDOW_CAUSE_ITT WindowCause = 11
)

// Enum value maps for WindowCause.
var (
	WindowCause_name = map[int32]string{
		0:  "WINDOW_CAUSE_UNSPECIFIED",
		1:  "WINDOW_CAUSE_INIT",
		2:  "WINDOW_CAUSE_EXIT",
		3:  "WINDOW_CAUSE_USER",
		4:  "WINDOW_CAUSE_ERROR",
		5:  "WINDOW_CAUSE_FORK",
		6:  "WINDOW_CAUSE_API",
		7:  "WINDOW_CAUSE_SIGNAL",
		8:  "WINDOW_CAUSE_TIMER",
		9:  "WINDOW_CAUSE_LAUNCH_COUNT",
		10: "WINDOW_CAUSE_START_PAUSED",
		11: "WINDOW_CAUSE_ITT",
	}
	WindowCause_value = map[string]int32{
		"WINDOW_CAUSE_UNSPECIFIED":  0,
		"WINDOW_CAUSE_INIT":         1,
		"WINDOW_CAUSE_EXIT":         2,
		"WINDOW_CAUSE_USER":         3,
		"WINDOW_CAUSE_ERROR":        4,
		"WINDOW_CAUSE_FORK":         5,
		"WINDOW_CAUSE_API":          6,
		"WINDOW_CAUSE_SIGNAL":       7,
		"WINDOW_CAUSE_TIMER":        8,
		"WINDOW_CAUSE_LAUNCH_COUNT": 9,
		"WINDOW_CAUSE_START_PAUSED": 10,
		"WINDOW_CAUSE_ITT":          11,
	}
)

func (x WindowCause) Enum() *WindowCause {
	p := new(WindowCause)
	*p = x
	return p
}

func (x WindowCause) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (WindowCause) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[9].Descriptor()
}

func (WindowCause) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[9]
}

func (x WindowCause) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use WindowCause.Descriptor instead.
func (WindowCause) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{9}
}

// The kind of a SyclSpan.
type SyclSpanKind int32

const (
	SyclSpanKind_SYCL_SPAN_KIND_UNSPECIFIED SyclSpanKind = 0
	// task_begin .. task_end: a command group executed (a kernel submitted).
	SyclSpanKind_SYCL_SPAN_KIND_TASK SyclSpanKind = 1
	// barrier_begin .. barrier_end.
	SyclSpanKind_SYCL_SPAN_KIND_BARRIER SyclSpanKind = 2
	// wait_begin .. wait_end: the host waited (e.g. queue.wait()).
	SyclSpanKind_SYCL_SPAN_KIND_WAIT SyclSpanKind = 3
)

// Enum value maps for SyclSpanKind.
var (
	SyclSpanKind_name = map[int32]string{
		0: "SYCL_SPAN_KIND_UNSPECIFIED",
		1: "SYCL_SPAN_KIND_TASK",
		2: "SYCL_SPAN_KIND_BARRIER",
		3: "SYCL_SPAN_KIND_WAIT",
	}
	SyclSpanKind_value = map[string]int32{
		"SYCL_SPAN_KIND_UNSPECIFIED": 0,
		"SYCL_SPAN_KIND_TASK":        1,
		"SYCL_SPAN_KIND_BARRIER":     2,
		"SYCL_SPAN_KIND_WAIT":        3,
	}
)

func (x SyclSpanKind) Enum() *SyclSpanKind {
	p := new(SyclSpanKind)
	*p = x
	return p
}

func (x SyclSpanKind) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (SyclSpanKind) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[10].Descriptor()
}

func (SyclSpanKind) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[10]
}

func (x SyclSpanKind) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use SyclSpanKind.Descriptor instead.
func (SyclSpanKind) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{10}
}

// The kind of a SyclGraph record.
type SyclGraphKind int32

const (
	SyclGraphKind_SYCL_GRAPH_KIND_UNSPECIFIED SyclGraphKind = 0
	SyclGraphKind_SYCL_GRAPH_KIND_NODE        SyclGraphKind = 1
	SyclGraphKind_SYCL_GRAPH_KIND_EDGE        SyclGraphKind = 2
)

// Enum value maps for SyclGraphKind.
var (
	SyclGraphKind_name = map[int32]string{
		0: "SYCL_GRAPH_KIND_UNSPECIFIED",
		1: "SYCL_GRAPH_KIND_NODE",
		2: "SYCL_GRAPH_KIND_EDGE",
	}
	SyclGraphKind_value = map[string]int32{
		"SYCL_GRAPH_KIND_UNSPECIFIED": 0,
		"SYCL_GRAPH_KIND_NODE":        1,
		"SYCL_GRAPH_KIND_EDGE":        2,
	}
)

func (x SyclGraphKind) Enum() *SyclGraphKind {
	p := new(SyclGraphKind)
	*p = x
	return p
}

func (x SyclGraphKind) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (SyclGraphKind) Descriptor() protoreflect.EnumDescriptor {
	return file_zestall_proto_enumTypes[11].Descriptor()
}

func (SyclGraphKind) Type() protoreflect.EnumType {
	return &file_zestall_proto_enumTypes[11]
}

func (x SyclGraphKind) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use SyclGraphKind.Descriptor instead.
func (SyclGraphKind) EnumDescriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{11}
}

// Record is the unit of the stream: exactly one member of kind is set.
type Record struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Types that are valid to be assigned to Kind:
	//
	//	*Record_Header
	//	*Record_Module
	//	*Record_ModuleDestroyed
	//	*Record_Kernel
	//	*Record_KernelDestroyed
	//	*Record_Launch
	//	*Record_StallRows
	//	*Record_Unattributed
	//	*Record_Window
	//	*Record_Counters
	//	*Record_MergeSource
	//	*Record_SyclLocation
	//	*Record_SyclSpan
	//	*Record_SyclGraph
	//	*Record_LaunchRun
	Kind          isRecord_Kind `protobuf_oneof:"kind"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Record) Reset() {
	*x = Record{}
	mi := &file_zestall_proto_msgTypes[0]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Record) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Record) ProtoMessage() {}

func (x *Record) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[0]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Record.ProtoReflect.Descriptor instead.
func (*Record) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{0}
}

func (x *Record) GetKind() isRecord_Kind {
	if x != nil {
		return x.Kind
	}
	return nil
}

func (x *Record) GetHeader() *Header {
	if x != nil {
		if x, ok := x.Kind.(*Record_Header); ok {
			return x.Header
		}
	}
	return nil
}

func (x *Record) GetModule() *Module {
	if x != nil {
		if x, ok := x.Kind.(*Record_Module); ok {
			return x.Module
		}
	}
	return nil
}

func (x *Record) GetModuleDestroyed() *ModuleDestroyed {
	if x != nil {
		if x, ok := x.Kind.(*Record_ModuleDestroyed); ok {
			return x.ModuleDestroyed
		}
	}
	return nil
}

func (x *Record) GetKernel() *Kernel {
	if x != nil {
		if x, ok := x.Kind.(*Record_Kernel); ok {
			return x.Kernel
		}
	}
	return nil
}

func (x *Record) GetKernelDestroyed() *KernelDestroyed {
	if x != nil {
		if x, ok := x.Kind.(*Record_KernelDestroyed); ok {
			return x.KernelDestroyed
		}
	}
	return nil
}

func (x *Record) GetLaunch() *Launch {
	if x != nil {
		if x, ok := x.Kind.(*Record_Launch); ok {
			return x.Launch
		}
	}
	return nil
}

func (x *Record) GetStallRows() *StallRows {
	if x != nil {
		if x, ok := x.Kind.(*Record_StallRows); ok {
			return x.StallRows
		}
	}
	return nil
}

func (x *Record) GetUnattributed() *Unattributed {
	if x != nil {
		if x, ok := x.Kind.(*Record_Unattributed); ok {
			return x.Unattributed
		}
	}
	return nil
}

func (x *Record) GetWindow() *Window {
	if x != nil {
		if x, ok := x.Kind.(*Record_Window); ok {
			return x.Window
		}
	}
	return nil
}

func (x *Record) GetCounters() *Counters {
	if x != nil {
		if x, ok := x.Kind.(*Record_Counters); ok {
			return x.Counters
		}
	}
	return nil
}

func (x *Record) GetMergeSource() *MergeSource {
	if x != nil {
		if x, ok := x.Kind.(*Record_MergeSource); ok {
			return x.MergeSource
		}
	}
	return nil
}

func (x *Record) GetSyclLocation() *SyclLocation {
	if x != nil {
		if x, ok := x.Kind.(*Record_SyclLocation); ok {
			return x.SyclLocation
		}
	}
	return nil
}

func (x *Record) GetSyclSpan() *SyclSpan {
	if x != nil {
		if x, ok := x.Kind.(*Record_SyclSpan); ok {
			return x.SyclSpan
		}
	}
	return nil
}

func (x *Record) GetSyclGraph() *SyclGraph {
	if x != nil {
		if x, ok := x.Kind.(*Record_SyclGraph); ok {
			return x.SyclGraph
		}
	}
	return nil
}

func (x *Record) GetLaunchRun() *LaunchRun {
	if x != nil {
		if x, ok := x.Kind.(*Record_LaunchRun); ok {
			return x.LaunchRun
		}
	}
	return nil
}

type isRecord_Kind interface {
	isRecord_Kind()
}

type Record_Header struct {
	Header *Header `protobuf:"bytes,1,opt,name=header,proto3,oneof"`
}

type Record_Module struct {
	Module *Module `protobuf:"bytes,2,opt,name=module,proto3,oneof"`
}

type Record_ModuleDestroyed struct {
	ModuleDestroyed *ModuleDestroyed `protobuf:"bytes,3,opt,name=module_destroyed,json=moduleDestroyed,proto3,oneof"`
}

type Record_Kernel struct {
	Kernel *Kernel `protobuf:"bytes,4,opt,name=kernel,proto3,oneof"`
}

type Record_KernelDestroyed struct {
	KernelDestroyed *KernelDestroyed `protobuf:"bytes,5,opt,name=kernel_destroyed,json=kernelDestroyed,proto3,oneof"`
}

type Record_Launch struct {
	Launch *Launch `protobuf:"bytes,6,opt,name=launch,proto3,oneof"`
}

type Record_StallRows struct {
	StallRows *StallRows `protobuf:"bytes,7,opt,name=stall_rows,json=stallRows,proto3,oneof"`
}

type Record_Unattributed struct {
	Unattributed *Unattributed `protobuf:"bytes,8,opt,name=unattributed,proto3,oneof"`
}

type Record_Window struct {
	Window *Window `protobuf:"bytes,9,opt,name=window,proto3,oneof"`
}

type Record_Counters struct {
	Counters *Counters `protobuf:"bytes,10,opt,name=counters,proto3,oneof"`
}

type Record_MergeSource struct {
	MergeSource *MergeSource `protobuf:"bytes,11,opt,name=merge_source,json=mergeSource,proto3,oneof"`
}

type Record_SyclLocation struct {
	// SYCL records (revision 5): see "SYCL tasks and source locations".
	SyclLocation *SyclLocation `protobuf:"bytes,13,opt,name=sycl_location,json=syclLocation,proto3,oneof"`
}

type Record_SyclSpan struct {
	SyclSpan *SyclSpan `protobuf:"bytes,14,opt,name=sycl_span,json=syclSpan,proto3,oneof"`
}

type Record_SyclGraph struct {
	SyclGraph *SyclGraph `protobuf:"bytes,15,opt,name=sycl_graph,json=syclGraph,proto3,oneof"`
}

type Record_LaunchRun struct {
	// Revision 8: consecutive Launch records in compact form, stored by
	// column (see "Two forms" at Launch).
	LaunchRun *LaunchRun `protobuf:"bytes,16,opt,name=launch_run,json=launchRun,proto3,oneof"`
}

func (*Record_Header) isRecord_Kind() {}

func (*Record_Module) isRecord_Kind() {}

func (*Record_ModuleDestroyed) isRecord_Kind() {}

func (*Record_Kernel) isRecord_Kind() {}

func (*Record_KernelDestroyed) isRecord_Kind() {}

func (*Record_Launch) isRecord_Kind() {}

func (*Record_StallRows) isRecord_Kind() {}

func (*Record_Unattributed) isRecord_Kind() {}

func (*Record_Window) isRecord_Kind() {}

func (*Record_Counters) isRecord_Kind() {}

func (*Record_MergeSource) isRecord_Kind() {}

func (*Record_SyclLocation) isRecord_Kind() {}

func (*Record_SyclSpan) isRecord_Kind() {}

func (*Record_SyclGraph) isRecord_Kind() {}

func (*Record_LaunchRun) isRecord_Kind() {}

// Header describes the run. It is the first record of every file.
type Header struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Schema revision of this file the writer was built with (see
	// "Compatibility and versioning" above). This revision is 11.
	FormatVersion uint32 `protobuf:"varint,1,opt,name=format_version,json=formatVersion,proto3" json:"format_version,omitempty"`
	// Version of the zestall build that wrote the file, e.g. "0.3.1" or a
	// "git describe" string. Free text.
	ToolVersion string `protobuf:"bytes,2,opt,name=tool_version,json=toolVersion,proto3" json:"tool_version,omitempty"`
	// Process id of the profiled application.
	Pid uint32 `protobuf:"varint,3,opt,name=pid,proto3" json:"pid,omitempty"`
	// Global rank of the process in its parallel job, from the variable
	// rank_variable names (the launchers' variables and their precedence are
	// in zestall's docs/mpi.md). Absent when no launcher set one. A local
	// rank is never written here.
	MpiRank *uint32 `protobuf:"varint,4,opt,name=mpi_rank,json=mpiRank,proto3,oneof" json:"mpi_rank,omitempty"`
	// Host name (uname nodename).
	HostName string `protobuf:"bytes,5,opt,name=host_name,json=hostName,proto3" json:"host_name,omitempty"`
	// Command line of the process, argv[0] first.
	Argv []string `protobuf:"bytes,6,rep,name=argv,proto3" json:"argv,omitempty"`
	// Host ns at which zestall started collecting (CLOCK_MONOTONIC_RAW).
	StartHostNs uint64 `protobuf:"varint,7,opt,name=start_host_ns,json=startHostNs,proto3" json:"start_host_ns,omitempty"`
	// The same instant as start_host_ns in wall-clock time: nanoseconds since
	// the Unix epoch (CLOCK_REALTIME). For display only; never used to order
	// events.
	StartUnixNs int64 `protobuf:"varint,8,opt,name=start_unix_ns,json=startUnixNs,proto3" json:"start_unix_ns,omitempty"`
	// Effective configuration: every ZESTALL_* setting with the value in use
	// (after defaults were applied), in the order the writer lists them.
	Config []*ConfigEntry `protobuf:"bytes,9,rep,name=config,proto3" json:"config,omitempty"`
	// Devices the profiled process can use, roots and sub-devices alike.
	Devices []*Device `protobuf:"bytes,10,rep,name=devices,proto3" json:"devices,omitempty"`
	// Rank of the process among the job's processes on this host, when the
	// launcher that set mpi_rank (or one agreeing with it) says. Added in
	// revision 4, like the fields below.
	LocalRank *uint32 `protobuf:"varint,11,opt,name=local_rank,json=localRank,proto3,oneof" json:"local_rank,omitempty"`
	// Number of processes in the job, when the launcher says.
	JobSize *uint32 `protobuf:"varint,12,opt,name=job_size,json=jobSize,proto3,oneof" json:"job_size,omitempty"`
	// The environment variable mpi_rank was read from, e.g.
	// "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID".
	RankVariable string `protobuf:"bytes,13,opt,name=rank_variable,json=rankVariable,proto3" json:"rank_variable,omitempty"`
	// The batch system's job id (PBS_JOBID, SLURM_JOB_ID, FLUX_JOB_ID, ...),
	// "" when none.
	JobId string `protobuf:"bytes,14,opt,name=job_id,json=jobId,proto3" json:"job_id,omitempty"`
	// ZE_AFFINITY_MASK as the process saw it ("" when unset): which devices
	// (cards, or card.tile) the driver exposed to it. devices lists what
	// that left visible.
	ZeAffinityMask string `protobuf:"bytes,15,opt,name=ze_affinity_mask,json=zeAffinityMask,proto3" json:"ze_affinity_mask,omitempty"`
	// True when zestall could ask the driver which other processes use each
	// sampled device (Sysman zesDeviceProcessesGetState answered): then
	// StallRows.possibly_foreign and Unattributed.cause say what it found.
	// False: nothing is known about other processes on the devices, and
	// samples of theirs at our addresses cannot be flagged. Added in
	// revision 5.
	OtherProcessesKnown bool `protobuf:"varint,20,opt,name=other_processes_known,json=otherProcessesKnown,proto3" json:"other_processes_known,omitempty"`
	// How zestall took part in the SYCL runtime's XPTI instrumentation.
	// Added in revision 5.
	Sycl *SyclSetup `protobuf:"bytes,18,opt,name=sycl,proto3" json:"sycl,omitempty"`
	// How launches of one kernel were told apart (ZESTALL_SEPARATE_LAUNCHES;
	// added in revision 5).
	LaunchSeparation LaunchSeparation `protobuf:"varint,16,opt,name=launch_separation,json=launchSeparation,proto3,enum=zestall.v1.LaunchSeparation" json:"launch_separation,omitempty"`
	// LAUNCH_SEPARATION_COPIES: copies made per eligible module at its
	// zeModuleCreate (ZESTALL_SEPARATE_COPIES, or the automatic ring's
	// first copies); 0 otherwise.
	CodeCopiesPerModule uint32 `protobuf:"varint,17,opt,name=code_copies_per_module,json=codeCopiesPerModule,proto3" json:"code_copies_per_module,omitempty"`
	// LAUNCH_SEPARATION_COPIES with the automatic ring (revision 6): the
	// most copies a module's ring may grow to; copies beyond
	// code_copies_per_module are made on demand by a thread of zestall's
	// when every code of a kernel is still busy (its last launch's samples
	// may still arrive). 0: the ring is fixed at code_copies_per_module
	// (ZESTALL_SEPARATE_COPIES=n) or the mode is off.
	CodeCopiesMax uint32 `protobuf:"varint,24,opt,name=code_copies_max,json=codeCopiesMax,proto3" json:"code_copies_max,omitempty"`
	// LAUNCH_SEPARATION_COPIES (revision 6): the most device memory, bytes
	// of ISA, all module copies of the process may take
	// (ZESTALL_SEPARATE_MEMORY). A module whose copies would pass it
	// gets fewer copies or none (Module.copy_ineligible_reason says so) and
	// rings stop growing.
	CodeCopyMemoryLimit uint64 `protobuf:"varint,25,opt,name=code_copy_memory_limit,json=codeCopyMemoryLimit,proto3" json:"code_copy_memory_limit,omitempty"`
	unknownFields       protoimpl.UnknownFields
	sizeCache           protoimpl.SizeCache
}

func (x *Header) Reset() {
	*x = Header{}
	mi := &file_zestall_proto_msgTypes[1]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Header) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Header) ProtoMessage() {}

func (x *Header) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[1]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Header.ProtoReflect.Descriptor instead.
func (*Header) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{1}
}

func (x *Header) GetFormatVersion() uint32 {
	if x != nil {
		return x.FormatVersion
	}
	return 0
}

func (x *Header) GetToolVersion() string {
	if x != nil {
		return x.ToolVersion
	}
	return ""
}

func (x *Header) GetPid() uint32 {
	if x != nil {
		return x.Pid
	}
	return 0
}

func (x *Header) GetMpiRank() uint32 {
	if x != nil && x.MpiRank != nil {
		return *x.MpiRank
	}
	return 0
}

func (x *Header) GetHostName() string {
	if x != nil {
		return x.HostName
	}
	return ""
}

func (x *Header) GetArgv() []string {
	if x != nil {
		return x.Argv
	}
	return nil
}

func (x *Header) GetStartHostNs() uint64 {
	if x != nil {
		return x.StartHostNs
	}
	return 0
}

func (x *Header) GetStartUnixNs() int64 {
	if x != nil {
		return x.StartUnixNs
	}
	return 0
}

func (x *Header) GetConfig() []*ConfigEntry {
	if x != nil {
		return x.Config
	}
	return nil
}

func (x *Header) GetDevices() []*Device {
	if x != nil {
		return x.Devices
	}
	return nil
}

func (x *Header) GetLocalRank() uint32 {
	if x != nil && x.LocalRank != nil {
		return *x.LocalRank
	}
	return 0
}

func (x *Header) GetJobSize() uint32 {
	if x != nil && x.JobSize != nil {
		return *x.JobSize
	}
	return 0
}

func (x *Header) GetRankVariable() string {
	if x != nil {
		return x.RankVariable
	}
	return ""
}

func (x *Header) GetJobId() string {
	if x != nil {
		return x.JobId
	}
	return ""
}

func (x *Header) GetZeAffinityMask() string {
	if x != nil {
		return x.ZeAffinityMask
	}
	return ""
}

func (x *Header) GetOtherProcessesKnown() bool {
	if x != nil {
		return x.OtherProcessesKnown
	}
	return false
}

func (x *Header) GetSycl() *SyclSetup {
	if x != nil {
		return x.Sycl
	}
	return nil
}

func (x *Header) GetLaunchSeparation() LaunchSeparation {
	if x != nil {
		return x.LaunchSeparation
	}
	return LaunchSeparation_LAUNCH_SEPARATION_TIME_WINDOWS
}

func (x *Header) GetCodeCopiesPerModule() uint32 {
	if x != nil {
		return x.CodeCopiesPerModule
	}
	return 0
}

func (x *Header) GetCodeCopiesMax() uint32 {
	if x != nil {
		return x.CodeCopiesMax
	}
	return 0
}

func (x *Header) GetCodeCopyMemoryLimit() uint64 {
	if x != nil {
		return x.CodeCopyMemoryLimit
	}
	return 0
}

// SyclSetup says how libzestall.so subscribed to XPTI, the SYCL runtime's
// instrumentation (zestall's docs/xpti.md). Decided when the library was
// loaded, before the application's main.
type SyclSetup struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	State SyclXptiState          `protobuf:"varint,1,opt,name=state,proto3,enum=zestall.v1.SyclXptiState" json:"state,omitempty"`
	// XPTI_SUBSCRIBERS as the runtime reads it (after zestall added itself),
	// "" when zestall did not set it.
	Subscribers string `protobuf:"bytes,2,opt,name=subscribers,proto3" json:"subscribers,omitempty"`
	// XPTI_FRAMEWORK_DISPATCHER as the runtime reads it.
	Dispatcher string `protobuf:"bytes,3,opt,name=dispatcher,proto3" json:"dispatcher,omitempty"`
	// Streams zestall's callbacks were registered on by the time the file
	// started ("sycl", and "sycl.debug" when other subscribers are listed).
	// Empty when the runtime had not initialised XPTI yet (or never does:
	// the application does not use SYCL).
	Streams []string `protobuf:"bytes,4,rep,name=streams,proto3" json:"streams,omitempty"`
	// Why the callbacks could not be registered (e.g. the dispatcher lacks a
	// function), "" when nothing went wrong.
	Problem       string `protobuf:"bytes,5,opt,name=problem,proto3" json:"problem,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *SyclSetup) Reset() {
	*x = SyclSetup{}
	mi := &file_zestall_proto_msgTypes[2]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *SyclSetup) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*SyclSetup) ProtoMessage() {}

func (x *SyclSetup) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[2]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use SyclSetup.ProtoReflect.Descriptor instead.
func (*SyclSetup) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{2}
}

func (x *SyclSetup) GetState() SyclXptiState {
	if x != nil {
		return x.State
	}
	return SyclXptiState_SYCL_XPTI_STATE_UNKNOWN
}

func (x *SyclSetup) GetSubscribers() string {
	if x != nil {
		return x.Subscribers
	}
	return ""
}

func (x *SyclSetup) GetDispatcher() string {
	if x != nil {
		return x.Dispatcher
	}
	return ""
}

func (x *SyclSetup) GetStreams() []string {
	if x != nil {
		return x.Streams
	}
	return nil
}

func (x *SyclSetup) GetProblem() string {
	if x != nil {
		return x.Problem
	}
	return ""
}

// ConfigEntry is one configuration setting.
type ConfigEntry struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Setting name, e.g. "ZESTALL_SAMPLING_PERIOD_NS".
	Key string `protobuf:"bytes,1,opt,name=key,proto3" json:"key,omitempty"`
	// Value in use, as text.
	Value string `protobuf:"bytes,2,opt,name=value,proto3" json:"value,omitempty"`
	// True when the value came from the environment, false for a default
	// (including a default used because the given value was invalid).
	FromEnvironment bool `protobuf:"varint,3,opt,name=from_environment,json=fromEnvironment,proto3" json:"from_environment,omitempty"`
	unknownFields   protoimpl.UnknownFields
	sizeCache       protoimpl.SizeCache
}

func (x *ConfigEntry) Reset() {
	*x = ConfigEntry{}
	mi := &file_zestall_proto_msgTypes[3]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ConfigEntry) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ConfigEntry) ProtoMessage() {}

func (x *ConfigEntry) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[3]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ConfigEntry.ProtoReflect.Descriptor instead.
func (*ConfigEntry) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{3}
}

func (x *ConfigEntry) GetKey() string {
	if x != nil {
		return x.Key
	}
	return ""
}

func (x *ConfigEntry) GetValue() string {
	if x != nil {
		return x.Value
	}
	return ""
}

func (x *ConfigEntry) GetFromEnvironment() bool {
	if x != nil {
		return x.FromEnvironment
	}
	return false
}

// Device is one Level-Zero device (a root device or a sub-device).
type Device struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Device id (non-zero, unique in the file).
	Id uint32 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	// Id of the root device this sub-device belongs to; 0 for a root device.
	ParentId uint32 `protobuf:"varint,2,opt,name=parent_id,json=parentId,proto3" json:"parent_id,omitempty"`
	// Device name (ze_device_properties_t.name), e.g.
	// "Intel(R) Data Center GPU Max 1550".
	Name string `protobuf:"bytes,3,opt,name=name,proto3" json:"name,omitempty"`
	// PCI device id (ze_device_properties_t.deviceId), e.g. 0x0BD5.
	PciDeviceId uint32 `protobuf:"varint,4,opt,name=pci_device_id,json=pciDeviceId,proto3" json:"pci_device_id,omitempty"`
	// Platform short name as zestall knows it, e.g. "PVC", "BMG", "LNL";
	// empty when unknown.
	Platform string `protobuf:"bytes,5,opt,name=platform,proto3" json:"platform,omitempty"`
	// IP version (ze_device_ip_version_ext_t.ipVersion); 0 when the driver
	// does not report it. Tools use it to choose a disassembler platform.
	IpVersion uint32 `protobuf:"varint,6,opt,name=ip_version,json=ipVersion,proto3" json:"ip_version,omitempty"`
	// Sub-device index (ze_device_properties_t.subdeviceId) for a sub-device.
	// Absent for a root device.
	SubDeviceIndex *uint32 `protobuf:"varint,7,opt,name=sub_device_index,json=subDeviceIndex,proto3,oneof" json:"sub_device_index,omitempty"`
	// Number of Xe-cores: numSlices * numSubslicesPerSlice.
	XeCoreCount uint32 `protobuf:"varint,8,opt,name=xe_core_count,json=xeCoreCount,proto3" json:"xe_core_count,omitempty"`
	// Frequency of the device timestamp counter, Hz
	// (ze_device_properties_t.timerResolution in cycles per second).
	TimerFrequencyHz uint64 `protobuf:"varint,9,opt,name=timer_frequency_hz,json=timerFrequencyHz,proto3" json:"timer_frequency_hz,omitempty"`
	// Valid bits of global device timestamps
	// (ze_device_properties_t.timestampValidBits).
	TimestampValidBits uint32 `protobuf:"varint,10,opt,name=timestamp_valid_bits,json=timestampValidBits,proto3" json:"timestamp_valid_bits,omitempty"`
	// Valid bits of kernel timestamps
	// (ze_device_properties_t.kernelTimestampValidBits).
	KernelTimestampValidBits uint32 `protobuf:"varint,11,opt,name=kernel_timestamp_valid_bits,json=kernelTimestampValidBits,proto3" json:"kernel_timestamp_valid_bits,omitempty"`
	// Device UUID (ze_device_properties_t.uuid), 16 bytes.
	Uuid []byte `protobuf:"bytes,12,opt,name=uuid,proto3" json:"uuid,omitempty"`
	// EU stall sampling on this device: how it was set up, or why it is off.
	StallSampling *StallSampling `protobuf:"bytes,13,opt,name=stall_sampling,json=stallSampling,proto3" json:"stall_sampling,omitempty"`
	// For a root device: the ZE_AFFINITY_MASK entry (or entries, joined by
	// "+") that selected it, read with the driver's rules (zestall's
	// docs/mpi.md §5): "3" is the node's tile 3 in FLAT mode, "1.1" tile 1
	// of card 1 and "2" card 2 in COMPOSITE mode. With Header.host_name it
	// says which tile of which node the device is. "" when the mask is unset
	// or zestall cannot map its entries one to one onto the visible root
	// devices. Added in revision 5.
	AffinityEntry string `protobuf:"bytes,14,opt,name=affinity_entry,json=affinityEntry,proto3" json:"affinity_entry,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Device) Reset() {
	*x = Device{}
	mi := &file_zestall_proto_msgTypes[4]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Device) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Device) ProtoMessage() {}

func (x *Device) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[4]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Device.ProtoReflect.Descriptor instead.
func (*Device) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{4}
}

func (x *Device) GetId() uint32 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *Device) GetParentId() uint32 {
	if x != nil {
		return x.ParentId
	}
	return 0
}

func (x *Device) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *Device) GetPciDeviceId() uint32 {
	if x != nil {
		return x.PciDeviceId
	}
	return 0
}

func (x *Device) GetPlatform() string {
	if x != nil {
		return x.Platform
	}
	return ""
}

func (x *Device) GetIpVersion() uint32 {
	if x != nil {
		return x.IpVersion
	}
	return 0
}

func (x *Device) GetSubDeviceIndex() uint32 {
	if x != nil && x.SubDeviceIndex != nil {
		return *x.SubDeviceIndex
	}
	return 0
}

func (x *Device) GetXeCoreCount() uint32 {
	if x != nil {
		return x.XeCoreCount
	}
	return 0
}

func (x *Device) GetTimerFrequencyHz() uint64 {
	if x != nil {
		return x.TimerFrequencyHz
	}
	return 0
}

func (x *Device) GetTimestampValidBits() uint32 {
	if x != nil {
		return x.TimestampValidBits
	}
	return 0
}

func (x *Device) GetKernelTimestampValidBits() uint32 {
	if x != nil {
		return x.KernelTimestampValidBits
	}
	return 0
}

func (x *Device) GetUuid() []byte {
	if x != nil {
		return x.Uuid
	}
	return nil
}

func (x *Device) GetStallSampling() *StallSampling {
	if x != nil {
		return x.StallSampling
	}
	return nil
}

func (x *Device) GetAffinityEntry() string {
	if x != nil {
		return x.AffinityEntry
	}
	return ""
}

// StallSampling describes the EU stall sampling set-up of one device.
type StallSampling struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// True when a metric streamer was opened on this device and samples from
	// it may appear in StallRows and Unattributed records.
	Enabled bool `protobuf:"varint,1,opt,name=enabled,proto3" json:"enabled,omitempty"`
	// Why sampling is off, when enabled is false.
	OffReason StallSamplingOff `protobuf:"varint,2,opt,name=off_reason,json=offReason,proto3,enum=zestall.v1.StallSamplingOff" json:"off_reason,omitempty"`
	// Human-readable detail for off_reason (the Level-Zero result, the
	// setting to change, ...). May be set when enabled is true, for a warning.
	Detail string `protobuf:"bytes,3,opt,name=detail,proto3" json:"detail,omitempty"`
	// The metrics of the "EuStallSampling" group in driver order (the order of
	// zetMetricGet, which is also the order of calculated values). It
	// includes the IP metric (usually first). The counter columns of
	// StallRows and Unattributed are the non-IP metrics of this list, in this
	// order.
	Metrics []*Metric `protobuf:"bytes,4,rep,name=metrics,proto3" json:"metrics,omitempty"`
	// Sampling period the driver actually uses, ns
	// (zet_metric_streamer_desc_t.samplingPeriod after zetMetricStreamerOpen).
	SamplingPeriodNs uint64 `protobuf:"varint,5,opt,name=sampling_period_ns,json=samplingPeriodNs,proto3" json:"sampling_period_ns,omitempty"`
	// Sampling period zestall asked for, ns (ZESTALL_SAMPLING_PERIOD_NS).
	RequestedPeriodNs uint64 `protobuf:"varint,6,opt,name=requested_period_ns,json=requestedPeriodNs,proto3" json:"requested_period_ns,omitempty"`
	// notifyEveryNReports the streamer was opened with, in 64-byte reports.
	NotifyEveryNReports uint32 `protobuf:"varint,7,opt,name=notify_every_n_reports,json=notifyEveryNReports,proto3" json:"notify_every_n_reports,omitempty"`
	// Number of sub-device sets the streamer delivers (COMPOSITE mode root
	// device: one per sub-device; otherwise 1).
	SubDeviceSets uint32 `protobuf:"varint,8,opt,name=sub_device_sets,json=subDeviceSets,proto3" json:"sub_device_sets,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *StallSampling) Reset() {
	*x = StallSampling{}
	mi := &file_zestall_proto_msgTypes[5]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *StallSampling) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*StallSampling) ProtoMessage() {}

func (x *StallSampling) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[5]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use StallSampling.ProtoReflect.Descriptor instead.
func (*StallSampling) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{5}
}

func (x *StallSampling) GetEnabled() bool {
	if x != nil {
		return x.Enabled
	}
	return false
}

func (x *StallSampling) GetOffReason() StallSamplingOff {
	if x != nil {
		return x.OffReason
	}
	return StallSamplingOff_STALL_SAMPLING_OFF_UNSPECIFIED
}

func (x *StallSampling) GetDetail() string {
	if x != nil {
		return x.Detail
	}
	return ""
}

func (x *StallSampling) GetMetrics() []*Metric {
	if x != nil {
		return x.Metrics
	}
	return nil
}

func (x *StallSampling) GetSamplingPeriodNs() uint64 {
	if x != nil {
		return x.SamplingPeriodNs
	}
	return 0
}

func (x *StallSampling) GetRequestedPeriodNs() uint64 {
	if x != nil {
		return x.RequestedPeriodNs
	}
	return 0
}

func (x *StallSampling) GetNotifyEveryNReports() uint32 {
	if x != nil {
		return x.NotifyEveryNReports
	}
	return 0
}

func (x *StallSampling) GetSubDeviceSets() uint32 {
	if x != nil {
		return x.SubDeviceSets
	}
	return 0
}

// Metric is one metric of the EU stall sampling group.
type Metric struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Metric name (zet_metric_properties_t.name), e.g. "IP", "Active",
	// "SbidStall".
	Name string `protobuf:"bytes,1,opt,name=name,proto3" json:"name,omitempty"`
	// Description (zet_metric_properties_t.description), e.g.
	// "Stall on scoreboard".
	Description string `protobuf:"bytes,2,opt,name=description,proto3" json:"description,omitempty"`
	// Units (zet_metric_properties_t.resultUnits), e.g. "Address", "Events".
	Units string `protobuf:"bytes,3,opt,name=units,proto3" json:"units,omitempty"`
	// Metric type (zet_metric_properties_t.metricType) as its numeric
	// value: 0x7ffffffe is ZET_METRIC_TYPE_IP, 1 is ZET_METRIC_TYPE_EVENT.
	MetricType    uint32 `protobuf:"varint,4,opt,name=metric_type,json=metricType,proto3" json:"metric_type,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Metric) Reset() {
	*x = Metric{}
	mi := &file_zestall_proto_msgTypes[6]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Metric) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Metric) ProtoMessage() {}

func (x *Metric) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[6]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Metric.ProtoReflect.Descriptor instead.
func (*Metric) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{6}
}

func (x *Metric) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *Metric) GetDescription() string {
	if x != nil {
		return x.Description
	}
	return ""
}

func (x *Metric) GetUnits() string {
	if x != nil {
		return x.Units
	}
	return ""
}

func (x *Metric) GetMetricType() uint32 {
	if x != nil {
		return x.MetricType
	}
	return 0
}

// Module is a Level-Zero module as created by zeModuleCreate.
type Module struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Module id (non-zero, unique in the file).
	Id uint64 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	// Device the module was built for.
	DeviceId uint32 `protobuf:"varint,2,opt,name=device_id,json=deviceId,proto3" json:"device_id,omitempty"`
	// Content identity of native_binary and debug_info together: modules
	// with equal hashes have equal bytes in both. (The debug info is linked at
	// the module's GPU addresses, so two instances of one binary usually
	// differ in it.) zestall computes SHA-256 over the length of the native
	// binary as 8 little-endian bytes, the native binary, then the debug
	// info; readers compare hashes for equality only. Empty when no hash was
	// computed (then the content is not shared).
	ContentHash []byte `protobuf:"bytes,3,opt,name=content_hash,json=contentHash,proto3" json:"content_hash,omitempty"`
	// The module's native binary (zeModuleGetNativeBinary): a zebin ELF.
	// Empty when content_module_id is set, or when the driver returned none.
	NativeBinary []byte `protobuf:"bytes,4,opt,name=native_binary,json=nativeBinary,proto3" json:"native_binary,omitempty"`
	// Debug information (zetModuleGetDebugInfo with
	// ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF): a "debug zebin" ELF with DWARF.
	// Empty when content_module_id is set, or when the driver returned none.
	DebugInfo []byte `protobuf:"bytes,5,opt,name=debug_info,json=debugInfo,proto3" json:"debug_info,omitempty"`
	// When non-zero, this module's content equals that of the earlier Module
	// record with this id (same content_hash), and native_binary and
	// debug_info are empty here: content is stored once per hash per file.
	ContentModuleId uint64 `protobuf:"varint,6,opt,name=content_module_id,json=contentModuleId,proto3" json:"content_module_id,omitempty"`
	// Host ns at which zeModuleCreate returned.
	CreatedHostNs uint64 `protobuf:"varint,7,opt,name=created_host_ns,json=createdHostNs,proto3" json:"created_host_ns,omitempty"`
	// Why native_binary or debug_info is missing although content_module_id
	// is 0, e.g. "zetModuleGetDebugInfo: ZE_RESULT_ERROR_UNSUPPORTED_FEATURE".
	// Empty when nothing is missing.
	MissingDetail string `protobuf:"bytes,8,opt,name=missing_detail,json=missingDetail,proto3" json:"missing_detail,omitempty"`
	// Launch separation by module copies (Header.launch_separation COPIES;
	// added in revision 5): how many copies of this module zestall created
	// from its native binary (zeModuleCreate, same build flags), each at
	// its own instruction addresses. 0: none (see copy_ineligible_reason).
	// Launches of the module's kernels run on the original or one of the
	// copies in turn (Launch.code_copy).
	CodeCopies uint32 `protobuf:"varint,9,opt,name=code_copies,json=codeCopies,proto3" json:"code_copies,omitempty"`
	// Why the module was not copied, "" when it was or the mode is off,
	// e.g. "writable program-scope globals (.data.global)", "function
	// pointers or indirect calls (.ze_info functions)",
	// "zeModuleCreate of a copy failed: ZE_RESULT_ERROR_...". Its launches
	// keep time-window attribution only.
	CopyIneligibleReason string `protobuf:"bytes,10,opt,name=copy_ineligible_reason,json=copyIneligibleReason,proto3" json:"copy_ineligible_reason,omitempty"`
	// Device memory the copies took, bytes: the sum of the copies' kernel
	// ISA sizes (.text sections of the native binary, times code_copies).
	// The driver's own allocation granularity is not included.
	CopyIsaBytes uint64 `protobuf:"varint,11,opt,name=copy_isa_bytes,json=copyIsaBytes,proto3" json:"copy_isa_bytes,omitempty"`
	// Host ns spent creating the copies (zeModuleCreate calls), on the
	// application's thread inside its zeModuleCreate.
	CopyCreateNs uint64 `protobuf:"varint,12,opt,name=copy_create_ns,json=copyCreateNs,proto3" json:"copy_create_ns,omitempty"`
	// Device memory of one copy, bytes (revision 6): copy_isa_bytes of a
	// single copy, also for copies the automatic ring makes later (a
	// module's launches name the copies they used in Launch.code_copy;
	// Counters.code_copies_made counts every copy made).
	CopyIsaBytesEach uint64 `protobuf:"varint,13,opt,name=copy_isa_bytes_each,json=copyIsaBytesEach,proto3" json:"copy_isa_bytes_each,omitempty"`
	unknownFields    protoimpl.UnknownFields
	sizeCache        protoimpl.SizeCache
}

func (x *Module) Reset() {
	*x = Module{}
	mi := &file_zestall_proto_msgTypes[7]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Module) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Module) ProtoMessage() {}

func (x *Module) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[7]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Module.ProtoReflect.Descriptor instead.
func (*Module) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{7}
}

func (x *Module) GetId() uint64 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *Module) GetDeviceId() uint32 {
	if x != nil {
		return x.DeviceId
	}
	return 0
}

func (x *Module) GetContentHash() []byte {
	if x != nil {
		return x.ContentHash
	}
	return nil
}

func (x *Module) GetNativeBinary() []byte {
	if x != nil {
		return x.NativeBinary
	}
	return nil
}

func (x *Module) GetDebugInfo() []byte {
	if x != nil {
		return x.DebugInfo
	}
	return nil
}

func (x *Module) GetContentModuleId() uint64 {
	if x != nil {
		return x.ContentModuleId
	}
	return 0
}

func (x *Module) GetCreatedHostNs() uint64 {
	if x != nil {
		return x.CreatedHostNs
	}
	return 0
}

func (x *Module) GetMissingDetail() string {
	if x != nil {
		return x.MissingDetail
	}
	return ""
}

func (x *Module) GetCodeCopies() uint32 {
	if x != nil {
		return x.CodeCopies
	}
	return 0
}

func (x *Module) GetCopyIneligibleReason() string {
	if x != nil {
		return x.CopyIneligibleReason
	}
	return ""
}

func (x *Module) GetCopyIsaBytes() uint64 {
	if x != nil {
		return x.CopyIsaBytes
	}
	return 0
}

func (x *Module) GetCopyCreateNs() uint64 {
	if x != nil {
		return x.CopyCreateNs
	}
	return 0
}

func (x *Module) GetCopyIsaBytesEach() uint64 {
	if x != nil {
		return x.CopyIsaBytesEach
	}
	return 0
}

// ModuleDestroyed marks the end of a module's life (zeModuleDestroy).
type ModuleDestroyed struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Id of the Module.
	Id uint64 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	// Host ns at which zeModuleDestroy was called.
	HostNs        uint64 `protobuf:"varint,2,opt,name=host_ns,json=hostNs,proto3" json:"host_ns,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ModuleDestroyed) Reset() {
	*x = ModuleDestroyed{}
	mi := &file_zestall_proto_msgTypes[8]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ModuleDestroyed) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ModuleDestroyed) ProtoMessage() {}

func (x *ModuleDestroyed) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[8]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ModuleDestroyed.ProtoReflect.Descriptor instead.
func (*ModuleDestroyed) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{8}
}

func (x *ModuleDestroyed) GetId() uint64 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *ModuleDestroyed) GetHostNs() uint64 {
	if x != nil {
		return x.HostNs
	}
	return 0
}

// Kernel is a kernel created by zeKernelCreate: a name in a module, and the
// GPU address range of its instructions during its lifetime. The same range
// may belong to another Kernel after this one is destroyed; tell them apart
// by [valid_from_host_ns, KernelDestroyed.valid_until_host_ns).
type Kernel struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Kernel id (non-zero, unique in the file).
	Id uint64 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	// Id of the Module the kernel belongs to.
	ModuleId uint64 `protobuf:"varint,2,opt,name=module_id,json=moduleId,proto3" json:"module_id,omitempty"`
	// Kernel name as given to zeKernelCreate (the mangled symbol for SYCL).
	Name string `protobuf:"bytes,3,opt,name=name,proto3" json:"name,omitempty"`
	// Demangled name; empty when name is not mangled or demangling failed.
	DemangledName string `protobuf:"bytes,4,opt,name=demangled_name,json=demangledName,proto3" json:"demangled_name,omitempty"`
	// GPU virtual byte address of the kernel's first instruction
	// (zexKernelGetBaseAddress, full 64 bits).
	BaseAddress uint64 `protobuf:"varint,5,opt,name=base_address,json=baseAddress,proto3" json:"base_address,omitempty"`
	// Size of the kernel's instructions, bytes: the size of the zebin section
	// ".text.<name>" (or zeKernelGetBinaryExp), padding included. 0 when
	// unknown. Instruction offsets are in [0, isa_size).
	IsaSize uint64 `protobuf:"varint,6,opt,name=isa_size,json=isaSize,proto3" json:"isa_size,omitempty"`
	// Host ns from which base_address belongs to this kernel (zeKernelCreate).
	ValidFromHostNs uint64 `protobuf:"varint,7,opt,name=valid_from_host_ns,json=validFromHostNs,proto3" json:"valid_from_host_ns,omitempty"`
	unknownFields   protoimpl.UnknownFields
	sizeCache       protoimpl.SizeCache
}

func (x *Kernel) Reset() {
	*x = Kernel{}
	mi := &file_zestall_proto_msgTypes[9]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Kernel) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Kernel) ProtoMessage() {}

func (x *Kernel) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[9]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Kernel.ProtoReflect.Descriptor instead.
func (*Kernel) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{9}
}

func (x *Kernel) GetId() uint64 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *Kernel) GetModuleId() uint64 {
	if x != nil {
		return x.ModuleId
	}
	return 0
}

func (x *Kernel) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *Kernel) GetDemangledName() string {
	if x != nil {
		return x.DemangledName
	}
	return ""
}

func (x *Kernel) GetBaseAddress() uint64 {
	if x != nil {
		return x.BaseAddress
	}
	return 0
}

func (x *Kernel) GetIsaSize() uint64 {
	if x != nil {
		return x.IsaSize
	}
	return 0
}

func (x *Kernel) GetValidFromHostNs() uint64 {
	if x != nil {
		return x.ValidFromHostNs
	}
	return 0
}

// KernelDestroyed marks the end of a kernel's life (zeKernelDestroy).
type KernelDestroyed struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Id of the Kernel.
	Id uint64 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	// Host ns at which zeKernelDestroy was called; the kernel's address range
	// is not its own from then on.
	ValidUntilHostNs uint64 `protobuf:"varint,2,opt,name=valid_until_host_ns,json=validUntilHostNs,proto3" json:"valid_until_host_ns,omitempty"`
	unknownFields    protoimpl.UnknownFields
	sizeCache        protoimpl.SizeCache
}

func (x *KernelDestroyed) Reset() {
	*x = KernelDestroyed{}
	mi := &file_zestall_proto_msgTypes[10]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *KernelDestroyed) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*KernelDestroyed) ProtoMessage() {}

func (x *KernelDestroyed) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[10]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use KernelDestroyed.ProtoReflect.Descriptor instead.
func (*KernelDestroyed) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{10}
}

func (x *KernelDestroyed) GetId() uint64 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *KernelDestroyed) GetValidUntilHostNs() uint64 {
	if x != nil {
		return x.ValidUntilHostNs
	}
	return 0
}

// Launch is one execution of one kernel on a device: an append to an
// immediate command list, or one execution of an append to a regular command
// list (a list executed three times yields three Launch records).
//
// # Two forms
//
// Absolute form: id, host_append_ns, device_start_ns and device_end_ns hold
// the values themselves; the compact form's fields below (id_delta,
// device_start_delay_ns, device_duration_ns) mean nothing in it and are
// ignored. The Go reader returns every Launch in this form, with those
// fields 0, and the Go writer takes it from producers.
//
// Compact form: what zestall writes. Ids and times are mostly small
// differences, so records are about a quarter smaller after compression.
// A record is in compact form when it has host_append_delta_ns (field
// presence); then its id, host_append_ns, device_start_ns and device_end_ns
// fields are 0 and the values are:
//
//	id              = F.id + 1 + id_delta
//	host_append_ns  = F.host_append_ns + host_append_delta_ns
//	device_start_ns = max(host_append_ns, L.device_end_ns) + device_start_delay_ns
//	device_end_ns   = device_start_ns + device_duration_ns
//
// where, looking back only within the same Zstandard frame:
//
//	F is the previous Launch record of the frame; for the frame's first
//	  Launch, F.id = 0 and F.host_append_ns = 0.
//	L is the previous Launch record of the frame with the same queue_id and
//	  command_list_id and without LAUNCH_FLAG_NO_TIMESTAMP; if there is none,
//	  L.device_end_ns = 0. (An in-order command list starts a kernel soon
//	  after the previous one ends, or soon after the append when it was
//	  idle, so the delay is small.)
//
// Revision 7: a compact record with repeat_of = n > 0 repeats the
// attributes of R, the n-th previous Launch record of the frame (1: the
// previous one; n is at most 8 and R exists, or the record is damaged):
// its kernel_id, device_id, queue_id, command_list_id, kind, flags,
// no_timestamp_reason, group_count_*, group_size_*, code_copy and
// sycl_location_id are absent (0) and are R's, resolved before the rules
// above (which need queue_id, command_list_id and flags). A loop's launches
// differ in their times only: the Launch record is half as large before
// compression, which costs the profiled process half as much to compress.
//
// Revision 8: a LaunchRun record stands for consecutive Launch records in
// compact form that each repeat earlier attributes (repeat_of > 0) and
// have no other field than the run's columns: what zestall writes for
// most launches. A reader turns it into those Launch records, in order,
// and resolves them like any other (see LaunchRun).
//
// F, L and R are taken after resolving them, whichever form they were
// written in (a Launch record of a LaunchRun counts as a Launch record).
// This state starts afresh in every frame, so each frame decodes on its
// own: a reader must split the file into frames (as any reader that
// tolerates a truncated tail does) rather than decompress it as one stream.
// Arithmetic is modulo 2^64 (deltas are two's complement), so every value
// round-trips exactly. A compact record with LAUNCH_FLAG_NO_TIMESTAMP has
// neither device_start_delay_ns nor device_duration_ns, and its device times
// are 0.
type Launch struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Launch id (non-zero, unique in the file). 0 in compact form.
	Id uint64 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	// Id of the Kernel launched.
	KernelId uint64 `protobuf:"varint,2,opt,name=kernel_id,json=kernelId,proto3" json:"kernel_id,omitempty"`
	// Id of the Device it ran on.
	DeviceId uint32 `protobuf:"varint,3,opt,name=device_id,json=deviceId,proto3" json:"device_id,omitempty"`
	// Id of the command queue: for a regular command list, the queue it was
	// executed on; 0 for an immediate command list (see
	// LAUNCH_FLAG_IMMEDIATE) or when unknown.
	QueueId uint64 `protobuf:"varint,4,opt,name=queue_id,json=queueId,proto3" json:"queue_id,omitempty"`
	// Id of the command list the kernel was appended to.
	CommandListId uint64 `protobuf:"varint,5,opt,name=command_list_id,json=commandListId,proto3" json:"command_list_id,omitempty"`
	// Which append function launched the kernel.
	Kind LaunchKind `protobuf:"varint,6,opt,name=kind,proto3,enum=zestall.v1.LaunchKind" json:"kind,omitempty"`
	// Bit set of LaunchFlag values.
	Flags uint32 `protobuf:"varint,7,opt,name=flags,proto3" json:"flags,omitempty"`
	// Why there are no device times, when flags has LAUNCH_FLAG_NO_TIMESTAMP.
	NoTimestampReason NoTimestampReason `protobuf:"varint,8,opt,name=no_timestamp_reason,json=noTimestampReason,proto3,enum=zestall.v1.NoTimestampReason" json:"no_timestamp_reason,omitempty"`
	// Number of work-groups in x, y, z (ze_group_count_t). 0 when unknown to
	// the host (indirect launches).
	GroupCountX uint32 `protobuf:"varint,9,opt,name=group_count_x,json=groupCountX,proto3" json:"group_count_x,omitempty"`
	GroupCountY uint32 `protobuf:"varint,10,opt,name=group_count_y,json=groupCountY,proto3" json:"group_count_y,omitempty"`
	GroupCountZ uint32 `protobuf:"varint,11,opt,name=group_count_z,json=groupCountZ,proto3" json:"group_count_z,omitempty"`
	// Work-group size in x, y, z (zeKernelSetGroupSize), work-items.
	GroupSizeX uint32 `protobuf:"varint,12,opt,name=group_size_x,json=groupSizeX,proto3" json:"group_size_x,omitempty"`
	GroupSizeY uint32 `protobuf:"varint,13,opt,name=group_size_y,json=groupSizeY,proto3" json:"group_size_y,omitempty"`
	GroupSizeZ uint32 `protobuf:"varint,14,opt,name=group_size_z,json=groupSizeZ,proto3" json:"group_size_z,omitempty"`
	// Absolute form: host ns at which the append was called.
	HostAppendNs uint64 `protobuf:"varint,15,opt,name=host_append_ns,json=hostAppendNs,proto3" json:"host_append_ns,omitempty"`
	// Absolute form: host ns at which the kernel started on the device
	// (ze_kernel_timestamp_result_t.global.kernelStart, converted). 0
	// without a timestamp.
	DeviceStartNs uint64 `protobuf:"varint,16,opt,name=device_start_ns,json=deviceStartNs,proto3" json:"device_start_ns,omitempty"`
	// Absolute form: host ns at which the kernel ended on the device
	// (ze_kernel_timestamp_result_t.global.kernelEnd, converted). 0 without a
	// timestamp.
	DeviceEndNs uint64 `protobuf:"varint,17,opt,name=device_end_ns,json=deviceEndNs,proto3" json:"device_end_ns,omitempty"`
	// For a regular command list: which execution of the list this is,
	// counting from 0 (the n-th zeCommandQueueExecuteCommandLists of the list
	// since it was last reset). 0 for an immediate command list.
	ExecutionIndex uint32 `protobuf:"varint,18,opt,name=execution_index,json=executionIndex,proto3" json:"execution_index,omitempty"`
	// Compact form: host_append_ns minus F.host_append_ns, ns. Its presence
	// marks the compact form.
	HostAppendDeltaNs *int64 `protobuf:"zigzag64,20,opt,name=host_append_delta_ns,json=hostAppendDeltaNs,proto3,oneof" json:"host_append_delta_ns,omitempty"`
	// Compact form: device_start_ns minus max(host_append_ns,
	// L.device_end_ns), ns.
	DeviceStartDelayNs int64 `protobuf:"zigzag64,21,opt,name=device_start_delay_ns,json=deviceStartDelayNs,proto3" json:"device_start_delay_ns,omitempty"`
	// Compact form: device_end_ns minus device_start_ns, ns.
	DeviceDurationNs uint64 `protobuf:"varint,22,opt,name=device_duration_ns,json=deviceDurationNs,proto3" json:"device_duration_ns,omitempty"`
	// Compact form: id minus F.id minus 1; 0 when ids are consecutive.
	IdDelta int64 `protobuf:"zigzag64,23,opt,name=id_delta,json=idDelta,proto3" json:"id_delta,omitempty"`
	// Id of the SyclLocation of the SYCL task that appended this kernel:
	// the innermost task open (between task_begin and task_end) on the
	// thread that called the append. 0 when the launch was appended outside
	// any SYCL task (direct Level-Zero use), or the location is unknown.
	// Added in revision 5, like sycl_task_id.
	SyclLocationId uint32 `protobuf:"varint,26,opt,name=sycl_location_id,json=syclLocationId,proto3" json:"sycl_location_id,omitempty"`
	// Id of that task: the id of the SyclSpan (kind SYCL_SPAN_KIND_TASK)
	// that carries its queue, node, instance, thread and host times. 0
	// outside any task. For a regular command list, every execution of the
	// list carries the task of the append.
	SyclTaskId uint64 `protobuf:"varint,27,opt,name=sycl_task_id,json=syclTaskId,proto3" json:"sycl_task_id,omitempty"`
	// Which code the launch ran (added in revision 5): 0 the kernel's own,
	// n the kernel of the module's n-th copy (Module.code_copies), chosen
	// when the launch was appended. The executions of one append of a
	// regular command list all run the copy recorded at the append.
	CodeCopy uint32 `protobuf:"varint,24,opt,name=code_copy,json=codeCopy,proto3" json:"code_copy,omitempty"`
	// Compact form (added in revision 7): n > 0 when this record's
	// kernel_id, device_id, queue_id, command_list_id, kind, flags,
	// no_timestamp_reason, group_count_*, group_size_*, code_copy and
	// sycl_location_id are those of the n-th previous Launch record of the
	// frame (1 to 8; see "Two forms"); they are 0 here then. 0: they are this
	// record's own.
	RepeatOf      uint32 `protobuf:"varint,33,opt,name=repeat_of,json=repeatOf,proto3" json:"repeat_of,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Launch) Reset() {
	*x = Launch{}
	mi := &file_zestall_proto_msgTypes[11]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Launch) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Launch) ProtoMessage() {}

func (x *Launch) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[11]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Launch.ProtoReflect.Descriptor instead.
func (*Launch) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{11}
}

func (x *Launch) GetId() uint64 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *Launch) GetKernelId() uint64 {
	if x != nil {
		return x.KernelId
	}
	return 0
}

func (x *Launch) GetDeviceId() uint32 {
	if x != nil {
		return x.DeviceId
	}
	return 0
}

func (x *Launch) GetQueueId() uint64 {
	if x != nil {
		return x.QueueId
	}
	return 0
}

func (x *Launch) GetCommandListId() uint64 {
	if x != nil {
		return x.CommandListId
	}
	return 0
}

func (x *Launch) GetKind() LaunchKind {
	if x != nil {
		return x.Kind
	}
	return LaunchKind_LAUNCH_KIND_KERNEL
}

func (x *Launch) GetFlags() uint32 {
	if x != nil {
		return x.Flags
	}
	return 0
}

func (x *Launch) GetNoTimestampReason() NoTimestampReason {
	if x != nil {
		return x.NoTimestampReason
	}
	return NoTimestampReason_NO_TIMESTAMP_REASON_UNSPECIFIED
}

func (x *Launch) GetGroupCountX() uint32 {
	if x != nil {
		return x.GroupCountX
	}
	return 0
}

func (x *Launch) GetGroupCountY() uint32 {
	if x != nil {
		return x.GroupCountY
	}
	return 0
}

func (x *Launch) GetGroupCountZ() uint32 {
	if x != nil {
		return x.GroupCountZ
	}
	return 0
}

func (x *Launch) GetGroupSizeX() uint32 {
	if x != nil {
		return x.GroupSizeX
	}
	return 0
}

func (x *Launch) GetGroupSizeY() uint32 {
	if x != nil {
		return x.GroupSizeY
	}
	return 0
}

func (x *Launch) GetGroupSizeZ() uint32 {
	if x != nil {
		return x.GroupSizeZ
	}
	return 0
}

func (x *Launch) GetHostAppendNs() uint64 {
	if x != nil {
		return x.HostAppendNs
	}
	return 0
}

func (x *Launch) GetDeviceStartNs() uint64 {
	if x != nil {
		return x.DeviceStartNs
	}
	return 0
}

func (x *Launch) GetDeviceEndNs() uint64 {
	if x != nil {
		return x.DeviceEndNs
	}
	return 0
}

func (x *Launch) GetExecutionIndex() uint32 {
	if x != nil {
		return x.ExecutionIndex
	}
	return 0
}

func (x *Launch) GetHostAppendDeltaNs() int64 {
	if x != nil && x.HostAppendDeltaNs != nil {
		return *x.HostAppendDeltaNs
	}
	return 0
}

func (x *Launch) GetDeviceStartDelayNs() int64 {
	if x != nil {
		return x.DeviceStartDelayNs
	}
	return 0
}

func (x *Launch) GetDeviceDurationNs() uint64 {
	if x != nil {
		return x.DeviceDurationNs
	}
	return 0
}

func (x *Launch) GetIdDelta() int64 {
	if x != nil {
		return x.IdDelta
	}
	return 0
}

func (x *Launch) GetSyclLocationId() uint32 {
	if x != nil {
		return x.SyclLocationId
	}
	return 0
}

func (x *Launch) GetSyclTaskId() uint64 {
	if x != nil {
		return x.SyclTaskId
	}
	return 0
}

func (x *Launch) GetCodeCopy() uint32 {
	if x != nil {
		return x.CodeCopy
	}
	return 0
}

func (x *Launch) GetRepeatOf() uint32 {
	if x != nil {
		return x.RepeatOf
	}
	return 0
}

// LaunchRun (revision 8) is n consecutive Launch records in compact form
// stored by column: Launch record i (0 <= i < n) of the run is the Launch
// with host_append_delta_ns = host_append_delta_ns[i] (present, so in
// compact form), id_delta = id_delta[i], device_start_delay_ns =
// device_start_delay_ns[i], device_duration_ns = device_duration_ns[i],
// repeat_of = repeat_of[i], execution_index = execution_index[i],
// sycl_task_id = sycl_task_id[i], and every other field 0; a reader
// resolves these n records in order, in the place of the LaunchRun in its
// frame, by the rules of "Two forms" at Launch. The attributes all come
// from repeat_of, which is never 0 here: a run's first record repeats a
// Launch record before the run in the same frame.
//
// n is the number of host_append_delta_ns values (at least 1). Every other
// list holds exactly n values, or none, which means n zeros (repeat_of:
// n ones). Anything else is a damaged record. The writer keeps a run short
// (at most 512 records) and ends it before any other record.
//
// A reader written for revision 7 or earlier would skip LaunchRun as a kind
// it does not know, and then resolve the Launch records after it in the
// frame against the wrong F, L and R: so files that may hold LaunchRun
// records carry framing version 2, which such readers refuse (Framing).
//
// Why: the fields of a compact Launch record that vary from launch to
// launch (the time deltas) take 3 or 4 bytes, their tags and the record's
// framing another 9 or 10, the same every time. Stored by column, a loop's
// launch takes about 3 bytes before compression instead of 13, fewer than
// half as many bytes to compress, and compresses better (the deltas of one
// kind sit together): BENCHMARKS.md, "Issue 14, session 9".
type LaunchRun struct {
	state              protoimpl.MessageState `protogen:"open.v1"`
	HostAppendDeltaNs  []int64                `protobuf:"zigzag64,1,rep,packed,name=host_append_delta_ns,json=hostAppendDeltaNs,proto3" json:"host_append_delta_ns,omitempty"`
	IdDelta            []int64                `protobuf:"zigzag64,2,rep,packed,name=id_delta,json=idDelta,proto3" json:"id_delta,omitempty"`
	DeviceStartDelayNs []int64                `protobuf:"zigzag64,3,rep,packed,name=device_start_delay_ns,json=deviceStartDelayNs,proto3" json:"device_start_delay_ns,omitempty"`
	DeviceDurationNs   []uint64               `protobuf:"varint,4,rep,packed,name=device_duration_ns,json=deviceDurationNs,proto3" json:"device_duration_ns,omitempty"`
	RepeatOf           []uint32               `protobuf:"varint,5,rep,packed,name=repeat_of,json=repeatOf,proto3" json:"repeat_of,omitempty"`
	ExecutionIndex     []uint32               `protobuf:"varint,6,rep,packed,name=execution_index,json=executionIndex,proto3" json:"execution_index,omitempty"`
	SyclTaskId         []uint64               `protobuf:"varint,7,rep,packed,name=sycl_task_id,json=syclTaskId,proto3" json:"sycl_task_id,omitempty"`
	unknownFields      protoimpl.UnknownFields
	sizeCache          protoimpl.SizeCache
}

func (x *LaunchRun) Reset() {
	*x = LaunchRun{}
	mi := &file_zestall_proto_msgTypes[12]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *LaunchRun) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*LaunchRun) ProtoMessage() {}

func (x *LaunchRun) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[12]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use LaunchRun.ProtoReflect.Descriptor instead.
func (*LaunchRun) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{12}
}

func (x *LaunchRun) GetHostAppendDeltaNs() []int64 {
	if x != nil {
		return x.HostAppendDeltaNs
	}
	return nil
}

func (x *LaunchRun) GetIdDelta() []int64 {
	if x != nil {
		return x.IdDelta
	}
	return nil
}

func (x *LaunchRun) GetDeviceStartDelayNs() []int64 {
	if x != nil {
		return x.DeviceStartDelayNs
	}
	return nil
}

func (x *LaunchRun) GetDeviceDurationNs() []uint64 {
	if x != nil {
		return x.DeviceDurationNs
	}
	return nil
}

func (x *LaunchRun) GetRepeatOf() []uint32 {
	if x != nil {
		return x.RepeatOf
	}
	return nil
}

func (x *LaunchRun) GetExecutionIndex() []uint32 {
	if x != nil {
		return x.ExecutionIndex
	}
	return nil
}

func (x *LaunchRun) GetSyclTaskId() []uint64 {
	if x != nil {
		return x.SyclTaskId
	}
	return nil
}

// StallRows holds EU stall samples of one kernel on one device, summed per
// instruction offset, for one attribution.
//
// Rows are stored by column. With n = len(offset_deltas) rows and
// c = column_count counter columns:
//
//	offset[0] = offset_deltas[0]
//	offset[i] = offset[i-1] + offset_deltas[i]        (offsets ascend)
//	counter of column j in row i = counters[j*n + i]
//
// so len(counters) = c * n. Column j is the j-th non-IP metric of the
// device's StallSampling.metrics. A reader rejects a record whose counters
// length is not c * n.
type StallRows struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Id of the Kernel whose instructions were sampled.
	KernelId uint64 `protobuf:"varint,1,opt,name=kernel_id,json=kernelId,proto3" json:"kernel_id,omitempty"`
	// Id of the Device the samples came from (the device of the streamer: a
	// root device in COMPOSITE mode).
	DeviceId uint32 `protobuf:"varint,2,opt,name=device_id,json=deviceId,proto3" json:"device_id,omitempty"`
	// Sub-device set the samples came from, for a COMPOSITE-mode root device
	// (the setIndex of the per-sub-device data header); absent otherwise.
	SubDeviceIndex *uint32 `protobuf:"varint,3,opt,name=sub_device_index,json=subDeviceIndex,proto3,oneof" json:"sub_device_index,omitempty"`
	// How the samples are attributed to launches.
	Attribution StallAttribution `protobuf:"varint,4,opt,name=attribution,proto3,enum=zestall.v1.StallAttribution" json:"attribution,omitempty"`
	// The launch: with STALL_ATTRIBUTION_LAUNCH, the one Launch that ran the
	// kernel in the read window. 0 otherwise.
	LaunchId uint64 `protobuf:"varint,5,opt,name=launch_id,json=launchId,proto3" json:"launch_id,omitempty"`
	// With STALL_ATTRIBUTION_SHARED: the ids of all launches of the kernel
	// that overlap the read window. The samples belong to these launches
	// together; how they split between them is unknown. Ascending.
	// (STALL_ATTRIBUTION_SHARED_RANGES gives them as ranges instead.)
	CandidateLaunchIds []uint64 `protobuf:"varint,6,rep,packed,name=candidate_launch_ids,json=candidateLaunchIds,proto3" json:"candidate_launch_ids,omitempty"`
	// Host ns of the read before and of the read that delivered these
	// samples: the read window. 0 for STALL_ATTRIBUTION_KERNEL rows that
	// aggregate several windows.
	WindowStartHostNs uint64 `protobuf:"varint,7,opt,name=window_start_host_ns,json=windowStartHostNs,proto3" json:"window_start_host_ns,omitempty"`
	WindowEndHostNs   uint64 `protobuf:"varint,8,opt,name=window_end_host_ns,json=windowEndHostNs,proto3" json:"window_end_host_ns,omitempty"`
	// Number of counter columns (c above).
	ColumnCount uint32 `protobuf:"varint,9,opt,name=column_count,json=columnCount,proto3" json:"column_count,omitempty"`
	// Instruction byte offsets into the kernel's instructions, delta-encoded
	// as described above.
	OffsetDeltas []uint64 `protobuf:"varint,10,rep,packed,name=offset_deltas,json=offsetDeltas,proto3" json:"offset_deltas,omitempty"`
	// Sample counts, column by column as described above.
	Counters []uint64 `protobuf:"varint,11,rep,packed,name=counters,proto3" json:"counters,omitempty"`
	// True when other processes were running kernels on the device while
	// these samples were taken (Header.other_processes_known). The stall
	// unit samples the whole tile, and the IP is an offset from each
	// process's own instruction base, so samples of another process's kernel
	// can land on this kernel's addresses and cannot be told apart: these
	// rows are possibly (partly) foreign. For KERNEL rows aggregated over
	// several windows: true when any of them was. Added in revision 5.
	PossiblyForeign bool `protobuf:"varint,12,opt,name=possibly_foreign,json=possiblyForeign,proto3" json:"possibly_foreign,omitempty"`
	// With STALL_ATTRIBUTION_SHARED_RANGES: the ids of all launches of the
	// kernel that overlap the read window, as ranges: pairs (first, last),
	// both ids included, ascending and disjoint, so that every id from first
	// to last is one of them. The samples belong to these launches together,
	// as with STALL_ATTRIBUTION_SHARED. Launches launched back to back at a
	// high rate overlap a read window (widened by the driver's delivery
	// latency) by the thousand, mostly with consecutive ids: one range, where
	// candidate_launch_ids would list each. Added in revision 11.
	CandidateLaunchIdRanges []uint64 `protobuf:"varint,13,rep,packed,name=candidate_launch_id_ranges,json=candidateLaunchIdRanges,proto3" json:"candidate_launch_id_ranges,omitempty"`
	unknownFields           protoimpl.UnknownFields
	sizeCache               protoimpl.SizeCache
}

func (x *StallRows) Reset() {
	*x = StallRows{}
	mi := &file_zestall_proto_msgTypes[13]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *StallRows) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*StallRows) ProtoMessage() {}

func (x *StallRows) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[13]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use StallRows.ProtoReflect.Descriptor instead.
func (*StallRows) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{13}
}

func (x *StallRows) GetKernelId() uint64 {
	if x != nil {
		return x.KernelId
	}
	return 0
}

func (x *StallRows) GetDeviceId() uint32 {
	if x != nil {
		return x.DeviceId
	}
	return 0
}

func (x *StallRows) GetSubDeviceIndex() uint32 {
	if x != nil && x.SubDeviceIndex != nil {
		return *x.SubDeviceIndex
	}
	return 0
}

func (x *StallRows) GetAttribution() StallAttribution {
	if x != nil {
		return x.Attribution
	}
	return StallAttribution_STALL_ATTRIBUTION_KERNEL
}

func (x *StallRows) GetLaunchId() uint64 {
	if x != nil {
		return x.LaunchId
	}
	return 0
}

func (x *StallRows) GetCandidateLaunchIds() []uint64 {
	if x != nil {
		return x.CandidateLaunchIds
	}
	return nil
}

func (x *StallRows) GetWindowStartHostNs() uint64 {
	if x != nil {
		return x.WindowStartHostNs
	}
	return 0
}

func (x *StallRows) GetWindowEndHostNs() uint64 {
	if x != nil {
		return x.WindowEndHostNs
	}
	return 0
}

func (x *StallRows) GetColumnCount() uint32 {
	if x != nil {
		return x.ColumnCount
	}
	return 0
}

func (x *StallRows) GetOffsetDeltas() []uint64 {
	if x != nil {
		return x.OffsetDeltas
	}
	return nil
}

func (x *StallRows) GetCounters() []uint64 {
	if x != nil {
		return x.Counters
	}
	return nil
}

func (x *StallRows) GetPossiblyForeign() bool {
	if x != nil {
		return x.PossiblyForeign
	}
	return false
}

func (x *StallRows) GetCandidateLaunchIdRanges() []uint64 {
	if x != nil {
		return x.CandidateLaunchIdRanges
	}
	return nil
}

// Unattributed holds EU stall samples whose address lies in no known
// kernel's instructions during the read window. They are kept, not dropped,
// so every sample is accounted for. Columns as in StallRows:
//
//	address[0] = address_deltas[0]
//	address[i] = address[i-1] + address_deltas[i]     (addresses ascend)
//	counter of column j in row i = counters[j*n + i]
type Unattributed struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Id of the Device the samples came from.
	DeviceId uint32 `protobuf:"varint,1,opt,name=device_id,json=deviceId,proto3" json:"device_id,omitempty"`
	// Sub-device set, as in StallRows.
	SubDeviceIndex *uint32 `protobuf:"varint,2,opt,name=sub_device_index,json=subDeviceIndex,proto3,oneof" json:"sub_device_index,omitempty"`
	// Host ns of the read window, as in StallRows.
	WindowStartHostNs uint64 `protobuf:"varint,3,opt,name=window_start_host_ns,json=windowStartHostNs,proto3" json:"window_start_host_ns,omitempty"`
	WindowEndHostNs   uint64 `protobuf:"varint,4,opt,name=window_end_host_ns,json=windowEndHostNs,proto3" json:"window_end_host_ns,omitempty"`
	// Number of counter columns.
	ColumnCount uint32 `protobuf:"varint,5,opt,name=column_count,json=columnCount,proto3" json:"column_count,omitempty"`
	// Sampled instruction byte addresses as the hardware reports them:
	// IP << 3, the low 32 bits of the GPU virtual address (the low 64 bits on
	// platforms with a 61-bit IP field), delta-encoded.
	AddressDeltas []uint64 `protobuf:"varint,6,rep,packed,name=address_deltas,json=addressDeltas,proto3" json:"address_deltas,omitempty"`
	// Sample counts, column by column.
	Counters []uint64 `protobuf:"varint,7,rep,packed,name=counters,proto3" json:"counters,omitempty"`
	// What most likely ran at these addresses (Header.other_processes_known).
	// Added in revision 5.
	Cause UnattributedCause `protobuf:"varint,8,opt,name=cause,proto3,enum=zestall.v1.UnattributedCause" json:"cause,omitempty"`
	// With UNATTRIBUTED_CAUSE_OTHER_PROCESS: the process ids of the other
	// processes that were running kernels on the device, ascending.
	OtherPids     []uint32 `protobuf:"varint,9,rep,packed,name=other_pids,json=otherPids,proto3" json:"other_pids,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Unattributed) Reset() {
	*x = Unattributed{}
	mi := &file_zestall_proto_msgTypes[14]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Unattributed) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Unattributed) ProtoMessage() {}

func (x *Unattributed) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[14]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Unattributed.ProtoReflect.Descriptor instead.
func (*Unattributed) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{14}
}

func (x *Unattributed) GetDeviceId() uint32 {
	if x != nil {
		return x.DeviceId
	}
	return 0
}

func (x *Unattributed) GetSubDeviceIndex() uint32 {
	if x != nil && x.SubDeviceIndex != nil {
		return *x.SubDeviceIndex
	}
	return 0
}

func (x *Unattributed) GetWindowStartHostNs() uint64 {
	if x != nil {
		return x.WindowStartHostNs
	}
	return 0
}

func (x *Unattributed) GetWindowEndHostNs() uint64 {
	if x != nil {
		return x.WindowEndHostNs
	}
	return 0
}

func (x *Unattributed) GetColumnCount() uint32 {
	if x != nil {
		return x.ColumnCount
	}
	return 0
}

func (x *Unattributed) GetAddressDeltas() []uint64 {
	if x != nil {
		return x.AddressDeltas
	}
	return nil
}

func (x *Unattributed) GetCounters() []uint64 {
	if x != nil {
		return x.Counters
	}
	return nil
}

func (x *Unattributed) GetCause() UnattributedCause {
	if x != nil {
		return x.Cause
	}
	return UnattributedCause_UNATTRIBUTED_CAUSE_UNKNOWN
}

func (x *Unattributed) GetOtherPids() []uint32 {
	if x != nil {
		return x.OtherPids
	}
	return nil
}

// Window marks a change in collection: samples and launches are recorded
// only between a start and the following stop.
type Window struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Whether collection starts or stops here.
	Edge WindowEdge `protobuf:"varint,1,opt,name=edge,proto3,enum=zestall.v1.WindowEdge" json:"edge,omitempty"`
	// Host ns of the change.
	HostNs uint64 `protobuf:"varint,2,opt,name=host_ns,json=hostNs,proto3" json:"host_ns,omitempty"`
	// What caused it.
	Cause WindowCause `protobuf:"varint,3,opt,name=cause,proto3,enum=zestall.v1.WindowCause" json:"cause,omitempty"`
	// Device the change applies to; 0 for all devices.
	DeviceId uint32 `protobuf:"varint,4,opt,name=device_id,json=deviceId,proto3" json:"device_id,omitempty"`
	// Free-text detail, e.g. the Level-Zero result of a failed read.
	Detail        string `protobuf:"bytes,5,opt,name=detail,proto3" json:"detail,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Window) Reset() {
	*x = Window{}
	mi := &file_zestall_proto_msgTypes[15]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Window) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Window) ProtoMessage() {}

func (x *Window) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[15]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Window.ProtoReflect.Descriptor instead.
func (*Window) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{15}
}

func (x *Window) GetEdge() WindowEdge {
	if x != nil {
		return x.Edge
	}
	return WindowEdge_WINDOW_EDGE_UNSPECIFIED
}

func (x *Window) GetHostNs() uint64 {
	if x != nil {
		return x.HostNs
	}
	return 0
}

func (x *Window) GetCause() WindowCause {
	if x != nil {
		return x.Cause
	}
	return WindowCause_WINDOW_CAUSE_UNSPECIFIED
}

func (x *Window) GetDeviceId() uint32 {
	if x != nil {
		return x.DeviceId
	}
	return 0
}

func (x *Window) GetDetail() string {
	if x != nil {
		return x.Detail
	}
	return ""
}

// Counters holds running totals since the start of the run. The last
// Counters record of a file is the most recent.
type Counters struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// True only in the record written at a clean exit (the trailer).
	Final bool `protobuf:"varint,1,opt,name=final,proto3" json:"final,omitempty"`
	// Host ns at which the totals were taken.
	HostNs uint64 `protobuf:"varint,2,opt,name=host_ns,json=hostNs,proto3" json:"host_ns,omitempty"`
	// Kernel launches seen (each execution of a regular list counts).
	LaunchesSeen uint64 `protobuf:"varint,3,opt,name=launches_seen,json=launchesSeen,proto3" json:"launches_seen,omitempty"`
	// Launch records written with device times.
	LaunchesTimed uint64 `protobuf:"varint,4,opt,name=launches_timed,json=launchesTimed,proto3" json:"launches_timed,omitempty"`
	// Launches without device times, by reason.
	LaunchesWithoutTimestamp []*ReasonCount `protobuf:"bytes,5,rep,name=launches_without_timestamp,json=launchesWithoutTimestamp,proto3" json:"launches_without_timestamp,omitempty"`
	// Raw 64-byte EU stall records read from streamers.
	StallRecordsRead uint64 `protobuf:"varint,6,opt,name=stall_records_read,json=stallRecordsRead,proto3" json:"stall_records_read,omitempty"`
	// Rows calculated from the stall records (one per instruction address
	// and read window, its counters summed) that were given to a kernel.
	// Named stall_samples_attributed before revision 4; it always counted
	// rows (same number, same meaning on the wire). A row's samples are the
	// sum of its reason counters (StallRows).
	StallRowsAttributed uint64 `protobuf:"varint,7,opt,name=stall_rows_attributed,json=stallRowsAttributed,proto3" json:"stall_rows_attributed,omitempty"`
	// Rows kept in Unattributed records (before revision 4:
	// stall_samples_unattributed).
	StallRowsUnattributed uint64 `protobuf:"varint,8,opt,name=stall_rows_unattributed,json=stallRowsUnattributed,proto3" json:"stall_rows_unattributed,omitempty"`
	// zetMetricStreamerReadData calls that returned
	// ZE_RESULT_WARNING_DROPPED_DATA: the hardware buffer overflowed and an
	// unknown number of samples was lost.
	StallDropWarnings uint64 `protobuf:"varint,9,opt,name=stall_drop_warnings,json=stallDropWarnings,proto3" json:"stall_drop_warnings,omitempty"`
	// Raw records that carried the overflow drop flag (PVC on i915-prelim).
	StallDropFlagRecords uint64 `protobuf:"varint,10,opt,name=stall_drop_flag_records,json=stallDropFlagRecords,proto3" json:"stall_drop_flag_records,omitempty"`
	// Records of all kinds written to the file before this one; a LaunchRun
	// counts as the Launch records it stands for (revision 8), so this is
	// what a reader that expands runs reads.
	RecordsWritten uint64 `protobuf:"varint,11,opt,name=records_written,json=recordsWritten,proto3" json:"records_written,omitempty"`
	// Bytes written to the file before the frame holding this record, prefix
	// included.
	BytesWritten uint64 `protobuf:"varint,12,opt,name=bytes_written,json=bytesWritten,proto3" json:"bytes_written,omitempty"`
	// Anything else lost, by what: e.g. "launch queue full", "write error".
	Lost []*Loss `protobuf:"bytes,13,rep,name=lost,proto3" json:"lost,omitempty"`
	// Raw EU stall records read while collection was stopped and discarded
	// on purpose (not a loss: they fall outside every collection window).
	// Added in revision 3, like launches_while_stopped.
	StallRecordsDiscardedStopped uint64 `protobuf:"varint,14,opt,name=stall_records_discarded_stopped,json=stallRecordsDiscardedStopped,proto3" json:"stall_records_discarded_stopped,omitempty"`
	// Kernel launches appended while collection was stopped. Counted only
	// while a launch-count window (ZESTALL_LAUNCHES) is set: otherwise a
	// stopped launch costs no counting at all and this stays 0.
	LaunchesWhileStopped uint64 `protobuf:"varint,15,opt,name=launches_while_stopped,json=launchesWhileStopped,proto3" json:"launches_while_stopped,omitempty"`
	// Attributed rows taken while other processes ran kernels on the same
	// device (StallRows.possibly_foreign): some of their samples may be
	// another process's. Added in revision 5.
	StallRowsPossiblyForeign uint64 `protobuf:"varint,20,opt,name=stall_rows_possibly_foreign,json=stallRowsPossiblyForeign,proto3" json:"stall_rows_possibly_foreign,omitempty"`
	// Unattributed rows with UNATTRIBUTED_CAUSE_OTHER_PROCESS (the rest of
	// stall_rows_unattributed is driver-internal or of unknown cause, see
	// Unattributed.cause). Added in revision 5.
	StallRowsUnattributedOtherProcess uint64 `protobuf:"varint,21,opt,name=stall_rows_unattributed_other_process,json=stallRowsUnattributedOtherProcess,proto3" json:"stall_rows_unattributed_other_process,omitempty"`
	// SYCL tasks that ended (SyclSpan records of kind TASK made). Added in
	// revision 5, like sycl_records_lost.
	SyclTasks uint64 `protobuf:"varint,18,opt,name=sycl_tasks,json=syclTasks,proto3" json:"sycl_tasks,omitempty"`
	// SYCL records lost: the XPTI ring was full, spans nested deeper than
	// 16 on one thread, or more than 16384 source locations.
	SyclRecordsLost uint64 `protobuf:"varint,19,opt,name=sycl_records_lost,json=syclRecordsLost,proto3" json:"sycl_records_lost,omitempty"`
	// LAUNCH_SEPARATION_COPIES (added in revision 5): launches whose kernel
	// was substituted by a copy's.
	LaunchesOnCopies uint64 `protobuf:"varint,16,opt,name=launches_on_copies,json=launchesOnCopies,proto3" json:"launches_on_copies,omitempty"`
	// Of all launches of copied modules, those that found every code of
	// their kernel (the original and the copies) still busy: a code's last
	// launch had not ended ZESTALL_STALL_LATENCY plus two read intervals
	// before (as far as the launch path knew at the append), and the launch
	// reused the code claimed longest ago. Its samples may share read
	// windows with that code's previous launch, which read windows then
	// decide (SHARED rows possible, never wrong ones). The automatic ring
	// grows on these; a ring too small for the launch rate shows here.
	CodeCopyEarlyReuses uint64 `protobuf:"varint,17,opt,name=code_copy_early_reuses,json=codeCopyEarlyReuses,proto3" json:"code_copy_early_reuses,omitempty"`
	// LAUNCH_SEPARATION_COPIES (revision 6): module copies made so far,
	// at module create and by the automatic ring's growth, in all modules.
	CodeCopiesMade uint64 `protobuf:"varint,28,opt,name=code_copies_made,json=codeCopiesMade,proto3" json:"code_copies_made,omitempty"`
	// Device memory those copies took, bytes (the sum of their ISA
	// sizes, as Module.copy_isa_bytes).
	CodeCopyIsaBytes uint64 `protobuf:"varint,29,opt,name=code_copy_isa_bytes,json=codeCopyIsaBytes,proto3" json:"code_copy_isa_bytes,omitempty"`
	// Revision 7. Launches that found their thread's launch ring full and
	// waited for zestall's harvester to make room (ZESTALL_RING_FULL=wait,
	// the default): none of them is lost, but the application ran no
	// faster than zestall could record. A launch whose wait gave up (the
	// harvester drained nothing for 100 ms) is counted here and in
	// lost ("kernel launches (per-thread ring full)") too.
	LaunchesWaited uint64 `protobuf:"varint,32,opt,name=launches_waited,json=launchesWaited,proto3" json:"launches_waited,omitempty"`
	// The time those launches waited, ns, summed over the application's
	// threads: what zestall added to the application's launch time beyond
	// its per-launch cost.
	LaunchWaitNs uint64 `protobuf:"varint,33,opt,name=launch_wait_ns,json=launchWaitNs,proto3" json:"launch_wait_ns,omitempty"`
	// Revision 9. Timed launches the stall attributors did not hold: more
	// launches could still receive EU stall samples (they ended less than
	// ZESTALL_STALL_LATENCY plus a read before the oldest read window still
	// to decide) than an attributor holds (65536 per device, or per
	// sub-device set in COMPOSITE mode). Each is counted once per
	// attributor that refused it. Their launch records are complete; only
	// attribution forgot their times, and keeps every read window that one
	// of them could overlap at kernel level (stall_rows_degraded). Nonzero
	// when the application launched faster than about 10^6 kernels per
	// second per device or the stall reader fell behind.
	StallLaunchesNotHeld uint64 `protobuf:"varint,34,opt,name=stall_launches_not_held,json=stallLaunchesNotHeld,proto3" json:"stall_launches_not_held,omitempty"`
	// Revision 9. Attributed rows given STALL_ATTRIBUTION_KERNEL because a
	// launch not held (stall_launches_not_held) could overlap their read
	// window: without the cap they could have been LAUNCH or SHARED rows.
	// Their samples are all there, summed per kernel and offset; part of
	// stall_rows_attributed.
	StallRowsDegraded uint64 `protobuf:"varint,35,opt,name=stall_rows_degraded,json=stallRowsDegraded,proto3" json:"stall_rows_degraded,omitempty"`
	// Revision 10. Timed launches of immediate lists, by how their device
	// times were read: copied into host memory by the device in batches
	// (ZESTALL_TIMESTAMP_READS=device, the default), or their event queried
	// on the host one by one (=host, or where no copy could be made: the
	// device has no compute queue for zestall, a copy failed, or its
	// reading was not the launch's). On devices whose event memory is device
	// memory (Data Center GPU Max, Xe2) each host query is a read across
	// PCIe. Launches of regular lists are in neither.
	LaunchesTimedByCopy      uint64 `protobuf:"varint,36,opt,name=launches_timed_by_copy,json=launchesTimedByCopy,proto3" json:"launches_timed_by_copy,omitempty"`
	LaunchesTimedByHostQuery uint64 `protobuf:"varint,37,opt,name=launches_timed_by_host_query,json=launchesTimedByHostQuery,proto3" json:"launches_timed_by_host_query,omitempty"`
	unknownFields            protoimpl.UnknownFields
	sizeCache                protoimpl.SizeCache
}

func (x *Counters) Reset() {
	*x = Counters{}
	mi := &file_zestall_proto_msgTypes[16]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Counters) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Counters) ProtoMessage() {}

func (x *Counters) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[16]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Counters.ProtoReflect.Descriptor instead.
func (*Counters) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{16}
}

func (x *Counters) GetFinal() bool {
	if x != nil {
		return x.Final
	}
	return false
}

func (x *Counters) GetHostNs() uint64 {
	if x != nil {
		return x.HostNs
	}
	return 0
}

func (x *Counters) GetLaunchesSeen() uint64 {
	if x != nil {
		return x.LaunchesSeen
	}
	return 0
}

func (x *Counters) GetLaunchesTimed() uint64 {
	if x != nil {
		return x.LaunchesTimed
	}
	return 0
}

func (x *Counters) GetLaunchesWithoutTimestamp() []*ReasonCount {
	if x != nil {
		return x.LaunchesWithoutTimestamp
	}
	return nil
}

func (x *Counters) GetStallRecordsRead() uint64 {
	if x != nil {
		return x.StallRecordsRead
	}
	return 0
}

func (x *Counters) GetStallRowsAttributed() uint64 {
	if x != nil {
		return x.StallRowsAttributed
	}
	return 0
}

func (x *Counters) GetStallRowsUnattributed() uint64 {
	if x != nil {
		return x.StallRowsUnattributed
	}
	return 0
}

func (x *Counters) GetStallDropWarnings() uint64 {
	if x != nil {
		return x.StallDropWarnings
	}
	return 0
}

func (x *Counters) GetStallDropFlagRecords() uint64 {
	if x != nil {
		return x.StallDropFlagRecords
	}
	return 0
}

func (x *Counters) GetRecordsWritten() uint64 {
	if x != nil {
		return x.RecordsWritten
	}
	return 0
}

func (x *Counters) GetBytesWritten() uint64 {
	if x != nil {
		return x.BytesWritten
	}
	return 0
}

func (x *Counters) GetLost() []*Loss {
	if x != nil {
		return x.Lost
	}
	return nil
}

func (x *Counters) GetStallRecordsDiscardedStopped() uint64 {
	if x != nil {
		return x.StallRecordsDiscardedStopped
	}
	return 0
}

func (x *Counters) GetLaunchesWhileStopped() uint64 {
	if x != nil {
		return x.LaunchesWhileStopped
	}
	return 0
}

func (x *Counters) GetStallRowsPossiblyForeign() uint64 {
	if x != nil {
		return x.StallRowsPossiblyForeign
	}
	return 0
}

func (x *Counters) GetStallRowsUnattributedOtherProcess() uint64 {
	if x != nil {
		return x.StallRowsUnattributedOtherProcess
	}
	return 0
}

func (x *Counters) GetSyclTasks() uint64 {
	if x != nil {
		return x.SyclTasks
	}
	return 0
}

func (x *Counters) GetSyclRecordsLost() uint64 {
	if x != nil {
		return x.SyclRecordsLost
	}
	return 0
}

func (x *Counters) GetLaunchesOnCopies() uint64 {
	if x != nil {
		return x.LaunchesOnCopies
	}
	return 0
}

func (x *Counters) GetCodeCopyEarlyReuses() uint64 {
	if x != nil {
		return x.CodeCopyEarlyReuses
	}
	return 0
}

func (x *Counters) GetCodeCopiesMade() uint64 {
	if x != nil {
		return x.CodeCopiesMade
	}
	return 0
}

func (x *Counters) GetCodeCopyIsaBytes() uint64 {
	if x != nil {
		return x.CodeCopyIsaBytes
	}
	return 0
}

func (x *Counters) GetLaunchesWaited() uint64 {
	if x != nil {
		return x.LaunchesWaited
	}
	return 0
}

func (x *Counters) GetLaunchWaitNs() uint64 {
	if x != nil {
		return x.LaunchWaitNs
	}
	return 0
}

func (x *Counters) GetStallLaunchesNotHeld() uint64 {
	if x != nil {
		return x.StallLaunchesNotHeld
	}
	return 0
}

func (x *Counters) GetStallRowsDegraded() uint64 {
	if x != nil {
		return x.StallRowsDegraded
	}
	return 0
}

func (x *Counters) GetLaunchesTimedByCopy() uint64 {
	if x != nil {
		return x.LaunchesTimedByCopy
	}
	return 0
}

func (x *Counters) GetLaunchesTimedByHostQuery() uint64 {
	if x != nil {
		return x.LaunchesTimedByHostQuery
	}
	return 0
}

// SyclLocation is one source location of a SYCL submission (a call site),
// written once, before the first record that names it.
type SyclLocation struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Location id (non-zero, unique in the file).
	Id uint32 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	// The SYCL kernel name, demangled ("kernel_name" metadata), e.g.
	// "main::VectorAdd"; "" when the runtime gave none (e.g. a barrier).
	KernelName string `protobuf:"bytes,2,opt,name=kernel_name,json=kernelName,proto3" json:"kernel_name,omitempty"`
	// The kernel name as the runtime gave it, when demangling changed it;
	// "" otherwise.
	KernelNameRaw string `protobuf:"bytes,3,opt,name=kernel_name_raw,json=kernelNameRaw,proto3" json:"kernel_name_raw,omitempty"`
	// The payload's name: the function that submitted (or the kernel name,
	// as the runtime chose).
	FunctionName string `protobuf:"bytes,4,opt,name=function_name,json=functionName,proto3" json:"function_name,omitempty"`
	// Source file of the submission; "" when unknown.
	File string `protobuf:"bytes,5,opt,name=file,proto3" json:"file,omitempty"`
	// Line and column in file; 0 when unknown.
	Line          uint32 `protobuf:"varint,6,opt,name=line,proto3" json:"line,omitempty"`
	Column        uint32 `protobuf:"varint,7,opt,name=column,proto3" json:"column,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *SyclLocation) Reset() {
	*x = SyclLocation{}
	mi := &file_zestall_proto_msgTypes[17]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *SyclLocation) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*SyclLocation) ProtoMessage() {}

func (x *SyclLocation) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[17]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use SyclLocation.ProtoReflect.Descriptor instead.
func (*SyclLocation) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{17}
}

func (x *SyclLocation) GetId() uint32 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *SyclLocation) GetKernelName() string {
	if x != nil {
		return x.KernelName
	}
	return ""
}

func (x *SyclLocation) GetKernelNameRaw() string {
	if x != nil {
		return x.KernelNameRaw
	}
	return ""
}

func (x *SyclLocation) GetFunctionName() string {
	if x != nil {
		return x.FunctionName
	}
	return ""
}

func (x *SyclLocation) GetFile() string {
	if x != nil {
		return x.File
	}
	return ""
}

func (x *SyclLocation) GetLine() uint32 {
	if x != nil {
		return x.Line
	}
	return 0
}

func (x *SyclLocation) GetColumn() uint32 {
	if x != nil {
		return x.Column
	}
	return 0
}

// SyclSpan is a span of host time on one thread: a SYCL task (the
// submission's task_begin to task_end), a barrier or a wait. Written when
// it ends.
type SyclSpan struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	Kind  SyclSpanKind           `protobuf:"varint,1,opt,name=kind,proto3,enum=zestall.v1.SyclSpanKind" json:"kind,omitempty"`
	// Task id (kind TASK; what Launch.sycl_task_id names), unique in the
	// file; 0 for other kinds.
	Id uint64 `protobuf:"varint,2,opt,name=id,proto3" json:"id,omitempty"`
	// OS thread id (Linux tid) of the thread the span ran on.
	ThreadId uint32 `protobuf:"varint,3,opt,name=thread_id,json=threadId,proto3" json:"thread_id,omitempty"`
	// Host ns at the begin and end notifications.
	BeginNs uint64 `protobuf:"varint,4,opt,name=begin_ns,json=beginNs,proto3" json:"begin_ns,omitempty"`
	EndNs   uint64 `protobuf:"varint,5,opt,name=end_ns,json=endNs,proto3" json:"end_ns,omitempty"`
	// Id of its SyclLocation; 0 when unknown.
	LocationId uint32 `protobuf:"varint,6,opt,name=location_id,json=locationId,proto3" json:"location_id,omitempty"`
	// The runtime's id of the graph node (the XPTI event's unique_id, as in
	// SyclGraph.node_id); 0 when unknown.
	NodeId uint64 `protobuf:"varint,7,opt,name=node_id,json=nodeId,proto3" json:"node_id,omitempty"`
	// The SYCL queue id the runtime stashed for the submission; absent when
	// it stashed none.
	QueueId *uint64 `protobuf:"varint,8,opt,name=queue_id,json=queueId,proto3,oneof" json:"queue_id,omitempty"`
	// The instance number of the notification (the n-th execution of that
	// trace point).
	Instance uint64 `protobuf:"varint,9,opt,name=instance,proto3" json:"instance,omitempty"`
	// Spans open below this one on the same thread when it began (0: an
	// outermost span).
	Depth         uint32 `protobuf:"varint,10,opt,name=depth,proto3" json:"depth,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *SyclSpan) Reset() {
	*x = SyclSpan{}
	mi := &file_zestall_proto_msgTypes[18]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *SyclSpan) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*SyclSpan) ProtoMessage() {}

func (x *SyclSpan) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[18]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use SyclSpan.ProtoReflect.Descriptor instead.
func (*SyclSpan) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{18}
}

func (x *SyclSpan) GetKind() SyclSpanKind {
	if x != nil {
		return x.Kind
	}
	return SyclSpanKind_SYCL_SPAN_KIND_UNSPECIFIED
}

func (x *SyclSpan) GetId() uint64 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *SyclSpan) GetThreadId() uint32 {
	if x != nil {
		return x.ThreadId
	}
	return 0
}

func (x *SyclSpan) GetBeginNs() uint64 {
	if x != nil {
		return x.BeginNs
	}
	return 0
}

func (x *SyclSpan) GetEndNs() uint64 {
	if x != nil {
		return x.EndNs
	}
	return 0
}

func (x *SyclSpan) GetLocationId() uint32 {
	if x != nil {
		return x.LocationId
	}
	return 0
}

func (x *SyclSpan) GetNodeId() uint64 {
	if x != nil {
		return x.NodeId
	}
	return 0
}

func (x *SyclSpan) GetQueueId() uint64 {
	if x != nil && x.QueueId != nil {
		return *x.QueueId
	}
	return 0
}

func (x *SyclSpan) GetInstance() uint64 {
	if x != nil {
		return x.Instance
	}
	return 0
}

func (x *SyclSpan) GetDepth() uint32 {
	if x != nil {
		return x.Depth
	}
	return 0
}

// SyclGraph is one element of the SYCL runtime's task graph, as the
// runtime published it: a node (a command group, at node_create) or an
// edge (a dependency, at edge_create).
type SyclGraph struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	Kind  SyclGraphKind          `protobuf:"varint,1,opt,name=kind,proto3,enum=zestall.v1.SyclGraphKind" json:"kind,omitempty"`
	// NODE: the node's id. EDGE: the node the dependency starts from (the
	// one that must finish first).
	NodeId uint64 `protobuf:"varint,2,opt,name=node_id,json=nodeId,proto3" json:"node_id,omitempty"`
	// EDGE: the node that depends on node_id.
	TargetNodeId uint64 `protobuf:"varint,3,opt,name=target_node_id,json=targetNodeId,proto3" json:"target_node_id,omitempty"`
	// NODE: id of its SyclLocation; 0 when unknown.
	LocationId uint32 `protobuf:"varint,4,opt,name=location_id,json=locationId,proto3" json:"location_id,omitempty"`
	// NODE: the stashed SYCL queue id; absent when none.
	QueueId *uint64 `protobuf:"varint,5,opt,name=queue_id,json=queueId,proto3,oneof" json:"queue_id,omitempty"`
	// NODE: the notification's instance number.
	Instance uint64 `protobuf:"varint,6,opt,name=instance,proto3" json:"instance,omitempty"`
	// Host ns of the notification and the OS thread that made it.
	HostNs        uint64 `protobuf:"varint,7,opt,name=host_ns,json=hostNs,proto3" json:"host_ns,omitempty"`
	ThreadId      uint32 `protobuf:"varint,8,opt,name=thread_id,json=threadId,proto3" json:"thread_id,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *SyclGraph) Reset() {
	*x = SyclGraph{}
	mi := &file_zestall_proto_msgTypes[19]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *SyclGraph) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*SyclGraph) ProtoMessage() {}

func (x *SyclGraph) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[19]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use SyclGraph.ProtoReflect.Descriptor instead.
func (*SyclGraph) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{19}
}

func (x *SyclGraph) GetKind() SyclGraphKind {
	if x != nil {
		return x.Kind
	}
	return SyclGraphKind_SYCL_GRAPH_KIND_UNSPECIFIED
}

func (x *SyclGraph) GetNodeId() uint64 {
	if x != nil {
		return x.NodeId
	}
	return 0
}

func (x *SyclGraph) GetTargetNodeId() uint64 {
	if x != nil {
		return x.TargetNodeId
	}
	return 0
}

func (x *SyclGraph) GetLocationId() uint32 {
	if x != nil {
		return x.LocationId
	}
	return 0
}

func (x *SyclGraph) GetQueueId() uint64 {
	if x != nil && x.QueueId != nil {
		return *x.QueueId
	}
	return 0
}

func (x *SyclGraph) GetInstance() uint64 {
	if x != nil {
		return x.Instance
	}
	return 0
}

func (x *SyclGraph) GetHostNs() uint64 {
	if x != nil {
		return x.HostNs
	}
	return 0
}

func (x *SyclGraph) GetThreadId() uint32 {
	if x != nil {
		return x.ThreadId
	}
	return 0
}

// MergeSource records where the following records came from, in a file made
// by merging several zestall files (`zestall merge`: the runs of several
// processes, MPI ranks or hosts). Added in revision 3.
//
// A merged file is: one Header describing the merged file (devices of every
// input, ids remapped; pid 0, argv empty), then for each input one
// MergeSource record followed by that input's records with ids remapped
// (its Header and Counters records are not repeated: they are kept in the
// MergeSource), then one Counters record with the inputs' totals summed.
// Every record between a MergeSource and the next MergeSource (or the
// final Counters) belongs to that input; a Window with device_id 0 applies
// to that input's devices only.
//
// An input that is itself a merged file keeps its MergeSource records,
// renumbered after this file's own inputs and with offsets that lead from
// the original inputs' ids to this file's; its records then belong to
// those sources.
//
// Ids: an id x != 0 of the input is x + the offset of its kind in the
// merged file; 0 stays 0. Offsets make every id unique in the merged file.
// Times are not changed: host ns of inputs recorded on different hosts (or
// different boots) are not comparable with each other; relate them through
// each input's Header.start_host_ns and start_unix_ns.
type MergeSource struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Position of the input among the merged files, from 1.
	Index uint32 `protobuf:"varint,1,opt,name=index,proto3" json:"index,omitempty"`
	// Name of the input file as given to the merge tool.
	Path string `protobuf:"bytes,2,opt,name=path,proto3" json:"path,omitempty"`
	// The input's Header, unchanged: its device ids are the input's own (add
	// device_id_offset for the merged ids).
	Header *Header `protobuf:"bytes,3,opt,name=header,proto3" json:"header,omitempty"`
	// Offsets added to the input's non-zero ids of each kind.
	DeviceIdOffset      uint32 `protobuf:"varint,4,opt,name=device_id_offset,json=deviceIdOffset,proto3" json:"device_id_offset,omitempty"`
	ModuleIdOffset      uint64 `protobuf:"varint,5,opt,name=module_id_offset,json=moduleIdOffset,proto3" json:"module_id_offset,omitempty"`
	KernelIdOffset      uint64 `protobuf:"varint,6,opt,name=kernel_id_offset,json=kernelIdOffset,proto3" json:"kernel_id_offset,omitempty"`
	LaunchIdOffset      uint64 `protobuf:"varint,7,opt,name=launch_id_offset,json=launchIdOffset,proto3" json:"launch_id_offset,omitempty"`
	QueueIdOffset       uint64 `protobuf:"varint,8,opt,name=queue_id_offset,json=queueIdOffset,proto3" json:"queue_id_offset,omitempty"`
	CommandListIdOffset uint64 `protobuf:"varint,9,opt,name=command_list_id_offset,json=commandListIdOffset,proto3" json:"command_list_id_offset,omitempty"`
	// The input's last Counters record (its running totals; final = false
	// when the input ended abnormally). Absent when the input had none.
	Counters *Counters `protobuf:"bytes,10,opt,name=counters,proto3" json:"counters,omitempty"`
	// Records read from the input, all kinds, its Header included.
	RecordsRead uint64 `protobuf:"varint,11,opt,name=records_read,json=recordsRead,proto3" json:"records_read,omitempty"`
	// Records of kinds the merge tool did not know, left out because their
	// ids could not be remapped.
	RecordsDropped uint64 `protobuf:"varint,12,opt,name=records_dropped,json=recordsDropped,proto3" json:"records_dropped,omitempty"`
	// Why the input could not be read to its end (a truncated or damaged
	// file): every complete record before the damage was merged. Empty when
	// the input was read completely.
	ReadError     string `protobuf:"bytes,13,opt,name=read_error,json=readError,proto3" json:"read_error,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *MergeSource) Reset() {
	*x = MergeSource{}
	mi := &file_zestall_proto_msgTypes[20]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *MergeSource) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*MergeSource) ProtoMessage() {}

func (x *MergeSource) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[20]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use MergeSource.ProtoReflect.Descriptor instead.
func (*MergeSource) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{20}
}

func (x *MergeSource) GetIndex() uint32 {
	if x != nil {
		return x.Index
	}
	return 0
}

func (x *MergeSource) GetPath() string {
	if x != nil {
		return x.Path
	}
	return ""
}

func (x *MergeSource) GetHeader() *Header {
	if x != nil {
		return x.Header
	}
	return nil
}

func (x *MergeSource) GetDeviceIdOffset() uint32 {
	if x != nil {
		return x.DeviceIdOffset
	}
	return 0
}

func (x *MergeSource) GetModuleIdOffset() uint64 {
	if x != nil {
		return x.ModuleIdOffset
	}
	return 0
}

func (x *MergeSource) GetKernelIdOffset() uint64 {
	if x != nil {
		return x.KernelIdOffset
	}
	return 0
}

func (x *MergeSource) GetLaunchIdOffset() uint64 {
	if x != nil {
		return x.LaunchIdOffset
	}
	return 0
}

func (x *MergeSource) GetQueueIdOffset() uint64 {
	if x != nil {
		return x.QueueIdOffset
	}
	return 0
}

func (x *MergeSource) GetCommandListIdOffset() uint64 {
	if x != nil {
		return x.CommandListIdOffset
	}
	return 0
}

func (x *MergeSource) GetCounters() *Counters {
	if x != nil {
		return x.Counters
	}
	return nil
}

func (x *MergeSource) GetRecordsRead() uint64 {
	if x != nil {
		return x.RecordsRead
	}
	return 0
}

func (x *MergeSource) GetRecordsDropped() uint64 {
	if x != nil {
		return x.RecordsDropped
	}
	return 0
}

func (x *MergeSource) GetReadError() string {
	if x != nil {
		return x.ReadError
	}
	return ""
}

// ReasonCount is a count of launches without timestamps for one reason.
type ReasonCount struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Reason        NoTimestampReason      `protobuf:"varint,1,opt,name=reason,proto3,enum=zestall.v1.NoTimestampReason" json:"reason,omitempty"`
	Count         uint64                 `protobuf:"varint,2,opt,name=count,proto3" json:"count,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ReasonCount) Reset() {
	*x = ReasonCount{}
	mi := &file_zestall_proto_msgTypes[21]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ReasonCount) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ReasonCount) ProtoMessage() {}

func (x *ReasonCount) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[21]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ReasonCount.ProtoReflect.Descriptor instead.
func (*ReasonCount) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{21}
}

func (x *ReasonCount) GetReason() NoTimestampReason {
	if x != nil {
		return x.Reason
	}
	return NoTimestampReason_NO_TIMESTAMP_REASON_UNSPECIFIED
}

func (x *ReasonCount) GetCount() uint64 {
	if x != nil {
		return x.Count
	}
	return 0
}

// Loss counts items zestall had to drop.
type Loss struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// What was lost and why, short and stable (tools group by it).
	What string `protobuf:"bytes,1,opt,name=what,proto3" json:"what,omitempty"`
	// How many items.
	Count         uint64 `protobuf:"varint,2,opt,name=count,proto3" json:"count,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Loss) Reset() {
	*x = Loss{}
	mi := &file_zestall_proto_msgTypes[22]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Loss) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Loss) ProtoMessage() {}

func (x *Loss) ProtoReflect() protoreflect.Message {
	mi := &file_zestall_proto_msgTypes[22]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Loss.ProtoReflect.Descriptor instead.
func (*Loss) Descriptor() ([]byte, []int) {
	return file_zestall_proto_rawDescGZIP(), []int{22}
}

func (x *Loss) GetWhat() string {
	if x != nil {
		return x.What
	}
	return ""
}

func (x *Loss) GetCount() uint64 {
	if x != nil {
		return x.Count
	}
	return 0
}

var File_zestall_proto protoreflect.FileDescriptor

const file_zestall_proto_rawDesc = "" +
	"\n" +
	"\rzestall.proto\x12\n" +
	"zestall.v1\"\xda\x06\n" +
	"\x06Record\x12,\n" +
	"\x06header\x18\x01 \x01(\v2\x12.zestall.v1.HeaderH\x00R\x06header\x12,\n" +
	"\x06module\x18\x02 \x01(\v2\x12.zestall.v1.ModuleH\x00R\x06module\x12H\n" +
	"\x10module_destroyed\x18\x03 \x01(\v2\x1b.zestall.v1.ModuleDestroyedH\x00R\x0fmoduleDestroyed\x12,\n" +
	"\x06kernel\x18\x04 \x01(\v2\x12.zestall.v1.KernelH\x00R\x06kernel\x12H\n" +
	"\x10kernel_destroyed\x18\x05 \x01(\v2\x1b.zestall.v1.KernelDestroyedH\x00R\x0fkernelDestroyed\x12,\n" +
	"\x06launch\x18\x06 \x01(\v2\x12.zestall.v1.LaunchH\x00R\x06launch\x126\n" +
	"\n" +
	"stall_rows\x18\a \x01(\v2\x15.zestall.v1.StallRowsH\x00R\tstallRows\x12>\n" +
	"\funattributed\x18\b \x01(\v2\x18.zestall.v1.UnattributedH\x00R\funattributed\x12,\n" +
	"\x06window\x18\t \x01(\v2\x12.zestall.v1.WindowH\x00R\x06window\x122\n" +
	"\bcounters\x18\n" +
	" \x01(\v2\x14.zestall.v1.CountersH\x00R\bcounters\x12<\n" +
	"\fmerge_source\x18\v \x01(\v2\x17.zestall.v1.MergeSourceH\x00R\vmergeSource\x12?\n" +
	"\rsycl_location\x18\r \x01(\v2\x18.zestall.v1.SyclLocationH\x00R\fsyclLocation\x123\n" +
	"\tsycl_span\x18\x0e \x01(\v2\x14.zestall.v1.SyclSpanH\x00R\bsyclSpan\x126\n" +
	"\n" +
	"sycl_graph\x18\x0f \x01(\v2\x15.zestall.v1.SyclGraphH\x00R\tsyclGraph\x126\n" +
	"\n" +
	"launch_run\x18\x10 \x01(\v2\x15.zestall.v1.LaunchRunH\x00R\tlaunchRunB\x06\n" +
	"\x04kind\"\xeb\x06\n" +
	"\x06Header\x12%\n" +
	"\x0eformat_version\x18\x01 \x01(\rR\rformatVersion\x12!\n" +
	"\ftool_version\x18\x02 \x01(\tR\vtoolVersion\x12\x10\n" +
	"\x03pid\x18\x03 \x01(\rR\x03pid\x12\x1e\n" +
	"\bmpi_rank\x18\x04 \x01(\rH\x00R\ampiRank\x88\x01\x01\x12\x1b\n" +
	"\thost_name\x18\x05 \x01(\tR\bhostName\x12\x12\n" +
	"\x04argv\x18\x06 \x03(\tR\x04argv\x12\"\n" +
	"\rstart_host_ns\x18\a \x01(\x04R\vstartHostNs\x12\"\n" +
	"\rstart_unix_ns\x18\b \x01(\x03R\vstartUnixNs\x12/\n" +
	"\x06config\x18\t \x03(\v2\x17.zestall.v1.ConfigEntryR\x06config\x12,\n" +
	"\adevices\x18\n" +
	" \x03(\v2\x12.zestall.v1.DeviceR\adevices\x12\"\n" +
	"\n" +
	"local_rank\x18\v \x01(\rH\x01R\tlocalRank\x88\x01\x01\x12\x1e\n" +
	"\bjob_size\x18\f \x01(\rH\x02R\ajobSize\x88\x01\x01\x12#\n" +
	"\rrank_variable\x18\r \x01(\tR\frankVariable\x12\x15\n" +
	"\x06job_id\x18\x0e \x01(\tR\x05jobId\x12(\n" +
	"\x10ze_affinity_mask\x18\x0f \x01(\tR\x0ezeAffinityMask\x122\n" +
	"\x15other_processes_known\x18\x14 \x01(\bR\x13otherProcessesKnown\x12)\n" +
	"\x04sycl\x18\x12 \x01(\v2\x15.zestall.v1.SyclSetupR\x04sycl\x12I\n" +
	"\x11launch_separation\x18\x10 \x01(\x0e2\x1c.zestall.v1.LaunchSeparationR\x10launchSeparation\x123\n" +
	"\x16code_copies_per_module\x18\x11 \x01(\rR\x13codeCopiesPerModule\x12&\n" +
	"\x0fcode_copies_max\x18\x18 \x01(\rR\rcodeCopiesMax\x123\n" +
	"\x16code_copy_memory_limit\x18\x19 \x01(\x04R\x13codeCopyMemoryLimitB\v\n" +
	"\t_mpi_rankB\r\n" +
	"\v_local_rankB\v\n" +
	"\t_job_size\"\xb2\x01\n" +
	"\tSyclSetup\x12/\n" +
	"\x05state\x18\x01 \x01(\x0e2\x19.zestall.v1.SyclXptiStateR\x05state\x12 \n" +
	"\vsubscribers\x18\x02 \x01(\tR\vsubscribers\x12\x1e\n" +
	"\n" +
	"dispatcher\x18\x03 \x01(\tR\n" +
	"dispatcher\x12\x18\n" +
	"\astreams\x18\x04 \x03(\tR\astreams\x12\x18\n" +
	"\aproblem\x18\x05 \x01(\tR\aproblem\"`\n" +
	"\vConfigEntry\x12\x10\n" +
	"\x03key\x18\x01 \x01(\tR\x03key\x12\x14\n" +
	"\x05value\x18\x02 \x01(\tR\x05value\x12)\n" +
	"\x10from_environment\x18\x03 \x01(\bR\x0ffromEnvironment\"\xac\x04\n" +
	"\x06Device\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\rR\x02id\x12\x1b\n" +
	"\tparent_id\x18\x02 \x01(\rR\bparentId\x12\x12\n" +
	"\x04name\x18\x03 \x01(\tR\x04name\x12\"\n" +
	"\rpci_device_id\x18\x04 \x01(\rR\vpciDeviceId\x12\x1a\n" +
	"\bplatform\x18\x05 \x01(\tR\bplatform\x12\x1d\n" +
	"\n" +
	"ip_version\x18\x06 \x01(\rR\tipVersion\x12-\n" +
	"\x10sub_device_index\x18\a \x01(\rH\x00R\x0esubDeviceIndex\x88\x01\x01\x12\"\n" +
	"\rxe_core_count\x18\b \x01(\rR\vxeCoreCount\x12,\n" +
	"\x12timer_frequency_hz\x18\t \x01(\x04R\x10timerFrequencyHz\x120\n" +
	"\x14timestamp_valid_bits\x18\n" +
	" \x01(\rR\x12timestampValidBits\x12=\n" +
	"\x1bkernel_timestamp_valid_bits\x18\v \x01(\rR\x18kernelTimestampValidBits\x12\x12\n" +
	"\x04uuid\x18\f \x01(\fR\x04uuid\x12@\n" +
	"\x0estall_sampling\x18\r \x01(\v2\x19.zestall.v1.StallSamplingR\rstallSampling\x12%\n" +
	"\x0eaffinity_entry\x18\x0e \x01(\tR\raffinityEntryB\x13\n" +
	"\x11_sub_device_index\"\xe7\x02\n" +
	"\rStallSampling\x12\x18\n" +
	"\aenabled\x18\x01 \x01(\bR\aenabled\x12;\n" +
	"\n" +
	"off_reason\x18\x02 \x01(\x0e2\x1c.zestall.v1.StallSamplingOffR\toffReason\x12\x16\n" +
	"\x06detail\x18\x03 \x01(\tR\x06detail\x12,\n" +
	"\ametrics\x18\x04 \x03(\v2\x12.zestall.v1.MetricR\ametrics\x12,\n" +
	"\x12sampling_period_ns\x18\x05 \x01(\x04R\x10samplingPeriodNs\x12.\n" +
	"\x13requested_period_ns\x18\x06 \x01(\x04R\x11requestedPeriodNs\x123\n" +
	"\x16notify_every_n_reports\x18\a \x01(\rR\x13notifyEveryNReports\x12&\n" +
	"\x0fsub_device_sets\x18\b \x01(\rR\rsubDeviceSets\"u\n" +
	"\x06Metric\x12\x12\n" +
	"\x04name\x18\x01 \x01(\tR\x04name\x12 \n" +
	"\vdescription\x18\x02 \x01(\tR\vdescription\x12\x14\n" +
	"\x05units\x18\x03 \x01(\tR\x05units\x12\x1f\n" +
	"\vmetric_type\x18\x04 \x01(\rR\n" +
	"metricType\"\xe9\x03\n" +
	"\x06Module\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\x04R\x02id\x12\x1b\n" +
	"\tdevice_id\x18\x02 \x01(\rR\bdeviceId\x12!\n" +
	"\fcontent_hash\x18\x03 \x01(\fR\vcontentHash\x12#\n" +
	"\rnative_binary\x18\x04 \x01(\fR\fnativeBinary\x12\x1d\n" +
	"\n" +
	"debug_info\x18\x05 \x01(\fR\tdebugInfo\x12*\n" +
	"\x11content_module_id\x18\x06 \x01(\x04R\x0fcontentModuleId\x12&\n" +
	"\x0fcreated_host_ns\x18\a \x01(\x04R\rcreatedHostNs\x12%\n" +
	"\x0emissing_detail\x18\b \x01(\tR\rmissingDetail\x12\x1f\n" +
	"\vcode_copies\x18\t \x01(\rR\n" +
	"codeCopies\x124\n" +
	"\x16copy_ineligible_reason\x18\n" +
	" \x01(\tR\x14copyIneligibleReason\x12$\n" +
	"\x0ecopy_isa_bytes\x18\v \x01(\x04R\fcopyIsaBytes\x12$\n" +
	"\x0ecopy_create_ns\x18\f \x01(\x04R\fcopyCreateNs\x12-\n" +
	"\x13copy_isa_bytes_each\x18\r \x01(\x04R\x10copyIsaBytesEach\":\n" +
	"\x0fModuleDestroyed\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\x04R\x02id\x12\x17\n" +
	"\ahost_ns\x18\x02 \x01(\x04R\x06hostNs\"\xdb\x01\n" +
	"\x06Kernel\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\x04R\x02id\x12\x1b\n" +
	"\tmodule_id\x18\x02 \x01(\x04R\bmoduleId\x12\x12\n" +
	"\x04name\x18\x03 \x01(\tR\x04name\x12%\n" +
	"\x0edemangled_name\x18\x04 \x01(\tR\rdemangledName\x12!\n" +
	"\fbase_address\x18\x05 \x01(\x04R\vbaseAddress\x12\x19\n" +
	"\bisa_size\x18\x06 \x01(\x04R\aisaSize\x12+\n" +
	"\x12valid_from_host_ns\x18\a \x01(\x04R\x0fvalidFromHostNs\"P\n" +
	"\x0fKernelDestroyed\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\x04R\x02id\x12-\n" +
	"\x13valid_until_host_ns\x18\x02 \x01(\x04R\x10validUntilHostNs\"\xe4\a\n" +
	"\x06Launch\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\x04R\x02id\x12\x1b\n" +
	"\tkernel_id\x18\x02 \x01(\x04R\bkernelId\x12\x1b\n" +
	"\tdevice_id\x18\x03 \x01(\rR\bdeviceId\x12\x19\n" +
	"\bqueue_id\x18\x04 \x01(\x04R\aqueueId\x12&\n" +
	"\x0fcommand_list_id\x18\x05 \x01(\x04R\rcommandListId\x12*\n" +
	"\x04kind\x18\x06 \x01(\x0e2\x16.zestall.v1.LaunchKindR\x04kind\x12\x14\n" +
	"\x05flags\x18\a \x01(\rR\x05flags\x12M\n" +
	"\x13no_timestamp_reason\x18\b \x01(\x0e2\x1d.zestall.v1.NoTimestampReasonR\x11noTimestampReason\x12\"\n" +
	"\rgroup_count_x\x18\t \x01(\rR\vgroupCountX\x12\"\n" +
	"\rgroup_count_y\x18\n" +
	" \x01(\rR\vgroupCountY\x12\"\n" +
	"\rgroup_count_z\x18\v \x01(\rR\vgroupCountZ\x12 \n" +
	"\fgroup_size_x\x18\f \x01(\rR\n" +
	"groupSizeX\x12 \n" +
	"\fgroup_size_y\x18\r \x01(\rR\n" +
	"groupSizeY\x12 \n" +
	"\fgroup_size_z\x18\x0e \x01(\rR\n" +
	"groupSizeZ\x12$\n" +
	"\x0ehost_append_ns\x18\x0f \x01(\x04R\fhostAppendNs\x12&\n" +
	"\x0fdevice_start_ns\x18\x10 \x01(\x04R\rdeviceStartNs\x12\"\n" +
	"\rdevice_end_ns\x18\x11 \x01(\x04R\vdeviceEndNs\x12'\n" +
	"\x0fexecution_index\x18\x12 \x01(\rR\x0eexecutionIndex\x124\n" +
	"\x14host_append_delta_ns\x18\x14 \x01(\x12H\x00R\x11hostAppendDeltaNs\x88\x01\x01\x121\n" +
	"\x15device_start_delay_ns\x18\x15 \x01(\x12R\x12deviceStartDelayNs\x12,\n" +
	"\x12device_duration_ns\x18\x16 \x01(\x04R\x10deviceDurationNs\x12\x19\n" +
	"\bid_delta\x18\x17 \x01(\x12R\aidDelta\x12(\n" +
	"\x10sycl_location_id\x18\x1a \x01(\rR\x0esyclLocationId\x12 \n" +
	"\fsycl_task_id\x18\x1b \x01(\x04R\n" +
	"syclTaskId\x12\x1b\n" +
	"\tcode_copy\x18\x18 \x01(\rR\bcodeCopy\x12\x1b\n" +
	"\trepeat_of\x18! \x01(\rR\brepeatOfB\x17\n" +
	"\x15_host_append_delta_ns\"\xa0\x02\n" +
	"\tLaunchRun\x12/\n" +
	"\x14host_append_delta_ns\x18\x01 \x03(\x12R\x11hostAppendDeltaNs\x12\x19\n" +
	"\bid_delta\x18\x02 \x03(\x12R\aidDelta\x121\n" +
	"\x15device_start_delay_ns\x18\x03 \x03(\x12R\x12deviceStartDelayNs\x12,\n" +
	"\x12device_duration_ns\x18\x04 \x03(\x04R\x10deviceDurationNs\x12\x1b\n" +
	"\trepeat_of\x18\x05 \x03(\rR\brepeatOf\x12'\n" +
	"\x0fexecution_index\x18\x06 \x03(\rR\x0eexecutionIndex\x12 \n" +
	"\fsycl_task_id\x18\a \x03(\x04R\n" +
	"syclTaskId\"\xc2\x04\n" +
	"\tStallRows\x12\x1b\n" +
	"\tkernel_id\x18\x01 \x01(\x04R\bkernelId\x12\x1b\n" +
	"\tdevice_id\x18\x02 \x01(\rR\bdeviceId\x12-\n" +
	"\x10sub_device_index\x18\x03 \x01(\rH\x00R\x0esubDeviceIndex\x88\x01\x01\x12>\n" +
	"\vattribution\x18\x04 \x01(\x0e2\x1c.zestall.v1.StallAttributionR\vattribution\x12\x1b\n" +
	"\tlaunch_id\x18\x05 \x01(\x04R\blaunchId\x120\n" +
	"\x14candidate_launch_ids\x18\x06 \x03(\x04R\x12candidateLaunchIds\x12/\n" +
	"\x14window_start_host_ns\x18\a \x01(\x04R\x11windowStartHostNs\x12+\n" +
	"\x12window_end_host_ns\x18\b \x01(\x04R\x0fwindowEndHostNs\x12!\n" +
	"\fcolumn_count\x18\t \x01(\rR\vcolumnCount\x12#\n" +
	"\roffset_deltas\x18\n" +
	" \x03(\x04R\foffsetDeltas\x12\x1a\n" +
	"\bcounters\x18\v \x03(\x04R\bcounters\x12)\n" +
	"\x10possibly_foreign\x18\f \x01(\bR\x0fpossiblyForeign\x12;\n" +
	"\x1acandidate_launch_id_ranges\x18\r \x03(\x04R\x17candidateLaunchIdRangesB\x13\n" +
	"\x11_sub_device_index\"\x87\x03\n" +
	"\fUnattributed\x12\x1b\n" +
	"\tdevice_id\x18\x01 \x01(\rR\bdeviceId\x12-\n" +
	"\x10sub_device_index\x18\x02 \x01(\rH\x00R\x0esubDeviceIndex\x88\x01\x01\x12/\n" +
	"\x14window_start_host_ns\x18\x03 \x01(\x04R\x11windowStartHostNs\x12+\n" +
	"\x12window_end_host_ns\x18\x04 \x01(\x04R\x0fwindowEndHostNs\x12!\n" +
	"\fcolumn_count\x18\x05 \x01(\rR\vcolumnCount\x12%\n" +
	"\x0eaddress_deltas\x18\x06 \x03(\x04R\raddressDeltas\x12\x1a\n" +
	"\bcounters\x18\a \x03(\x04R\bcounters\x123\n" +
	"\x05cause\x18\b \x01(\x0e2\x1d.zestall.v1.UnattributedCauseR\x05cause\x12\x1d\n" +
	"\n" +
	"other_pids\x18\t \x03(\rR\totherPidsB\x13\n" +
	"\x11_sub_device_index\"\xb1\x01\n" +
	"\x06Window\x12*\n" +
	"\x04edge\x18\x01 \x01(\x0e2\x16.zestall.v1.WindowEdgeR\x04edge\x12\x17\n" +
	"\ahost_ns\x18\x02 \x01(\x04R\x06hostNs\x12-\n" +
	"\x05cause\x18\x03 \x01(\x0e2\x17.zestall.v1.WindowCauseR\x05cause\x12\x1b\n" +
	"\tdevice_id\x18\x04 \x01(\rR\bdeviceId\x12\x16\n" +
	"\x06detail\x18\x05 \x01(\tR\x06detail\"\x91\v\n" +
	"\bCounters\x12\x14\n" +
	"\x05final\x18\x01 \x01(\bR\x05final\x12\x17\n" +
	"\ahost_ns\x18\x02 \x01(\x04R\x06hostNs\x12#\n" +
	"\rlaunches_seen\x18\x03 \x01(\x04R\flaunchesSeen\x12%\n" +
	"\x0elaunches_timed\x18\x04 \x01(\x04R\rlaunchesTimed\x12U\n" +
	"\x1alaunches_without_timestamp\x18\x05 \x03(\v2\x17.zestall.v1.ReasonCountR\x18launchesWithoutTimestamp\x12,\n" +
	"\x12stall_records_read\x18\x06 \x01(\x04R\x10stallRecordsRead\x122\n" +
	"\x15stall_rows_attributed\x18\a \x01(\x04R\x13stallRowsAttributed\x126\n" +
	"\x17stall_rows_unattributed\x18\b \x01(\x04R\x15stallRowsUnattributed\x12.\n" +
	"\x13stall_drop_warnings\x18\t \x01(\x04R\x11stallDropWarnings\x125\n" +
	"\x17stall_drop_flag_records\x18\n" +
	" \x01(\x04R\x14stallDropFlagRecords\x12'\n" +
	"\x0frecords_written\x18\v \x01(\x04R\x0erecordsWritten\x12#\n" +
	"\rbytes_written\x18\f \x01(\x04R\fbytesWritten\x12$\n" +
	"\x04lost\x18\r \x03(\v2\x10.zestall.v1.LossR\x04lost\x12E\n" +
	"\x1fstall_records_discarded_stopped\x18\x0e \x01(\x04R\x1cstallRecordsDiscardedStopped\x124\n" +
	"\x16launches_while_stopped\x18\x0f \x01(\x04R\x14launchesWhileStopped\x12=\n" +
	"\x1bstall_rows_possibly_foreign\x18\x14 \x01(\x04R\x18stallRowsPossiblyForeign\x12P\n" +
	"%stall_rows_unattributed_other_process\x18\x15 \x01(\x04R!stallRowsUnattributedOtherProcess\x12\x1d\n" +
	"\n" +
	"sycl_tasks\x18\x12 \x01(\x04R\tsyclTasks\x12*\n" +
	"\x11sycl_records_lost\x18\x13 \x01(\x04R\x0fsyclRecordsLost\x12,\n" +
	"\x12launches_on_copies\x18\x10 \x01(\x04R\x10launchesOnCopies\x123\n" +
	"\x16code_copy_early_reuses\x18\x11 \x01(\x04R\x13codeCopyEarlyReuses\x12(\n" +
	"\x10code_copies_made\x18\x1c \x01(\x04R\x0ecodeCopiesMade\x12-\n" +
	"\x13code_copy_isa_bytes\x18\x1d \x01(\x04R\x10codeCopyIsaBytes\x12'\n" +
	"\x0flaunches_waited\x18  \x01(\x04R\x0elaunchesWaited\x12$\n" +
	"\x0elaunch_wait_ns\x18! \x01(\x04R\flaunchWaitNs\x125\n" +
	"\x17stall_launches_not_held\x18\" \x01(\x04R\x14stallLaunchesNotHeld\x12.\n" +
	"\x13stall_rows_degraded\x18# \x01(\x04R\x11stallRowsDegraded\x123\n" +
	"\x16launches_timed_by_copy\x18$ \x01(\x04R\x13launchesTimedByCopy\x12>\n" +
	"\x1claunches_timed_by_host_query\x18% \x01(\x04R\x18launchesTimedByHostQuery\"\xcc\x01\n" +
	"\fSyclLocation\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\rR\x02id\x12\x1f\n" +
	"\vkernel_name\x18\x02 \x01(\tR\n" +
	"kernelName\x12&\n" +
	"\x0fkernel_name_raw\x18\x03 \x01(\tR\rkernelNameRaw\x12#\n" +
	"\rfunction_name\x18\x04 \x01(\tR\ffunctionName\x12\x12\n" +
	"\x04file\x18\x05 \x01(\tR\x04file\x12\x12\n" +
	"\x04line\x18\x06 \x01(\rR\x04line\x12\x16\n" +
	"\x06column\x18\a \x01(\rR\x06column\"\xb0\x02\n" +
	"\bSyclSpan\x12,\n" +
	"\x04kind\x18\x01 \x01(\x0e2\x18.zestall.v1.SyclSpanKindR\x04kind\x12\x0e\n" +
	"\x02id\x18\x02 \x01(\x04R\x02id\x12\x1b\n" +
	"\tthread_id\x18\x03 \x01(\rR\bthreadId\x12\x19\n" +
	"\bbegin_ns\x18\x04 \x01(\x04R\abeginNs\x12\x15\n" +
	"\x06end_ns\x18\x05 \x01(\x04R\x05endNs\x12\x1f\n" +
	"\vlocation_id\x18\x06 \x01(\rR\n" +
	"locationId\x12\x17\n" +
	"\anode_id\x18\a \x01(\x04R\x06nodeId\x12\x1e\n" +
	"\bqueue_id\x18\b \x01(\x04H\x00R\aqueueId\x88\x01\x01\x12\x1a\n" +
	"\binstance\x18\t \x01(\x04R\binstance\x12\x14\n" +
	"\x05depth\x18\n" +
	" \x01(\rR\x05depthB\v\n" +
	"\t_queue_id\"\x99\x02\n" +
	"\tSyclGraph\x12-\n" +
	"\x04kind\x18\x01 \x01(\x0e2\x19.zestall.v1.SyclGraphKindR\x04kind\x12\x17\n" +
	"\anode_id\x18\x02 \x01(\x04R\x06nodeId\x12$\n" +
	"\x0etarget_node_id\x18\x03 \x01(\x04R\ftargetNodeId\x12\x1f\n" +
	"\vlocation_id\x18\x04 \x01(\rR\n" +
	"locationId\x12\x1e\n" +
	"\bqueue_id\x18\x05 \x01(\x04H\x00R\aqueueId\x88\x01\x01\x12\x1a\n" +
	"\binstance\x18\x06 \x01(\x04R\binstance\x12\x17\n" +
	"\ahost_ns\x18\a \x01(\x04R\x06hostNs\x12\x1b\n" +
	"\tthread_id\x18\b \x01(\rR\bthreadIdB\v\n" +
	"\t_queue_id\"\x85\x04\n" +
	"\vMergeSource\x12\x14\n" +
	"\x05index\x18\x01 \x01(\rR\x05index\x12\x12\n" +
	"\x04path\x18\x02 \x01(\tR\x04path\x12*\n" +
	"\x06header\x18\x03 \x01(\v2\x12.zestall.v1.HeaderR\x06header\x12(\n" +
	"\x10device_id_offset\x18\x04 \x01(\rR\x0edeviceIdOffset\x12(\n" +
	"\x10module_id_offset\x18\x05 \x01(\x04R\x0emoduleIdOffset\x12(\n" +
	"\x10kernel_id_offset\x18\x06 \x01(\x04R\x0ekernelIdOffset\x12(\n" +
	"\x10launch_id_offset\x18\a \x01(\x04R\x0elaunchIdOffset\x12&\n" +
	"\x0fqueue_id_offset\x18\b \x01(\x04R\rqueueIdOffset\x123\n" +
	"\x16command_list_id_offset\x18\t \x01(\x04R\x13commandListIdOffset\x120\n" +
	"\bcounters\x18\n" +
	" \x01(\v2\x14.zestall.v1.CountersR\bcounters\x12!\n" +
	"\frecords_read\x18\v \x01(\x04R\vrecordsRead\x12'\n" +
	"\x0frecords_dropped\x18\f \x01(\x04R\x0erecordsDropped\x12\x1d\n" +
	"\n" +
	"read_error\x18\r \x01(\tR\treadError\"Z\n" +
	"\vReasonCount\x125\n" +
	"\x06reason\x18\x01 \x01(\x0e2\x1d.zestall.v1.NoTimestampReasonR\x06reason\x12\x14\n" +
	"\x05count\x18\x02 \x01(\x04R\x05count\"0\n" +
	"\x04Loss\x12\x12\n" +
	"\x04what\x18\x01 \x01(\tR\x04what\x12\x14\n" +
	"\x05count\x18\x02 \x01(\x04R\x05count*\xdf\x01\n" +
	"\rSyclXptiState\x12\x1b\n" +
	"\x17SYCL_XPTI_STATE_UNKNOWN\x10\x00\x12\x1b\n" +
	"\x17SYCL_XPTI_STATE_ENABLED\x10\x01\x12\x1c\n" +
	"\x18SYCL_XPTI_STATE_APPENDED\x10\x02\x12\x1a\n" +
	"\x16SYCL_XPTI_STATE_LISTED\x10\x03\x12\x1c\n" +
	"\x18SYCL_XPTI_STATE_OFF_USER\x10\x04\x12\x1b\n" +
	"\x17SYCL_XPTI_STATE_OFF_ENV\x10\x05\x12\x1f\n" +
	"\x1bSYCL_XPTI_STATE_SECOND_COPY\x10\x06*T\n" +
	"\x10LaunchSeparation\x12\"\n" +
	"\x1eLAUNCH_SEPARATION_TIME_WINDOWS\x10\x00\x12\x1c\n" +
	"\x18LAUNCH_SEPARATION_COPIES\x10\x01*\xe9\x01\n" +
	"\x10StallSamplingOff\x12\"\n" +
	"\x1eSTALL_SAMPLING_OFF_UNSPECIFIED\x10\x00\x12\x1f\n" +
	"\x1bSTALL_SAMPLING_OFF_DISABLED\x10\x01\x12*\n" +
	"&STALL_SAMPLING_OFF_METRICS_NOT_ENABLED\x10\x02\x12\x1f\n" +
	"\x1bSTALL_SAMPLING_OFF_NO_GROUP\x10\x03\x12\"\n" +
	"\x1eSTALL_SAMPLING_OFF_OPEN_FAILED\x10\x04\x12\x1f\n" +
	"\x1bSTALL_SAMPLING_OFF_VIA_ROOT\x10\x05*~\n" +
	"\n" +
	"LaunchKind\x12\x16\n" +
	"\x12LAUNCH_KIND_KERNEL\x10\x00\x12\x1b\n" +
	"\x17LAUNCH_KIND_COOPERATIVE\x10\x01\x12\x18\n" +
	"\x14LAUNCH_KIND_INDIRECT\x10\x02\x12!\n" +
	"\x1dLAUNCH_KIND_MULTIPLE_INDIRECT\x10\x03*\xce\x01\n" +
	"\n" +
	"LaunchFlag\x12\x14\n" +
	"\x10LAUNCH_FLAG_NONE\x10\x00\x12!\n" +
	"\x1dLAUNCH_FLAG_TIMESTAMP_SWAPPED\x10\x01\x12\x1c\n" +
	"\x18LAUNCH_FLAG_NO_TIMESTAMP\x10\x02\x12\x19\n" +
	"\x15LAUNCH_FLAG_APP_EVENT\x10\x04\x12\x17\n" +
	"\x13LAUNCH_FLAG_WRAPPED\x10\b\x12\x1a\n" +
	"\x16LAUNCH_FLAG_SERIALIZED\x10\x10\x12\x19\n" +
	"\x15LAUNCH_FLAG_IMMEDIATE\x10 *\x8c\x03\n" +
	"\x11NoTimestampReason\x12#\n" +
	"\x1fNO_TIMESTAMP_REASON_UNSPECIFIED\x10\x00\x12&\n" +
	"\"NO_TIMESTAMP_REASON_POOL_EXHAUSTED\x10\x01\x12#\n" +
	"\x1fNO_TIMESTAMP_REASON_EVENT_ERROR\x10\x02\x12%\n" +
	"!NO_TIMESTAMP_REASON_NOT_COMPLETED\x10\x03\x12\x1c\n" +
	"\x18NO_TIMESTAMP_REASON_EXIT\x10\x04\x12 \n" +
	"\x1cNO_TIMESTAMP_REASON_DISABLED\x10\x05\x12#\n" +
	"\x1fNO_TIMESTAMP_REASON_UNSUPPORTED\x10\x06\x12$\n" +
	" NO_TIMESTAMP_REASON_QUERY_FAILED\x10\a\x12#\n" +
	"\x1fNO_TIMESTAMP_REASON_OVERWRITTEN\x10\b\x12.\n" +
	"*NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED\x10\x10*\x91\x01\n" +
	"\x10StallAttribution\x12\x1c\n" +
	"\x18STALL_ATTRIBUTION_KERNEL\x10\x00\x12\x1c\n" +
	"\x18STALL_ATTRIBUTION_LAUNCH\x10\x01\x12\x1c\n" +
	"\x18STALL_ATTRIBUTION_SHARED\x10\x02\x12#\n" +
	"\x1fSTALL_ATTRIBUTION_SHARED_RANGES\x10\x03*\x81\x01\n" +
	"\x11UnattributedCause\x12\x1e\n" +
	"\x1aUNATTRIBUTED_CAUSE_UNKNOWN\x10\x00\x12&\n" +
	"\"UNATTRIBUTED_CAUSE_DRIVER_INTERNAL\x10\x01\x12$\n" +
	" UNATTRIBUTED_CAUSE_OTHER_PROCESS\x10\x02*V\n" +
	"\n" +
	"WindowEdge\x12\x1b\n" +
	"\x17WINDOW_EDGE_UNSPECIFIED\x10\x00\x12\x15\n" +
	"\x11WINDOW_EDGE_START\x10\x01\x12\x14\n" +
	"\x10WINDOW_EDGE_STOP\x10\x02*\xba\x02\n" +
	"\vWindowCause\x12\x1c\n" +
	"\x18WINDOW_CAUSE_UNSPECIFIED\x10\x00\x12\x15\n" +
	"\x11WINDOW_CAUSE_INIT\x10\x01\x12\x15\n" +
	"\x11WINDOW_CAUSE_EXIT\x10\x02\x12\x15\n" +
	"\x11WINDOW_CAUSE_USER\x10\x03\x12\x16\n" +
	"\x12WINDOW_CAUSE_ERROR\x10\x04\x12\x15\n" +
	"\x11WINDOW_CAUSE_FORK\x10\x05\x12\x14\n" +
	"\x10WINDOW_CAUSE_API\x10\x06\x12\x17\n" +
	"\x13WINDOW_CAUSE_SIGNAL\x10\a\x12\x16\n" +
	"\x12WINDOW_CAUSE_TIMER\x10\b\x12\x1d\n" +
	"\x19WINDOW_CAUSE_LAUNCH_COUNT\x10\t\x12\x1d\n" +
	"\x19WINDOW_CAUSE_START_PAUSED\x10\n" +
	"\x12\x14\n" +
	"\x10WINDOW_CAUSE_ITT\x10\v*|\n" +
	"\fSyclSpanKind\x12\x1e\n" +
	"\x1aSYCL_SPAN_KIND_UNSPECIFIED\x10\x00\x12\x17\n" +
	"\x13SYCL_SPAN_KIND_TASK\x10\x01\x12\x1a\n" +
	"\x16SYCL_SPAN_KIND_BARRIER\x10\x02\x12\x17\n" +
	"\x13SYCL_SPAN_KIND_WAIT\x10\x03*d\n" +
	"\rSyclGraphKind\x12\x1f\n" +
	"\x1bSYCL_GRAPH_KIND_UNSPECIFIED\x10\x00\x12\x18\n" +
	"\x14SYCL_GRAPH_KIND_NODE\x10\x01\x12\x18\n" +
	"\x14SYCL_GRAPH_KIND_EDGE\x10\x02B,Z*github.com/zestall/zestall/proto/zestallpbb\x06proto3"

var (
	file_zestall_proto_rawDescOnce sync.Once
	file_zestall_proto_rawDescData []byte
)

func file_zestall_proto_rawDescGZIP() []byte {
	file_zestall_proto_rawDescOnce.Do(func() {
		file_zestall_proto_rawDescData = protoimpl.X.CompressGZIP(unsafe.Slice(unsafe.StringData(file_zestall_proto_rawDesc), len(file_zestall_proto_rawDesc)))
	})
	return file_zestall_proto_rawDescData
}

var file_zestall_proto_enumTypes = make([]protoimpl.EnumInfo, 12)
var file_zestall_proto_msgTypes = make([]protoimpl.MessageInfo, 23)
var file_zestall_proto_goTypes = []any{
	(SyclXptiState)(0),      // 0: zestall.v1.SyclXptiState
	(LaunchSeparation)(0),   // 1: zestall.v1.LaunchSeparation
	(StallSamplingOff)(0),   // 2: zestall.v1.StallSamplingOff
	(LaunchKind)(0),         // 3: zestall.v1.LaunchKind
	(LaunchFlag)(0),         // 4: zestall.v1.LaunchFlag
	(NoTimestampReason)(0),  // 5: zestall.v1.NoTimestampReason
	(StallAttribution)(0),   // 6: zestall.v1.StallAttribution
	(UnattributedCause)(0),  // 7: zestall.v1.UnattributedCause
	(WindowEdge)(0),         // 8: zestall.v1.WindowEdge
	(WindowCause)(0),        // 9: zestall.v1.WindowCause
	(SyclSpanKind)(0),       // 10: zestall.v1.SyclSpanKind
	(SyclGraphKind)(0),      // 11: zestall.v1.SyclGraphKind
	(*Record)(nil),          // 12: zestall.v1.Record
	(*Header)(nil),          // 13: zestall.v1.Header
	(*SyclSetup)(nil),       // 14: zestall.v1.SyclSetup
	(*ConfigEntry)(nil),     // 15: zestall.v1.ConfigEntry
	(*Device)(nil),          // 16: zestall.v1.Device
	(*StallSampling)(nil),   // 17: zestall.v1.StallSampling
	(*Metric)(nil),          // 18: zestall.v1.Metric
	(*Module)(nil),          // 19: zestall.v1.Module
	(*ModuleDestroyed)(nil), // 20: zestall.v1.ModuleDestroyed
	(*Kernel)(nil),          // 21: zestall.v1.Kernel
	(*KernelDestroyed)(nil), // 22: zestall.v1.KernelDestroyed
	(*Launch)(nil),          // 23: zestall.v1.Launch
	(*LaunchRun)(nil),       // 24: zestall.v1.LaunchRun
	(*StallRows)(nil),       // 25: zestall.v1.StallRows
	(*Unattributed)(nil),    // 26: zestall.v1.Unattributed
	(*Window)(nil),          // 27: zestall.v1.Window
	(*Counters)(nil),        // 28: zestall.v1.Counters
	(*SyclLocation)(nil),    // 29: zestall.v1.SyclLocation
	(*SyclSpan)(nil),        // 30: zestall.v1.SyclSpan
	(*SyclGraph)(nil),       // 31: zestall.v1.SyclGraph
	(*MergeSource)(nil),     // 32: zestall.v1.MergeSource
	(*ReasonCount)(nil),     // 33: zestall.v1.ReasonCount
	(*Loss)(nil),            // 34: zestall.v1.Loss
}
var file_zestall_proto_depIdxs = []int32{
	13, // 0: zestall.v1.Record.header:type_name -> zestall.v1.Header
	19, // 1: zestall.v1.Record.module:type_name -> zestall.v1.Module
	20, // 2: zestall.v1.Record.module_destroyed:type_name -> zestall.v1.ModuleDestroyed
	21, // 3: zestall.v1.Record.kernel:type_name -> zestall.v1.Kernel
	22, // 4: zestall.v1.Record.kernel_destroyed:type_name -> zestall.v1.KernelDestroyed
	23, // 5: zestall.v1.Record.launch:type_name -> zestall.v1.Launch
	25, // 6: zestall.v1.Record.stall_rows:type_name -> zestall.v1.StallRows
	26, // 7: zestall.v1.Record.unattributed:type_name -> zestall.v1.Unattributed
	27, // 8: zestall.v1.Record.window:type_name -> zestall.v1.Window
	28, // 9: zestall.v1.Record.counters:type_name -> zestall.v1.Counters
	32, // 10: zestall.v1.Record.merge_source:type_name -> zestall.v1.MergeSource
	29, // 11: zestall.v1.Record.sycl_location:type_name -> zestall.v1.SyclLocation
	30, // 12: zestall.v1.Record.sycl_span:type_name -> zestall.v1.SyclSpan
	31, // 13: zestall.v1.Record.sycl_graph:type_name -> zestall.v1.SyclGraph
	24, // 14: zestall.v1.Record.launch_run:type_name -> zestall.v1.LaunchRun
	15, // 15: zestall.v1.Header.config:type_name -> zestall.v1.ConfigEntry
	16, // 16: zestall.v1.Header.devices:type_name -> zestall.v1.Device
	14, // 17: zestall.v1.Header.sycl:type_name -> zestall.v1.SyclSetup
	1,  // 18: zestall.v1.Header.launch_separation:type_name -> zestall.v1.LaunchSeparation
	0,  // 19: zestall.v1.SyclSetup.state:type_name -> zestall.v1.SyclXptiState
	17, // 20: zestall.v1.Device.stall_sampling:type_name -> zestall.v1.StallSampling
	2,  // 21: zestall.v1.StallSampling.off_reason:type_name -> zestall.v1.StallSamplingOff
	18, // 22: zestall.v1.StallSampling.metrics:type_name -> zestall.v1.Metric
	3,  // 23: zestall.v1.Launch.kind:type_name -> zestall.v1.LaunchKind
	5,  // 24: zestall.v1.Launch.no_timestamp_reason:type_name -> zestall.v1.NoTimestampReason
	6,  // 25: zestall.v1.StallRows.attribution:type_name -> zestall.v1.StallAttribution
	7,  // 26: zestall.v1.Unattributed.cause:type_name -> zestall.v1.UnattributedCause
	8,  // 27: zestall.v1.Window.edge:type_name -> zestall.v1.WindowEdge
	9,  // 28: zestall.v1.Window.cause:type_name -> zestall.v1.WindowCause
	33, // 29: zestall.v1.Counters.launches_without_timestamp:type_name -> zestall.v1.ReasonCount
	34, // 30: zestall.v1.Counters.lost:type_name -> zestall.v1.Loss
	10, // 31: zestall.v1.SyclSpan.kind:type_name -> zestall.v1.SyclSpanKind
	11, // 32: zestall.v1.SyclGraph.kind:type_name -> zestall.v1.SyclGraphKind
	13, // 33: zestall.v1.MergeSource.header:type_name -> zestall.v1.Header
	28, // 34: zestall.v1.MergeSource.counters:type_name -> zestall.v1.Counters
	5,  // 35: zestall.v1.ReasonCount.reason:type_name -> zestall.v1.NoTimestampReason
	36, // [36:36] is the sub-list for method output_type
	36, // [36:36] is the sub-list for method input_type
	36, // [36:36] is the sub-list for extension type_name
	36, // [36:36] is the sub-list for extension extendee
	0,  // [0:36] is the sub-list for field type_name
}

func init() { file_zestall_proto_init() }
func file_zestall_proto_init() {
	if File_zestall_proto != nil {
		return
	}
	file_zestall_proto_msgTypes[0].OneofWrappers = []any{
		(*Record_Header)(nil),
		(*Record_Module)(nil),
		(*Record_ModuleDestroyed)(nil),
		(*Record_Kernel)(nil),
		(*Record_KernelDestroyed)(nil),
		(*Record_Launch)(nil),
		(*Record_StallRows)(nil),
		(*Record_Unattributed)(nil),
		(*Record_Window)(nil),
		(*Record_Counters)(nil),
		(*Record_MergeSource)(nil),
		(*Record_SyclLocation)(nil),
		(*Record_SyclSpan)(nil),
		(*Record_SyclGraph)(nil),
		(*Record_LaunchRun)(nil),
	}
	file_zestall_proto_msgTypes[1].OneofWrappers = []any{}
	file_zestall_proto_msgTypes[4].OneofWrappers = []any{}
	file_zestall_proto_msgTypes[11].OneofWrappers = []any{}
	file_zestall_proto_msgTypes[13].OneofWrappers = []any{}
	file_zestall_proto_msgTypes[14].OneofWrappers = []any{}
	file_zestall_proto_msgTypes[18].OneofWrappers = []any{}
	file_zestall_proto_msgTypes[19].OneofWrappers = []any{}
	type x struct{}
	out := protoimpl.TypeBuilder{
		File: protoimpl.DescBuilder{
			GoPackagePath: reflect.TypeOf(x{}).PkgPath(),
			RawDescriptor: unsafe.Slice(unsafe.StringData(file_zestall_proto_rawDesc), len(file_zestall_proto_rawDesc)),
			NumEnums:      12,
			NumMessages:   23,
			NumExtensions: 0,
			NumServices:   0,
		},
		GoTypes:           file_zestall_proto_goTypes,
		DependencyIndexes: file_zestall_proto_depIdxs,
		EnumInfos:         file_zestall_proto_enumTypes,
		MessageInfos:      file_zestall_proto_msgTypes,
	}.Build()
	File_zestall_proto = out.File
	file_zestall_proto_goTypes = nil
	file_zestall_proto_depIdxs = nil
}
