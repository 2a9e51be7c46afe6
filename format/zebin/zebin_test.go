package zebin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"testing"
)

const realZebin = "testdata/t_XE_HPC_COREpvc.bin"

func readReal(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(realZebin)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Instruction offsets of the two kernels as printed by IGA (libiga64 from
// Debian's libigdfcl-dev 1.0.12504.6, kv_create(IGA_XE_HPC) then
// kv_get_inst_size from pc 0 on the raw .text.<kernel> bytes), up to and
// including the EOT send (opgroup 6) at 0x180 and 0x1b8.
var igaOffsets = map[string][]int{
	"stream_triad": {
		0x000, 0x010, 0x020, 0x030, 0x040, 0x050, 0x060, 0x070, 0x080, 0x090, 0x0a0, 0x0a8, 0x0b8, 0x0c0,
		0x0c8, 0x0d0, 0x0d8, 0x0e0, 0x0f0, 0x0f8, 0x100, 0x108, 0x110, 0x118, 0x120, 0x128, 0x130, 0x140,
		0x150, 0x158, 0x160, 0x168, 0x170, 0x180,
	},
	"compute_loop": {
		0x000, 0x010, 0x020, 0x030, 0x040, 0x050, 0x060, 0x070, 0x080, 0x090, 0x0a0, 0x0a8, 0x0b8, 0x0c8,
		0x0d8, 0x0e8, 0x0f0, 0x0f8, 0x100, 0x108, 0x110, 0x118, 0x128, 0x138, 0x148, 0x150, 0x158, 0x168,
		0x170, 0x180, 0x190, 0x1a0, 0x1b0, 0x1b8,
	},
}

func TestParseReal(t *testing.T) {
	f, err := Parse(readReal(t))
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != ET_REL || f.Machine != EM_INTELGT || f.IsDebug() {
		t.Errorf("type %v machine %v", f.Type, f.Machine)
	}
	want := []struct {
		name               string
		section            int
		size, code, offset int
	}{
		{"stream_triad", 1, 0x240, 400, 0x40},
		{"compute_loop", 2, 0x280, 456, 0x280},
	}
	if len(f.Kernels) != len(want) {
		t.Fatalf("%d kernels: %+v", len(f.Kernels), f.Kernels)
	}
	for i, w := range want {
		k := f.Kernels[i]
		if k.Name != w.name || k.Section != w.section || k.Size != uint64(w.size) || k.CodeSize != uint64(w.code) ||
			!k.HasCodeSize || k.Offset != int64(w.offset) || len(k.Data) != w.size || k.Addr != 0 {
			t.Errorf("kernel %d = %+v, want %+v", i, k, w)
		}
		offs, err := k.InstructionOffsets()
		if err != nil || !slices.Equal(offs, igaOffsets[k.Name]) {
			t.Errorf("%s: InstructionOffsets = %#x, %v\nIGA: %#x", k.Name, offs, err, igaOffsets[k.Name])
		}
		if f.Kernel(w.name) != &f.Kernels[i] {
			t.Errorf("Kernel(%q) not found", w.name)
		}
	}
	if f.Kernel("nope") != nil {
		t.Error("Kernel(nope) found")
	}
	c := f.Compat
	if c.ProductFamily != ProductPVC || c.GfxCore != 0 || c.TargetMetadata != 0x00270700 || c.ZebinVersion != "1.20" ||
		!c.Has[NoteProductFamily] || !c.Has[NoteGfxCore] || !c.Has[NoteTargetMetadata] || !c.Has[NoteZebinVersion] ||
		c.Has[NoteVISAABIVersion] || c.Has[NoteProductConfig] || len(c.Other) != 0 {
		t.Errorf("compat = %+v", c)
	}
	// Debian's IGC writes gfxCore 0: the product family decides.
	if p, err := f.IGAPlatform(); p != IGA_XE_HPC || err != nil {
		t.Errorf("IGAPlatform = %v, %v", p, err)
	}
	addrs := f.KernelAddresses()
	if len(addrs) != 2 || addrs["stream_triad"] != 0 || addrs["compute_loop"] != 0 {
		t.Errorf("KernelAddresses = %v", addrs)
	}
}

func TestOpen(t *testing.T) {
	f, err := Open(realZebin)
	if err != nil || len(f.Kernels) != 2 {
		t.Fatalf("Open: %v", err)
	}
	b := readReal(t)
	f, err = NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(f.Kernels) != 2 {
		t.Fatalf("NewFile: %v", err)
	}
	if _, err := Open("testdata/does-not-exist"); err == nil {
		t.Fatal("Open of a missing file succeeded")
	}
}

// shdr returns the file offset of section header i of an ELF64 image.
func shdr(b []byte, i int) int {
	shoff := binary.LittleEndian.Uint64(b[0x28:])
	shentsize := binary.LittleEndian.Uint16(b[0x3a:])
	return int(shoff) + i*int(shentsize)
}

// TestDebugZebin turns the real zebin into the shape of a debug zebin
// (ET_EXEC, sh_addr = GPU address of each kernel) and checks the addresses.
func TestDebugZebin(t *testing.T) {
	b := readReal(t)
	binary.LittleEndian.PutUint16(b[16:], uint16(ET_EXEC))
	binary.LittleEndian.PutUint64(b[shdr(b, 1)+16:], 0x0000_8000_0001_2300)
	binary.LittleEndian.PutUint64(b[shdr(b, 2)+16:], 0x0000_8000_0001_2540)
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !f.IsDebug() {
		t.Error("not a debug zebin")
	}
	want := map[string]uint64{"stream_triad": 0x800000012300, "compute_loop": 0x800000012540}
	got := f.KernelAddresses()
	if len(got) != len(want) || got["stream_triad"] != want["stream_triad"] || got["compute_loop"] != want["compute_loop"] {
		t.Errorf("KernelAddresses = %#x", got)
	}
}

func TestNotAZebin(t *testing.T) {
	b := readReal(t)
	binary.LittleEndian.PutUint16(b[18:], 0xb6)
	_, err := Parse(b)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 18 {
		t.Errorf("e_machine 0xb6: %v", err)
	}
	for _, in := range [][]byte{nil, []byte("\x7fELF"), bytes.Repeat([]byte{0xff}, 64)} {
		if f, err := Parse(in); f != nil || !errors.As(err, &fe) {
			t.Errorf("Parse(%q) = %v, %v", in, f, err)
		}
	}
}

func note(owner string, typ uint32, desc []byte) []byte {
	name := append([]byte(owner), 0)
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, uint32(len(name)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
	b = binary.LittleEndian.AppendUint32(b, typ)
	b = append(b, name...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	b = append(b, desc...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func TestNotes(t *testing.T) {
	good := bytes.Join([][]byte{
		note("IntelGT", NoteProductFamily, u32(ProductBMG)),
		note("IntelGT", NoteGfxCore, u32(GfxCoreXe2HPG)),
		note("IntelGT", NoteTargetMetadata, u32(7)),
		note("IntelGT", NoteZebinVersion, []byte("1.52\x00")),
		note("IntelGT", NoteVISAABIVersion, u32(3)),
		note("IntelGT", NoteProductConfig, u32(0x05004000)),
		note("IntelGT", 9, []byte{1, 2}),
		note("Other", 1, u32(5)),
	}, nil)
	var c Compat
	if err := c.parse(good, 0x100); err != nil {
		t.Fatal(err)
	}
	if c.ProductFamily != ProductBMG || c.GfxCore != GfxCoreXe2HPG || c.TargetMetadata != 7 || c.ZebinVersion != "1.52" ||
		c.VISAABIVersion != 3 || c.ProductConfig != 0x05004000 || len(c.Other) != 2 || c.Other[0].Type != 9 || c.Other[1].Owner != "Other" {
		t.Errorf("compat = %+v", c)
	}
	for typ := 1; typ <= NoteProductConfig; typ++ {
		if !c.Has[typ] {
			t.Errorf("Has[%d] = false", typ)
		}
	}

	// A bad descriptor is located and skipped; later notes are kept.
	pf := note("IntelGT", NoteProductFamily, u32(ProductPVC))
	bad := note("IntelGT", NoteGfxCore, []byte{8, 0xc})
	bad2 := note("IntelGT", NoteZebinVersion, []byte("1.20"))
	md := note("IntelGT", NoteTargetMetadata, u32(0x270700))
	c = Compat{}
	err := c.parse(bytes.Join([][]byte{pf, bad, bad2, md}, nil), 0x1000)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 0x1000+int64(len(pf)) {
		t.Errorf("bad descriptor: %v", err)
	}
	if c.ProductFamily != ProductPVC || c.Has[NoteGfxCore] || c.Has[NoteZebinVersion] || c.TargetMetadata != 0x270700 {
		t.Errorf("after bad descriptor: %+v", c)
	}

	// Sizes running past the section end the walk at a located error.
	trunc := [][]byte{
		pf[:5],
		append(append([]byte{}, pf[:4]...), 0xff, 0xff, 0, 0),
		pf[:len(pf)-2],
	}
	for i, tr := range trunc {
		c = Compat{}
		in := append(append([]byte{}, md...), tr...)
		err := c.parse(in, 0)
		if !errors.As(err, &fe) || fe.Offset < int64(len(md)) || c.TargetMetadata != 0x270700 {
			t.Errorf("truncated %d: %v, %+v", i, err, c)
		}
	}
	// A descriptor ending exactly at the section end without padding is fine.
	c = Compat{}
	v := note("IntelGT", NoteZebinVersion, []byte("1.2\x00\x00"))
	if err := c.parse(v[:len(v)-3], 0); err != nil || c.ZebinVersion != "1.2" {
		t.Errorf("unpadded: %v %+v", err, c)
	}
}

// TestMalformedNotesKeepFile corrupts the note section of the real file: the
// File is still returned with its kernels, and the error is located.
func TestMalformedNotesKeepFile(t *testing.T) {
	b := readReal(t)
	const noteSect = 0x2d34 // .note.intelgt.compat, from readelf -S
	binary.LittleEndian.PutUint32(b[noteSect+4:], 0xffff)
	f, err := Parse(b)
	var fe *FormatError
	if f == nil || len(f.Kernels) != 2 || !errors.As(err, &fe) || fe.Offset != noteSect+20 {
		t.Fatalf("Parse = %v, %v", f, err)
	}
	if _, err := f.IGAPlatform(); err == nil {
		t.Error("IGAPlatform without notes succeeded")
	}
}

func TestIGAPlatformFor(t *testing.T) {
	tests := []struct {
		core, product uint32
		want          IGAPlatform
		ok            bool
	}{
		{0x0c08, 0, IGA_XE_HPC, true},
		{0x0c07, 0, IGA_XE_HPG, true},
		{0x0c05, 0, IGA_XE_HP, true},
		{0x0c09, 0, IGA_XE2, true},
		{0x1e00, 0, IGA_XE3, true},
		{0x0c08, ProductDG2, IGA_XE_HPC, true}, // gfxCore wins
		{0, 0x4f7, IGA_XE_HPC, true},
		{0, 0x4f6, IGA_XE_HPG, true},
		{0, ProductLNL, IGA_XE2, true},
		{0, ProductPTL, IGA_XE3, true},
		{0, 0, IGAUnknown, false},
		{0x0c01, ProductPVC, IGAUnknown, false},
	}
	for _, tc := range tests {
		got, err := IGAPlatformFor(tc.core, tc.product)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("IGAPlatformFor(%#x, %d) = %v, %v", tc.core, tc.product, got, err)
		}
	}
	if IGA_XE_HPC.String() != "xehpc" || int32(IGA_XE_HPC) != 0x01000004 || int32(IGA_XE2) != 0x02000000 {
		t.Error("IGA constants")
	}
}

func TestInstructionOffsets(t *testing.T) {
	c := []byte{0, 0, 0, 0x20, 0, 0, 0, 0} // compacted
	n := make([]byte, 16)                  // native
	isa := bytes.Join([][]byte{c, n, c, n}, nil)
	offs, err := InstructionOffsets(isa, len(isa))
	if err != nil || !slices.Equal(offs, []int{0, 8, 24, 32}) {
		t.Errorf("= %v, %v", offs, err)
	}
	// Code size inside the last instruction.
	offs, err = InstructionOffsets(isa, 40)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 32 || !slices.Equal(offs, []int{0, 8, 24}) {
		t.Errorf("cut: %v, %v", offs, err)
	}
	offs, err = InstructionOffsets(isa[:34], 1000)
	if !errors.As(err, &fe) || fe.Offset != 32 {
		t.Errorf("short: %v, %v", offs, err)
	}
	if offs, err := InstructionOffsets(nil, -5); len(offs) != 0 || err != nil {
		t.Errorf("empty: %v, %v", offs, err)
	}
}
