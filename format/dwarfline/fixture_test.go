package dwarfline

// Test fixture: a debug zebin built from real compiler output.
//
// testdata/leg_XE_HPC_COREpvc.dbg is the legacy (pre-zebin) debug container
// Debian's ocloc writes next to a patch-token binary (see testdata/README.md):
//
//	7 × u32 header {magic "CTNI", version, size, device, stepping, ptrsize, numKernels}
//	per kernel: u32 nameSize, u32 visaDbgSize, u32 genIsaDbgSize, name (nameSize
//	bytes, NUL-padded), visaDbgSize bytes of an ELF64 with .text and DWARF 4
//	sections, genIsaDbgSize bytes (0 here)
//
// buildDebugZebin links the per-kernel ELFs the way the driver's
// createDebugZebin does (docs/eu-stall-sampling.md §9.3 "zetModuleGetDebugInfo
// returns a linked debug zebin" and §9.4 "DWARF organisation"): one ET_EXEC ELF
// with e_machine
// EM_INTELGT, a ".text.<kernel>" section per kernel with sh_addr = the kernel's
// GPU address, one set of .debug_* sections holding one compile unit and one
// line program per kernel, and the .rela.debug_line relocations applied in
// place (R_ZE_SYM_ADDR = 1: 64-bit S + A; R_ZE_SYM_ADDR_32 = 2: low 32 bits).

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"testing"
)

type legacyKernel struct {
	name string
	elf  []byte
}

// parseLegacyDbg splits the .dbg container into per-kernel debug ELFs.
func parseLegacyDbg(b []byte) ([]legacyKernel, error) {
	le := binary.LittleEndian
	if len(b) < 28 || string(b[:4]) != "CTNI" {
		return nil, fmt.Errorf("not a CTNI container")
	}
	n := le.Uint32(b[24:])
	off := 28
	var ks []legacyKernel
	for i := uint32(0); i < n; i++ {
		if len(b)-off < 12 {
			return nil, fmt.Errorf("truncated kernel header at %d", off)
		}
		ns, vs, gs := int(le.Uint32(b[off:])), int(le.Uint32(b[off+4:])), int(le.Uint32(b[off+8:]))
		off += 12
		if ns < 0 || vs < 0 || gs < 0 || len(b)-off < ns+vs+gs {
			return nil, fmt.Errorf("truncated kernel %d at %d", i, off)
		}
		name := string(bytes.TrimRight(b[off:off+ns], "\x00"))
		off += ns
		ks = append(ks, legacyKernel{name, b[off : off+vs]})
		off += vs + gs
	}
	return ks, nil
}

func uleb(b []byte, off *int) uint64 {
	var v uint64
	var s uint
	for {
		c := b[*off]
		*off++
		v |= uint64(c&0x7f) << s
		if c&0x80 == 0 {
			return v
		}
		s += 7
	}
}

// cuAttrOffsets walks the first compile unit DIE of a DWARF 4 (32-bit)
// .debug_info and returns the offsets of its DW_AT_stmt_list and DW_AT_low_pc
// values. It knows only the forms these files use.
func cuAttrOffsets(t testing.TB, info, abbrev []byte) (stmtList, lowPC int) {
	t.Helper()
	if binary.LittleEndian.Uint16(info[4:]) != 4 || binary.LittleEndian.Uint32(info[6:]) != 0 || info[10] != 8 {
		t.Fatalf("unexpected CU header % x", info[:11])
	}
	off := 11
	code := uleb(info, &off)
	// Find the abbreviation.
	ao := 0
	for {
		c := uleb(abbrev, &ao)
		if c == 0 {
			t.Fatalf("abbrev %d not found", code)
		}
		uleb(abbrev, &ao) // tag
		ao++              // children
		if c == code {
			break
		}
		for {
			a, f := uleb(abbrev, &ao), uleb(abbrev, &ao)
			if a == 0 && f == 0 {
				break
			}
		}
	}
	stmtList, lowPC = -1, -1
	for {
		a, f := uleb(abbrev, &ao), uleb(abbrev, &ao)
		if a == 0 && f == 0 {
			return stmtList, lowPC
		}
		switch a {
		case 0x10: // DW_AT_stmt_list
			stmtList = off
		case 0x11: // DW_AT_low_pc
			lowPC = off
		}
		switch f {
		case 0x08: // string
			off += bytes.IndexByte(info[off:], 0) + 1
		case 0x0b: // data1
			off++
		case 0x05: // data2
			off += 2
		case 0x06, 0x17, 0x0e, 0x13: // data4, sec_offset, strp, ref4
			off += 4
		case 0x07, 0x01: // data8, addr
			off += 8
		case 0x19: // flag_present
		case 0x0f, 0x0d: // udata, sdata
			uleb(info, &off)
		default:
			t.Fatalf("form %#x not handled", f)
		}
	}
}

type section struct {
	name  string
	typ   elf.SectionType
	flags elf.SectionFlag
	addr  uint64
	data  []byte
}

