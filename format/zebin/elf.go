package zebin

import (
	"encoding/binary"
	"fmt"
)

// The little of ELF64 a zebin needs, read here rather than with debug/elf:
// the file header, the section headers and their names, section bytes and
// the symbol table. Package collector parses zebins inside the profiled
// process, and debug/elf brought debug/dwarf, compress/flate, compress/zlib
// and internal/zstd into libzestall.so: their package initialisation
// (tables built in every process that loads the library, before the
// application's first zeInit returns) and their relocated pages
// (BENCHMARKS.md, issue 14, session 10, startup). What debug/elf does and
// this does not: 32-bit or big-endian files (a zebin is neither),
// program headers, compressed sections (reading one is a FormatError;
// IGC does not compress the sections read here) and dynamic symbols.
// TestELFReaderMatchesDebugELF and FuzzELFReader hold it to debug/elf's
// view of the same bytes.

// Type is an ELF file type (e_type).
type Type uint16

// File types of zebins.
const (
	ET_REL       Type = 1      // relocatable: what ocloc writes
	ET_EXEC      Type = 2      // executable: a debug zebin (zetModuleGetDebugInfo)
	ET_ZEBIN_REL Type = 0xff11 // relocatable zebin (compute-runtime zebin_elf.h)
	ET_ZEBIN_EXE Type = 0xff12 // executable zebin (what the driver usually returns)
)

func (t Type) String() string {
	switch t {
	case ET_REL:
		return "ET_REL"
	case ET_EXEC:
		return "ET_EXEC"
	case ET_ZEBIN_REL:
		return "ET_ZEBIN_REL"
	case ET_ZEBIN_EXE:
		return "ET_ZEBIN_EXE"
	}
	return fmt.Sprintf("ET(%#x)", uint16(t))
}

// Machine is an ELF machine (e_machine).
type Machine uint16

// EM_INTELGT is the e_machine of every zebin (compute-runtime zebin_elf.h).
const EM_INTELGT Machine = 205

// SectionType is an ELF section type (sh_type).
type SectionType uint32

// Section types read here.
const (
	SHT_PROGBITS     SectionType = 1
	SHT_SYMTAB       SectionType = 2
	SHT_STRTAB       SectionType = 3
	SHT_NOTE         SectionType = 7
	SHT_NOBITS       SectionType = 8
	SHT_ZEBIN_ZEINFO SectionType = 0xff000011 // .ze_info (YAML kernel metadata)
)

// ELF64 layout (System V gABI).
const (
	elfHeaderSize  = 64
	elfSectionSize = 64 // minimum e_shentsize
	elfSymbolSize  = 24
	shfCompressed  = 0x800
	stFunc         = 2      // STT_FUNC
	shnXindex      = 0xffff // e_shstrndx: the index is in section 0's sh_link
)

// elfSection is one section header.
type elfSection struct {
	name   string
	typ    SectionType
	flags  uint64
	addr   uint64
	offset uint64
	size   uint64
	link   uint32
	header int64 // file offset of the header, for errors
}

// elfFile is an ELF64 little-endian file held in memory.
type elfFile struct {
	data     []byte
	typ      Type
	machine  Machine
	flags    uint32
	sections []elfSection
}

// elfSymbol is one entry of the symbol table.
type elfSymbol struct {
	name    string
	info    uint8
	section uint16 // st_shndx; 0 is SHN_UNDEF
	size    uint64
}

