#!/usr/bin/env python3
"""A table of functions whose entries the file leaves to relocations.

The -pjfields build is linked by lld (tools/build-luajit.sh), which writes a
relative relocation's value only into .rela.dyn, not into the data it
patches: gc_freefunc's entries read 0 in the file. The deriver reads the
relocations' addends there, so the sizes lj_gc_freeall's free functions
show (analyzer/derive/gc_free_rules.cpp) are derived, from gc_freefunc,
and equal to the build's DWARF.

Usage: lld_relocations.py LJCORE SOURCE_DIR
"""
import json
import struct
import subprocess
import sys

from elf_bytes import file_offset

ljcore, source = sys.argv[1], sys.argv[2]
binary = f"{source}/build/luajit/upstream-gc64-debug-pjfields/src/luajit"
try:
    elf = open(binary, "rb").read()
except OSError as e:
    print(f"skip: {e} (run tools/build-luajit.sh)")
    sys.exit(77)
if b"LLD " not in elf:  # .comment: "Linker: Debian LLD 14.0.6"
    raise SystemExit(f"FAIL {binary} was not linked by lld")

nm = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
table = next(int(line.split()[0], 16) for line in nm.splitlines()
             if line.endswith(" gc_freefunc"))
entries = struct.unpack_from("<9Q", elf, file_offset(elf, table))
if any(entries):
    raise SystemExit(f"FAIL gc_freefunc's entries are in the file ({entries}): not what lld leaves")

layout = json.loads(subprocess.run([ljcore, "layout", "--json", binary], capture_output=True,
                                   text=True, check=True).stdout)
fields = {f["name"]: f for f in layout["fields"]}
failed = 0
for name in ("uv_size", "fnl_size", "fnc_size", "node_size", "T_nins", "T_nk", "T_nsnap",
             "T_nsnapmap", "cd_ctypeid", "cd_size"):
    f = fields.get(name)
    if (not f or "gc_freefunc" not in f.get("source", "") or "dwarf" not in f
            or f.get("derived") != f["dwarf"]):
        print(f"FAIL {name}: {f}")
        failed = 1
    else:
        print(f"ok   {name} {f['derived']} from {f['source']}")
sys.exit(failed)
