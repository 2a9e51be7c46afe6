//go:build ignore

// Input of go tool cgo -godefs: the Go mirror of the launch-slot contract in cgo/abi.h. Edit the
// header and this file, then run go generate ./collector/timing; never edit
// abi_timing.go by hand (TestABIUpToDate checks it).

package timing

/*
#include "../../cgo/abi.h"
*/
import "C"

// SlotKind is the kind of a launch-path slot.
type SlotKind uint8

// Slot kinds (ZL_SLOT_*).
const (
	SlotLaunch  SlotKind = C.ZL_SLOT_LAUNCH   // a kernel appended to a command list
	SlotExec    SlotKind = C.ZL_SLOT_EXEC     // a regular command list executed on a queue
	SlotReset   SlotKind = C.ZL_SLOT_RESET    // zeCommandListReset
	SlotDestroy SlotKind = C.ZL_SLOT_DESTROY  // zeCommandListDestroy
	SlotAppTS   SlotKind = C.ZL_SLOT_APP_TS   // an application timestamp event, read on its thread
	SlotAppGone SlotKind = C.ZL_SLOT_APP_GONE // an application timestamp event is being destroyed
)

// Slot flags (ZL_FLAG_*).
const (
	SlotFlagOurs      = C.ZL_FLAG_OURS       // the event is zestall's, swapped in
	SlotFlagAppEvent  = C.ZL_FLAG_APP_EVENT  // the event is the application's timestamp event
	SlotFlagImmediate = C.ZL_FLAG_IMMEDIATE  // immediate command list
	SlotFlagNoEvent   = C.ZL_FLAG_NO_EVENT   // no timestamp event; Reason says why
	SlotFlagSerial    = C.ZL_FLAG_SERIALIZED // ran alone (ZESTALL_SERIALIZE=1)
	SlotFlagStopped   = C.ZL_FLAG_STOPPED    // an execution while collection is stopped
	SlotFlagFailed    = C.ZL_FLAG_FAILED     // SlotExec: the submission failed (only Seq counts)
)

// CopyStatus is what Source.CopyTimestamps made of a batch (ZL_COPY_*).
type CopyStatus uint32

// Copy statuses (ZL_COPY_*).
const (
	CopyStarted     CopyStatus = C.ZL_COPY_STARTED     // the copy runs: poll it
	CopyBusy        CopyStatus = C.ZL_COPY_BUSY        // every copy of the (context, device) is in flight: try later
	CopyFailed      CopyStatus = C.ZL_COPY_FAILED      // this batch could not be copied: read on the host
	CopyUnavailable CopyStatus = C.ZL_COPY_UNAVAILABLE // the device cannot copy: read on the host
)

// CopyMaxEvents is the most events one device-side copy takes.
const CopyMaxEvents = C.ZL_COPY_MAX_EVENTS

// EventRef names one of zestall's events and its context (zl_event_ref_t:
// package cgo passes slices of it to C).
type EventRef C.zl_event_ref_t
