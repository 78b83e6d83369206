#!/usr/bin/env bash
# Configures and builds ljcore into build/cmake (and, with --asan, also into
# build/asan with AddressSanitizer + UBSan). Incremental: reruns are quick.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc)

build() { # DIR CMAKE-ARGS...
  local dir=$1; shift
  cmake -S "$root" -B "$root/build/$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$root/build/$dir" -j "$jobs"
}

build cmake
[[ ${1:-} == --asan ]] && build asan -DLJCORE_SANITIZE=ON
exit 0
