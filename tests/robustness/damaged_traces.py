"""Traces whose memory is damaged or missing are listed with the reason,
and the other traces still print exactly as from the intact core.

Usage: damaged_traces.py LJCORE CORE EXE
  CORE: a real core with several traces (testdata/traces/side_exit.lua).
Two damaged copies of CORE are read with `ljcore traces --json --mcode`:
  - one trace's GCtrace header overwritten with 0xff (past nextgc, marked
    and gct, so the object still looks like a trace): that trace must
    carry a problem, every other trace must read as from the intact core
    (what comes from machine code aside: a jump into the damaged trace's
    code is no longer known as one);
  - the core's copy of the machine code dropped (p_filesz of its segment
    set to 0, as a core that left a mapping out): every trace must still
    give its IR and snapshots unchanged, and say its code is missing.
Each run must exit 1 (partial) with the reasons on stderr.
Exit: 0 pass, 1 fail, 2 usage, 77 skip (core never made).
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from elfcore import core_offset, core_segments  # noqa: E402
from inputs import require_inputs  # noqa: E402

# nextgc (8 bytes on GC64), marked, gct: what keeps the object a GCtrace.
GC_HEADER = 10
# sizeof(GCtrace) with GC64 (luajit/trace_layouts.h): all of it is damaged.
GCTRACE_SIZE = 120


def traces(ljcore, core, exe):
    r = subprocess.run([ljcore, "traces", "--json", "--mcode", "--exe", exe, core],
                       capture_output=True, text=True)
    doc = json.loads(r.stdout) if r.stdout.strip() else {}
    got = {}
    for vm in doc.get("vms", []):
        for t in vm.get("traces", {}).get("traces", []):
            got[t["number"]] = t
    return r.returncode, r.stderr, got


# What ljcore reads from a trace's machine code (and so from the code of
# the traces linked to it): its exits, and which exit of which parent a
# side trace hangs off.
FROM_CODE = ("mcode", "exits", "parent", "parent_exit", "problem")


def without_code(t):
    """A trace's reading less what comes from machine code."""
    return {k: v for k, v in t.items() if k not in FROM_CODE}


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    ljcore, core, exe = sys.argv[1:]
    require_inputs("tools/make-cores.sh", core, exe)
    rc, err, intact = traces(ljcore, core, exe)
    if rc != 0 or len(intact) < 3:
        print("FAIL: the intact core gives rc %d and %d traces: %s" % (rc, len(intact), err))
        return 1
    errors = []
    segs = core_segments(core)
    with tempfile.TemporaryDirectory() as tmp:
        # 1. One trace's header is garbage.
        victim = sorted(intact)[1]
        addr = int(intact[victim]["address"], 16)
        off = core_offset(segs, addr, GCTRACE_SIZE)
        damaged = os.path.join(tmp, "header.core")
        shutil.copyfile(core, damaged)
        with open(damaged, "r+b") as f:
            f.seek(off + GC_HEADER)
            f.write(b"\xff" * (GCTRACE_SIZE - GC_HEADER))
        rc, err, got = traces(ljcore, damaged, exe)
        if rc != 1:
            errors.append("header damage: exit %d, want 1 (partial)" % rc)
        if not got.get(victim, {}).get("problem"):
            errors.append("header damage: trace %d has no problem: %s" % (victim, got.get(victim)))
        if "trace %d" % victim not in err:
            errors.append("header damage: stderr does not name trace %d: %s" % (victim, err))
        for n, t in intact.items():
            if n != victim and without_code(got.get(n, {})) != without_code(t):
                errors.append("header damage: trace %d's IR or snapshots changed" % n)

        # 2. The machine code is not in the core.
        mcode = int(intact[victim]["mcode"]["address"], 16)
        damaged = os.path.join(tmp, "nocode.core")
        shutil.copyfile(core, damaged)
        with open(damaged, "r+b") as f:
            ehdr = f.read(64)
            phoff, = struct.unpack_from("<Q", ehdr, 0x20)
            phentsize, phnum = struct.unpack_from("<HH", ehdr, 0x36)
            for i in range(phnum):
                f.seek(phoff + i * phentsize)
                p_type, _, _, p_vaddr, _, p_filesz, p_memsz = struct.unpack(
                    "<IIQQQQQ", f.read(48))
                if p_type == 1 and p_vaddr <= mcode < p_vaddr + p_memsz:
                    f.seek(phoff + i * phentsize + 32)
                    f.write(struct.pack("<Q", 0))
        rc, err, got = traces(ljcore, damaged, exe)
        if rc != 1:
            errors.append("code dropped: exit %d, want 1 (partial)" % rc)
        for n, t in intact.items():
            if without_code(got.get(n, {})) != without_code(t):
                errors.append("code dropped: trace %d's IR or snapshots changed" % n)
        if "machine code" not in err:
            errors.append("code dropped: stderr does not say the code is missing: %s" % err)
    for e in errors:
        print("FAIL: " + e)
    if not errors:
        print("ok: %d traces; a damaged header and missing code are each reported, "
              "the rest read as from the intact core" % len(intact))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
