#!/usr/bin/env python3
"""Bad binaries give `ljcore layout` "could not derive: why", never a crash.

Made here from the example's stripped luajit (testdata/example): an export
that points outside the text, a lua_close whose code is garbage, a file cut
short in its text, and bytes that are no ELF at all. Each must exit with 1
(some fields derived, the others said) or 3 (none), naming why.

Usage: bad_binaries.py LJCORE SOURCE_DIR
"""
import os
import struct
import subprocess
import sys
import tempfile

from elf_bytes import dynsym_entry, file_offset

ljcore, source = sys.argv[1], sys.argv[2]
good = open(f"{source}/testdata/example/luajit", "rb").read()


def outside_text():
    elf = bytearray(good)
    off, _ = dynsym_entry(elf, b"lua_gettop")
    struct.pack_into("<Q", elf, off + 8, 0x7fff0000)
    return elf


def mangled_close():
    elf = bytearray(good)
    _, value = dynsym_entry(elf, b"lua_close")
    at = file_offset(elf, value)
    elf[at:at + 64] = b"\xff" * 64
    return elf


cases = [
    ("export outside text", outside_text(), 1, "outside every executable section"),
    ("mangled lua_close", mangled_close(), 1, "could not derive g_cur_L"),
    ("truncated text", good[:0x10000], 3, "could not derive:"),
    ("not ELF", b"\x7fELG" + os.urandom(4096), 3, "could not derive: not an ELF file"),
]
failed = 0
with tempfile.TemporaryDirectory() as tmp:
    for name, data, status, message in cases:
        path = os.path.join(tmp, name.replace(" ", "_"))
        open(path, "wb").write(data)
        r = subprocess.run([ljcore, "layout", path], capture_output=True, text=True)
        if r.returncode != status or message not in r.stderr:
            print(f"FAIL {name}: exit {r.returncode} (want {status}), stderr: {r.stderr!r}")
            failed += 1
        else:
            print(f"ok   {name}: {r.stderr.strip().splitlines()[0]}")
sys.exit(1 if failed else 0)
