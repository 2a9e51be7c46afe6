package collector

import (
	"bytes"
	"debug/elf"
	"strings"
)

// textSectionSizes returns the size of every ".text.<kernel>" section of a
// zebin, padding included: the exact ISA size of each kernel.
func textSectionSizes(zebin []byte) (map[string]uint64, error) {
	f, err := elf.NewFile(bytes.NewReader(zebin))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]uint64{}
	for _, s := range f.Sections {
		if name, ok := strings.CutPrefix(s.Name, ".text."); ok && name != "" {
			m[name] = s.Size
		}
	}
	return m, nil
}
