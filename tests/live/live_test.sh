#!/usr/bin/env bash
# Reads a running LuaJIT process with `ljcore analyze --pid` and `print --pid`,
# and captures it with `ljcore snapshot --pid`; checks that both analyses show where it is
# and that the process runs on afterwards, unchanged (ljcore only stops it
# while reading, and never writes to it).
# Usage: live_test.sh LJCORE LUAJIT SCRIPT PATTERN...
#   every PATTERN (grep -E) must match the output of `ljcore analyze --pid`
#   and that of `ljcore analyze` on the snapshot.
# Exit: 0 pass, 1 fail, 77 skip (no luajit build, or ptrace not permitted).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/live_common.sh"

ljcore=$1 luajit=$2 script=$3
shift 3
analyze_running "$ljcore" "$luajit" "$script"

status=0
grep -Eq -- "live, stopped for [0-9.]+ ms" <<<"$out" || { echo "FAIL: no pause reported"; status=1; }
for pattern; do
  grep -Eq -- "$pattern" <<<"$out" || { echo "FAIL: live: no match for: $pattern"; status=1; }
done

# print --pid: a value every LuaJIT has, found through _G and package.loaded.
printed=$("$ljcore" print --pid "$pid" 'package.loaded.jit.version' 2>&1) || true
echo "$printed"
grep -Eq '^package.loaded.jit.version = "LuaJIT 2\.' <<<"$printed" ||
  { echo "FAIL: print --pid: no jit.version"; status=1; }

snap=$(mktemp)
trap 'kill "$pid" 2>/dev/null || true; rm -f "$snap"' EXIT
taken=$("$ljcore" snapshot --pid "$pid" -o "$snap" 2>&1) || { echo "FAIL: snapshot: $taken"; exit 1; }
echo "$taken"
grep -Eq "process paused [0-9]+ us" <<<"$taken" || { echo "FAIL: snapshot reports no pause"; status=1; }
out=$("$ljcore" analyze "$snap" 2>&1) || true
echo "$out"
for pattern; do
  grep -Eq -- "$pattern" <<<"$out" || { echo "FAIL: snapshot: no match for: $pattern"; status=1; }
done

# Still alive, and not left in a tracing stop.
state=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo gone)
case $state in
  R|S) ;;
  *) echo "FAIL: process state after ljcore is '$state'"; status=1 ;;
esac
exit $status
