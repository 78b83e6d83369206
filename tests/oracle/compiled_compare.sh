#!/usr/bin/env bash
# A crash inside compiled code (testdata/scenarios/trace_null_store.lua): compare.sh already
# checks the frames and lines against the traceback LuaJIT printed at the same store when it
# interpreted it; this checks that ljcore knows which frames ran compiled, against what
# LuaJIT reported itself (jit.attach) in ORACLE.trace:
#   "trace N NAME..."  the trace that ran, and the frames it ran, innermost first: all of
#                      them marked with trace N, all but the last inlined, none below;
#   "no trace"         no JIT (a build without it): no frame is marked.
# Usage: tests/oracle/compiled_compare.sh LJCORE CORE ORACLE_TRACE EXE
# Exit: 0 ok, 1 mismatch, 2 usage, 77 skip.
set -euo pipefail

if (($# != 4)); then
  echo "usage: $0 LJCORE CORE ORACLE_TRACE EXE" >&2
  exit 2
fi
ljcore=$1 core=$2 oracle=$3 exe=$4
source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
require_inputs tools/make-cores.sh "$core" "$oracle" "$exe"

cmd=("$ljcore" bt --json --exe "$exe" "$core")
add_sysroot cmd
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"${cmd[@]}" >"$tmp" 2>/dev/null || { echo "FAIL: ljcore failed: ${cmd[*]}"; exit 1; }

python3 - "$oracle" "$tmp" <<'EOF_PY'
import json, sys
words = open(sys.argv[1]).read().split()
frames = json.load(open(sys.argv[2]))["vms"][0]["stack"]["frames"]
if words[:2] == ["no", "trace"]:
    trace, names = 0, []
else:
    trace, names = int(words[1]), words[2:]
errors = []
for i, f in enumerate(frames):
    want = trace if i < len(names) else 0
    if f.get("trace", 0) != want:
        errors.append(f"level {i}: trace {f.get('trace', 0)}, want {want}")
    if f.get("inlined", False) != (i < len(names) - 1):
        errors.append(f"level {i}: inlined is {f.get('inlined', False)}")
    if i < len(names) and f["name"] != names[i]:
        errors.append(f"level {i}: function '{f['name']}', want '{names[i]}'")
if errors:
    print("FAIL:", *errors, sep="\n  ")
    sys.exit(1)
print(f"ok: {len(names)} frames compiled in trace {trace}" if trace else "ok: nothing compiled")
EOF_PY
