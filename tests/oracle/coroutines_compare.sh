#!/usr/bin/env bash
# Every coroutine block of the oracle ("thread: 0x...", then the traceback
# LuaJIT printed for it) must appear, byte for byte, in
# `ljcore bt --all --format=luajit --level 1`. ljcore may show more
# coroutines than the oracle recorded (the main thread, the resumers).
# Usage: coroutines_compare.sh LJCORE CORE ORACLE EXE     Exit: 0, 1, 77 skip
set -euo pipefail
ljcore=$1 core=$2 oracle=$3 exe=$4
source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
require_inputs tools/make-cores.sh "$core" "$oracle" "$exe"
cmd=("$ljcore" bt --all --format=luajit --level 1 --exe "$exe" "$core")
[[ -n ${LJCORE_LAYOUT:-} ]] && cmd+=(--layout "$LJCORE_LAYOUT")
add_sysroot cmd
actual=$("${cmd[@]}") || { echo "ljcore failed: ${cmd[*]}"; exit 1; }
status=0 blocks=0
# Blocks are separated by one empty line; RS="" reads them whole.
while IFS= read -r -d $'\x1e' block; do
  [[ -n $block ]] || continue
  blocks=$((blocks + 1))
  if ! grep -qxF -- "$(head -1 <<<"$block")" <<<"$actual"; then
    echo "missing coroutine: $(head -1 <<<"$block")"; status=1; continue
  fi
  # The block of that thread in ljcore's output, up to its empty line.
  got=$(awk -v h="$(head -1 <<<"$block")" '$0 == h {p=1} p && $0 == "" {exit} p' <<<"$actual")
  if [[ $got != "$block" ]]; then
    echo "mismatch for $(head -1 <<<"$block"):"
    diff -u <(echo "$block") <(echo "$got") || true
    status=1
  fi
done < <(awk 'BEGIN {RS=""; ORS="\x1e"} {print}' "$oracle")
((blocks > 0)) || { echo "oracle $oracle holds no coroutine block"; exit 1; }
echo "$blocks coroutine(s) compared"
exit $status
