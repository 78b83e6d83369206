#!/usr/bin/env bash
# Checks `ljcore gc` on one core of a testdata/gc/ scenario against what the scenario wrote
# to its oracle just before it crashed (see testdata/gc/planted.lua for the format):
#   - g->gc.total as ljcore reads it equals LuaJIT's collectgarbage("count") * 1024;
#   - the census accounts for every byte of it (nothing unexplained);
#   - each type counts at least the objects the scenario planted;
#   - each planted big object is among the largest, with the path it was planted at.
# Usage: tests/gc/gc_compare.sh LJCORE CORE ORACLE EXE
# Exit: 0 match, 1 mismatch or ljcore error, 2 usage, 77 skip (core or oracle never made).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../oracle/inputs.sh"
oracle_inputs "$@"
cmd=("$ljcore" gc --json --top 10 --paths --exe "$exe" "$core")
add_sysroot cmd
run_ljcore "$tmp/gc.json" "${cmd[@]}"

python3 - "$tmp/gc.json" "$oracle" <<'PY'
import json, sys

doc = json.load(open(sys.argv[1]))
lines = [l.split("\t") for l in open(sys.argv[2]).read().splitlines() if l]
if len(doc["vms"]) != 1 or "gc" not in doc["vms"][0]:
    sys.exit("FAIL: expected one VM with a census, got %d VM(s)" % len(doc["vms"]))
gc = doc["vms"][0]["gc"]
failures = []
if lines[-1][0] != "total":
    sys.exit("FAIL: the oracle's last line is not the total (the scenario died early?)")
for l in lines:
    if l[0] == "total":
        if gc["gc_total"] != int(l[1]):
            failures.append("g->gc.total %d != LuaJIT's %s" % (gc["gc_total"], l[1]))
    elif l[0] == "count":
        got = gc["types"][l[1]]["count"]
        if got < int(l[2]):
            failures.append("%s: %d counted, %s planted" % (l[1], got, l[2]))
    elif l[0] == "top":
        kind, size, path = l[1], int(l[2]), l[3]
        if not any(o["type"] == kind and o["bytes"] >= size and o.get("path") == path
                   for o in gc["top"]):
            failures.append("no %s of %d bytes or more at %s among the largest: %s" % (
                kind, size, path,
                [(o["type"], o["bytes"], o.get("path")) for o in gc["top"]]))
if gc["unexplained_bytes"] != 0:
    failures.append("%d bytes of g->gc.total unexplained" % gc["unexplained_bytes"])
if not gc["complete"] or not gc.get("paths_complete", True):
    failures.append("census incomplete: %s" % gc["problems"])
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
PY
echo "ok: $core"
