#!/usr/bin/env bash
# Five threads, five VMs, four of them idle (testdata/hosts/idle_vms.c, cores by
# tools/make-host-cores.sh): three back in C, keeping their lua_State in a local, in TLS and
# in a per-thread object, one parked in Lua; the main thread's crashing. Without --scan,
# ljcore must find every VM the host made, each with the thread that made it.
# Usage: tests/oracle/idle_vms_compare.sh LJCORE DIR KIND
#   DIR: build/cores/<variant>/idle_vms; KIND: kernel or gcore.
# Checks, from `ljcore analyze --json` and `ljcore bt --format=luajit --level 1`:
#   - one VM for each line "TID L KIND" the host wrote (vms.KIND.txt): the VM whose main
#     lua_State is L, its thread (vms[].threads[0]) TID, and no other VM;
#   - before each traceback block a line "-- VM 0x... (thread TID)", ", crashed" on the main
#     thread's; that VM's block is oracle.KIND.txt and the parked one's parked.KIND.txt, byte
#     for byte (debug.traceback("", 1) each took of itself); the idle ones have no Lua frame.
# Exit: 0 ok, 1 mismatch, 2 usage, 77 skip.
set -euo pipefail

if (($# != 3)); then
  echo "usage: $0 LJCORE DIR KIND" >&2
  exit 2
fi
ljcore=$1 dir=$2 kind=$3
source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
require_inputs tools/make-host-cores.sh "$dir/core.$kind" "$dir/oracle.$kind.txt" \
  "$dir/parked.$kind.txt" "$dir/vms.$kind.txt" "$dir/exe"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts=(--exe "$dir/exe")
add_sysroot opts "$dir"
for cmd in "analyze --json" "bt --format=luajit --level 1"; do
  # shellcheck disable=SC2086 # cmd is split on purpose
  run_ljcore "$tmp/${cmd%% *}" "$ljcore" $cmd "${opts[@]}" "$dir/core.$kind"
done

python3 - "$tmp/analyze" "$tmp/bt" "$dir/vms.$kind.txt" "$dir/oracle.$kind.txt" \
  "$dir/parked.$kind.txt" <<'EOF_PY'
import json, re, sys

doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
made = [l.split() for l in open(sys.argv[3]) if l.strip()]
oracle, parked = open(sys.argv[4]).read(), open(sys.argv[5]).read()
errors = []

vms = {int(v["main_thread"], 16): v for v in doc["vms"]}
if len(doc["vms"]) != len(made):
    errors.append(f"{len(doc['vms'])} VMs found, the host made {len(made)}")
by_g = {}
for tid, L, what in made:
    vm = vms.get(int(L, 16))
    if vm is None:
        errors.append(f"the {what} VM (thread {tid}, lua_State {L}) was not found")
        continue
    by_g[int(vm["global_state"], 16)] = (int(tid), what, vm)
    if not vm["threads"] or vm["threads"][0] != int(tid):
        errors.append(f"the {what} VM: threads {vm['threads']}, want {tid} first")

# "-- VM 0x... (thread TID[, crashed])\nstack traceback:..." per VM.
blocks = re.split(r"^-- VM ", text, flags=re.M)
if blocks[0] != "":
    errors.append(f"output before the first VM label: {blocks[0]!r}")
for b in blocks[1:]:
    label, _, body = b.partition("\n")
    m = re.fullmatch(r"(0x[0-9a-f]+) \(thread (\d+)(, crashed)?\)", label)
    if not m or int(m[1], 16) not in by_g:
        errors.append(f"label {label!r} names no VM the host made")
        continue
    tid, what, vm = by_g.pop(int(m[1], 16))
    if int(m[2]) != tid or bool(m[3]) != (what == "main"):
        errors.append(f"the {what} VM of thread {tid} is labelled {label!r}")
    # The oracles: "\n" (the empty message), the traceback, no final newline.
    want = {"main": oracle[1:] + "\n", "lua": parked[1:] + "\n"}.get(what)
    if want is not None and body != want:
        errors.append(f"the {what} VM:\n--- oracle\n{want}--- ljcore\n{body}")
    if want is None and vm["stack"]["frames"]:
        errors.append(f"the {what} VM, idle in C, shows Lua frames:\n{body}")
if by_g:
    errors.append(f"no traceback block for {sorted(w for _, w, _ in by_g.values())}")

if errors:
    print("FAIL: " + "\n".join(errors))
    sys.exit(1)
print("ok: " + ", ".join(f"{w} VM on thread {t}" for t, L, w in made))
EOF_PY
