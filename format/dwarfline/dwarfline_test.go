package dwarfline

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"testing"
)

type wantRow struct {
	off    uint64
	line   int
	column int
	stmt   bool
}

// The line tables of the two kernels, kernel-relative. Addresses, lines and
// is_stmt are what `readelf --debug-dump=decodedline` (GNU binutils 2.40)
// prints for the per-kernel ELFs extracted from testdata/leg_XE_HPC_COREpvc.dbg;
// columns are from `llvm-dwarfdump --debug-line` (LLVM 14) on the same files.
// The last entry of each list is the end_sequence address.
var wantTables = map[string][]wantRow{
	"stream_triad": {
		{0x000, 1, 0, true},
		{0x050, 4, 1, true},
		{0x0c0, 2, 14, true},
		{0x0d0, 4, 1, false},
		{0x0d8, 2, 14, false},
		{0x0f0, 3, 10, true},
		{0x118, 3, 21, false},
		{0x120, 3, 10, false},
		{0x128, 3, 21, false},
		{0x130, 3, 10, false},
		{0x140, 3, 21, false},
		{0x150, 3, 3, false},
		{0x160, 3, 15, false},
		{0x170, 3, 8, false},
		{0x180, 4, 1, false},
		{0x190, 0, 0, false}, // end_sequence
	},
	"compute_loop": {
		{0x000, 5, 0, true},
		{0x050, 10, 1, true},
		{0x0a8, 6, 14, true},
		{0x0c8, 8, 21, true},
		{0x0d8, 6, 14, false},
		{0x0e8, 7, 13, true},
		{0x128, 8, 3, false},
		{0x158, 8, 27, false},
		{0x168, 8, 47, false},
		{0x180, 8, 21, false},
		{0x190, 8, 3, false},
		{0x1a0, 9, 8, true},
		{0x1b0, 10, 1, false},
		{0x1c8, 0, 0, false}, // end_sequence
	},
}

const wantFile = "/tmp/k/t.cl" // DW_AT_comp_dir "/tmp/k" joined with "t.cl"

