#!/usr/bin/env bash
# Every scenario's kernel core of one variant, read with the layout derived
# from the binary's code alone (`--layout derived`: no DWARF, no tables),
# against LuaJIT's own traceback (compare.sh) and coroutines
# (coroutines_compare.sh). One test per variant: a core per scenario would
# double the oracle group's count for one option.
# Usage: derived_compare.sh LJCORE CORES_DIR SCENARIO.lua...
# Exit: 0 all match, 1 any mismatch, 77 skip when no core was made.
set -uo pipefail
ljcore=$1 dir=$2
shift 2
here=$(dirname "${BASH_SOURCE[0]}")
export LJCORE_LAYOUT=derived
compared=0 failed=0
for script in "$@"; do
  name=$(basename "$script" .lua)
  compare=compare.sh
  [[ $script == */coroutines/* ]] && compare=coroutines_compare.sh
  d=$dir/$name
  out=$(bash "$here/$compare" "$ljcore" "$d/core.kernel" "$d/oracle.kernel.txt" "$d/exe" 2>&1)
  case $? in
    0) compared=$((compared + 1)) ;;
    77) ;;
    *) failed=$((failed + 1)); echo "FAIL $name:"; echo "$out" ;;
  esac
done
if ((compared + failed == 0)); then
  echo "skip: no core under $dir (run tools/make-cores.sh)"
  exit 77
fi
echo "$compared scenario(s) match with the derived layout, $failed do not"
((failed == 0))
