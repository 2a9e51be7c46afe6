// Package zebin reads Intel GPU device binaries in the zebin format (an ELF64
// file with e_machine EM_INTELGT = 205): the kernels' ISA, the
// .note.intelgt.compat notes that identify the target, and the GPU addresses
// recorded in the "debug zebin" that zetModuleGetDebugInfo returns.
//
// Place in the pipeline: the layer captures each module's native binary
// (zeModuleGetNativeBinary) and debug zebin (zetModuleGetDebugInfo) into the
// output stream. Two users read them with this package: package collector,
// inside the profiled process, for each kernel's exact ISA size when the
// driver does not report it (the attribution ranges of package eustall); and
// the CLI (cmd/zestall), offline, for the kernels' code, the IGA platform it
// disassembles with, and whether sampled offsets fall on instruction
// boundaries ([InstructionOffsets]). Source lines come from package
// dwarfline, which reads the same debug zebin.
//
// # Layout
//
// docs/eu-stall-sampling.md §9.2 "zeModuleGetNativeBinary and the zebin format"
// and §9.3 "zetModuleGetDebugInfo returns a linked debug zebin": each kernel is
// a section
// ".text.<kernel name>", whose size (including the padding IGC appends after
// the last instruction) is what zeKernelGetBinaryExp reports; the FUNC symbol
// of the same name gives the size up to the end of the last instruction. In a
// debug zebin (e_type ET_EXEC) the same sections carry the kernel's GPU
// virtual address in sh_addr. The notes (owner "IntelGT") carry the product
// family, the GFX core family, target metadata, the zebin version, the vISA
// ABI version and the product configuration. Debian's IGC 1.0.12504 writes a
// GFX core family of 0; [IGAPlatformFor] then falls back to the product
// family.
//
// # Errors
//
// Structural problems yield a [*FormatError] with the byte offset in the file.
// Malformed notes do not make the file unusable: [Parse] then returns the
// File, with the notes decoded up to the problem, together with the error.
//
// # Security
//
// The binaries come from the profiled process or from a file and must be
// treated as untrusted. The package reads the ELF structure itself (elf.go:
// the header, section headers and names, the symbol table; not debug/elf,
// which would bring debug/dwarf and three decompressors into
// libzestall.so) and bounds-checks everything it decodes (ELF tables,
// notes, instruction walks), never sizes an allocation from a length field
// beyond the data present, and converts a panic, which would be a bug,
// into a FormatError. The package is fuzzed (FuzzParse, FuzzELFReader,
// which also holds the ELF reader to debug/elf's reading of the same
// bytes, FuzzInstructionOffsets).
package zebin
