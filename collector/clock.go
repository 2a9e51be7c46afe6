package collector

import "golang.org/x/sys/unix"

// monotonicRawNs returns CLOCK_MONOTONIC_RAW in ns: the host clock in which
// zeDeviceGetGlobalTimestamps reports host time on Linux, so every time in
// the output is comparable with converted device times.
func monotonicRawNs() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC_RAW, &ts); err != nil {
		return 0
	}
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}
