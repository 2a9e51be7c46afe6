package cgo

import "testing"

func TestStatesAgree(t *testing.T) {
	for _, p := range cStates() {
		if p[0] != p[1] {
			t.Errorf("C state %d != collector state %d", p[0], p[1])
		}
	}
}
