package timing

import "golang.org/x/sys/unix"

// HostNs returns CLOCK_MONOTONIC_RAW in ns: the host clock in which
// zeDeviceGetGlobalTimestamps reports host time on Linux, so every time in
// the output is comparable with converted device times.
func HostNs() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC_RAW, &ts); err != nil {
		return 0
	}
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

// NewClock describes device id (its number in the file) for timestamp
// conversion: a timer of hz ticks per second whose kernel timestamps keep
// their low kernelBits bits. It returns nil when the device cannot be
// converted (then its launches are written without device times).
func NewClock(id uint32, hz uint64, kernelBits uint32) *Clock {
	if hz == 0 || kernelBits == 0 || kernelBits > 64 {
		return nil
	}
	mask := ^uint64(0)
	if kernelBits < 64 {
		mask = 1<<kernelBits - 1
	}
	return &Clock{id: id, hz: hz, kernelMask: mask, nsPerTick: 1e9 / float64(hz), ticksPerNs: float64(hz) / 1e9}
}
