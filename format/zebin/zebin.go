package zebin

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// TextPrefix prefixes the name of each kernel's code section.
const TextPrefix = ".text."

// symbolTableProgram is the pseudo-kernel holding exported functions.
const symbolTableProgram = "Intel_Symbol_Table_Void_Program"

// CompatNoteSection is the section holding the IntelGT compatibility notes.
const CompatNoteSection = ".note.intelgt.compat"

// FormatError reports a malformed zebin, at a byte offset of the file.
type FormatError struct {
	Offset int64  // byte offset in the file
	Msg    string // what is wrong
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("zebin: %s at offset %#x", e.Msg, e.Offset)
}

// Kernel is one kernel's code section.
type Kernel struct {
	Name    string // kernel name: the section name without ".text."
	Section int    // ELF section index
	// Size is the section size, including the padding IGC appends after the
	// last instruction: the size zeKernelGetBinaryExp reports and the extent
	// used for attribution.
	Size uint64
	// CodeSize is the size of the FUNC symbol named Name defined in this
	// section: the end of the last instruction. If there is no such symbol
	// (or it is larger than the section), CodeSize is Size and HasCodeSize is
	// false.
	CodeSize    uint64
	HasCodeSize bool
	// Addr is the section's sh_addr: the kernel's GPU virtual address in a
	// debug zebin, 0 in a native zebin.
	Addr uint64
	// Offset is the section's offset in the file.
	Offset int64
	// Data is the section's bytes (the ISA and its padding).
	Data []byte
}

// InstructionOffsets returns the byte offsets of the kernel's instructions up
// to CodeSize. See the package function InstructionOffsets.
func (k *Kernel) InstructionOffsets() ([]int, error) {
	return InstructionOffsets(k.Data, int(min(k.CodeSize, uint64(len(k.Data)))))
}

// File is a parsed zebin or debug zebin.
type File struct {
	Type    Type     // ET_ZEBIN_EXE, ET_ZEBIN_REL, ET_REL (ocloc), ET_EXEC (debug zebin)
	Machine Machine  // always EM_INTELGT
	Flags   uint32   // e_flags
	Kernels []Kernel // in section order
	Compat  Compat   // the .note.intelgt.compat notes
	// Sections lists every section name in index order, for diagnostics.
	Sections []string
	// ZeInfo is the .ze_info section (IGC's YAML description of the
	// kernels: execution environment, arguments, host access table,
	// exported functions), nil when absent.
	ZeInfo []byte
	// Undefined names the symbols the file uses without defining them:
	// a module with any needs dynamic linking (zeModuleDynamicLink).
	Undefined []string
}

// ZeInfoSection is the section holding IGC's YAML kernel description.
const ZeInfoSection = ".ze_info"

// IsDebug reports whether f is a debug zebin (linked, ET_EXEC): its kernel
// sections carry GPU addresses.
func (f *File) IsDebug() bool { return f.Type == ET_EXEC }

// Kernel returns the kernel called name, or nil.
func (f *File) Kernel(name string) *Kernel {
	for i := range f.Kernels {
		if f.Kernels[i].Name == name {
			return &f.Kernels[i]
		}
	}
	return nil
}

// KernelAddresses maps each kernel name to the sh_addr of its .text.<name>
// section. In a debug zebin (zetModuleGetDebugInfo) that is the kernel's GPU
// virtual address — the same value as zexKernelGetBaseAddress — and the base
// of the absolute addresses in its DWARF (docs/eu-stall-sampling.md §9.3
// "zetModuleGetDebugInfo returns a linked debug zebin"). In a native zebin
// every address is 0.
func (f *File) KernelAddresses() map[string]uint64 {
	m := make(map[string]uint64, len(f.Kernels))
	for _, k := range f.Kernels {
		m[k.Name] = k.Addr
	}
	return m
}

// IGAPlatform returns the IGA platform to disassemble f's kernels with, from
// its notes (see IGAPlatformFor).
func (f *File) IGAPlatform() (IGAPlatform, error) {
	return IGAPlatformFor(f.Compat.GfxCore, f.Compat.ProductFamily)
}

// Open parses the zebin in the named file.
func Open(name string) (*File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// NewFile parses a zebin read from r, which holds size bytes.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	if size < 0 || size > 1<<31 {
		return nil, &FormatError{0, fmt.Sprintf("unreasonable file size %d", size)}
	}
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return Parse(data)
}

