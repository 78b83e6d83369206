#!/usr/bin/env bash
# ljcore gc --pid --alloc-sites of a running LuaJIT whose allocation sites are known
# (testdata/profile/alloc_leak.lua): leak() keeps a table per call in the table
# `leaked`, churn() makes strings that die at once. Of the objects of the largest
# retained sizes, the one the most sampled bytes not yet freed are under must be
# `leaked` (a local of the main chunk, so a slot of the main thread's stack), and
# nine tenths of those bytes at least must have been allocated by stacks through
# leak(); of churn()'s garbage, almost none may be reached from a root.
# Usage: gc_alloc_sites.sh LJCORE LUAJIT [SECONDS]
# Exit: 0 pass, 1 fail, 77 skip (no such LuaJIT build, ptrace or uprobes refused).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_common.sh"

ljcore=$1 luajit=$2 seconds=${3:-3}
script="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/testdata/profile/alloc_leak.lua"
[[ -x $luajit ]] || { echo "skip: $luajit not built (run tools/build-luajit.sh)"; exit 77; }
work=$(mktemp -d /tmp/ljcore-alloc-sites.XXXXXX)
ALLOC_ORACLE=$work/oracle "$luajit" "$script" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
# The warm-up (3000 rounds, compiled) ends with the oracle: seconds on a
# loaded machine.
for _ in $(seq 600); do [[ -s $work/oracle ]] && break; sleep 0.1; done
[[ -s $work/oracle ]] || { echo "FAIL: the script wrote no oracle in 60 s"; exit 1; }

status=0
"$ljcore" gc --pid "$pid" --alloc-sites --duration "$seconds" --sample-bytes 4K --json \
  >"$work/sites.json" 2>"$work/stderr" || status=$?
cat "$work/stderr"
skip_without_ptrace "$status" "$(<"$work/stderr")"
if ((status == 4)); then
  echo "skip: the kernel refuses uprobes here: $(head -1 "$work/stderr")"
  exit 77
fi
# Exit 1 would say a problem: a copy of the heap ljcore could not walk whole.
((status == 0)) || { echo "FAIL: ljcore gc --alloc-sites exited with $status"; exit 1; }
kill -0 "$pid" || { echo "FAIL: the process did not survive"; exit 1; }

python3 - "$work/sites.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
[vm] = doc["vms"]
def through(site, fn):
    return any(f.startswith(fn + " ") for f in site["stack"])
for h in vm["holders"]:
    print("%10d  %s %s" % (h["bytes"], h["kind"], h.get("path", "")))
    for s in h["sites"][:3]:
        print("            %10d  %s" % (s["bytes"], " <- ".join(reversed(s["stack"]))))
fail = []
objects = [h for h in vm["holders"] if h["kind"] == "object"]
top = max(objects, key=lambda h: h["bytes"]) if objects else None
if not top or not top["path"].startswith("main thread<stack slot") or top["type"] != "table":
    fail.append("the most sampled bytes are not under a table in a slot of the main thread")
else:
    leak = sum(s["bytes"] for s in top["sites"] if through(s, "leak"))
    print("through leak(): %d of the %d bytes under %s, which retains %d" %
          (leak, top["bytes"], top["path"], top["retained_bytes"]))
    if leak < 0.9 * top["bytes"] or top["blocks"] < 10:
        fail.append("leak() allocated %d of %d bytes in %d blocks" % (leak, top["bytes"], top["blocks"]))
# churn()'s strings are garbage at once: only those of the call under way at the
# copy can be reached.
reached = [h for h in vm["holders"] if h["kind"] != "garbage"]
placed = sum(h["bytes"] for h in reached)
churn = sum(s["bytes"] for h in reached for s in h["sites"] if through(s, "churn"))
print("through churn(): %d of the %d bytes reached" % (churn, placed))
if churn > 0.05 * placed:
    fail.append("%d of churn()'s garbage bytes reached from a root" % churn)
if fail:
    sys.exit("FAIL: " + "; ".join(fail))
print("ok")
PY
