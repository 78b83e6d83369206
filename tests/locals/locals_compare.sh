#!/usr/bin/env bash
# Checks `ljcore bt --locals=all --json` on one core of a testdata/locals/ scenario against
# what debug.getlocal and debug.getupvalue saw at every level just before the crash (the
# scenario's oracle, format in testdata/locals/locals_nested.lua):
#   - every level the oracle lists is a frame of the crashing coroutine, of the same kind;
#   - its locals and varargs ((*temporary) slots left out on both sides) and its upvalues
#     have exactly the oracle's names, in order, and types;
#   - nil, boolean and number values and 64-bit integer cdata render as tostring prints
#     them, strings hold the oracle's bytes.
# Usage: tests/locals/locals_compare.sh LJCORE CORE ORACLE EXE
# Exit: 0 match, 1 mismatch or ljcore error, 2 usage, 77 skip (core or oracle never made).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../oracle/inputs.sh"
oracle_inputs "$@"
# Strings whole: the oracle has every byte.
cmd=("$ljcore" bt --locals=all --max-string 100000 --json --exe "$exe" "$core")
add_sysroot cmd
run_ljcore "$tmp/bt.json" "${cmd[@]}"
exec python3 "$(dirname "${BASH_SOURCE[0]}")/locals_compare.py" "$tmp/bt.json" "$oracle"
