#!/usr/bin/env bash
# Checks `ljcore gc --retained` on the core of testdata/retained/retained.lua against the
# retained size LuaJIT measured for each structure just before the crash: each object the
# oracle names must be listed with exactly that many retained bytes.
# Usage: tests/retained/retained_compare.sh LJCORE CORE ORACLE EXE
# Exit: 0 match, 1 mismatch or ljcore error, 2 usage, 77 skip (core or oracle never made).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../oracle/inputs.sh"
oracle_inputs "$@"
# The scenario's heap is a few thousand objects: --top as large lists every one of them.
cmd=("$ljcore" gc --json --retained --top 100000 --exe "$exe" "$core")
add_sysroot cmd
run_ljcore "$tmp/gc.json" "${cmd[@]}"

python3 - "$tmp/gc.json" "$oracle" <<'PY'
import json, sys

doc = json.load(open(sys.argv[1]))
lines = [l.split("\t") for l in open(sys.argv[2]).read().splitlines() if l]
if not lines or lines[-1] != ["done"]:
    sys.exit("FAIL: the oracle does not end with 'done' (the scenario died early?)")
if len(doc["vms"]) != 1 or "retained" not in doc["vms"][0]:
    sys.exit("FAIL: expected one VM with retained sizes, got %d VM(s)" % len(doc["vms"]))
vm = doc["vms"][0]
by_address = {int(o["address"], 16): o for o in vm["retained"]}

def listed(address):
    # tostring() of cdata and userdata gives the payload, which follows the header.
    if address in by_address:
        return by_address[address]
    headers = [a for a, o in by_address.items()
               if o["type"] in ("cdata", "userdata") and address - 64 < a < address]
    return by_address[max(headers)] if headers else None

failures, checked = [], 0
for l in lines[:-1]:
    _, name, address, want = l
    o = listed(int(address, 16))
    if o is None:
        failures.append("%s at %s: not listed" % (name, address))
    elif o["retained_bytes"] != int(want):
        failures.append("%s at %s: ljcore %d bytes, LuaJIT %s (%s, shallow %d, %d objects)" % (
            name, address, o["retained_bytes"], want, o["type"], o["shallow_bytes"],
            o["retained_objects"]))
    checked += 1
if not vm["gc"]["retained"]["complete"]:
    failures.append("retained sizes incomplete: %s" % vm["gc"]["problems"])
for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print("ok: %d structures retain what LuaJIT freed" % checked)
PY