func openFixture(t testing.TB) *Table {
	t.Helper()
	zb, _ := buildDebugZebin(t)
	tab, err := Open(zb)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestSequences(t *testing.T) {
	tab := openFixture(t)
	seqs := tab.Sequences()
	if len(seqs) != 2 {
		t.Fatalf("%d sequences", len(seqs))
	}
	for i, name := range []string{"stream_triad", "compute_loop"} {
		s := seqs[i]
		va := fixtureVA[name]
		want := wantTables[name]
		if s.Unit != "t.cl" || s.Start != va || s.End != va+want[len(want)-1].off || len(s.Rows) != len(want)-1 {
			t.Fatalf("%s: sequence %s [%#x, %#x) with %d rows", name, s.Unit, s.Start, s.End, len(s.Rows))
		}
		for j, r := range s.Rows {
			w := want[j]
			if r.Address != va+w.off || r.Line != w.line || r.Column != w.column || r.IsStmt != w.stmt || r.File != wantFile {
				t.Errorf("%s row %d = %+v, want %+v", name, j, r, w)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	tab := openFixture(t)
	for name, want := range wantTables {
		va := fixtureVA[name]
		if a, ok := tab.KernelAddress(name); !ok || a != va {
			t.Errorf("KernelAddress(%s) = %#x, %v", name, a, ok)
		}
		for j, w := range want[:len(want)-1] {
			next := want[j+1].off
			// Every 8-byte-aligned instruction address in [row, next row).
			for off := w.off; off < next; off += 8 {
				r, ok := tab.LookupKernel(name, off)
				if !ok || r.Line != w.line || r.Column != w.column || r.Address != va+w.off {
					t.Errorf("LookupKernel(%s, %#x) = %+v, %v; want line %d", name, off, r, ok, w.line)
				}
				file, line, ok := tab.Lookup(va + off)
				if !ok || file != wantFile || line != w.line {
					t.Errorf("Lookup(%#x) = %s:%d, %v", va+off, file, line, ok)
				}
				if r2, ok := tab.LookupKernelVA(va, off); !ok || r2 != r {
					t.Errorf("LookupKernelVA disagrees")
				}
			}
		}
		// The end_sequence address and beyond belong to no row of this kernel.
		end := want[len(want)-1].off
		if r, ok := tab.LookupKernel(name, end); ok && r.Address < va+end {
			t.Errorf("%s: offset %#x (end) maps to %+v", name, end, r)
		}
	}
	// stream_triad ends at 0x12490, compute_loop starts at 0x12540: the gap,
	// and addresses around both, map to nothing.
	for _, a := range []uint64{0, 0x800000012490, 0x800000012500, 0x80000001253f, 0x800000012540 + 0x1c8, 0x8000000122ff, ^uint64(0)} {
		if r, ok := tab.LookupRow(a); ok {
			t.Errorf("LookupRow(%#x) = %+v", a, r)
		}
	}
	if _, ok := tab.LookupKernel("nope", 0); ok {
		t.Error("unknown kernel found")
	}
}

// TestLegacyELF opens one per-kernel ELF as is: addresses start at 0.
func TestLegacyELF(t *testing.T) {
	_, ks := buildDebugZebin(t)
	tab, err := Open(ks[1].elf)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := tab.LookupRow(0xc8)
	if !ok || r.Line != 8 || r.Column != 21 {
		t.Errorf("LookupRow(0xc8) = %+v, %v", r, ok)
	}
	if _, ok := tab.KernelAddress("compute_loop"); ok {
		t.Error("legacy ELF has no .text.<kernel> sections")
	}
}

func TestNoDebugInfo(t *testing.T) {
	zb := writeELF(elf.ET_EXEC, 205, []section{{".text.k", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_EXECINSTR, 0x1000, make([]byte, 32)}})
	tab, err := Open(zb)
	var nd *NoDebugInfoError
	if tab != nil || !errors.Is(err, ErrNoDebugInfo) || !errors.As(err, &nd) || nd.Missing != ".debug_info" {
		t.Fatalf("Open = %v, %v", tab, err)
	}
	// .debug_info present, .debug_line missing.
	zb = writeELF(elf.ET_EXEC, 205, []section{
		{".debug_info", elf.SHT_PROGBITS, 0, 0, []byte{1}},
		{".debug_abbrev", elf.SHT_PROGBITS, 0, 0, []byte{0}},
	})
	if _, err := Open(zb); !errors.Is(err, ErrNoDebugInfo) {
		t.Fatalf("Open without .debug_line: %v", err)
	}
	if _, err := Open([]byte("not an ELF")); err == nil || errors.Is(err, ErrNoDebugInfo) {
		t.Fatalf("Open(garbage) = %v", err)
	}
}

// patchSection returns a copy of zb with f applied to the named section.
func patchSection(t *testing.T, zb []byte, name string, f func(b []byte)) []byte {
	t.Helper()
	out := bytes.Clone(zb)
	ef, err := elf.NewFile(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	s := ef.Section(name)
	f(out[s.Offset : s.Offset+s.Size])
	return out
}

func TestMalformed(t *testing.T) {
	zb, _ := buildDebugZebin(t)
	tests := []struct {
		name    string
		section string
		patch   func(b []byte)
		units   int // compile units still decoded
	}{
		{"line version", ".debug_line", func(b []byte) { binary.LittleEndian.PutUint16(b[4:], 99) }, 0},
		{"second line unit length", ".debug_line", func(b []byte) {
			l := binary.LittleEndian.Uint32(b) + 4
			binary.LittleEndian.PutUint32(b[l:], 0xfffffff0)
		}, 1},
		{"info unit length", ".debug_info", func(b []byte) { binary.LittleEndian.PutUint32(b, 0xffffff00) }, 0},
		{"info version", ".debug_info", func(b []byte) { binary.LittleEndian.PutUint16(b[4:], 77) }, 0},
		{"abbrev", ".debug_abbrev", func(b []byte) {
			for i := range b {
				b[i] = 0xff
			}
		}, 0},
	}
	for _, tc := range tests {
		tab, err := Open(patchSection(t, zb, tc.section, tc.patch))
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s: error %v", tc.name, err)
			continue
		}
		if tab != nil && len(tab.Sequences()) != tc.units {
			t.Errorf("%s: %d sequences kept, want %d", tc.name, len(tab.Sequences()), tc.units)
		}
		t.Logf("%s: %v", tc.name, err)
	}
}
