#!/usr/bin/env bash
# Builds Tarantool's LuaJIT fork from a checkout of github.com/tarantool/luajit
# (not packaged by Debian bookworm, hence not one of tools/variants.txt) into
# build/luajit/tarantool-<commit>-gc64-{debug,stripped}/src/luajit, as builds
# "made elsewhere" that tools/build-luajit.sh, make-cores.sh and the layout
# tests (layout/builtin_matches_dwarf, layout/derived_matches_dwarf, which
# read every build under build/luajit) take as they are.
# Usage: tools/build-tarantool.sh CHECKOUT    (GC64: the fork's CMake default on
#        x86_64 is 32-bit GC refs, which it enables with -DLUAJIT_ENABLE_GC64=ON)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$(cd "${1:?usage: $0 CHECKOUT}" && pwd)
# The commit names the build; a tarball of one (git archive) has no .git.
commit=$(git -C "$src" rev-parse --short=8 HEAD 2>/dev/null || basename "$src")
debug=$root/build/luajit/tarantool-$commit-gc64-debug
stripped=$root/build/luajit/tarantool-$commit-gc64-stripped
if [[ ! -f $debug/.built ]]; then
  rm -rf "$debug" && mkdir -p "$debug/src"
  cmake -S "$src" -B "$debug/b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLUAJIT_ENABLE_GC64=ON \
    >"$debug/build.log" 2>&1
  cmake --build "$debug/b" -j2 --target luajit_static >>"$debug/build.log" 2>&1 ||
    { tail -30 "$debug/build.log" >&2; echo "build of $debug failed" >&2; exit 1; }
  # Where the make-based builds keep theirs: the binary and jit/*.lua
  # (jit.dump), with the vmdef.lua the build generates.
  cp "$debug/b/src/luajit" "$debug/src/"
  cp -r "$src/src/jit" "$debug/src/jit"
  cp "$debug/b/src/jit/vmdef.lua" "$debug/src/jit/"
  touch "$debug/.built"
fi
if [[ ! -f $stripped/.built ]]; then
  rm -rf "$stripped" && mkdir -p "$stripped"
  cp -r "$debug/src" "$stripped/"
  strip --strip-all "$stripped/src/luajit"
  touch "$stripped/.built"
fi
echo "$debug/src/luajit ($("$debug/src/luajit" -v | head -1))"
echo "$stripped/src/luajit"
