#!/usr/bin/env bash
# Configures and builds everything into build/ (see CMakeLists.txt for the
# fixed layout). Extra arguments go to the CMake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j"$(nproc)"
