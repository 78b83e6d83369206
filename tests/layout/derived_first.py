#!/usr/bin/env python3
"""Without DWARF, the layout derived from the code comes before the tables.

On the example's stripped luajit and core (testdata/example): the VM is read
with the derived layout (`layout_origin` "derived"), and `analyze --explain`
lists every offset with its source, the code's where it showed one. Then a
copy of the binary whose lua_close stores g->cur_L one word further (the
same build-id, so the core's file-backed memory still comes from it): the
derived layouts misplace cur_L, memory prefers the table, `--explain` says
why each derived layout was refused, and the backtrace does not change.
`--layout tables` never reads the code: every offset is a table's, and the
backtrace is the same.

Usage: derived_first.py LJCORE SOURCE_DIR
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

from elf_bytes import dynsym_entry, file_offset

ljcore, source = sys.argv[1], sys.argv[2]
example = f"{source}/testdata/example"
core = f"{example}/core.zst"
failed = 0


def check(ok, what, detail=""):
    global failed
    print(f"{'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else ""))
    failed += not ok


def run(*args):
    return subprocess.run([ljcore, *args], capture_output=True, text=True).stdout


def analysis_with(exe, *options):
    doc = json.loads(run("analyze", "--json", *options, "--exe", exe, core))
    return doc["vms"][0] if doc["vms"] else {}


def analysis(exe):
    return analysis_with(exe)


def explained_fields(text):
    """The `layout of VM` block of --explain: {field: (value, source)}."""
    fields, inside = {}, False
    for line in text.splitlines():
        if line.startswith("layout of VM "):
            inside = True
        elif inside and line.startswith("  "):
            name, value, source = re.match(r"  (\S+)\s+(\d+)  (.+)$", line).groups()
            fields[name] = (int(value), source)
        elif inside:
            break
    return fields


exe = f"{example}/luajit"
good = analysis(exe)
check(good.get("layout_origin") == "derived", "read with the layout derived from the code",
      f"{good.get('layout_origin')!r} ({good.get('layout_source')!r})")
fields = explained_fields(run("analyze", "--explain", "--exe", exe, core))
check(len(fields) > 80, "--explain lists every field", f"{len(fields)} fields")
cur_l = fields.get("g_cur_L", (0, ""))
check(cur_l[1].startswith("lua_close+0x"), "g->cur_L's source is lua_close's store", cur_l)
check(any(s.startswith("table ") for _, s in fields.values()),
      "the fields the code does not show are the table's")
tables_only = run("analyze", "--explain", "--layout", "tables", "--exe", exe, core)
table_fields = explained_fields(tables_only)
check(table_fields and all(s.startswith("table ") for _, s in table_fields.values()),
      "--layout tables: every offset from a table",
      [f for f, (_, s) in table_fields.items() if not s.startswith("table ")][:3])
check(analysis_with(exe, "--layout", "tables").get("layout_origin") == "table",
      "--layout tables: the layout's origin is a table")
bt_of = lambda *args: run("bt", "--format=luajit", "--exe", exe, *args, core)
check(bt_of("--layout", "tables") == bt_of() and "stack traceback:" in bt_of(),
      "--layout tables: the same backtrace")

if not re.fullmatch(r"lua_close\+0x[0-9a-f]+", cur_l[1]):
    sys.exit(1)
# The store of NULL into g->cur_L (lua_close+N, as derived): its displacement
# one word on.
data = bytearray(open(exe, "rb").read())
at = file_offset(data, dynsym_entry(data, b"lua_close")[1] + int(cur_l[1].split("+")[1], 16))
disp = data.find(struct.pack("<I", cur_l[0]), at, at + 12)
check(disp >= 0, "found the displacement of the store")
struct.pack_into("<I", data, disp, cur_l[0] + 8)
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "luajit")
    open(bad, "wb").write(data)
    os.chmod(bad, 0o755)
    vm = analysis(bad)
    check(vm.get("layout_origin") == "table" and vm.get("layout") == good.get("layout"),
          "a misleading lua_close gives the table", f"{vm.get('layout')!r}")
    explain = run("analyze", "--explain", "--exe", bad, core)
    refused = [l for l in explain.splitlines() if ") refused: " in l]
    check(refused and all("a live g->cur_L" in l for l in refused),
          "--explain says why each derived layout was refused", refused[:1])
    bt = lambda e: run("bt", "--format=luajit", "--exe", e, core)
    check(bt(bad) == bt(exe) and "stack traceback:" in bt(exe), "the backtrace does not change")
sys.exit(1 if failed else 0)
