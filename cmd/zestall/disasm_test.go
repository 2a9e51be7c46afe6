package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zestall/zestall/format/zebin"
)

// TestDisassembleRealKernels: IGA's disassembly of every kernel Debian's
// compiler built (test/kernels) agrees with the zebin: one instruction at
// each offset the compaction bit gives (8 or 16 bytes), ending exactly at
// the FUNC symbol's size, the last one the EOT send, every instruction with
// text.
func TestDisassembleRealKernels(t *testing.T) {
	t.Setenv(helperEnv, igaHelper(t))
	files, err := filepath.Glob(filepath.Join(sources, "*.zebin"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no kernels in %s: %v", sources, err)
	}
	var stderr bytes.Buffer
	d := newDisassembler(&stderr)
	defer d.close()
	kernels := 0
	for _, path := range files {
		if strings.HasSuffix(path, ".raw.zebin") {
			continue
		}
		f, err := zebin.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		plat, err := f.IGAPlatform()
		if err != nil || plat != zebin.IGA_XE_HPC {
			t.Fatalf("%s: platform %v, %v (the kernels are built for PVC)", path, plat, err)
		}
		for _, k := range f.Kernels {
			kernels++
			code := k.Data[:k.CodeSize]
			insts, err := d.disassemble(plat, code)
			if err != nil {
				t.Fatalf("%s %s: %v", path, k.Name, err)
			}
			offs, err := k.InstructionOffsets()
			if err != nil {
				t.Fatal(err)
			}
			if len(insts) != len(offs) {
				t.Errorf("%s %s: IGA finds %d instructions, the compaction bits %d", path, k.Name, len(insts), len(offs))
				continue
			}
			end := 0
			for i, in := range insts {
				if in.off != offs[i] || in.off != end || (in.size != 8 && in.size != 16) || in.text == "" {
					t.Errorf("%s %s: instruction %d at %d size %d %q; want offset %d", path, k.Name, i, in.off, in.size, in.text, offs[i])
				}
				if compacted := strings.Contains(in.text, "Compacted"); compacted != (in.size == 8) {
					t.Errorf("%s %s %#x: size %d but text %q", path, k.Name, in.off, in.size, in.text)
				}
				end = in.off + in.size
			}
			if end != int(k.CodeSize) || !strings.Contains(insts[len(insts)-1].text, "EOT") {
				t.Errorf("%s %s: ends at %d (code size %d) with %q", path, k.Name, end, k.CodeSize, insts[len(insts)-1].text)
			}
			t.Logf("%s %s: %d instructions, %d bytes", filepath.Base(path), k.Name, len(insts), end)
		}
	}
	if kernels < 8 {
		t.Errorf("%d kernels checked, want the 8 of test/kernels", kernels)
	}
	// A platform IGA does not know is a per-kernel error, said once;
	// the helper carries on.
	if _, err := d.disassemble(zebin.IGAPlatform(0x7f000000), []byte{0, 0, 0, 0, 0, 0, 0, 0}); err == nil {
		t.Error("no error for an unknown platform")
	}
	if _, err := d.disassemble(zebin.IGAPlatform(0x7f000000), []byte{0, 0, 0, 0, 0, 0, 0, 0}); err == nil {
		t.Error("no error for an unknown platform (second time)")
	}
	if n := strings.Count(stderr.String(), "no disassembly"); n != 1 {
		t.Errorf("told %d times: %q", n, stderr.String())
	}
	f, _ := zebin.Open(files[0])
	if insts, err := d.disassemble(zebin.IGA_XE_HPC, f.Kernels[0].Data[:f.Kernels[0].CodeSize]); err != nil || len(insts) == 0 {
		t.Errorf("after an error: %d instructions, %v", len(insts), err)
	}
}
