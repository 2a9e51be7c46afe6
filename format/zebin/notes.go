package zebin

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// NoteOwner is the owner name of the IntelGT notes.
const NoteOwner = "IntelGT"

// Note types of .note.intelgt.compat (compute-runtime zebin_elf.h,
// IntelGTSectionType).
const (
	NoteProductFamily  = 1 // u32 PRODUCT_FAMILY (IGFX_PVC = 1271, ...)
	NoteGfxCore        = 2 // u32 GFXCORE_FAMILY (IGFX_XE_HPC_CORE = 0x0c08, ...); 0 from old IGCs
	NoteTargetMetadata = 3 // u32 TargetMetadata bit field
	NoteZebinVersion   = 4 // NUL-terminated version string, e.g. "1.20"
	NoteVISAABIVersion = 5 // u32 vISA ABI version
	NoteProductConfig  = 6 // u32 AOT product configuration (IP version)
)

// Note is one raw ELF note.
type Note struct {
	Owner  string
	Type   uint32
	Desc   []byte
	Offset int64 // file offset of the note header
}

// Compat holds the decoded IntelGT compatibility notes. A field whose note is
// absent is zero; Has tells which notes were present.
type Compat struct {
	ProductFamily  uint32
	GfxCore        uint32
	TargetMetadata uint32
	ZebinVersion   string
	VISAABIVersion uint32
	ProductConfig  uint32
	// Has[t] reports whether a well-formed note of type t (1..6) was seen.
	Has [NoteProductConfig + 1]bool
	// Other holds IntelGT notes of other types and notes of other owners.
	Other []Note
}

// noteReader is a bounds-checked little-endian reader over a note section in
// the style of debug/dwarf's buf: the first failed read records one located
// FormatError and later reads return zero.
type noteReader struct {
	data []byte
	base int64 // file offset of data[0]
	off  int
	err  error
}

func (r *noteReader) fail(at int, format string, args ...any) {
	if r.err == nil {
		r.err = &FormatError{r.base + int64(at), fmt.Sprintf(format, args...)}
	}
	r.off = len(r.data)
}

func (r *noteReader) u32(what string) uint32 {
	if r.err != nil {
		return 0
	}
	if len(r.data)-r.off < 4 {
		r.fail(r.off, "note %s: truncated", what)
		return 0
	}
	v := binary.LittleEndian.Uint32(r.data[r.off:])
	r.off += 4
	return v
}

// bytes returns the next n bytes and skips the padding to a 4-byte boundary.
// A missing final padding at the end of the section is tolerated.
func (r *noteReader) bytes(n uint32, what string) []byte {
	if r.err != nil {
		return nil
	}
	if uint64(n) > uint64(len(r.data)-r.off) {
		r.fail(r.off, "note %s of %d bytes runs past the end of the section (%d bytes left)", what, n, len(r.data)-r.off)
		return nil
	}
	b := r.data[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	r.off = min(len(r.data), (r.off+3)&^3)
	return b
}

// parse decodes the notes of a .note.intelgt.compat section at file offset
// base. It keeps going past a note with a bad descriptor; a note whose sizes
// run past the section ends the walk. It returns the first error.
func (c *Compat) parse(data []byte, base int64) error {
	r := noteReader{data: data, base: base}
	var firstErr error
	for r.err == nil && r.off < len(r.data) {
		at := r.off
		namesz := r.u32("namesz")
		descsz := r.u32("descsz")
		typ := r.u32("type")
		name := r.bytes(namesz, "name")
		desc := r.bytes(descsz, "descriptor")
		if r.err != nil {
			break
		}
		owner := string(bytes.TrimRight(name, "\x00"))
		n := Note{Owner: owner, Type: typ, Desc: desc, Offset: base + int64(at)}
		if owner != NoteOwner || typ == 0 || typ > NoteProductConfig {
			c.Other = append(c.Other, n)
			continue
		}
		if err := c.set(n); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = r.err
	}
	return firstErr
}

func (c *Compat) set(n Note) error {
	if n.Type == NoteZebinVersion {
		i := bytes.IndexByte(n.Desc, 0)
		if i < 0 {
			return &FormatError{n.Offset, "zebin version note: string not NUL-terminated"}
		}
		c.ZebinVersion = string(n.Desc[:i])
		c.Has[n.Type] = true
		return nil
	}
	if len(n.Desc) != 4 {
		return &FormatError{n.Offset, fmt.Sprintf("IntelGT note type %d: descriptor of %d bytes, want 4", n.Type, len(n.Desc))}
	}
	v := binary.LittleEndian.Uint32(n.Desc)
	switch n.Type {
	case NoteProductFamily:
		c.ProductFamily = v
	case NoteGfxCore:
		c.GfxCore = v
	case NoteTargetMetadata:
		c.TargetMetadata = v
	case NoteVISAABIVersion:
		c.VISAABIVersion = v
	case NoteProductConfig:
		c.ProductConfig = v
	}
	c.Has[n.Type] = true
	return nil
}
