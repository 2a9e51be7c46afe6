package cgo

import "testing"

func TestStatesAgree(t *testing.T) {
	for _, p := range cStates() {
		if p[0] != p[1] {
			t.Errorf("C state %d != collector state %d", p[0], p[1])
		}
	}
	for _, p := range cOps() {
		if p[0] != p[1] {
			t.Errorf("C control op %d != collector op %d", p[0], p[1])
		}
	}
}
