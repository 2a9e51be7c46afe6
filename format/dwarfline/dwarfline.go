// Package dwarfline maps GPU code addresses to source lines using the DWARF
// line tables of a "debug zebin", the linked ELF that zetModuleGetDebugInfo
// returns for a module.
//
// Place in the pipeline: the layer captures each module's debug zebin into
// the output stream and the collector attributes each EU-stall sample to a
// kernel and an offset (package eustall). Only the CLI (cmd/zestall) uses
// this package, offline: it builds a [Table] from the captured debug zebin to
// find the file and line of kernel GPU address + offset, for its report,
// annotate and pprof views. Nothing in the profiled process parses DWARF.
//
// # Addresses
//
// In a debug zebin the kernel sections ".text.<kernel>" carry the kernel's GPU
// virtual address in sh_addr, and every address in .debug_line is absolute:
// kernel GPU address + offset in the kernel (docs/eu-stall-sampling.md
// §9.3 "zetModuleGetDebugInfo returns a linked debug zebin"). There is one
// compile unit and one line program per kernel (docs/eu-stall-sampling.md
// §9.4 "DWARF organisation").
// [Table.Lookup] takes such an absolute address; [Table.LookupKernel] takes a
// kernel name and an offset. Relocations are not applied: the driver has
// applied them already (the file is ET_EXEC).
//
// # Lookup rule
//
// The table holds the rows of every line-program sequence, sorted by address.
// An address belongs to the sequence whose [first row, end_sequence) range
// contains it, and maps to the last row of that sequence whose address is ≤
// the address — so a row never extends into another sequence or compile
// unit, and addresses in gaps between sequences map to nothing.
//
// # Errors
//
// A file without DWARF line information yields an error that matches
// [ErrNoDebugInfo] with errors.Is. Malformed DWARF yields a [*DecodeError]
// naming the section and byte offset; Open then still returns the table built
// from the compile units decoded before the problem.
//
// # Security
//
// Debug zebins come from the profiled process or from a file and must be
// treated as untrusted. Parsing is done by debug/elf and debug/dwarf, whose
// documentation warns that they are not hardened against adversarial input:
// this package converts any panic inside them into a DecodeError, caps the
// number of rows it keeps and the number of entries it reads (debug/dwarf
// can return empty entries without end on a malformed entry tree; found by
// FuzzOpen), and is fuzzed (FuzzOpen, FuzzLookup).
package dwarfline

import (
	"bytes"
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ErrNoDebugInfo is matched (errors.Is) by the error Open returns for a file
// without DWARF line information.
var ErrNoDebugInfo = errors.New("dwarfline: no DWARF line information")

// NoDebugInfoError reports which DWARF section is missing or empty.
type NoDebugInfoError struct {
	Missing string // e.g. ".debug_line"
}

func (e *NoDebugInfoError) Error() string {
	return fmt.Sprintf("dwarfline: no DWARF line information (no %s section)", e.Missing)
}

// Is makes a *NoDebugInfoError match ErrNoDebugInfo.
func (e *NoDebugInfoError) Is(target error) bool { return target == ErrNoDebugInfo }

// DecodeError reports malformed ELF or DWARF data.
type DecodeError struct {
	Section string // ".debug_info", ".debug_line", or "ELF"
	Offset  int64  // byte offset within Section (within the file for "ELF"); -1 if unknown
	Err     string
}

func (e *DecodeError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("dwarfline: %s: %s", e.Section, e.Err)
	}
	return fmt.Sprintf("dwarfline: %s: decoding error at offset %#x: %s", e.Section, e.Offset, e.Err)
}

// Row is one row of a line table.
type Row struct {
	Address uint64 // absolute GPU address of the first byte the row covers
	File    string // file name as recorded (directory joined when relative)
	Line    int    // 1-based; 0 means "no source line"
	Column  int    // 1-based; 0 means unknown
	IsStmt  bool   // a recommended breakpoint location
}

// Sequence is a run of rows of one line program ending with an
// end_sequence: it covers [Start, End), and Rows are sorted by address.
type Sequence struct {
	Unit  string // name of the compile unit (DW_AT_name)
	Start uint64 // address of the first row
	End   uint64 // address of the end_sequence row (exclusive)
	Rows  []Row
}

