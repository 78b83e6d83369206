#!/usr/bin/env bash
# Checks ljcore's Lua backtrace of one crash core against LuaJIT's own traceback (the oracle).
# Usage: tests/oracle/compare.sh LJCORE CORE ORACLE EXE
#   CORE, ORACLE, EXE: as made by tools/make-cores.sh (build/cores/<variant>/<scenario>/).
# The oracle is debug.traceback("", 1) verbatim: "\nstack traceback:\n\t...", no final newline
# (the empty message contributes the leading "\n"). ljcore prints the traceback followed by
# exactly one "\n". So: expected = oracle minus its first byte (which must be "\n") plus "\n";
# compared byte for byte, trailing newlines included. The oracle starts at level 1 (below
# the C function that crashed, e.g. FFI's abort), or at the level ORACLE.level names (0 for
# a crash in compiled code, where no C frame is on top).
# Exit: 0 match, 1 mismatch or ljcore error (diff -u / stderr shown), 2 usage, 77 skip
# (CTest SKIP_RETURN_CODE) when the core, oracle or exe was never produced.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
oracle_inputs "$@"

if [[ $(head -c 1 "$oracle" | od -An -c | tr -d ' ') != '\n' ]]; then
  echo "error: $oracle does not start with the newline of the empty message" >&2
  exit 1
fi
{ tail -c +2 "$oracle"; printf '\n'; } >"$tmp/expected"

level=1
[[ -f $oracle.level ]] && level=$(<"$oracle.level")
cmd=("$ljcore" bt --format=luajit --level "$level" --exe "$exe" "$core")
# LJCORE_LAYOUT=derived: read with the layout derived from the code alone.
[[ -n ${LJCORE_LAYOUT:-} ]] && cmd+=(--layout "$LJCORE_LAYOUT")
add_sysroot cmd
run_ljcore "$tmp/actual" "${cmd[@]}"

if ! cmp -s "$tmp/expected" "$tmp/actual"; then
  echo "FAIL: ljcore output differs from the oracle: ${cmd[*]}"
  diff -a -u --label "oracle ($oracle)" --label "ljcore" "$tmp/expected" "$tmp/actual" || true
  [[ -s $tmp/stderr ]] && { echo "--- ljcore stderr:"; cat "$tmp/stderr"; }
  exit 1
fi
echo "ok: $core"
