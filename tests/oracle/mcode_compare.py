#!/usr/bin/env python3
"""Checks `ljcore traces --json --mcode` of a crash core against the core and jit.dump.

Usage: tests/oracle/mcode_compare.py LJCORE CORE ORACLE EXE

For every trace: the instructions ljcore lists cover the trace's machine code
without gap or overlap and their bytes are the core's bytes at that address
(read here from the core's PT_LOAD segments, not through ljcore); they start
exactly where LuaJIT's own disassembler (jit.dump's "mcode" section, the
oracle) starts one; every guard jit.dump shows jumping to exit N is exit N
for ljcore too, or, if LuaJIT has since patched that exit to a side trace,
a jump into a side trace whose parent exit ljcore says is N; the loop
starts where jit.dump's ->LOOP label is; and each side trace's parent and
parent exit are those of jit.dump's "---- TRACE n start P/E" line.
Exit: 0 match, 1 mismatch, 2 usage, 77 skip (not generated here).
"""
import json
import os
import re
import subprocess
import sys

from elfcore import core_bytes, core_segments
from inputs import require_inputs


def oracle_mcode(path):
    """trace -> (size, [instruction addresses], {address: exit}, loop address)."""
    out, cur = {}, None
    for line in open(path, encoding="latin-1"):
        line = line.rstrip("\n")
        m = re.match(r"^---- TRACE (\d+) mcode (\d+)$", line)
        if m:
            cur = out[int(m.group(1))] = [int(m.group(2)), [], {}, None, False]
            continue
        if line.startswith("---- TRACE"):
            cur = None
            continue
        if cur is None:
            continue
        if line == "->LOOP:":
            cur[4] = True
            continue
        m = re.match(r"^([0-9a-f]+)  (.*)$", line)
        if not m:
            continue
        a = int(m.group(1), 16)
        cur[1].append(a)
        if cur[4] and cur[3] is None:
            cur[3] = a
        e = re.search(r"\t->(\d+)$", m.group(2))
        if e:
            cur[2][a] = int(e.group(1))
    return out


def oracle_parents(path):
    """side trace -> (parent, exit) from jit.dump's start lines (the last per trace)."""
    out = {}
    for line in open(path, encoding="latin-1"):
        m = re.match(r"^---- TRACE (\d+) start (?:(\d+)/(\d+) )?", line)
        if m:
            out[int(m.group(1))] = (int(m.group(2)), int(m.group(3))) if m.group(2) else None
    return out


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    ljcore, core, oracle, exe = sys.argv[1:]
    d = os.path.dirname(core)
    require_inputs("tools/make-cores.sh", core, oracle, exe)
    cmd = [ljcore, "traces", "--json", "--mcode", "--exe", exe, core]
    sysroot = os.path.join(d, "sysroot")
    if os.path.exists(sysroot):
        cmd += ["--sysroot", open(sysroot).read().strip()]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: %s exited with %d\n%s" % (" ".join(cmd), r.returncode, r.stderr))
        sys.exit(1)
    doc = json.loads(r.stdout)
    traces = {t["number"]: t for vm in doc["vms"] for t in vm.get("traces", {}).get("traces", [])}
    expected = oracle_mcode(oracle)
    segs = core_segments(core)
    errors = []
    exits_checked = 0
    for n, (size, addrs, exits, loop, _) in sorted(expected.items()):
        t = traces.get(n)
        if t is None:
            errors.append("trace %d: not listed by ljcore" % n)
            continue
        mc = t["mcode"]
        base, listing = int(mc["address"], 16), mc["listing"]
        if mc["size"] != size:
            errors.append("trace %d: size %d, jit.dump says %d" % (n, mc["size"], size))
        ofs, code = 0, b""
        for line in listing:
            if line["offset"] != ofs:
                errors.append("trace %d: gap or overlap at offset %d" % (n, ofs))
                break
            ofs += line["size"]
            code += bytes.fromhex(line["bytes"])
        if ofs != size:
            errors.append("trace %d: instructions cover %d of %d bytes" % (n, ofs, size))
        want = core_bytes(core, segs, base, size)
        if want is None:
            errors.append("trace %d: the core lacks its code at %#x" % (n, base))
        elif code != want:
            errors.append("trace %d: instruction bytes differ from the core's" % n)
        ours = {base + line["offset"]: line for line in listing}
        if sorted(ours) != sorted(addrs):
            only_ours = sorted(set(ours) - set(addrs))[:5]
            only_dump = sorted(set(addrs) - set(ours))[:5]
            errors.append("trace %d: instruction starts differ: ljcore only %s, jit.dump only %s"
                          % (n, [hex(a) for a in only_ours], [hex(a) for a in only_dump]))
        for a, e in sorted(exits.items()):
            line = ours.get(a)
            exits_checked += 1
            if line is None:
                continue  # reported above
            if line.get("exit") == e:
                continue
            side = traces.get(line.get("to_trace", 0))
            if side and side.get("parent") == n and side.get("parent_exit") == e:
                continue
            errors.append("trace %d: at %#x jit.dump exits to %d, ljcore says %s"
                          % (n, a, e, {k: line.get(k) for k in ("exit", "to_trace", "text")}))
        if loop is not None and base + mc["loop"] != loop:
            errors.append("trace %d: loop at %#x, jit.dump says %#x" % (n, base + mc["loop"], loop))
    for n, parent in sorted(oracle_parents(oracle).items()):
        t = traces.get(n)
        if t is None or parent is None:
            continue
        ours = (t.get("parent"), t.get("parent_exit"))
        if ours != parent:
            errors.append("trace %d: parent/exit %s, jit.dump says %d/%d" % ((n, ours) + parent))
    if not expected:
        errors.append("the oracle has no mcode section: the scenario compiled nothing")
    if errors:
        print("FAIL: " + core)
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("ok: %s: %d traces, %d exits" % (core, len(expected), exits_checked))


main()
