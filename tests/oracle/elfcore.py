"""Reading a 64-bit little-endian ELF core the simple way, for test
scripts that look at its bytes themselves."""
import struct


def core_segments(path):
    """(vaddr, filesz, offset) of each PT_LOAD of the core."""
    with open(path, "rb") as f:
        ehdr = f.read(64)
        phoff, = struct.unpack_from("<Q", ehdr, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", ehdr, 0x36)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    segs = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", table, i * phentsize)
        if p_type == 1:
            segs.append((p_vaddr, p_filesz, p_offset))
    return segs


def core_offset(segs, addr, size):
    """File offset of [addr, addr + size), or None when the core lacks it."""
    for vaddr, filesz, offset in segs:
        if vaddr <= addr and addr + size <= vaddr + filesz:
            return offset + addr - vaddr
    return None


def core_bytes(path, segs, addr, size):
    offset = core_offset(segs, addr, size)
    if offset is None:
        return None
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(size)
