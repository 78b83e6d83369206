#!/usr/bin/env bash
# Speed and memory of `ljcore gc --retained` (the dominator tree of the heap) against the
# census alone (`ljcore gc`), on the core tools/bench/gc.sh uses: OBJECTS small objects
# (default 6 000 000; tools/bench/gc_heap.lua). Wall time is hyperfine's median; memory is
# peak RssAnon (what ljcore allocates, the mapped core left out), and the difference per
# object is what the retained sizes cost beyond the census. Needs hyperfine and GNU time.
# Usage: tools/bench/gc_retained.sh [OBJECTS]      (results: build/bench/gc_retained-OBJECTS.txt)
set -euo pipefail

objects=${1:-6000000}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

core=gc-$objects.core
report=gc_retained-$objects.txt
crash_into "$core" gc-fill.log gc_heap.lua OBJECTS="$objects"
counted=$("$ljcore" gc --json "$core" | python3 -c \
  'import json, sys; print(sum(v["gc"]["objects"] for v in json.load(sys.stdin)["vms"]))')
echo "core: $core, $(du -h --apparent-size "$core" | cut -f1), $counted GC objects" | tee "$report"

hyperfine --warmup 1 --runs 5 --export-json gc_retained-speed.json \
  "$ljcore gc $core" "$ljcore gc --retained $core" >/dev/null
python3 - gc_retained-speed.json <<'PY' | tee -a "$report"
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
for r in runs:
    print("median %8.1f ms  %s" % (r["median"] * 1000, r["command"]))
print("retained / census: %.2fx" % (runs[1]["median"] / runs[0]["median"]))
PY
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
census=$(peak_anon "$ljcore" gc "$core")
retained=$(peak_anon "$ljcore" gc --retained "$core")
/usr/bin/time -v "$ljcore" gc --retained "$core" >/dev/null 2>gc_retained-time.log
{
  echo "ljcore gc: allocated (peak RssAnon) $census kB"
  echo "ljcore gc --retained: allocated $retained kB, max RSS" \
    "$(awk -F': ' '/Maximum resident/ {print $2}' gc_retained-time.log) kB"
  echo "beyond the census: $(((retained - census) * 1024 / counted)) bytes per object"
} | tee -a "$report"
