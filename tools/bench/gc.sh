#!/usr/bin/env bash
# Speed and memory of `ljcore gc` on a core whose GC heap holds OBJECTS small objects
# (default 6 000 000: half tables, half strings; tools/bench/gc_heap.lua): objects per
# second of the census, wall time (hyperfine median), peak RSS (GNU time); the same with
# --paths, which also searches paths from the roots. Needs hyperfine and GNU time.
# Usage: tools/bench/gc.sh [OBJECTS]      (results: build/bench/gc.txt)
set -euo pipefail

objects=${1:-6000000}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

core=gc-$objects.core
crash_into "$core" gc-fill.log gc_heap.lua OBJECTS="$objects"
counted=$("$ljcore" gc --json "$core" | python3 -c \
  'import json, sys; print(sum(v["gc"]["objects"] for v in json.load(sys.stdin)["vms"]))')
echo "core: $core, $(du -h --apparent-size "$core" | cut -f1), $counted GC objects" | tee gc.txt

hyperfine --warmup 1 --runs 7 --export-json gc-speed.json \
  "$ljcore gc $core" "$ljcore gc --top 20 --paths $core" >/dev/null
python3 - gc-speed.json "$counted" <<'PY' | tee -a gc.txt
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
n = int(sys.argv[2])
for r in runs:
    print("median %7.1f ms  %5.1f M objects/s  %s" % (
        r["median"] * 1000, n / r["median"] / 1e6, r["command"]))
PY
# Max RSS counts the pages of the mapped core the walk touched (page cache, shared);
# RssAnon, sampled every 10 ms, is the memory ljcore itself allocates.
peak_anon() { # COMMAND... -> highest RssAnon seen, kB
  "$@" >/dev/null 2>&1 &
  local pid=$! peak=0 v
  while v=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [[ -n $v ]]; do
    ((v > peak)) && peak=$v
    sleep 0.01
  done
  wait "$pid" || true
  echo "$peak"
}
for args in "" "--top 20 --paths"; do
  /usr/bin/time -v "$ljcore" gc $args "$core" >/dev/null 2>gc-time.log
  printf 'ljcore gc %s: max RSS %s kB, of which allocated (RssAnon) %s kB\n' "$args" \
    "$(awk -F': ' '/Maximum resident/ {print $2}' gc-time.log)" \
    "$(peak_anon "$ljcore" gc $args "$core")"
done | tee -a gc.txt
