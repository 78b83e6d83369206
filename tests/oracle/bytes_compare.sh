#!/usr/bin/env bash
# Checks how ljcore shows the bytes of a crash whose chunk and function names are not text
# (testdata/scenarios/binary_names.lua): every JSON output is valid JSON, the "<name>_hex"
# members give back the exact bytes LuaJIT printed (the oracle), and the text outputs hold
# no control byte but newlines and nothing that is not UTF-8.
# Usage: tests/oracle/bytes_compare.sh LJCORE CORE ORACLE EXE
# Exit: 0 ok, 1 failure, 2 usage, 77 skip when the core, oracle or exe was never produced.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
oracle_inputs "$@"
files=(--exe "$exe")
add_sysroot files

status=0
# run NAME ARGS...: ljcore ARGS on the core into $tmp/NAME; it must exit 0.
run() {
  local name=$1 rc=0
  shift
  "$ljcore" "$@" "${files[@]}" "$core" >"$tmp/$name" 2>"$tmp/$name.err" || rc=$?
  if ((rc != 0)); then
    echo "FAIL: ljcore $* exited with $rc:"
    sed -n 1,5p "$tmp/$name.err"
    status=1
  fi
}
jsons=(bt.json analyze.json all.json gc.json)
texts=(bt.txt analyze.txt gc.txt)
run bt.json bt --json
run analyze.json analyze --json
run all.json analyze --all --json
run gc.json gc --json --paths
run bt.txt bt
run analyze.txt analyze
run gc.txt gc --paths
# A build without the JIT has no traces to show (`traces` says so, exit 1).
if grep -q '"layout": *"[^"]*JIT disabled' "$tmp/analyze.json"; then
  echo "note: built without the JIT, no traces to check"
else
  jsons+=(traces.json)
  texts+=(traces.txt)
  run traces.json traces --json --mcode
  run traces.txt traces
fi
for j in "${jsons[@]}"; do
  python3 -m json.tool "$tmp/$j" >/dev/null || { echo "FAIL: $j is not JSON"; status=1; }
done

python3 - "$oracle" "$tmp" "${jsons[*]}" "${texts[*]}" <<'EOF' || status=1
import json, os, sys

oracle = open(sys.argv[1], "rb").read()
tmp, jsons, texts = sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
errors = []

def raw(obj, key):
    """The bytes of obj[key]: from its "_hex" sibling when it has one."""
    if key + "_hex" in obj:
        return bytes.fromhex(obj[key + "_hex"])
    return obj[key].encode()

# The crashing chunk's name, as the oracle's first frame line has it: "\tchunk\xffname:1:".
first = oracle.split(b"\n\t")[1]
chunk = first[:first.index(b":1: in function")]
if chunk != b"chunk\xffname":
    errors.append(f"the oracle's first frame is {first!r}: not this scenario's")

def frames(doc):
    for vm in doc["vms"]:
        stacks = [vm["stack"]] + [c["stack"] for c in vm.get("coroutines", [])]
        for s in stacks:
            yield from s["frames"]

for name in ("bt.json", "analyze.json", "all.json"):
    doc = json.load(open(os.path.join(tmp, name), encoding="utf-8"))
    lua = [f for f in frames(doc) if f["what"] != "C"]
    top = lua[0]
    if "short_src_hex" not in top or raw(top, "short_src") != chunk:
        errors.append(f"{name}: first Lua frame {top}: short_src is not {chunk!r}")
    if "source_hex" not in top or raw(top, "source") != b"=" + chunk:
        errors.append(f"{name}: first Lua frame: source is not '=' + {chunk!r}")
    hexed = 0
    for f in lua:
        for key in ("short_src", "name", "source"):
            if key + "_hex" in f:
                hexed += 1
                if f[key].encode() == raw(f, key):
                    errors.append(f"{name}: {key}_hex for a string that is UTF-8: {f}")
        # What debug.traceback printed of the frame, byte for byte.
        line = raw(f, "short_src") + b":" + str(f["current_line"]).encode() + b":"
        if line not in oracle:
            errors.append(f"{name}: {line!r} of level {f['level']} is not in the oracle")
        if f["namewhat"] and b"'" + raw(f, "name") + b"'" not in oracle:
            errors.append(f"{name}: name {raw(f, 'name')!r} is not in the oracle")
    if hexed < 4:
        errors.append(f"{name}: only {hexed} strings with their bytes in hex")

# The census shows a string's first bytes escaped already (analyzer/gc/object_detail.cpp).
gc = json.load(open(os.path.join(tmp, "gc.json"), encoding="utf-8"))
largest = gc["vms"][0]["gc"]["strings"]["largest"]
want = 'len 2800 "\\x00\\x1b[2J\\xff\\x01\\x00'
if not any(s["detail"].startswith(want) and s.get("path") == "_G.BINARY" for s in largest):
    errors.append(f"gc.json: no _G.BINARY with detail {want}... among {largest}")

for name in texts:
    data = open(os.path.join(tmp, name), "rb").read()
    bad = sorted({b for b in data if (b < 0x20 and b != 0x0a) or b == 0x7f})
    if bad:
        errors.append(f"{name}: control bytes {bad}")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        errors.append(f"{name}: not UTF-8: {e}")
for name in ("bt.txt", "analyze.txt"):
    data = open(os.path.join(tmp, name), "rb").read()
    if b"chunk\\xffname:1" not in data:
        errors.append(f"{name}: no escaped chunk name chunk\\xffname:1")

if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
print(f"ok: {len(jsons)} JSON outputs valid, bytes as the oracle's, {len(texts)} texts escaped")
EOF
exit $status
