package collector

import "github.com/zestall/zestall/format/zebin"

// kernelSizes returns the size of every kernel's ".text.<kernel>" section
// of a module's native zebin, padding included: the exact ISA size of each
// kernel, for kernels whose ISA the driver did not report. It reads the
// binary with the hardened decoder (package format/zebin): the binary
// comes from the application. A zebin whose notes are malformed still
// yields its kernels.
func kernelSizes(native []byte) (map[string]uint64, error) {
	f, err := zebin.Parse(native)
	if f == nil {
		return nil, err
	}
	m := make(map[string]uint64, len(f.Kernels))
	for _, k := range f.Kernels {
		m[k.Name] = k.Size
	}
	return m, err
}
