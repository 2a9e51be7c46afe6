package sampling

import (
	"github.com/zestall/zestall/abi"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
	"github.com/zestall/zestall/ze"
)

// Off says why EU stall sampling is off on a device (cgo/abi.h ZS_*, the
// values of pb.StallSamplingOff).
type Off int

const (
	On            Off = abi.StallOn
	OffDisabled   Off = abi.StallOffDisabled   // ZESTALL_SAMPLING=0
	OffNoMetrics  Off = abi.StallOffNoMetrics  // the driver exposes no metric groups
	OffNoGroup    Off = abi.StallOffNoGroup    // no EuStallSampling group on the device
	OffOpenFailed Off = abi.StallOffOpenFailed // activation or zetMetricStreamerOpen failed
)

// Metric is one metric of the EuStallSampling group, as the driver
// reports it.
type Metric struct {
	Name, Description, Units string
	Type                     uint32 // zet_metric_type_t
}

// Stream is one streamer, open for the life of the process, on one root
// device.
type Stream struct {
	Handle        int
	Device        uint64 // device handle
	Off           Off
	Result        ze.Result // Level-Zero result of the failing call
	Detail        string
	Metrics       []Metric // driver order, IP included
	IPIndex       int
	PeriodNs      uint32 // what the driver chose
	NotifyReports uint32
	SubDevices    uint32 // calculation sets (COMPOSITE root: sub-devices)
}

// Source is the Level-Zero metrics access the reader needs; package cgo
// implements it over zetMetricStreamer*, tests with a fake.
type Source interface {
	Open(device uint64, periodNs uint32) *Stream
	// Read reads raw records; dropped reports ZE_RESULT_WARNING_DROPPED_DATA.
	Read(st *Stream, buf []byte) (n int, dropped bool, err error)
	Notified(st *Stream) bool
	// Calculate returns, per set, the calculated values report-major in
	// metric order; dropped reports the calculation's drop warning.
	Calculate(st *Stream, raw []byte) (sets [][]uint64, dropped bool, err error)
	Close(st *Stream)
	// OtherProcesses returns the ids of the processes other than this one
	// that use st's device and have run work on its compute engines
	// (Sysman zesDeviceProcessesGetState), ascending; an error when the
	// driver cannot say.
	OtherProcesses(st *Stream) ([]uint32, error)
}

// Attributor gives the samples of read windows to kernels and launches
// (attribution.Attributor, one per stream and calculation set). The reader
// calls it under Reader.mu.
type Attributor interface {
	KernelCreated(kernelID, base, isaSize, fromNs uint64)
	KernelDestroyed(kernelID, untilNs uint64)
	// Launches: the harvester's finished launches of device in ls (others
	// skipped), in order, under their code id (attribution.CodeID of the
	// kernel and its code copy): a timed one with its device times in host
	// ns, one flagged LAUNCH_FLAG_NO_TIMESTAMP as a launch that will never
	// get device times nor an end (attributors keep one earliest append
	// per kernel for these, not one entry per launch). One call per batch
	// (attribution.Attributor.Launches); ls is not kept.
	Launches(device uint32, ls []stream.Launch)
	LaunchUntimed(launchID, kernelID, appendNs uint64)
	UntimedEndedBy(launchID, kernelID, byNs uint64)
	// AddWindowValues adds a read window's calculated values (report-major,
	// ipIndex the IP column).
	AddWindowValues(startNs, endNs uint64, values []uint64, ipIndex int)
	// NoSamplesUntil: a read found nothing buffered at hostNs, so every
	// sample taken before it has been delivered (less the latency the
	// attributor allows for). Without it, a device that produces no
	// samples (kernels shorter than the sampling period) would never let
	// the attributor drop the launches it holds.
	NoSamplesUntil(hostNs uint64)
	// Resolve returns the records of the windows it can decide now.
	Resolve(pendingBefore uint64, final bool) []*pb.Record
	// AddCounters adds the attributor's totals to c: rows given to a
	// kernel and to none, rows possibly foreign, launches not held and
	// rows degraded (attribution.Totals.AddTo).
	AddCounters(c *pb.Counters)
	// SetOtherProcesses: the other processes running kernels on the
	// device (known: the driver said) for the windows added from now on.
	SetOtherProcesses(pids []uint32, known bool)
}
