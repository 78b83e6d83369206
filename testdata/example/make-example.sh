#!/usr/bin/env bash
# Regenerates the bundled example of the README: example.lua crashed under the
# upstream-gc64-debug LuaJIT build. Writes, next to this script:
#   core.zst    the kernel core, zstd-compressed (ljcore reads .zst directly)
#   luajit      the binary that crashed, debug info stripped, symbols kept
#   oracle.txt  LuaJIT's own debug.traceback("", 1) at the crashing line
# These are fixtures: commit a regenerated set only with a reason.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
variant=upstream-gc64-debug
"$root/tools/build-luajit.sh" "$variant" >/dev/null
exe=$root/build/luajit/$variant/src/luajit
work=$root/build/example
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$here/example.lua" .

# A relative script name keeps the chunk name "example.lua".
rc=0
( ulimit -c unlimited
  ORACLE=oracle.txt LUA_PATH="$root/build/luajit/$variant/src/?.lua;;" "$exe" example.lua; exit $?
) >run.log 2>&1 || rc=$?
((rc > 128)) || { echo "example.lua did not crash (rc=$rc), see $work/run.log" >&2; exit 1; }
found=
for c in core core.[0-9]*; do [[ -f $c ]] && found=$c; done
[[ -n $found ]] || { echo "no kernel core (core_pattern: $(cat /proc/sys/kernel/core_pattern))" >&2; exit 1; }

zstd -q -19 -f "$found" -o "$here/core.zst"
# --strip-debug keeps .symtab (frame names) but drops DWARF: the example
# shows the built-in layout tables at work. The build-id is unchanged.
strip --strip-debug -o "$here/luajit" "$exe"
cp oracle.txt "$here/oracle.txt"
ls -l "$here/core.zst" "$here/luajit" "$here/oracle.txt"
