// Package format holds no code: its sub-packages decode the file formats
// zestall meets, each in the style of debug/dwarf and debug/elf
// (bounds-checked, errors that carry their byte offset, fuzz targets, a
// # Security paragraph):
//
//   - [github.com/zestall/zestall/format/zebin]: Intel GPU device binaries
//     (kernels, notes, instruction boundaries); used by the collector and
//     the CLI.
//   - [github.com/zestall/zestall/format/eustall]: raw EU-stall sampling
//     records; used by the collector.
//   - [github.com/zestall/zestall/format/dwarfline]: DWARF line tables of a
//     debug zebin; used by the CLI.
//
// Everything here is pure Go (CGO_ENABLED=0) and reads untrusted input.
// zestall's own output stream has its reader in proto/stream.
package format
