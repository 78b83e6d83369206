#!/usr/bin/env bash
# A stripped LuaJIT no table describes, read live: its layout is derived
# from its code, and that code is read from the binary before the process
# is stopped (derive_before_stopping), not in the window it is stopped for.
# Usage: derived_before_stop.sh LJCORE LUAJIT SCRIPT
# Exit: 0 pass, 1 fail, 77 skip (no luajit build, or ptrace not permitted).
set -euo pipefail

ljcore=$1 luajit=$2 script=$3
[[ -x $luajit ]] || { echo "skip: $luajit not built (run tools/build-luajit.sh)"; exit 77; }

"$luajit" "$script" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
sleep 0.5

rc=0
out=$("$ljcore" analyze --explain --pid "$pid" 2>&1) || rc=$?
if ((rc == 3)) && grep -q "cannot ptrace" <<<"$out"; then
  echo "skip: $(grep -o 'cannot ptrace.*' <<<"$out" | head -1)"
  exit 77
fi
echo "$out"
((rc <= 1)) || { echo "FAIL: ljcore exited with $rc"; exit 1; }

status=0
for pattern in "layout: derived from code" \
  "the code of luajit was read earlier in this run" \
  "live, stopped for [0-9.]+ ms"; do
  grep -Eq -- "$pattern" <<<"$out" || { echo "FAIL: no match for: $pattern"; status=1; }
done
exit $status
