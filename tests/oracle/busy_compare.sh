#!/usr/bin/env bash
# A busy multi-VM host (testdata/hosts/busy_vms.c, cores by tools/make-host-cores.sh): three
# workers run Lua, a VM each, while the main thread's VM crashes; the kernel stops each worker
# wherever it is, now and then between storing BASE to L->base and calling C, or halfway
# through a return. In every core:
#   - `ljcore bt --format=luajit --level 1` exits 0 (no stack incomplete) with four VMs;
#   - the crashed thread's VM prints oracle.N.txt byte for byte;
#   - each worker's VM walks down to its bottom frame as the script has it running:
#     "busy.lua:26: in main chunk", the loop it never leaves (or line 25, a worker still
#     returning from the write that said it is ready).
# The crashed VM is told apart by `analyze --json` (its thread's runs).
# Usage: tests/oracle/busy_compare.sh LJCORE DIR   (DIR: build/cores/<variant>/busy_vms)
# Exit: 0 ok, 1 mismatch, 2 usage, 77 skip.
set -euo pipefail

if (($# != 2)); then
  echo "usage: $0 LJCORE DIR" >&2
  exit 2
fi
ljcore=$1 dir=$2
source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
require_inputs tools/make-host-cores.sh "$dir/core.1" "$dir/oracle.1.txt" "$dir/exe"

python3 - "$ljcore" "$dir" <<'EOF'
import glob, json, os, re, subprocess, sys

ljcore, d = sys.argv[1:]
cores = sorted(glob.glob(os.path.join(d, "core.[0-9]*")),
               key=lambda p: int(re.search(r"core\.(\d+)$", p).group(1)))
bottom = re.compile(r"\tbusy\.lua:2[56]: in main chunk")
failed = []
for core in cores:
    n = re.search(r"core\.(\d+)$", core).group(1)
    errors = []
    runs = {}
    for cmd in (["bt", "--format=luajit", "--level", "1"], ["analyze", "--json"]):
        p = subprocess.run([ljcore, *cmd, "--exe", os.path.join(d, "exe"), core],
                           capture_output=True, text=True)
        runs[cmd[0]] = p
        if p.returncode != 0:
            errors.append(f"ljcore {' '.join(cmd)} exited with {p.returncode}: {p.stderr.strip()}")
    if not errors:
        doc = json.loads(runs["analyze"].stdout)
        # One "stack traceback:" block per VM, in the order of doc["vms"]; lines that label a
        # block ("-- VM ...") are not part of it.
        text = "".join(l for l in runs["bt"].stdout.splitlines(True) if not l.startswith("-- "))
        blocks = ["stack traceback:" + b for b in text.split("stack traceback:")[1:]]
        if len(doc["vms"]) != 4 or len(blocks) != 4:
            errors.append(f"{len(doc['vms'])} VMs and {len(blocks)} tracebacks, want 4")
        crashed = {r["vm"] for t in doc["threads"] if t["crashed"] for r in t["lua_runs"]}
        if len(crashed) != 1:
            errors.append(f"the crashed thread has Lua runs of VMs {sorted(crashed)}")
        for i, block in enumerate(blocks):
            if i in crashed:
                want = open(os.path.join(d, f"oracle.{n}.txt")).read()[1:] + "\n"
                if block != want:
                    errors.append(f"crashed VM:\n--- oracle\n{want}--- ljcore\n{block}")
            elif not bottom.fullmatch(block.rstrip("\n").split("\n")[-1]):
                errors.append(f"worker VM {i} does not end in the main chunk's loop:\n{block}")
    if errors:
        failed.append(f"core.{n}: " + "\n".join(errors))

if not cores:
    sys.exit("FAIL: no cores")
if failed:
    print(f"FAIL: {len(failed)} of {len(cores)} cores\n" + "\n".join(failed))
    sys.exit(1)
print(f"ok: {len(cores)} cores, every VM's stack whole, the crashed one's as LuaJIT printed it")
EOF
