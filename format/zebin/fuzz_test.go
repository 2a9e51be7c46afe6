package zebin

import (
	"os"
	"testing"
)

func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile(realZebin); err == nil {
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if file == nil {
			if err == nil {
				t.Fatal("nil File and nil error")
			}
			return
		}
		for _, k := range file.Kernels {
			if uint64(len(k.Data)) != k.Size || k.CodeSize > k.Size {
				t.Fatalf("kernel %q: %d bytes, size %d, code %d", k.Name, len(k.Data), k.Size, k.CodeSize)
			}
			offs, _ := k.InstructionOffsets()
			for i := 1; i < len(offs); i++ {
				if d := offs[i] - offs[i-1]; d != 8 && d != 16 {
					t.Fatalf("instruction step %d", d)
				}
			}
		}
		_, _ = file.IGAPlatform()
		_ = file.KernelAddresses()
	})
}

func FuzzInstructionOffsets(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0x20, 0, 0, 0, 0, 1}, 9)
	f.Fuzz(func(t *testing.T, isa []byte, codeSize int) {
		offs, err := InstructionOffsets(isa, codeSize)
		end := 0
		for _, o := range offs {
			if o != end {
				t.Fatalf("offset %d, want %d", o, end)
			}
			if isa[o+3]&0x20 != 0 {
				end += 8
			} else {
				end += 16
			}
		}
		if err == nil && end != max(0, min(codeSize, len(isa))) {
			t.Fatalf("no error, walk ends at %d", end)
		}
	})
}