// MaxRows bounds the number of rows a Table keeps, to bound memory on
// hostile input. Real kernels have a few rows per instruction.
const MaxRows = 1 << 22

// Table is the merged line table of a debug zebin. It is immutable once built
// and safe for concurrent use.
type Table struct {
	seqs    []Sequence // sorted by Start, then End
	maxEnd  []uint64   // maxEnd[i] = max End of seqs[:i+1]
	kernels map[string]uint64
}

// Open reads the debug zebin held in data. See the package documentation for
// the errors.
func Open(data []byte) (t *Table, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, &DecodeError{Section: "ELF", Offset: -1, Err: fmt.Sprintf("debug/elf panicked: %v", r)}
		}
	}()
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, &DecodeError{Section: "ELF", Offset: 0, Err: err.Error()}
	}
	kernels := map[string]uint64{}
	for _, s := range ef.Sections {
		if name, ok := strings.CutPrefix(s.Name, ".text."); ok && name != "" && s.Type == elf.SHT_PROGBITS {
			kernels[name] = s.Addr
		}
	}
	d, infoSize, err := dwarfData(ef)
	if err != nil {
		return nil, err
	}
	// Every entry takes at least one byte of .debug_info (its
	// abbreviation code).
	t, err = newTable(d, min(MaxEntries, infoSize+1))
	if t != nil {
		t.kernels = kernels
	}
	return t, err
}

// dwarfData builds a dwarf.Data from the .debug_* sections of ef without
// applying relocations (elf.File.DWARF would try to apply them for ET_REL
// and fails for e_machine EM_INTELGT).
func dwarfData(ef *elf.File) (*dwarf.Data, int, error) {
	sect := map[string][]byte{}
	for _, s := range ef.Sections {
		name, ok := strings.CutPrefix(s.Name, ".debug_")
		if !ok || s.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := s.Data()
		if err != nil {
			return nil, 0, &DecodeError{Section: s.Name, Offset: -1, Err: err.Error()}
		}
		sect[name] = b
	}
	for _, need := range []string{"info", "abbrev", "line"} {
		if len(sect[need]) == 0 {
			return nil, 0, &NoDebugInfoError{Missing: ".debug_" + need}
		}
	}
	d, err := dwarf.New(sect["abbrev"], nil, nil, sect["info"], sect["line"], nil, sect["ranges"], sect["str"])
	if err != nil {
		return nil, 0, convert(err, ".debug_info")
	}
	for _, name := range []string{"addr", "line_str", "str_offsets", "rnglists"} {
		if b := sect[name]; len(b) > 0 {
			if err := d.AddSection(".debug_"+name, b); err != nil {
				return nil, 0, convert(err, ".debug_"+name)
			}
		}
	}
	return d, len(sect["info"]), nil
}

func convert(err error, section string) error {
	var de dwarf.DecodeError
	if errors.As(err, &de) {
		sec := de.Name
		switch sec {
		case "info", "line", "abbrev", "str", "ranges":
			sec = ".debug_" + sec
		case "":
			sec = section
		}
		return &DecodeError{Section: sec, Offset: int64(de.Offset), Err: de.Err}
	}
	return &DecodeError{Section: section, Offset: -1, Err: err.Error()}
}

// NewTable builds a table from DWARF data (for callers that have opened the
// file themselves). On malformed DWARF it returns the table built from the
// compile units decoded before the problem and a *DecodeError.
func NewTable(d *dwarf.Data) (t *Table, err error) {
	return newTable(d, MaxEntries)
}

// MaxEntries bounds the debugging information entries NewTable reads: on a
// malformed entry tree debug/dwarf's Reader can return empty entries
// without end.
const MaxEntries = 1 << 24

