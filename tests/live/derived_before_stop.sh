#!/usr/bin/env bash
# A stripped LuaJIT no table describes, read live: its layout is derived
# from its code, and that code is read from the binary before the process
# is stopped (derive_before_stopping), not in the window it is stopped for.
# Usage: derived_before_stop.sh LJCORE LUAJIT SCRIPT
# Exit: 0 pass, 1 fail, 77 skip (no luajit build, or ptrace not permitted).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/live_common.sh"

analyze_running "$1" "$2" "$3" --explain

status=0
for pattern in "layout: derived from code" \
  "the code of luajit was read earlier in this run" \
  "live, stopped for [0-9.]+ ms"; do
  grep -Eq -- "$pattern" <<<"$out" || { echo "FAIL: no match for: $pattern"; status=1; }
done
exit $status
