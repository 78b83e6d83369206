#!/usr/bin/env bash
# ljcore gc --pid --alloc-sites of a running LuaJIT whose allocation sites are known
# (testdata/profile/alloc_leak.lua): leak() keeps a table per call in the table
# `leaked`, churn() makes strings that die at once. Of the paths from a root that
# hold sampled blocks not yet freed, the one with the most bytes must be that of
# `leaked` (a local of the main chunk, so a slot of the main thread's stack), and nine tenths of its bytes at least must
# have been allocated by stacks through leak(); of churn()'s garbage, almost none
# may be placed where the heap walk reaches.
# Usage: gc_alloc_sites.sh LJCORE LUAJIT [SECONDS]
# Exit: 0 pass, 1 fail, 77 skip (no such LuaJIT build, ptrace or uprobes refused).
set -euo pipefail

ljcore=$1 luajit=$2 seconds=${3:-3}
script="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/testdata/profile/alloc_leak.lua"
[[ -x $luajit ]] || { echo "skip: $luajit not built (run tools/build-luajit.sh)"; exit 77; }
work=$(mktemp -d /tmp/ljcore-alloc-sites.XXXXXX)
ALLOC_ORACLE=$work/oracle "$luajit" "$script" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [[ -s $work/oracle ]] && break; sleep 0.1; done

status=0
"$ljcore" gc --pid "$pid" --alloc-sites --duration "$seconds" --sample-bytes 16K --json \
  >"$work/sites.json" 2>"$work/stderr" || status=$?
cat "$work/stderr"
if ((status == 3)) && grep -q "cannot ptrace" "$work/stderr"; then
  echo "skip: $(grep -o 'cannot ptrace.*' "$work/stderr" | head -1)"
  exit 77
fi
if ((status == 4)); then
  echo "skip: the kernel refuses uprobes here: $(head -1 "$work/stderr")"
  exit 77
fi
((status == 0)) || { echo "FAIL: ljcore gc --alloc-sites exited with $status"; exit 1; }
kill -0 "$pid" || { echo "FAIL: the process did not survive"; exit 1; }

python3 - "$work/sites.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
[vm] = doc["vms"]
def through(site, fn):
    return any(f.startswith(fn + " ") for f in site["stack"])
for p in vm["paths"][:5]:
    print("%10d  %s" % (p["bytes"], p["path"]))
    for s in p["sites"][:3]:
        print("            %10d  %s" % (s["bytes"], " <- ".join(reversed(s["stack"]))))
# The first path the walk reached: blocks it did not are garbage not yet swept.
top = next(p for p in vm["paths"] if p["path"])
fail = []
if not (top["path"] or "").startswith("main thread<stack slot"):
    fail.append("the most bytes are not held by a slot of the main thread: %r" % top["path"])
leak = sum(s["bytes"] for s in top["sites"] if through(s, "leak"))
print("through leak(): %d of the %d bytes held there" % (leak, top["bytes"]))
if leak < 0.9 * top["bytes"] or top["blocks"] < 20:
    fail.append("leak() allocated %d of %d bytes in %d blocks" % (leak, top["bytes"], top["blocks"]))
# churn()'s strings are garbage at once: only those of the call under way at the
# copy can be reached.
placed = sum(p["bytes"] for p in vm["paths"] if p["path"])
churn = sum(s["bytes"] for p in vm["paths"] if p["path"] for s in p["sites"] if through(s, "churn"))
print("through churn(): %d of the %d bytes placed" % (churn, placed))
if churn > 0.05 * placed:
    fail.append("%d of churn()'s garbage bytes placed in the heap" % churn)
if fail:
    sys.exit("FAIL: " + "; ".join(fail))
print("ok")
PY
