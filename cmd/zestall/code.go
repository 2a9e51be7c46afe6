package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/zestall/zestall/format/dwarfline"
	"github.com/zestall/zestall/format/zebin"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// kernelCode is what the file holds about one kernel's code: its
// instructions (disassembled, or only their offsets) and its source lines.
type kernelCode struct {
	insts    []instruction    // every instruction; text empty without IGA
	disasm   bool             // insts carry IGA's text
	lines    *dwarfline.Table // nil without debug info
	name     string           // kernel (symbol) name in the module
	platform zebin.IGAPlatform
	why      string // why there is no code or no text, for the views
}

// inst returns the instruction at byte offset off, if off is the start of
// one.
func (c *kernelCode) inst(off uint64) (instruction, bool) {
	i := sort.Search(len(c.insts), func(i int) bool { return c.insts[i].off >= int(off) })
	if i < len(c.insts) && uint64(c.insts[i].off) == off {
		return c.insts[i], true
	}
	return instruction{}, false
}

// line returns the source position of offset off.
func (c *kernelCode) line(off uint64) (dwarfline.Row, bool) {
	if c.lines == nil {
		return dwarfline.Row{}, false
	}
	r, ok := c.lines.LookupKernel(c.name, off)
	return r, ok && r.Line > 0
}

// codeKey names a kernel's code: its content module and its name.
type codeKey struct {
	module uint64
	name   string
}

// codeCache decodes each module's binaries once.
type codeCache struct {
	m     *runModel
	dis   *disassembler
	bins  map[uint64]*zebin.File      // content module id -> native zebin
	lines map[uint64]*dwarfline.Table // content module id -> line table
	code  map[codeKey]*kernelCode
	noIGA bool // disassembly not wanted
	errs  io.Writer
}

func newCodeCache(m *runModel, stderr io.Writer, disassemble bool) *codeCache {
	c := &codeCache{m: m, bins: map[uint64]*zebin.File{}, lines: map[uint64]*dwarfline.Table{},
		code: map[codeKey]*kernelCode{}, noIGA: !disassemble, errs: stderr}
	if disassemble {
		c.dis = newDisassembler(stderr)
	}
	return c
}

func (c *codeCache) close() {
	if c.dis != nil {
		c.dis.close()
	}
}

// lineTable returns the line table of a module's debug info, or nil.
func (c *codeCache) lineTable(mod *pb.Module) *dwarfline.Table {
	if t, ok := c.lines[mod.Id]; ok {
		return t
	}
	var t *dwarfline.Table
	if len(mod.DebugInfo) > 0 {
		var err error
		if t, err = dwarfline.Open(mod.DebugInfo); err != nil {
			fmt.Fprintf(c.errs, "zestall: module %d: no source lines: %v\n", mod.Id, err)
			t = nil
		}
	}
	c.lines[mod.Id] = t
	return t
}

// binary returns the parsed native binary of a module (or its debug zebin,
// which holds the same code, when the native binary is missing), or nil.
func (c *codeCache) binary(mod *pb.Module) *zebin.File {
	if f, ok := c.bins[mod.Id]; ok {
		return f
	}
	var f *zebin.File
	for _, b := range [][]byte{mod.NativeBinary, mod.DebugInfo} {
		if len(b) == 0 {
			continue
		}
		// Malformed notes still leave a usable file (err is then about
		// the notes, and IGAPlatform says the rest).
		if pf, _ := zebin.Parse(b); pf != nil && len(pf.Kernels) > 0 {
			f = pf
			break
		}
	}
	c.bins[mod.Id] = f
	return f
}

// get returns the code of kernel k (never nil).
func (c *codeCache) get(k *pb.Kernel) *kernelCode {
	mod := c.m.moduleContent(k)
	if mod == nil {
		return &kernelCode{name: k.Name, why: "module not in the file"}
	}
	key := codeKey{mod.Id, k.Name}
	if kc, ok := c.code[key]; ok {
		return kc
	}
	kc := &kernelCode{name: k.Name, lines: c.lineTable(mod)}
	c.code[key] = kc
	f := c.binary(mod)
	var zk *zebin.Kernel
	if f != nil {
		zk = f.Kernel(k.Name)
	}
	if zk == nil {
		kc.why = "the module's binary is not in the file"
		if f != nil {
			kc.why = "no section .text." + k.Name + " in the module's binary"
		}
		return kc
	}
	code := zk.Data[:min(zk.CodeSize, uint64(len(zk.Data)))]
	if !c.noIGA {
		plat, err := f.IGAPlatform()
		if err != nil {
			kc.why = err.Error()
		} else if insts, err := c.dis.disassemble(plat, code); err == nil {
			kc.insts, kc.disasm, kc.platform = insts, true, plat
			return kc
		} else {
			kc.why = err.Error()
		}
	}
	offs, _ := zebin.InstructionOffsets(code, len(code))
	for i, o := range offs {
		end := len(code)
		if i+1 < len(offs) {
			end = offs[i+1]
		}
		kc.insts = append(kc.insts, instruction{off: o, size: end - o})
	}
	return kc
}
