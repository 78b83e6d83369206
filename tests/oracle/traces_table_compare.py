#!/usr/bin/env python3
"""Checks the table of `ljcore traces` (and its JSON) against LuaJIT itself.

Usage: tests/oracle/traces_table_compare.py LJCORE CORE ORACLE EXE

ORACLE is one of the two kinds tools/make-cores.sh writes:
  oracle.<kind>.txt of a testdata/traces/*.lua script: jit.dump's listing. For
    every trace it lists, ljcore's start is jit.dump's "---- TRACE n start"
    location; its exits are as many as the distinct "->N" exits of jit.dump's
    "mcode" section (written when the trace was compiled, so an exit LuaJIT has
    since patched into a side trace still counts); and its function is the one
    that LuaJIT's own jit.util finds has both the first bytecode jit.dump
    recorded (by its number) and a bytecode on the start line.
  oracle.<kind>.txt.trace of testdata/scenarios/trace_null_store.lua: "trace N
    NAME..." as LuaJIT reported it (jit.attach), the last NAME the function the
    trace started in. ljcore marks trace N as the one executing, and its function
    is the one that the script defines as NAME, named by jit.util.funcinfo.
    "no trace": nothing is marked as executing.
LuaJIT runs here only to read the script's prototypes (jit.util.funcinfo, funck;
the script is loaded, not run), with the core's own luajit (EXE, under qemu-user
when the core has a sysroot). In the text table, every column stays under its
header, whatever the width of START.
Exit: 0 match, 1 mismatch, 2 usage, 77 skip (not generated here).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from inputs import require_inputs, skip

# Every bytecode of every prototype of a script: "pc line linedefined function",
# the function as a trace's start names it: "main chunk" (debug.getinfo's what)
# or "function <loc>" with the loc jit.util.funcinfo gives (jit.dump's fmtfunc).
PROTOS_LUA = r"""
local util = require("jit.util")
local main = assert(loadfile(arg[1]))
local function walk(f, text)
  local fi = util.funcinfo(f)
  for pc = 0, fi.bytecodes - 1 do
    io.write(pc, " ", util.funcinfo(f, pc).currentline, " ", fi.linedefined, " ", text, "\n")
  end
  for i = -1, -65536, -1 do
    local k = util.funck(f, i)
    if k == nil then break end
    if type(k) == "proto" then walk(k, "function <" .. util.funcinfo(k).loc .. ">") end
  end
end
walk(main, debug.getinfo(main, "S").what == "main" and "main chunk"
     or "function <" .. util.funcinfo(main).loc .. ">")
"""

# Numbers in the table are right-aligned under their header.
NUMERIC = ("TRACE", "PARENT", "LINK", "IR", "SNAP", "EXITS", "SIZE", "SPADJ")


def fail(core, errors):
    print("FAIL: " + core)
    for e in errors:
        print("  " + e)
    sys.exit(1)


def dump_traces(path):
    """trace -> {loc, pc, exits} of the traces jit.dump saw complete (the last per number)."""
    done, pending, cur = {}, {}, None
    for line in open(path, encoding="latin-1"):
        line = line.rstrip("\n")
        m = re.match(r"^---- TRACE (\d+) (\w+)(?: (.*))?$", line)
        if m:
            n, what, rest = int(m.group(1)), m.group(2), m.group(3) or ""
            cur = None
            if what == "start":
                loc = re.sub(r"^\d+/(\d+|stitch) ", "", rest)
                cur = pending[n] = {"loc": loc, "pc": None, "exits": None, "want_pc": True}
            elif what == "mcode" and n in pending:
                cur = pending[n]
                cur["exits"] = set()
            elif what == "stop" and n in pending:
                done[n] = pending.pop(n)
            elif what == "abort":
                pending.pop(n, None)
            elif what == "IR":
                cur = None
            continue
        if cur is None:
            continue
        if cur.get("want_pc"):
            b = re.match(r"^(\d{4}) ", line)
            if b:
                cur["pc"], cur["want_pc"] = int(b.group(1)), False
        if cur["exits"] is not None:
            e = re.search(r"\t->(\d+)$", line)
            if e:
                cur["exits"].add(int(e.group(1)))
    return done


def prototypes(exe, script, sysroot):
    """[(pc, line, linedefined, function)] of every bytecode of the script, from LuaJIT."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(PROTOS_LUA)
        helper = f.name
    try:
        cmd = [exe, helper, os.path.basename(script)]
        if sysroot:
            cmd = ["qemu-aarch64", "-L", sysroot] + cmd
        r = subprocess.run(cmd, capture_output=True, text=True,
                           cwd=os.path.dirname(script) or ".", timeout=60)
    finally:
        os.unlink(helper)
    if r.returncode != 0:
        return None, "%s exited with %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip())
    out = []
    for line in r.stdout.splitlines():
        pc, cur, defined, text = line.split(" ", 3)
        out.append((int(pc), int(cur), int(defined), text))
    return out, None


