#!/usr/bin/env bash
# Runs the oracle matrix (every variant x scenario x core kind, plus nginx, the trace
# listings and the GC census) in build/cmake and prints it as a Markdown table:
# variant -> pass/total per core kind, skips and failures named. For closing notes
# and reviews.
# Usage: tools/matrix-table.sh        (cores must exist: tools/make-cores.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
junit=$root/build/cmake/matrix-junit.xml
start=$SECONDS
ctest --test-dir "$root/build/cmake" -R '^(oracle|coroutines|mixed|threads|traces|traces_table|mcode|compiled|gc|gc-diff)/' -j "$(nproc)" \
      --output-junit "$junit" >/dev/null || true
elapsed=$((SECONDS - start))

# <testcase name="oracle/VARIANT/SCENARIO/KIND" ... status="run|fail|disabled|notrun">
grep -o '<testcase name="[^"]*"[^>]*status="[^"]*"' "$junit" |
  sed -E 's/<testcase name="(oracle|coroutines|mixed|threads|traces|traces_table|mcode|compiled|gc|gc-diff)\/([^/]*)\/([^/]*)\/([^"]*)".*status="([^"]*)"/\2 \4 \5 \3/' |
  gawk -v secs="$elapsed" '
    { cell = $1 SUBSEP $2; total[cell]++; variants[$1] = 1
      if ($3 == "run") pass[cell]++; else if ($3 == "fail") { fail[cell]++; failed = failed " " $1 "/" $4 "/" $2 }
      else skip[cell]++ }
    function show(c) { return (c in total) ? sprintf("%d/%d%s", pass[c], total[c], (c in fail) ? " FAIL" : "") : "-" }
    END {
      print "| variant | kernel core | gcore core |"
      print "|---|---|---|"
      n = asorti(variants, names)
      for (i = 1; i <= n; i++) {
        v = names[i]; print "| " v " | " show(v SUBSEP "kernel") " | " show(v SUBSEP "gcore") " |"
      }
      for (c in total) { T += total[c]; P += pass[c] }
      printf "\n%d of %d comparisons pass; ctest of the matrix took %d s", P, T, secs
      if (failed != "") printf "; failed:%s", failed
      print ""
    }'
