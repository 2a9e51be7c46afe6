package collector

import (
	"os"
	"testing"
)

func TestKernelSizes(t *testing.T) {
	native, err := os.ReadFile("../format/zebin/testdata/t_XE_HPC_COREpvc.bin")
	if err != nil {
		t.Fatal(err)
	}
	sizes, err := kernelSizes(native)
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) == 0 {
		t.Fatal("no kernels")
	}
	for name, size := range sizes {
		if name == "" || size == 0 || size%16 != 0 {
			t.Errorf("kernel %q: size %d", name, size)
		}
	}
	for _, bad := range [][]byte{nil, []byte("\x7fELF"), native[:64]} {
		if m, err := kernelSizes(bad); err == nil || len(m) != 0 {
			t.Errorf("kernelSizes(%d bytes) = %v, %v; want an error", len(bad), m, err)
		}
	}
}
