#!/usr/bin/env bash
# README command 1: install what is missing, build ljcore, and analyze the
# example core bundled in testdata/example (a LuaJIT process that died in an
# FFI call; the core is zstd-compressed, as systemd-coredump stores them).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/bootstrap.sh"
"$root/tools/build.sh"
ex=$root/testdata/example
exec "$root/build/cmake/ljcore" analyze --exe "$ex/luajit" "$ex/core.zst"
