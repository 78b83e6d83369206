#!/usr/bin/env bash
# Checks the version string as a layout hint on one crash core: ljcore finds LuaJIT's
# version string in the binary (served from the file, which a kernel core leaves out) and
# the layout that fits memory is one the string names. Then, with a copy of the binary
# whose string claims the newest upstream epoch, the hint is wrong: --explain must say so,
# and the Lua backtrace must not change (memory decides, the string only orders).
# Usage: tests/oracle/version_hint_compare.sh LJCORE CORE ORACLE EXE
# Exit: 0 ok, 1 failure, 2 usage, 77 skip when the core, oracle or exe was never produced.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
oracle_inputs "$@"
[[ -f $(dirname "$core")/sysroot ]] && { echo "skip: a foreign-architecture core"; exit 77; }

status=0
"$ljcore" analyze --json --exe "$exe" "$core" >"$tmp/analyze.json"
# The string as luajit -v prints it, and the layout's agreement with it.
want=$("$exe" -v | cut -d' ' -f1-2)
python3 - "$tmp/analyze.json" "$want" <<'PY' || status=1
import json, sys
doc = json.load(open(sys.argv[1]))
vs = doc.get("version_string")
if not vs or vs["text"] != sys.argv[2]:
    sys.exit(f"FAIL: version_string {vs!r}, want text {sys.argv[2]!r}")
if not doc["vms"] or doc["vms"][0].get("layout_matches_version") is not True:
    sys.exit(f"FAIL: layout {doc['vms'][0]['layout'] if doc['vms'] else None!r} is not one "
             f"of {vs['layouts']!r}")
PY

# The same binary saying it is upstream's 2026-08-19 head. Its build-id is unchanged, so
# ljcore still serves the core's file-backed memory from it.
python3 - "$exe" "$tmp/exe" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.index(b"LuaJIT 2.")
fake = b"LuaJIT 2.1.1787165859"
data[at:at + len(fake) + 1] = fake + b"\0"
open(sys.argv[2], "wb").write(data)
PY
"$ljcore" analyze --explain --exe "$tmp/exe" "$core" >"$tmp/explain.txt"
if ! grep -q "version string: LuaJIT 2.1.1787165859 .*tried first: upstream 20260720" \
  "$tmp/explain.txt" || ! grep -q "though the version string LuaJIT 2.1.1787165859 suggested" \
  "$tmp/explain.txt"; then
  echo "FAIL: --explain does not say the hint was wrong:"
  grep -i "version" "$tmp/explain.txt" || true
  status=1
fi
"$ljcore" bt --format=luajit --exe "$exe" "$core" >"$tmp/bt.real"
"$ljcore" bt --format=luajit --exe "$tmp/exe" "$core" >"$tmp/bt.fake"
if ! cmp -s "$tmp/bt.real" "$tmp/bt.fake"; then
  echo "FAIL: a wrong version string changed the backtrace:"
  diff -u "$tmp/bt.real" "$tmp/bt.fake" || true
  status=1
fi
((status == 0)) && echo "ok: $core"
exit $status
