// Package window is zestall's collection control: whether collection is
// on, and the Window records that say when it changed and why.
//
// Pipeline position:
//
//	app ─> cgo (launch path: the condition word) ─> collector (Session) ─> window
//
// Collection is on while no condition blocks it: the user's toggles
// (ZESTALL_START=paused, zestall_start()/zestall_stop(), __itt_pause()/
// __itt_resume(), the toggle signal), the time window (ZESTALL_DELAY,
// ZESTALL_DURATION) and the launch-count window (ZESTALL_LAUNCHES). The
// launch path owns the state: one atomic word of Blockers in C
// (cgo/abi.h ZL_BLOCK_*), read per launch without a lock. A Control sets
// and clears BlockUser and BlockTimer through Source.Block; the launch
// path sets and clears BlockCount at the window's edges and calls
// Control.LaunchEdge. A Control writes one Window record per change of
// "nothing blocks", and moves the stall reader (Stalls) with it: a start
// reads the streamers and discards what they held before the launch path
// collects; a stop keeps them attributed until the launches of the window
// have their times.
//
// Package collector creates one Control per session at activation
// (Start), serves the C API and the launch path's edges through it, and
// stops it at exit (Stop). Package cgo implements Source over C.
//
// # Locks
//
// Control.mu orders edges: an edge's streamer read completes (bounded)
// before the next edge is applied. It is taken before any lock of the
// session, the stall reader or the attributors (the Emit and Settle hooks
// and Stalls take theirs briefly), never after; the condition word takes
// no lock. The package builds with CGO_ENABLED=0; tests drive a Control
// with a fake Source.
package window
