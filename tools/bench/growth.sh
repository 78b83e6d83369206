#!/usr/bin/env bash
# How ljcore's cost grows with the target: `gc`, `gc --paths` and
# `gc --retained` on heaps of 6, 24 and 60 M small objects (gc_heap.lua; the
# 60 M core is about 4.6 GB, and making it needs as much memory), and
# `bt --all` on 100 000 and 400 000 suspended coroutines (coroutines.lua).
# For each: wall time (hyperfine median of 3), CPU time (user + system,
# hyperfine's mean: on a loaded machine the wall time is the load's), peak
# RSS (GNU time), and the times and RSS per object (or coroutine). Linear
# cost shows as the same time per object at every size.
# Usage: [LJCORE=BINARY] tools/bench/growth.sh [OBJECTS...]  (results: build/bench/growth.txt)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
(($#)) || set -- 6000000 24000000 60000000

# measure N CORE ARGS...: median wall time, mean CPU time and peak RSS of
# ljcore ARGS CORE, and each per unit of N.
measure() {
  local n=$1 core=$2
  shift 2
  hyperfine -N --runs 3 --export-json growth-run.json "$ljcore $* $core" >/dev/null
  /usr/bin/time -v "$ljcore" "$@" "$core" >/dev/null 2>growth-time.log || true
  python3 - growth-run.json "$n" "$(awk -F': ' '/Maximum resident/ {print $2}' growth-time.log)" \
    "$*" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["results"][0]
median, cpu = run["median"], run["user"] + run["system"]
n, rss_kb = int(sys.argv[2]), int(sys.argv[3])
print("%-22s n %10d  wall %7.0f ms %6.1f ns/unit  CPU %7.0f ms %6.1f ns/unit"
      "  max RSS %7.0f MB %6.1f B/unit" % (
          sys.argv[4], n, median * 1e3, median * 1e9 / n, cpu * 1e3, cpu * 1e9 / n,
          rss_kb / 1024, rss_kb * 1024 / n))
PY
}
{
  echo "ljcore: $ljcore"
  for objects; do
    core=gc-$objects.core
    crash_into "$core" "gc-fill-$objects.log" gc_heap.lua OBJECTS="$objects"
    measure "$objects" "$core" gc
    measure "$objects" "$core" gc --paths --top 20
    measure "$objects" "$core" gc --retained
  done
  for coroutines in 100000 400000; do
    core=coroutines-$coroutines.core
    crash_into "$core" coroutines.log coroutines.lua COROUTINES="$coroutines"
    measure "$coroutines" "$core" bt --all
    measure "$coroutines" "$core" bt --all --json
  done
} | tee growth.txt
