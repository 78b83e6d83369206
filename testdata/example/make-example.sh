#!/usr/bin/env bash
# Makes the README example under build/example/: a kernel core of example.lua crashing in
# upstream-gc64-debug, LuaJIT's own traceback (oracle.txt), a stripped luajit, zstd copies,
# and prints their sizes. Nothing here is committed; the lead picks what to bundle.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
variant=upstream-gc64-debug
"$root/tools/build-luajit.sh" "$variant" >/dev/null
exe=$root/build/luajit/$variant/src/luajit
out=$root/build/example
rm -rf "$out" && mkdir -p "$out" && cd "$out"
cp "$root/testdata/example/example.lua" .

# Kernel core (renamed core.kernel) in the cwd (core_pattern "core" or "core.PID"); relative script name keeps
# the chunk name "example.lua".
rc=0
( ulimit -c unlimited
  ORACLE=oracle.txt LUA_PATH="$root/build/luajit/$variant/src/?.lua;;" "$exe" example.lua; exit $?
) >run.log 2>&1 || rc=$?
((rc > 128)) || { echo "example.lua did not crash (rc=$rc), see $out/run.log" >&2; exit 1; }
found=
for c in core core.[0-9]*; do [[ -f $c ]] && found=$c; done
[[ -n $found ]] || { echo "no kernel core (core_pattern: $(cat /proc/sys/kernel/core_pattern))" >&2; exit 1; }
[[ $found == core.kernel ]] || mv "$found" core.kernel

cp "$exe" luajit.debug
cp "$exe" luajit && strip --strip-all luajit
for f in core.kernel luajit luajit.debug; do zstd -q -19 -f "$f" -o "$f.zst"; done

size() { stat -c %s "$1"; }
printf '%-26s %10s %10s\n' file bytes zstd-19
for f in core.kernel luajit luajit.debug; do
  printf '%-26s %10d %10d\n' "$f" "$(size "$f")" "$(size "$f.zst")"
done
echo "oracle.txt:"; cat oracle.txt; echo
