package zebin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// debugELFView is what debug/elf reads of data, in the reader's terms:
// ok is false if debug/elf rejects the file, a section's bytes or the
// symbol table (the cases the comparison leaves to each reader's own
// checks).
func debugELFView(data []byte) (secs []elfSection, bytesOf [][]byte, syms []elfSymbol, ok bool) {
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil || ef.Class != elf.ELFCLASS64 || ef.Data != elf.ELFDATA2LSB {
		return nil, nil, nil, false
	}
	for _, s := range ef.Sections {
		secs = append(secs, elfSection{name: s.Name, typ: SectionType(s.Type), flags: uint64(s.Flags),
			addr: s.Addr, offset: s.Offset, size: s.FileSize, link: s.Link})
		var b []byte
		if s.Type != elf.SHT_NOBITS {
			if s.Flags&elf.SHF_COMPRESSED != 0 {
				return nil, nil, nil, false
			}
			if b, err = s.Data(); err != nil {
				return nil, nil, nil, false
			}
		}
		bytesOf = append(bytesOf, b)
	}
	es, err := ef.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, nil, nil, false
	}
	for _, s := range es {
		syms = append(syms, elfSymbol{name: s.Name, info: s.Info, section: uint16(s.Section), size: s.Size})
	}
	return secs, bytesOf, syms, true
}

// compareWithDebugELF fails t if the reader and debug/elf both accept data
// but read it differently.
func compareWithDebugELF(t *testing.T, data []byte) (bothRead bool) {
	t.Helper()
	secs, bytesOf, syms, ok := debugELFView(data)
	if !ok {
		return false
	}
	f, err := readELF(data)
	if err != nil {
		// Stricter than debug/elf in one case: a section header table
		// that does not fit the file when the count is 0 (debug/elf reads
		// no header then).
		return false
	}
	if len(f.sections) != len(secs) {
		t.Fatalf("%d sections, debug/elf %d", len(f.sections), len(secs))
	}
	for i := range secs {
		got := f.sections[i]
		got.header = 0
		// debug/elf keeps only the low 32 bits of sh_flags (its
		// SectionFlag is a uint32); the reader keeps all 64.
		got.flags = uint64(uint32(got.flags))
		if got != secs[i] {
			t.Fatalf("section %d = %+v, debug/elf %+v", i, got, secs[i])
		}
		b, err := f.sectionBytes(&f.sections[i])
		if err != nil || !bytes.Equal(b, bytesOf[i]) {
			t.Fatalf("section %d (%q): %d bytes, %v; debug/elf %d bytes", i, secs[i].name, len(b), err, len(bytesOf[i]))
		}
	}
	got, err := f.symbols()
	if err != nil {
		t.Fatalf("symbols: %v (debug/elf read %d)", err, len(syms))
	}
	if len(got) != len(syms) {
		t.Fatalf("%d symbols, debug/elf %d", len(got), len(syms))
	}
	for i := range syms {
		if got[i] != syms[i] {
			t.Fatalf("symbol %d = %+v, debug/elf %+v", i, got[i], syms[i])
		}
	}
	return true
}