// readELF reads the header and section headers of data. Every error is a
// *FormatError at the offset of the field found wrong.
func readELF(data []byte) (*elfFile, error) {
	if len(data) < elfHeaderSize {
		return nil, &FormatError{0, fmt.Sprintf("%d bytes: shorter than an ELF64 header", len(data))}
	}
	if string(data[:4]) != "\x7fELF" {
		return nil, &FormatError{0, "no ELF magic"}
	}
	if data[4] != 2 {
		return nil, &FormatError{4, fmt.Sprintf("ELF class %d, want 2 (ELFCLASS64)", data[4])}
	}
	if data[5] != 1 {
		return nil, &FormatError{5, fmt.Sprintf("ELF data encoding %d, want 1 (ELFDATA2LSB)", data[5])}
	}
	if data[6] != 1 {
		return nil, &FormatError{6, fmt.Sprintf("ELF version %d, want 1", data[6])}
	}
	le := binary.LittleEndian
	f := &elfFile{
		data:    data,
		typ:     Type(le.Uint16(data[16:])),
		machine: Machine(le.Uint16(data[18:])),
		flags:   le.Uint32(data[48:]),
	}
	shoff := le.Uint64(data[40:])
	shentsize := uint64(le.Uint16(data[58:]))
	shnum := uint64(le.Uint16(data[60:]))
	shstrndx := uint64(le.Uint16(data[62:]))
	if shoff == 0 {
		if shnum != 0 {
			return nil, &FormatError{60, fmt.Sprintf("%d sections without a section header table", shnum)}
		}
		return f, nil
	}
	if shoff > uint64(len(data)) || uint64(len(data))-shoff < elfSectionSize {
		return nil, &FormatError{40, fmt.Sprintf("section headers at %#x, past the end of the file (%d bytes)", shoff, len(data))}
	}
	if shnum == 0 {
		// Extended numbering: the count is section 0's sh_size, the name
		// table's index (if e_shstrndx is SHN_XINDEX) its sh_link.
		s0 := data[shoff:]
		shnum = le.Uint64(s0[32:])
		if shstrndx == shnXindex {
			shstrndx = uint64(le.Uint32(s0[40:]))
		}
	}
	if shentsize < elfSectionSize {
		return nil, &FormatError{58, fmt.Sprintf("e_shentsize %d, want at least %d", shentsize, elfSectionSize)}
	}
	if shnum > (uint64(len(data))-shoff)/shentsize {
		return nil, &FormatError{60, fmt.Sprintf("%d section headers of %d bytes at %#x run past the end of the file (%d bytes)", shnum, shentsize, shoff, len(data))}
	}
	f.sections = make([]elfSection, shnum)
	names := make([]uint32, shnum)
	for i := range f.sections {
		at := shoff + uint64(i)*shentsize
		h := data[at : at+elfSectionSize]
		names[i] = le.Uint32(h[0:])
		f.sections[i] = elfSection{
			typ:    SectionType(le.Uint32(h[4:])),
			flags:  le.Uint64(h[8:]),
			addr:   le.Uint64(h[16:]),
			offset: le.Uint64(h[24:]),
			size:   le.Uint64(h[32:]),
			link:   le.Uint32(h[40:]),
			header: int64(at),
		}
	}
	if shstrndx == 0 || shnum == 0 {
		return f, nil // no section names
	}
	if shstrndx >= shnum {
		return nil, &FormatError{62, fmt.Sprintf("e_shstrndx %d, but %d sections", shstrndx, shnum)}
	}
	strs := &f.sections[shstrndx]
	if strs.typ != SHT_STRTAB {
		return nil, &FormatError{strs.header + 4, fmt.Sprintf("section name table of type %#x, want SHT_STRTAB", uint32(strs.typ))}
	}
	tab, err := f.sectionBytes(strs)
	if err != nil {
		return nil, err
	}
	for i := range f.sections {
		name, ok := cString(tab, names[i])
		if !ok {
			return nil, &FormatError{f.sections[i].header, fmt.Sprintf("section name at %d outside the name table (%d bytes)", names[i], len(tab))}
		}
		f.sections[i].name = name
	}
	return f, nil
}

// sectionBytes returns the bytes of s as a slice of the file (nil for
// SHT_NOBITS and for an empty section: a section of no bytes occupies none
// of the file, wherever its offset points, as debug/elf reads it too).
func (f *elfFile) sectionBytes(s *elfSection) ([]byte, error) {
	if s.typ == SHT_NOBITS || s.size == 0 {
		return nil, nil
	}
	if s.flags&shfCompressed != 0 {
		return nil, &FormatError{s.header + 8, fmt.Sprintf("section %q is compressed (SHF_COMPRESSED: not read)", s.name)}
	}
	n := uint64(len(f.data))
	if s.offset > n || s.size > n-s.offset {
		return nil, &FormatError{s.header + 24, fmt.Sprintf("section %q: %d bytes at %#x run past the end of the file (%d bytes)", s.name, s.size, s.offset, n)}
	}
	return f.data[s.offset : s.offset+s.size], nil
}

// symbols returns the entries of the first SHT_SYMTAB section but the
// first (the null symbol); none if there is no symbol table.
func (f *elfFile) symbols() ([]elfSymbol, error) {
	var tab *elfSection
	for i := range f.sections {
		if f.sections[i].typ == SHT_SYMTAB {
			tab = &f.sections[i]
			break
		}
	}
	if tab == nil {
		return nil, nil
	}
	b, err := f.sectionBytes(tab)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	if len(b)%elfSymbolSize != 0 {
		return nil, &FormatError{tab.header + 32, fmt.Sprintf("symbol table of %d bytes, not a multiple of %d", len(b), elfSymbolSize)}
	}
	if tab.link == 0 || uint64(tab.link) >= uint64(len(f.sections)) {
		return nil, &FormatError{tab.header + 40, fmt.Sprintf("symbol table's string table %d, but %d sections", tab.link, len(f.sections))}
	}
	strs, err := f.sectionBytes(&f.sections[tab.link])
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	syms := make([]elfSymbol, 0, len(b)/elfSymbolSize-1)
	for b = b[elfSymbolSize:]; len(b) > 0; b = b[elfSymbolSize:] {
		name, _ := cString(strs, le.Uint32(b[0:])) // a bad name reads as "", as with debug/elf
		syms = append(syms, elfSymbol{name: name, info: b[4], section: le.Uint16(b[6:]), size: le.Uint64(b[16:])})
	}
	return syms, nil
}

// cString returns the NUL-terminated string at tab[at:]; false if it does
// not start and end inside tab.
func cString(tab []byte, at uint32) (string, bool) {
	if uint64(at) >= uint64(len(tab)) {
		return "", false
	}
	for end := int(at); end < len(tab); end++ {
		if tab[end] == 0 {
			return string(tab[at:end]), true
		}
	}
	return "", false
}