// Parse parses a zebin or debug zebin held in memory. Kernel.Data are copies:
// data is not retained.
//
// If the ELF structure is malformed, Parse returns a nil File and a
// *FormatError. If only the notes are malformed, it returns the File, with
// the notes decoded before the problem, and the *FormatError.
func Parse(data []byte) (f *File, err error) {
	defer func() {
		// The reader bounds-checks what it reads; a panic would be a bug
		// of this package, and its callers parse in the application's
		// process.
		if r := recover(); r != nil {
			f, err = nil, &FormatError{0, fmt.Sprintf("malformed ELF (the reader panicked: %v)", r)}
		}
	}()
	ef, err := readELF(data)
	if err != nil {
		return nil, err
	}
	if ef.machine != EM_INTELGT {
		return nil, &FormatError{18, fmt.Sprintf("e_machine %d, want %d (EM_INTELGT)", uint16(ef.machine), uint16(EM_INTELGT))}
	}
	f = &File{Type: ef.typ, Machine: ef.machine, Flags: ef.flags}

	// FUNC symbols by (name, section) for the code sizes.
	type key struct {
		name string
		sect int
	}
	syms, err := ef.symbols()
	if err != nil {
		return nil, err
	}
	funcSize := map[key]uint64{}
	for _, s := range syms {
		if s.info&0xf == stFunc {
			funcSize[key{s.name, int(s.section)}] = s.size
		}
		if s.section == 0 && s.name != "" { // SHN_UNDEF
			f.Undefined = append(f.Undefined, s.name)
		}
	}

	var noteErr error
	for i := range ef.sections {
		s := &ef.sections[i]
		f.Sections = append(f.Sections, s.name)
		switch {
		case strings.HasPrefix(s.name, TextPrefix) && s.typ == SHT_PROGBITS:
			name := s.name[len(TextPrefix):]
			if name == "" || name == symbolTableProgram {
				continue
			}
			b, err := ef.sectionBytes(s)
			if err != nil {
				return nil, err
			}
			k := Kernel{Name: name, Section: i, Size: s.size, CodeSize: s.size, Addr: s.addr, Offset: int64(s.offset), Data: bytes.Clone(b)}
			if cs, ok := funcSize[key{name, i}]; ok && cs <= s.size {
				k.CodeSize, k.HasCodeSize = cs, true
			}
			f.Kernels = append(f.Kernels, k)
		case s.name == ZeInfoSection:
			b, err := ef.sectionBytes(s)
			if err != nil {
				return nil, err
			}
			f.ZeInfo = bytes.Clone(b)
		case s.name == CompatNoteSection && s.typ == SHT_NOTE:
			b, err := ef.sectionBytes(s)
			if err != nil {
				return nil, err
			}
			if err := f.Compat.parse(b, int64(s.offset)); err != nil && noteErr == nil {
				noteErr = err
			}
		}
	}
	return f, noteErr
}

// InstructionOffsets returns the byte offsets of the instructions of a Gen
// ISA stream, from offset 0 up to codeSize: an instruction whose first
// little-endian dword has bit 29 set is compacted (8 bytes), any other is 16
// bytes (docs/eu-stall-sampling.md §11.4 "Observed behaviour"). The offsets are
// ascending; a sampled offset that is
// not among them is not an instruction boundary. If an instruction would run
// past codeSize or past the end of isa, the offsets before it are returned
// with a *FormatError locating it. codeSize is clamped to [0, len(isa)].
func InstructionOffsets(isa []byte, codeSize int) ([]int, error) {
	codeSize = max(0, min(codeSize, len(isa)))
	offs := make([]int, 0, codeSize/12+1)
	for pc := 0; pc < codeSize; {
		if codeSize-pc < 4 {
			return offs, &FormatError{int64(pc), fmt.Sprintf("truncated instruction: %d bytes left", codeSize-pc)}
		}
		n := 16
		if isa[pc+3]&0x20 != 0 { // bit 29 of the little-endian dword
			n = 8
		}
		if codeSize-pc < n {
			return offs, &FormatError{int64(pc), fmt.Sprintf("instruction of %d bytes runs past the code size (%d bytes left)", n, codeSize-pc)}
		}
		offs = append(offs, pc)
		pc += n
	}
	return offs, nil
}
