#!/usr/bin/env bash
# Checks where ljcore places the Lua frames among the native ones (mixed stacks).
# Usage: tests/oracle/mixed_compare.sh LJCORE CORE EXE [SYMBOLS]
#   CORE, EXE: as made by tools/make-cores.sh; SYMBOLS: a binary with the same code as EXE
#   and a symbol table (the debug twin of a stripped variant), used only to name addresses.
# compare.sh already checks the Lua frames against LuaJIT's debug.traceback; this checks, on
# the crashed thread, that
#   - every Lua frame of the running coroutine is in exactly one run, levels in order, and
#     every run sits at a native frame, innermost run at the innermost such frame, and a
#     frame called from C ends its run;
#   - the other lua_States placed on the native stack are exactly the coroutines that
#     `--all` (a walk of the GC heap) calls normal, all their frames placed in order;
#   - a run whose top frame is a C function (called through lj_BC_FUNCC; not one of the fast
#     functions written in the interpreter's assembler) sits right below the native frame of
#     that very function: the frame above the run's native frame lies in the function whose
#     entry is the C function's address, or in one it jumps to (a C tail call, as lj_cf_error
#     into lua_error, leaves no native frame of its own).
# ljcore places runs by stack pointer, never by name; names only serve the check.
# Exit: 0 ok, 1 mismatch, 2 usage, 77 skip.
set -euo pipefail

