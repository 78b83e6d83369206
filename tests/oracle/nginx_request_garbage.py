#!/usr/bin/env python3
"""A copy of the nginx worker core whose handler coroutine's L->exdata holds
garbage (an unmapped address, then the lua_State itself: readable, but no
request) must show no request, say why under --explain, and not crash.
Usage: nginx_request_garbage.py LJCORE CORE"""
import json, os, shutil, struct, subprocess, sys, tempfile

from elfcore import core_offset, core_segments

ljcore, core = sys.argv[1], sys.argv[2]
if not os.path.exists(core):
    print("skip: no nginx core (tools/make-nginx-core.sh)")
    sys.exit(77)
doc = json.loads(subprocess.run([ljcore, "analyze", "--json", core], check=True,
                                capture_output=True).stdout)
L = int(doc["vms"][0]["requests"][0]["L"], 16)
# luajit2 GC64 x86_64: exdata follows the 96 bytes of upstream's lua_State.
exdata = L + 96
segs = core_segments(core)
failed = False
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "core")
    for garbage in (0x4141414141414141, L):
        shutil.copyfile(core, bad)
        with open(bad, "r+b") as f:
            f.seek(core_offset(segs, exdata, 8))
            f.write(struct.pack("<Q", garbage))
        run = subprocess.run([ljcore, "analyze", "--json", "--explain", bad],
                             capture_output=True)
        out = json.loads(run.stdout)
        why = [e for e in out.get("evidence", []) if e.startswith("nginx request of")]
        if run.returncode not in (0, 1) or out["vms"][0].get("requests") or not why:
            print(f"FAIL exdata {garbage:#x}: rc {run.returncode}, requests "
                  f"{out['vms'][0].get('requests')}, evidence {why}")
            failed = True
        else:
            print(f"ok exdata {garbage:#x}: {why[0]}")
sys.exit(1 if failed else 0)
