package dwarfline

import (
	"os"
	"testing"
)

// TestWriteFixture writes the fixture debug zebin to the file named by
// $ZESTALL_WRITE_FIXTURE, to inspect it with readelf or llvm-dwarfdump.
func TestWriteFixture(t *testing.T) {
	path := os.Getenv("ZESTALL_WRITE_FIXTURE")
	if path == "" {
		t.Skip("ZESTALL_WRITE_FIXTURE not set")
	}
	zb, _ := buildDebugZebin(t)
	if err := os.WriteFile(path, zb, 0o644); err != nil {
		t.Fatal(err)
	}
}

func FuzzOpen(f *testing.F) {
	zb, ks := buildDebugZebin(f)
	f.Add(zb)
	for _, k := range ks {
		f.Add(k.elf)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Open(data)
		if tab == nil {
			if err == nil {
				t.Fatal("nil table and nil error")
			}
			return
		}
		for _, s := range tab.Sequences() {
			if len(s.Rows) == 0 || s.Start != s.Rows[0].Address || s.End <= s.Rows[len(s.Rows)-1].Address {
				t.Fatalf("bad sequence %+v", s)
			}
			for _, r := range s.Rows {
				if got, ok := tab.LookupRow(r.Address); !ok || got.Address > r.Address {
					t.Fatalf("row %+v not found (%+v, %v)", r, got, ok)
				}
			}
		}
	})
}

// reference is the lookup rule of the package documentation written as a
// linear scan.
func reference(tab *Table, addr uint64) (Row, bool) {
	var best *Sequence
	for i := range tab.seqs {
		s := &tab.seqs[i]
		if s.Start <= addr && addr < s.End && (best == nil || s.Start >= best.Start) {
			best = s
		}
	}
	if best == nil {
		return Row{}, false
	}
	var r Row
	for _, row := range best.Rows {
		if row.Address <= addr {
			r = row
		}
	}
	return r, true
}

func FuzzLookup(f *testing.F) {
	tab := openFixture(f)
	f.Add(uint64(0x800000012300 + 0xc8))
	f.Add(uint64(0x800000012540 + 0x1c7))
	f.Add(uint64(0))
	f.Fuzz(func(t *testing.T, addr uint64) {
		got, ok := tab.LookupRow(addr)
		want, wok := reference(tab, addr)
		if ok != wok || got != want {
			t.Fatalf("LookupRow(%#x) = %+v, %v; reference %+v, %v", addr, got, ok, want, wok)
		}
	})
}