def table_blocks(text):
    """Per VM of `ljcore traces`: (executing line or None, header, {trace: row})."""
    blocks = []
    for line in text.splitlines():
        if line.startswith("VM "):
            blocks.append([None, None, {}])
        elif not blocks:
            continue
        elif line.startswith("  executing trace "):
            blocks[-1][0] = line
        elif line.startswith("  TRACE "):
            blocks[-1][1] = line
        elif blocks[-1][1] is not None and re.match(r"^[* ] +[0-9]+ ", line) and line[2:7].strip().isdigit():
            blocks[-1][2][int(line[2:7])] = line
    return blocks


def header_spans(header):
    return {m.group(0): (m.start(), m.end()) for m in re.finditer(r"\S+", header)}


def check_row(n, row, spans, t, start_text, executing, errors):
    """The row of trace n: every cell where its header says, with the JSON's values."""
    want = {"TRACE": t["number"], "LINK": t["link"], "IR": t["nins"], "SNAP": t["nsnap"],
            "EXITS": t.get("exits", "-"), "SIZE": t["mcode"]["size"],
            "SPADJ": t["mcode"]["spadjust"],
            "PARENT": "%d/%d" % (t["parent"], t["parent_exit"]) if "parent" in t
            else (t["root"] or "-")}
    for name in NUMERIC:
        _, end = spans[name]
        cell = row[:end].split()[-1] if row[:end].strip() else ""
        if row[end:end + 1] not in ("", " ") or cell != str(want[name]):
            errors.append("trace %d: %s column %r, want %r right-aligned under the header"
                          % (n, name, row[:end + 1].split()[-1:], str(want[name])))
    start, _ = spans["START"]
    after = start + len(start_text)
    if row[start:after] != start_text or row[after:after + 1] != " ":
        errors.append("trace %d: START column %r, want %r" % (n, row[start:], start_text))
    start, _ = spans["MCODE"]
    cell = row[start:].split()[0] if row[start:].strip() else ""
    if row[start - 1] != " " or not cell.startswith("0x") or \
            int(cell, 16) != int(t["mcode"]["address"], 16):
        errors.append("trace %d: MCODE column %r, want %s" % (n, cell, t["mcode"]["address"]))
    marked = row.startswith("* ")
    if marked != (n == executing):
        errors.append("trace %d: %s as executing; the executing trace is %s"
                      % (n, "marked" if marked else "not marked", executing or "none"))


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    ljcore, core, oracle, exe = sys.argv[1:]
    d = os.path.dirname(core)
    require_inputs("tools/make-cores.sh", core, oracle, exe)
    scenario = os.path.basename(d)
    script = os.path.join(d, scenario + ".lua")
    if not os.path.exists(script):
        skip(script + " does not exist (run tools/make-cores.sh)")
    sysroot = None
    if os.path.exists(os.path.join(d, "sysroot")):
        sysroot = open(os.path.join(d, "sysroot")).read().strip()
    if sysroot and not shutil.which("qemu-aarch64"):
        skip("qemu-aarch64 is not installed: LuaJIT of %s cannot run here" % core)
    args = ["--exe", exe] + (["--sysroot", sysroot] if sysroot else []) + [core]

    exe = os.path.abspath(exe)
    no_trace = oracle.endswith(".trace") and open(oracle).read().split()[:2] == ["no", "trace"]
    outputs = {}
    for kind, extra in (("json", ["--json"]), ("table", [])):
        cmd = [ljcore, "traces"] + extra + args
        r = subprocess.run(cmd, capture_output=True, text=True)
        # A build without a JIT has no traces to read: a partial result (1).
        if r.returncode != 0 and not (no_trace and r.returncode == 1):
            fail(core, ["%s exited with %d: %s" % (" ".join(cmd), r.returncode, r.stderr)])
        outputs[kind] = r.stdout
    vms = json.loads(outputs["json"])["vms"]
    blocks = table_blocks(outputs["table"])
    if len(blocks) != len(vms):
        fail(core, ["the table lists %d VMs, the JSON %d" % (len(blocks), len(vms))])
    traces, executing, rows, spans, errors = {}, 0, {}, None, []
    for vm, (exec_line, header, vm_rows) in zip(vms, blocks):
        ts = vm.get("traces", {})
        for t in ts.get("traces", []):
            traces[t["number"]] = t
        executing = executing or ts.get("executing", 0)
        want_line = "  executing trace %d at the crash" % ts["executing"] \
            if ts.get("executing") else None
        if exec_line != want_line:
            errors.append("VM %s: executing line %r, want %r"
                          % (vm["global_state"], exec_line, want_line))
        if header is not None:
            spans = header_spans(header)
            rows.update(vm_rows)

    # What LuaJIT says of each trace: its start, exits and function.
    expected = {}  # trace -> (loc or None, exits or None, [functions], why)
    protos = None
    if oracle.endswith(".trace"):
        words = open(oracle).read().split()
        if no_trace:
            if executing or any(r.startswith("* ") for r in rows.values()):
                errors.append("LuaJIT ran no trace, ljcore says trace %s was executing"
                              % executing)
            if errors:
                fail(core, errors)
            print("ok: %s: no trace, none marked executing" % core)
            return
        n, name = int(words[1]), words[-1]
        if executing != n:
            errors.append("executing trace %s, LuaJIT ran trace %d" % (executing, n))
        source = open(script, encoding="latin-1").read().splitlines()
        defined = [i + 1 for i, l in enumerate(source)
                   if re.search(r"\bfunction\s+%s\s*\(|\b%s\s*=\s*function\s*\("
                                % (re.escape(name), re.escape(name)), l)]
        if len(defined) != 1:
            fail(core, ["%s defines %s on lines %s, not on one" % (script, name, defined)])
        protos, why = prototypes(exe, script, sysroot)
        if protos is None:
            fail(core, [why])
        funcs = sorted({p[3] for p in protos if p[2] == defined[0]})
        lines = {p[1] for p in protos if p[2] == defined[0]}
        if not lines:
            fail(core, ["LuaJIT finds no function defined on line %d of %s"
                        % (defined[0], script)])
        t = traces.get(n)
        if t is not None and int(t["start"]["loc"].rsplit(":", 1)[-1]) not in lines:
            errors.append("trace %d starts at %s, outside %s (lines %d..%d)"
                          % (n, t["start"]["loc"], name, min(lines), max(lines)))
        expected[n] = (None, None, funcs, "%s, defined on line %d" % (name, defined[0]))
    else:
        dumped = dump_traces(oracle)
        if not dumped:
            fail(core, ["the oracle %s lists no complete trace" % oracle])
        protos, why = prototypes(exe, script, sysroot)
        if protos is None:
            fail(core, [why])
        for n, dt in dumped.items():
            line = int(dt["loc"].rsplit(":", 1)[-1]) if re.search(r":\d+$", dt["loc"]) else None
            # A root trace starts at its loop's instruction, before the first
            # bytecode it recorded: the function has both, not always on one line.
            funcs = sorted({p[3] for p in protos if p[0] == dt["pc"]} &
                           {p[3] for p in protos if p[1] == line})
            exits = len(dt["exits"]) if dt["exits"] is not None else None
            expected[n] = (dt["loc"], exits, funcs,
                           "with bytecode %s and line %s" % (dt["pc"], line))

    if spans is None or any(name not in spans for name in NUMERIC + ("START", "MCODE")):
        fail(core, errors + ["the table has no header with every column: %r" % spans])
    checked_exits = 0
    for n, (loc, exits, funcs, why) in sorted(expected.items()):
        t = traces.get(n)
        if t is None or n not in rows:
            errors.append("trace %d: not listed by ljcore (JSON %s, table %s)"
                          % (n, t is not None, n in rows))
            continue
        if loc is not None and t["start"]["loc"] != loc:
            errors.append("trace %d: start %s, jit.dump says %s" % (n, t["start"]["loc"], loc))
        if exits is not None:
            checked_exits += 1
            if t.get("exits") != exits:
                errors.append("trace %d: %s exits, jit.dump's machine code has %d"
                              % (n, t.get("exits"), exits))
        function = t["start"].get("function")
        if len(funcs) != 1:
            errors.append("trace %d: LuaJIT finds %s as the function %s" % (n, funcs, why))
        elif function != funcs[0]:
            errors.append("trace %d: function %r, LuaJIT says %r (%s)"
                          % (n, function, funcs[0], why))
        start_text = t["start"]["loc"] + (" (%s)" % function if function else "")
        check_row(n, rows[n], spans, t, start_text, executing, errors)
    if errors:
        fail(core, errors)
    if oracle.endswith(".trace"):
        print("ok: %s: trace %d executing, its function and its table row" % (core, n))
    else:
        print("ok: %s: %d traces: start, exits, function and table row of each"
              % (core, checked_exits))


main()
