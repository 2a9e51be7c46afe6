#!/usr/bin/env bash
# Installs exactly the Debian packages zestall needs to build and test.
# Idempotent: installs only what is missing (apt-get update first when it
# installs anything). Needs root or sudo. Used by the README commands and CI.
#
#   libze1 libze-dev      Level-Zero loader 1.8.12 + tracing layer, headers
#   cmake gcc make        the C build (simulated device, sample apps, tests)
#   intel-opencl-icd      ocloc/libocloc: the simulated driver compiles SPIR-V
#                         modules with it, test/kernels/regen.sh regenerates
#                         the checked-in kernels with it
#   libigc1               Intel's IGA (libiga64.so.1): disassembly in the CLI
#                         and instruction checks in tests
#   protobuf-compiler     protoc: checks that proto/zestallpb is up to date
#   python3-protobuf python3-zstandard
#                         the Python example consumer scripts/zestall_read.py
#   binutils              readelf/nm for the driver's export checks
#   openmpi-bin libopenmpi-dev mpich libmpich-dev
#                         two real MPI implementations and their launchers:
#                         the MPI job tests (test/e2e TestMPIJob) build the
#                         MPI app with each one's mpicc and run it under
#                         each one's mpirun/mpiexec
#   chromium              headless browser: cmd/zestall TestHTMLInChromium
#                         renders the page of zestall html and checks its DOM
set -euo pipefail

PACKAGES=(libze1 libze-dev cmake gcc g++ make intel-opencl-icd libigc1
          protobuf-compiler python3-protobuf python3-zstandard python3 binutils
          openmpi-bin libopenmpi-dev mpich libmpich-dev chromium)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present" >&2
fi

# Go: the machine image provides it in /usr/local/go.
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    echo "setup: add /usr/local/go/bin to PATH (scripts do it themselves)" >&2
  else
    echo "setup: Go >= 1.26 is required (https://go.dev/dl); not found" >&2
    exit 1
  fi
fi