// writeELF writes a minimal ELF64 little-endian file: header, section data,
// .shstrtab, section headers.
func writeELF(typ elf.Type, machine elf.Machine, secs []section) []byte {
	le := binary.LittleEndian
	shstr := []byte{0}
	nameOff := make([]int, len(secs))
	for i, s := range secs {
		nameOff[i] = len(shstr)
		shstr = append(append(shstr, s.name...), 0)
	}
	shstrName := len(shstr)
	shstr = append(append(shstr, ".shstrtab"...), 0)

	out := make([]byte, 64)
	offs := make([]int, len(secs))
	for i, s := range secs {
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		offs[i] = len(out)
		out = append(out, s.data...)
	}
	shstrOff := len(out)
	out = append(out, shstr...)
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := len(out)
	shdr := func(name uint32, typ elf.SectionType, flags elf.SectionFlag, addr uint64, off, size int) {
		h := make([]byte, 64)
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], uint32(typ))
		le.PutUint64(h[8:], uint64(flags))
		le.PutUint64(h[16:], addr)
		le.PutUint64(h[24:], uint64(off))
		le.PutUint64(h[32:], uint64(size))
		le.PutUint64(h[48:], 1)
		out = append(out, h...)
	}
	shdr(0, elf.SHT_NULL, 0, 0, 0, 0)
	for i, s := range secs {
		shdr(uint32(nameOff[i]), s.typ, s.flags, s.addr, offs[i], len(s.data))
	}
	shdr(uint32(shstrName), elf.SHT_STRTAB, 0, 0, shstrOff, len(shstr))

	copy(out, []byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)})
	le.PutUint16(out[16:], uint16(typ))
	le.PutUint16(out[18:], uint16(machine))
	le.PutUint32(out[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(out[40:], uint64(shoff))
	le.PutUint16(out[52:], 64)                  // e_ehsize
	le.PutUint16(out[58:], 64)                  // e_shentsize
	le.PutUint16(out[60:], uint16(len(secs)+2)) // e_shnum
	le.PutUint16(out[62:], uint16(len(secs)+1)) // e_shstrndx
	return out
}

// Kernel GPU addresses of the fixture: PVC-like decanonized ISA-heap
// addresses (docs/eu-stall-sampling.md §8.1 "What the driver provides" and
// §8.2 "Canonical rule and worked example"), back to back with a 64-byte
// alignment.
var fixtureVA = map[string]uint64{
	"stream_triad": 0x0000_8000_0001_2300,
	"compute_loop": 0x0000_8000_0001_2540,
}

func sectionBytes(t testing.TB, f *elf.File, name string) []byte {
	t.Helper()
	s := f.Section(name)
	if s == nil {
		return nil
	}
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), b...)
}

// buildDebugZebin returns the fixture debug zebin built from the legacy .dbg
// and the per-kernel ELFs (in container order).
func buildDebugZebin(t testing.TB) ([]byte, []legacyKernel) {
	t.Helper()
	raw, err := os.ReadFile("testdata/leg_XE_HPC_COREpvc.dbg")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := parseLegacyDbg(raw)
	if err != nil || len(ks) != 2 {
		t.Fatalf("parseLegacyDbg: %d kernels, %v", len(ks), err)
	}
	le := binary.LittleEndian
	var texts []section
	var info, abbrev, line, str []byte
	for _, k := range ks {
		f, err := elf.NewFile(bytes.NewReader(k.elf))
		if err != nil {
			t.Fatal(err)
		}
		va := fixtureVA[k.name]
		text := sectionBytes(t, f, ".text")
		ki, ka, kl := sectionBytes(t, f, ".debug_info"), sectionBytes(t, f, ".debug_abbrev"), sectionBytes(t, f, ".debug_line")
		if f.Section(".rela.debug_info") != nil {
			t.Fatal("unexpected .rela.debug_info")
		}
		// Apply .rela.debug_line: every relocation targets the kernel's
		// .text, which now lives at va.
		syms, err := f.Symbols()
		if err != nil {
			t.Fatal(err)
		}
		rela := sectionBytes(t, f, ".rela.debug_line")
		for o := 0; o+24 <= len(rela); o += 24 {
			off, inf, add := le.Uint64(rela[o:]), le.Uint64(rela[o+8:]), int64(le.Uint64(rela[o+16:]))
			sym := syms[elf.R_SYM64(inf)-1]
			if f.Sections[sym.Section].Name != ".text" {
				t.Fatalf("relocation against %v", sym)
			}
			v := va + sym.Value + uint64(add)
			switch elf.R_TYPE64(inf) {
			case 1:
				le.PutUint64(kl[off:], v)
			case 2:
				le.PutUint32(kl[off:], uint32(v))
			default:
				t.Fatalf("relocation type %d", elf.R_TYPE64(inf))
			}
		}
		// Concatenate: point the CU at its abbreviations and line program,
		// and give it its kernel's address.
		stmt, low := cuAttrOffsets(t, ki, ka)
		if stmt < 0 || low < 0 {
			t.Fatal("CU without stmt_list or low_pc")
		}
		le.PutUint32(ki[6:], uint32(len(abbrev)))
		le.PutUint32(ki[stmt:], uint32(len(line)))
		le.PutUint64(ki[low:], va)
		info, abbrev, line = append(info, ki...), append(abbrev, ka...), append(line, kl...)
		str = append(str, sectionBytes(t, f, ".debug_str")...)
		texts = append(texts, section{".text." + k.name, elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_EXECINSTR, va, text})
	}
	secs := append(texts,
		section{".debug_info", elf.SHT_PROGBITS, 0, 0, info},
		section{".debug_abbrev", elf.SHT_PROGBITS, 0, 0, abbrev},
		section{".debug_line", elf.SHT_PROGBITS, 0, 0, line},
		section{".debug_str", elf.SHT_PROGBITS, 0, 0, str},
	)
	return writeELF(elf.ET_EXEC, 205, secs), ks
}