if (($# < 3 || $# > 4)); then
  echo "usage: $0 LJCORE CORE EXE [SYMBOLS]" >&2
  exit 2
fi
ljcore=$1 core=$2 exe=$3 symbols=${4:-}

source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
require_inputs tools/make-cores.sh "$core" "$exe"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmd=("$ljcore" analyze --json --exe "$exe" "$core")
add_sysroot cmd
for run in analysis all; do
  extra=()
  [[ $run == all ]] && extra=(--all)
  run_ljcore "$tmp/$run.json" "${cmd[@]}" "${extra[@]}"
done
# Function symbols (address, size, name) of the code, when some binary has them.
[[ -z $symbols ]] && symbols=$exe
nm --defined-only -S "$symbols" 2>/dev/null | awk 'NF == 4 && $3 ~ /^[tTwW]$/' >"$tmp/symbols" || true

python3 - "$tmp/analysis.json" "$tmp/symbols" "$symbols" "$exe" "$tmp/all.json" <<'EOF'
import bisect, json, os, re, subprocess, sys

doc = json.load(open(sys.argv[1], encoding="utf-8"))
syms = []
for line in open(sys.argv[2]):
    addr, size, _, name = line.split()
    syms.append((int(addr, 16), int(size, 16), name))
syms.sort()
starts = [s[0] for s in syms]
errors = []

vm = doc["vms"][0]
frames = vm["stack"]["frames"]
thread = next((t for t in doc["threads"] if t["crashed"]), doc["threads"][0])
runs = [r for r in thread["lua_runs"] if r["vm"] == 0 and r["L"] == vm["stack"]["L"]]
if not runs:
    sys.exit("FAIL: no Lua run placed on the crashed thread")

levels = [lvl for r in runs for lvl in range(r["first_level"], r["first_level"] + r["count"])]
if levels != [f["level"] for f in frames]:
    errors.append(f"runs cover levels {levels}, the stack has {[f['level'] for f in frames]}")
# A frame called from C (lua_call, lua_pcall: link type C or CP, lj_frame.h) is the first
# frame of its VM entry, so the last of its run.
run_ends = {r["first_level"] + r["count"] - 1 for r in runs}
for f in frames:
    if f["frame_type"] & 3 == 1 and f["level"] not in run_ends:
        errors.append(f"level {f['level']} was called from C but does not end a run")
placed = [r.get("native_frame") for r in runs]
if None in placed or placed != sorted(set(placed)):
    errors.append(f"runs sit at native frames {placed}: want all placed, innermost first")

# The other states on the native stack, found from the C frames, must be exactly the
# coroutines the GC heap walk (--all) calls normal (waiting in coroutine.resume), each
# with all its frames placed on this thread.
listed = json.load(open(sys.argv[5], encoding="utf-8"))["vms"][0]["coroutines"]
normal = sorted(c["L"] for c in listed if c["status"] == "normal")
entered = {s["L"]: s for s in vm.get("entered", [])}
if sorted(entered) != normal:
    errors.append(f"states entered on the native stack {sorted(entered)}, normal coroutines {normal}")
for L, s in entered.items():
    theirs = [r for r in thread["lua_runs"] if r["L"] == L]
    got = [l for r in theirs for l in range(r["first_level"], r["first_level"] + r["count"])]
    if got != [f["level"] for f in s["frames"]] or any("native_frame" not in r for r in theirs):
        errors.append(f"coroutine {L}: runs {theirs} do not place its {len(s['frames'])} frames")
every = [r.get("native_frame") for r in thread["lua_runs"]]
if None in every or every != sorted(set(every)):
    errors.append(f"runs of all states sit at native frames {every}: want distinct, in order")

# Module bias of the executable: a frame the core's own symbols named, looked up in SYMBOLS.
natives = thread["frames"]
bias = None
by_name = {s[2]: s[0] for s in syms}
# The executable's module is named as the process ran it (the exe symlink) or, found through
# r_debug in qemu guests' cores, as the file it is.
exe_names = {os.path.basename(sys.argv[4]), os.path.basename(os.path.realpath(sys.argv[4]))}
for f in natives:
    name = f["function"].split("@@")[0]
    if f["module"] in exe_names and name in by_name:
        bias = int(f["pc"], 16) - f["offset"] - by_name[name]
        break

def function_of(addr):
    """(entry, name) of the symbol covering a runtime address, or None."""
    i = bisect.bisect_right(starts, addr - bias) - 1
    if i < 0 or addr - bias >= syms[i][0] + max(syms[i][1], 1):
        return None
    return syms[i][0] + bias, syms[i][2]

def tail_calls(name):
    """Functions that function `name` of SYMBOLS enters by a jump (a C tail call)."""
    objdump = "aarch64-linux-gnu-objdump" if doc["arch"] == "aarch64" else "objdump"
    try:
        text = subprocess.run([objdump, "-d", "--no-show-raw-insn", "--disassemble=" + name,
                               sys.argv[3]], capture_output=True, text=True).stdout
    except OSError:
        return set()
    return set(re.findall(r"\s(?:jmp|b)\s+[0-9a-f]+ <([^>+]+)>", text))

checked = 0
by_level = {f["level"]: f for f in frames}
for r in runs:
    top = by_level[r["first_level"]]
    if top["what"] != "C" or "c_function" not in top or r.get("native_frame") is None:
        continue
    if r["native_frame"] == 0:
        errors.append(f"C function at level {top['level']} has no native frame above its run")
        continue
    above = natives[r["native_frame"] - 1]
    if bias is None:
        print(f"note: no symbols for {above['module']}: level {top['level']} unchecked")
        continue
    c_function = int(top["c_function"], 16)
    pc = int(above["pc"], 16) - (0 if above["activation"] else 1)
    want, got = function_of(c_function), function_of(pc)
    if want and want[1].startswith("lj_ffh_"):
        continue  # a fast function in the interpreter's code: no native frame of its own
    if want and got and want != got and got[1] in tail_calls(want[1]):
        got = want  # the C function jumped to the one above: it has no frame of its own
    if want is None or want[0] != c_function or got != want:
        errors.append(f"level {top['level']} [C] function {top['c_function']} ({want}) runs "
                      f"under native frame #{r['native_frame']}, but the frame above it is in {got}")
    checked += 1

if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
print(f"ok: {len(frames)} Lua frames in {len(runs)} runs at native frames {placed}, "
      f"{checked} C function(s) right above their run, {len(entered)} resumer(s) placed")
EOF
