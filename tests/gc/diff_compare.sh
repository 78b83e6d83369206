#!/usr/bin/env bash
# Checks `ljcore gc --diff` on two cores of testdata/gc/planted.lua run as leak_<N>.lua at two
# leak levels N1 < N2 (N sessions, each a table and a string, under _G.app.sessions):
#   - the totals are LuaJIT's own collectgarbage("count") * 1024 of each run;
#   - tables and strings grew by at least N2 - N1 each;
#   - the path prefix that grew most is _G.app, holding (nearly) all of the growth;
#   - so is the path whose object's retained size grew most (the sessions are only its).
# Usage: tests/gc/diff_compare.sh LJCORE BEFORE_DIR AFTER_DIR KIND
#   *_DIR: build/cores/<variant>/leak_<N>/ as tools/make-cores.sh makes them; KIND kernel|gcore.
# Exit: 0 pass, 1 fail, 2 usage, 77 skip (cores never made).
set -euo pipefail

if (($# != 4)); then
  echo "usage: $0 LJCORE BEFORE_DIR AFTER_DIR KIND" >&2
  exit 2
fi
ljcore=$1 before=$2 after=$3 kind=$4
source "$(dirname "${BASH_SOURCE[0]}")/../oracle/inputs.sh"
require_inputs tools/make-cores.sh "$before/core.$kind" \
  "$after/core.$kind" "$before/oracle.$kind.txt" "$after/oracle.$kind.txt"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmd=("$ljcore" gc --json --diff "$before/core.$kind" --exe "$after/exe" "$after/core.$kind")
add_sysroot cmd "$after"
run_ljcore "$tmp/diff.json" "${cmd[@]}"

python3 - "$tmp/diff.json" "$before" "$after" "$kind" <<'PY'
import json, re, sys

doc = json.load(open(sys.argv[1]))
before, after, kind = sys.argv[2:5]
level = lambda d: int(re.search(r"leak_(\d+)/?$", d).group(1))
total = lambda d: int([l.split("\t")[1] for l in open("%s/oracle.%s.txt" % (d, kind))
                       if l.startswith("total\t")][0])
leaked = level(after) - level(before)
if len(doc["vms"]) != 1:
    sys.exit("FAIL: expected one VM, got %d" % len(doc["vms"]))
d = doc["vms"][0]
failures = []
if (d["gc_total_before"], d["gc_total_after"]) != (total(before), total(after)):
    failures.append("totals %d, %d != LuaJIT's %d, %d" % (
        d["gc_total_before"], d["gc_total_after"], total(before), total(after)))
for t in ("table", "string"):
    if d["types"][t]["count"] < leaked:
        failures.append("%s grew by %d, %d leaked" % (t, d["types"][t]["count"], leaked))
growth = d["gc_total_after"] - d["gc_total_before"]
top = d["prefixes"][0] if d["prefixes"] else {"prefix": None, "growth": 0}
if top["prefix"] != "_G.app" or top["growth"] < 0.9 * growth:
    failures.append("most grown prefix %s (+%d) is not _G.app with most of +%d: %s" % (
        top["prefix"], top["growth"], growth, d["prefixes"][:5]))
top = d["retained"][0] if d["retained"] else {"prefix": None, "growth": 0}
if top["prefix"] != "_G.app" or top["growth"] < 0.9 * growth:
    failures.append("most grown retained size %s (+%d) is not _G.app's with most of +%d: %s" % (
        top["prefix"], top["growth"], growth, d["retained"][:5]))
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
PY
echo "ok: $before -> $after ($kind)"
