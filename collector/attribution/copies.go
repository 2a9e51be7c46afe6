package attribution

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"github.com/zestall/zestall/format/zebin"
)

// Launch separation by copies (issue 15).
//
// EU stall samples carry an instruction address and nothing else, so
// read windows alone cannot split the samples of back-to-back or
// overlapping launches of one kernel. With ZESTALL_SEPARATE_LAUNCHES=copies
// the layer creates, per eligible module, a ring of copies from the
// module's native binary (each zeModuleCreate gets its own ISA
// allocation at its own address) and the launch prologue gives
// consecutive launches of a kernel the next code in the ring: the
// original, copy 1, ..., copy n, the original again. A sample's address
// then names the code, and read windows only decide between launches of
// one code, which are n+1 launches apart.
//
// The attributor knows each copy as a kernel of its own whose id is
// CodeID(kernel, copy): its address range is the copy's, its launches are
// the launches that ran the copy (Launch.code_copy), and its rows are
// reported under the original kernel's id at the same offsets (copies
// are byte-identical, so offsets, debug information and disassembly are
// the original's). Kernel-level totals are therefore unchanged.

// codeCopyShift places the copy number above the 32-bit kernel ids the
// launch path assigns.
const codeCopyShift = 32

// CodeID is the attributor's id for copy `copy` (1..n) of kernel
// kernelID's code; CodeID(k, 0) is k itself. Kernel ids are below 2^32.
func CodeID(kernelID uint64, copy uint32) uint64 {
	return kernelID | uint64(copy)<<codeCopyShift
}

// reportedID is the kernel id a code's rows are reported under.
func reportedID(codeID uint64) uint64 { return codeID & (1<<codeCopyShift - 1) }

// Eligibility is what CopyEligibility found in a module's native binary.
type Eligibility struct {
	// Reason is why the module must not be copied; "" when it may.
	Reason string
	// ISABytes is the size of its kernels' code sections: the device
	// memory one copy's ISA takes (before the driver's own alignment).
	ISABytes uint64
}

// CopyEligibility decides from a module's native binary (the zebin of
// zeModuleGetNativeBinary) whether copies of it behave like the module
// itself. A copy is a separate module: anything whose identity is per
// module would be duplicated or split, and the application would see it.
// Not copied, each with its reason:
//
//   - writable program-scope globals (.data.global, .bss.global): every
//     copy would have its own variables;
//   - a host access table (.ze_info global_host_access_table): the host
//     reaches the module's globals by name (zeModuleGetGlobalPointer,
//     SYCL device_global);
//   - function pointers or indirect calls (.ze_info has_indirect_calls,
//     exported functions): a function's address is the module's;
//   - undefined symbols: the module needs dynamic linking
//     (zeModuleDynamicLink) with modules zestall does not copy;
//   - a binary that is missing or unreadable.
//
// Read-only data (.data.const) is harmless to duplicate.
func CopyEligibility(native []byte) Eligibility {
	if len(native) == 0 {
		return Eligibility{Reason: "no native binary"}
	}
	f, err := zebin.Parse(native)
	if f == nil {
		return Eligibility{Reason: "native binary unreadable: " + err.Error()}
	}
	var e Eligibility
	for _, k := range f.Kernels {
		e.ISABytes += k.Size
	}
	for _, name := range f.Sections {
		switch {
		case name == ".data.global" || name == ".bss.global":
			e.Reason = "writable program-scope globals (" + name + ")"
			return e
		}
	}
	if r := zeInfoReason(f.ZeInfo); r != "" {
		e.Reason = r
		return e
	}
	if len(f.Undefined) > 0 {
		n := min(len(f.Undefined), 3)
		e.Reason = fmt.Sprintf("dynamic linking (undefined symbols: %s%s)", strings.Join(f.Undefined[:n], ", "),
			map[bool]string{true: ", ...", false: ""}[len(f.Undefined) > n])
		return e
	}
	return e
}

// zeInfoReason looks for the .ze_info keys that forbid copying. .ze_info
// is YAML written by IGC with one key per line; a key is matched at any
// indentation, its value after the colon.
func zeInfoReason(zeInfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(zeInfo))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.TrimPrefix(key, "- ")
		val = strings.TrimSpace(val)
		switch key {
		case "global_host_access_table":
			return "host access table (.ze_info global_host_access_table)"
		case "has_indirect_calls":
			if val == "true" {
				return "function pointers or indirect calls (.ze_info has_indirect_calls)"
			}
		case "functions":
			return "function pointers or indirect calls (.ze_info functions: exported functions)"
		}
	}
	return ""
}