// TestELFReaderMatchesDebugELF: on the real zebin, the same file shaped as
// a debug zebin, and the test kernels' zebins (test/kernels: ocloc's
// output, -g, and the same with the debug sections stripped), the
// package's ELF reader sees the sections, their bytes and the symbols
// debug/elf sees.
func TestELFReaderMatchesDebugELF(t *testing.T) {
	real := readReal(t)
	debug := bytes.Clone(real)
	binary.LittleEndian.PutUint16(debug[16:], uint16(ET_EXEC))
	binary.LittleEndian.PutUint64(debug[shdr(debug, 1)+16:], 0x0000_8000_0001_2300)
	files := map[string][]byte{"real": real, "debug": debug}
	kernels, _ := filepath.Glob("../../test/kernels/*.zebin")
	if len(kernels) == 0 {
		t.Fatal("no test/kernels/*.zebin")
	}
	for _, k := range kernels {
		b, err := os.ReadFile(k)
		if err != nil {
			t.Fatal(err)
		}
		files[k] = b
	}
	for name, data := range files {
		if !compareWithDebugELF(t, data) {
			t.Errorf("%s: not read by both", name)
		}
		if _, err := Parse(data); err != nil {
			t.Errorf("%s: Parse: %v", name, err)
		}
	}
	f, err := readELF(real)
	if err != nil {
		t.Fatal(err)
	}
	if f.typ != ET_REL || f.machine != EM_INTELGT || len(f.sections) < 4 {
		t.Errorf("header: %v %d, %d sections", f.typ, f.machine, len(f.sections))
	}
}

// TestELFReaderErrors: each malformed header field is reported at its
// offset.
func TestELFReaderErrors(t *testing.T) {
	real := readReal(t)
	le := binary.LittleEndian
	tests := []struct {
		name   string
		edit   func(b []byte) []byte
		offset int64
	}{
		{"short", func(b []byte) []byte { return b[:40] }, 0},
		{"magic", func(b []byte) []byte { b[1] = 'X'; return b }, 0},
		{"class", func(b []byte) []byte { b[4] = 1; return b }, 4},
		{"encoding", func(b []byte) []byte { b[5] = 2; return b }, 5},
		{"version", func(b []byte) []byte { b[6] = 0; return b }, 6},
		{"shoff past end", func(b []byte) []byte { le.PutUint64(b[40:], uint64(len(b))); return b }, 40},
		{"shentsize", func(b []byte) []byte { le.PutUint16(b[58:], 40); return b }, 58},
		{"shnum", func(b []byte) []byte { le.PutUint16(b[60:], 0x7fff); return b }, 60},
		{"shstrndx", func(b []byte) []byte { le.PutUint16(b[62:], 0x7fff); return b }, 62},
		{"shstrndx type", func(b []byte) []byte { le.PutUint16(b[62:], 1); return b }, int64(shdr(real, 1) + 4)},
		{"section past end", func(b []byte) []byte {
			strndx := int(le.Uint16(b[62:]))
			le.PutUint64(b[shdr(b, strndx)+32:], uint64(len(b)))
			return b
		}, -1},
		{"compressed name table", func(b []byte) []byte {
			strndx := int(le.Uint16(b[62:]))
			le.PutUint64(b[shdr(b, strndx)+8:], shfCompressed)
			return b
		}, -1},
	}
	for _, tc := range tests {
		b := tc.edit(bytes.Clone(real))
		f, err := Parse(b)
		var fe *FormatError
		if f != nil || !errors.As(err, &fe) {
			t.Errorf("%s: Parse = %v, %v; want a FormatError", tc.name, f, err)
			continue
		}
		want := tc.offset
		if want < 0 {
			want = fe.Offset // located in the section header: checked below
			strndx := int64(le.Uint16(real[62:]))
			if h := int64(shdr(real, int(strndx))); fe.Offset < h || fe.Offset >= h+64 {
				t.Errorf("%s: error at %#x, outside the name table's header at %#x", tc.name, fe.Offset, h)
			}
		}
		if fe.Offset != want {
			t.Errorf("%s: error at %#x, want %#x (%v)", tc.name, fe.Offset, want, err)
		}
	}
}

// FuzzELFReader: whatever the bytes, the reader does not panic, and where
// debug/elf and the reader both read a file they agree.
func FuzzELFReader(f *testing.F) {
	if b, err := os.ReadFile(realZebin); err == nil {
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		compareWithDebugELF(t, data)
		if ef, err := readELF(data); err == nil {
			for i := range ef.sections {
				_, _ = ef.sectionBytes(&ef.sections[i])
			}
			_, _ = ef.symbols()
		}
	})
}
