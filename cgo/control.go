package cgo

/*
#include "control.h"
#include "launch.h"
*/
import "C"

import (
	"errors"
	"fmt"

	"github.com/zestall/zestall/collector/window"
)

// controls implements window.Source over control.c and launch.c.
type controls struct{}

var _ window.Source = controls{}

func (controls) Block(set, clear window.Blockers) window.Blockers {
	return window.Blockers(C.zl_block(C.uint32_t(set), C.uint32_t(clear)))
}

func (controls) SetLaunchWindow(from, to uint64) {
	C.zl_set_launch_window(C.uint64_t(from), C.uint64_t(to))
}

func (controls) LaunchesWhileStopped() uint64 { return uint64(C.zl_launches_while_stopped()) }

func (controls) InstallToggleSignal(sig int) (bool, error) {
	switch r, errno := C.zc_install_signal(C.int(sig)); r {
	case 1:
		return true, nil
	case 0:
		return false, nil
	default:
		if errno == nil {
			return false, errors.New("sigaction failed")
		}
		return false, fmt.Errorf("sigaction: %w", errno)
	}
}

func (controls) SignalCount() (n, lastNs uint64) {
	var last C.uint64_t
	n = uint64(C.zc_signal_count(&last))
	return n, uint64(last)
}

func (controls) EarlyRequest() window.Op { return window.Op(C.zc_early_request()) }

// zestallControl serves the C API's requests: 0 when served, -1 when not
// (the C convention of layer/zestall.h; Go's reasons stay in Go).
//
//export zestallControl
func zestallControl(op C.int) (rc C.int) {
	rc = -1
	defer recoverTo("zestall control call")
	if h := current(); h != nil {
		if h.ControlRequest(window.Op(op)) == nil {
			rc = 0
		}
	}
	return rc
}

//export zestallLaunchEdge
func zestallLaunchEdge(on C.int, n, ns C.uint64_t) {
	defer recoverTo("launch-count window")
	if h := current(); h != nil {
		h.LaunchEdge(on != 0, uint64(n), uint64(ns))
	}
}
