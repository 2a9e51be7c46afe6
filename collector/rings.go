package collector

// ringSource is what the launch path's source (package cgo's) offers
// beyond timing.Source: the rings' growth budget (ZESTALL_RING_SLOTS) and
// the wake-up of a sleeping harvester when a ring fills
// (cgo/launch_rings.c, "Ring capacity" and "Waking the harvester"). A
// source without it (the tests' fakes) keeps the default budget, and the
// harvester wakes on its timer alone.
type ringSource interface {
	// SetRingSlots sets the slots a lone thread's ring may reach
	// (config.Config.RingSlots), before the first launch is collected.
	SetRingSlots(slots uint32)
	// RingFills receives a token when a launch found its ring filling
	// while a wake-up was armed (nil: never).
	RingFills() <-chan struct{}
	// ArmRingFill arms one wake-up, until the next drain.
	ArmRingFill()
}
