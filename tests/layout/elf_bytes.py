"""The little of an x86_64 ELF file the layout tests patch: its sections, an
exported symbol's .dynsym entry, and the file offset of an address."""
import struct


def sections(elf):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3a)
    for i in range(shnum):
        _, type_, _, addr, off, size, link, _, _, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", elf, shoff + i * shentsize)
        yield {"type": type_, "addr": addr, "off": off, "size": size, "link": link,
               "entsize": entsize}


def dynsym_entry(elf, wanted):
    """File offset of the .dynsym entry of symbol `wanted`, and its value."""
    secs = list(sections(elf))
    for s in secs:
        if s["type"] != 11:  # SHT_DYNSYM
            continue
        strtab = secs[s["link"]]
        for off in range(s["off"], s["off"] + s["size"], s["entsize"]):
            name, = struct.unpack_from("<I", elf, off)
            end = elf.index(b"\0", strtab["off"] + name)
            if elf[strtab["off"] + name:end] == wanted:
                return off, struct.unpack_from("<Q", elf, off + 8)[0]
    raise SystemExit(f"FAIL no {wanted} in the .dynsym")


def file_offset(elf, addr):
    for s in sections(elf):
        if s["type"] == 1 and s["addr"] <= addr < s["addr"] + s["size"]:  # SHT_PROGBITS
            return s["off"] + addr - s["addr"]
    raise SystemExit(f"FAIL {addr:#x} is in no section")
