#!/usr/bin/env bash
# Two threads, two VMs (testdata/hosts/two_vms.c, cores by tools/make-host-cores.sh): each
# thread's Lua frames must be its own VM's, equal to the traceback that VM wrote itself, and
# sit at that thread's native frames.
# Usage: tests/oracle/threads_compare.sh LJCORE DIR KIND
#   DIR: build/cores/<variant>/two_vms; KIND: kernel or gcore.
# Checks, from `ljcore analyze --json` and `ljcore bt --format=luajit --level 1`:
#   - two VMs, each with all its Lua frames placed (levels in order, at native frames, innermost
#     first) on exactly one thread, the two threads different;
#   - the crashed thread's VM prints oracle.KIND.txt, the other thread's VM parked.KIND.txt,
#     byte for byte (both are debug.traceback("", 1) taken on the line now running).
# Exit: 0 ok, 1 mismatch, 2 usage, 77 skip.
set -euo pipefail

if (($# != 3)); then
  echo "usage: $0 LJCORE DIR KIND" >&2
  exit 2
fi
ljcore=$1 dir=$2 kind=$3
source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
require_inputs tools/make-host-cores.sh "$dir/core.$kind" "$dir/oracle.$kind.txt" \
  "$dir/parked.$kind.txt" "$dir/exe"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts=(--exe "$dir/exe")
add_sysroot opts "$dir"
for cmd in "analyze --json" "bt --format=luajit --level 1"; do
  # shellcheck disable=SC2086 # cmd is split on purpose
  run_ljcore "$tmp/${cmd%% *}" "$ljcore" $cmd "${opts[@]}" "$dir/core.$kind"
done

python3 - "$tmp/analyze" "$tmp/bt" "$dir/oracle.$kind.txt" "$dir/parked.$kind.txt" <<'EOF'
import json, re, sys

doc = json.load(open(sys.argv[1]))
# One "stack traceback:" block per VM, in the order of doc["vms"], each after its
# "-- VM 0x... (thread TID)" label (idle_vms_compare.sh checks those).
text = re.sub(r"^-- VM .*\n", "", open(sys.argv[2]).read(), flags=re.M)
blocks = ["stack traceback:" + b for b in text.split("stack traceback:")[1:]]
oracles = {True: open(sys.argv[3]).read(), False: open(sys.argv[4]).read()}
errors = []

if len(doc["vms"]) != 2 or len(blocks) != 2:
    sys.exit(f"FAIL: want 2 VMs, ljcore found {len(doc['vms'])}")
home = {}  # vm index -> thread
for t in doc["threads"]:
    for r in t["lua_runs"]:
        if home.setdefault(r["vm"], t["tid"]) != t["tid"]:
            errors.append(f"VM {r['vm']} has runs on threads {home[r['vm']]} and {t['tid']}")
if sorted(home) != [0, 1] or len(set(home.values())) != 2:
    errors.append(f"VMs by thread: {home}; want each VM on a thread of its own")

for t in doc["threads"]:
    runs = t["lua_runs"]
    if not runs:
        continue
    vm = doc["vms"][runs[0]["vm"]]
    levels = [l for r in runs for l in range(r["first_level"], r["first_level"] + r["count"])]
    if levels != [f["level"] for f in vm["stack"]["frames"]]:
        errors.append(f"thread {t['tid']}: runs cover levels {levels}")
    placed = [r.get("native_frame") for r in runs]
    if None in placed or placed != sorted(set(placed)):
        errors.append(f"thread {t['tid']}: runs at native frames {placed}")
    # The oracle: "\n" (the empty message), the traceback, no final newline.
    want = oracles[t["crashed"]][1:] + "\n"
    got = blocks[runs[0]["vm"]]
    if got != want:
        errors.append(f"thread {t['tid']} ({'crashed' if t['crashed'] else 'parked'}):\n"
                      f"--- oracle\n{want}--- ljcore\n{got}")

if errors:
    print("FAIL: " + "\n".join(errors))
    sys.exit(1)
print(f"ok: VM 0 on thread {home[0]}, VM 1 on thread {home[1]}, both as LuaJIT printed them")
EOF
