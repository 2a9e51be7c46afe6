#!/bin/sh
# Regenerates the checked-in test kernels from the OpenCL C sources here.
# Needs Debian 12's intel-opencl-icd (ocloc) and a C compiler with
# libze-dev; see README.md for the exact versions and what each file is.
#
#   test/kernels/regen.sh            (from anywhere)
#
# Idempotent and deterministic: re-running produces byte-identical files.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$here/../sim
# Fixed compile directory: IGC records it as DW_AT_comp_dir, so the debug
# info stays identical whoever regenerates the kernels, from wherever.
work=/tmp/zestall-kernels
base_opts="-g -cl-kernel-arg-info"
kernels="stream compute branchy slm mixed globalvar"

command -v ocloc >/dev/null || { echo "regen.sh: ocloc not found (apt-get install intel-opencl-icd)" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"

# zesim-mergedbg: built here from its sources so that no CMake build
# tree is needed.
${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$src" \
    -o "$work/zesim-mergedbg" "$src/mergedbg_main.c" "$src"/debugzebin_*.c

for x in $kernels; do
    cp "$here/$x.cl" "$work/$x.cl"
    # Program-scope globals need OpenCL C 2.0.
    case $x in globalvar) opts="$base_opts -cl-std=CL2.0" ;; *) opts=$base_opts ;; esac
    (
        cd "$work"
        # zebin (what Intel's driver loads); DWARF only for single-kernel modules
        ocloc compile -q -file "$x.cl" -device pvc -options "$opts" \
            -internal_options "-ze-allow-zebin" -output "$x.z" -output_no_suffix >/dev/null
        # legacy format: its .dbg holds one debug ELF per kernel; also SPIR-V
        ocloc compile -q -file "$x.cl" -device pvc -options "$opts" \
            -output "$x.l" -output_no_suffix >/dev/null
        case $x in
        # IGC compiles a module with program-scope globals differently in
        # its legacy path, so its .dbg cannot be merged: loaded without DWARF.
        globalvar) cp "$x.z" "$x.zebin" ;;
        *) ./zesim-mergedbg "$x.z" "$x.l.dbg" "$x.zebin" ;;
        esac
    )
    cp "$work/$x.z" "$here/$x.raw.zebin"
    cp "$work/$x.l.dbg" "$here/$x.dbg"
    cp "$work/$x.l.spv" "$here/$x.spv"
    cp "$work/$x.zebin" "$here/$x.zebin"
    cmp -s "$work/$x.z.spv" "$work/$x.l.spv" || { echo "regen.sh: $x: SPIR-V differs between the two runs" >&2; exit 1; }
done
(cd "$here" && sha256sum *.cl *.raw.zebin *.dbg *.spv $(for x in $kernels; do echo "$x.zebin"; done)) > "$here/SHA256SUMS"
echo "regen.sh: regenerated $(echo $kernels | wc -w) kernel files in $here"
