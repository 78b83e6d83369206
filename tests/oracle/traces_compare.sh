#!/usr/bin/env bash
# Checks ljcore's trace listing of one crash core against jit.dump's (the oracle).
# Usage: tests/oracle/traces_compare.sh LJCORE CORE ORACLE EXE
#   CORE, ORACLE, EXE: as tools/make-cores.sh makes them for testdata/traces/*.lua; the
#   oracle is what require("jit.dump").on("+rsT", file) wrote while the script ran.
# Every "---- TRACE n IR" section of the oracle (the last one per n, should a number be
# reused) must equal `ljcore trace n` byte for byte, and ljcore must list exactly the
# traces the oracle has.
# Exit: 0 match, 1 mismatch or ljcore error, 2 usage, 77 skip (not generated here).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
oracle_inputs "$@"

# One file per IR section: from its header to the next "---- TRACE" line.
awk -v dir="$tmp" '
  /^---- TRACE [0-9]+ IR$/ { out = dir "/expected." $3; printf "" > out; print >> out; next }
  /^---- TRACE / { out = "" }
  out != "" { print >> out }
' "$oracle"

args=(--exe "$exe")
add_sysroot args

run_ljcore "$tmp/traces.json" "$ljcore" traces --json "${args[@]}" "$core"
listed=$(grep -o '"number": [0-9]*' "$tmp/traces.json" | awk '{print $2}' | sort -n | tr '\n' ' ')
expected=$(cd "$tmp" && ls expected.* 2>/dev/null | sed 's/expected\.//' | sort -n | tr '\n' ' ')
if [[ -z $expected ]]; then
  echo "FAIL: the oracle $oracle lists no trace IR: the scenario compiled nothing"
  exit 1
fi
if [[ $listed != "$expected" ]]; then
  echo "FAIL: ljcore lists traces [$listed], jit.dump dumped [$expected]"
  exit 1
fi

failed=0
for n in $expected; do
  rc=0
  "$ljcore" trace "$n" "${args[@]}" "$core" >"$tmp/actual.$n" 2>"$tmp/stderr" || rc=$?
  if ((rc != 0)); then
    echo "FAIL: ljcore trace $n exited with $rc"
    cat "$tmp/stderr"
    failed=1
  elif ! cmp -s "$tmp/expected.$n" "$tmp/actual.$n"; then
    echo "FAIL: trace $n differs from jit.dump's listing"
    diff -u --label "jit.dump ($oracle)" --label "ljcore trace $n" \
      "$tmp/expected.$n" "$tmp/actual.$n" || true
    failed=1
  fi
done
((failed == 0)) || exit 1
echo "ok: $core: traces $expected"