func newTable(d *dwarf.Data, maxEntries int) (t *Table, err error) {
	t = &Table{}
	defer func() {
		if r := recover(); r != nil {
			err = &DecodeError{Section: ".debug_line", Offset: -1, Err: fmt.Sprintf("debug/dwarf panicked: %v", r)}
		}
		t.index()
	}()
	rows, entries := 0, 0
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return t, convert(err, ".debug_info")
		}
		if e == nil {
			return t, nil
		}
		if entries++; entries > maxEntries {
			return t, &DecodeError{Section: ".debug_info", Offset: int64(e.Offset),
				Err: fmt.Sprintf("more than %d entries: the entry tree is malformed", maxEntries)}
		}
		if e.Tag != dwarf.TagCompileUnit && e.Tag != dwarf.TagPartialUnit {
			r.SkipChildren()
			continue
		}
		unit, _ := e.Val(dwarf.AttrName).(string)
		lr, err := d.LineReader(e)
		r.SkipChildren()
		if err != nil {
			return t, convert(err, ".debug_line")
		}
		if lr == nil {
			continue // unit without a line program
		}
		var (
			le  dwarf.LineEntry
			cur []Row
		)
		for {
			err := lr.Next(&le)
			if err == io.EOF {
				break
			}
			if err != nil {
				return t, convert(err, ".debug_line")
			}
			if le.EndSequence {
				if len(cur) > 0 && le.Address > cur[0].Address {
					t.addSequence(unit, cur, le.Address)
				}
				cur = nil
				continue
			}
			if rows++; rows > MaxRows {
				return t, &DecodeError{Section: ".debug_line", Offset: -1, Err: fmt.Sprintf("more than %d rows", MaxRows)}
			}
			row := Row{Address: le.Address, Line: le.Line, Column: le.Column, IsStmt: le.IsStmt}
			if le.File != nil {
				row.File = le.File.Name
			}
			cur = append(cur, row)
		}
		// Rows after the last end_sequence do not form a sequence and are
		// dropped, as consumers of DWARF do.
	}
}

func (t *Table) addSequence(unit string, rows []Row, end uint64) {
	// DWARF requires non-decreasing addresses within a sequence; sort
	// stably so malformed input cannot break the binary search.
	slices.SortStableFunc(rows, func(a, b Row) int { return cmp.Compare(a.Address, b.Address) })
	t.seqs = append(t.seqs, Sequence{Unit: unit, Start: rows[0].Address, End: max(end, rows[len(rows)-1].Address+1), Rows: rows})
}

func (t *Table) index() {
	slices.SortStableFunc(t.seqs, func(a, b Sequence) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	t.maxEnd = make([]uint64, len(t.seqs))
	var m uint64
	for i, s := range t.seqs {
		m = max(m, s.End)
		t.maxEnd[i] = m
	}
}

// Sequences returns the table's sequences sorted by start address. The
// result must not be modified.
func (t *Table) Sequences() []Sequence { return t.seqs }

// LookupRow returns the row covering the absolute address addr: the last row
// at or below addr in the sequence containing addr. If sequences overlap, the
// one starting last wins.
func (t *Table) LookupRow(addr uint64) (Row, bool) {
	// Last sequence with Start <= addr.
	i, _ := slices.BinarySearchFunc(t.seqs, addr, func(s Sequence, a uint64) int {
		if s.Start <= a {
			return -1
		}
		return 1
	})
	for i--; i >= 0 && t.maxEnd[i] > addr; i-- {
		s := &t.seqs[i]
		if addr >= s.End {
			continue
		}
		j, _ := slices.BinarySearchFunc(s.Rows, addr, func(r Row, a uint64) int {
			if r.Address <= a {
				return -1
			}
			return 1
		})
		if j > 0 {
			return s.Rows[j-1], true
		}
	}
	return Row{}, false
}

// Lookup returns the file and line of the absolute address addr.
func (t *Table) Lookup(addr uint64) (file string, line int, ok bool) {
	r, ok := t.LookupRow(addr)
	return r.File, r.Line, ok
}

// LookupKernelVA returns the row for byte offset off of the kernel whose GPU
// virtual address is kernelVA (the sh_addr of its .text section in the debug
// zebin, equal to zexKernelGetBaseAddress).
func (t *Table) LookupKernelVA(kernelVA, off uint64) (Row, bool) {
	return t.LookupRow(kernelVA + off)
}

// KernelAddress returns the GPU address of the named kernel: the sh_addr of
// its .text.<name> section in the debug zebin given to Open.
func (t *Table) KernelAddress(name string) (uint64, bool) {
	a, ok := t.kernels[name]
	return a, ok
}

// LookupKernel returns the row for byte offset off of the named kernel, using
// the kernel's address from the debug zebin.
func (t *Table) LookupKernel(name string, off uint64) (Row, bool) {
	a, ok := t.kernels[name]
	if !ok {
		return Row{}, false
	}
	return t.LookupRow(a + off)
}
