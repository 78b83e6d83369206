#!/usr/bin/env bash
# Checks `ljcore print` on one core of a testdata/locals/ scenario against the scenario's
# oracle: each Lua level's scalar locals and upvalues by name and by index (print_compare.py).
# Usage: tests/locals/print_compare.sh LJCORE CORE ORACLE EXE
# Exit: 0 match, 1 mismatch or ljcore error, 2 usage, 77 skip (core or oracle never made).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../oracle/inputs.sh"
oracle_inputs "$@"
args=("$ljcore" "$core" "$oracle" "$exe")
sysroot_file=$(dirname "$core")/sysroot
[[ -f $sysroot_file ]] && args+=("$(cat "$sysroot_file")")
exec python3 "$(dirname "${BASH_SOURCE[0]}")/print_compare.py" "${args[@]}"
