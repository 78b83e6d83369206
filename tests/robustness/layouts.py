"""The offsets of luajit/layouts.h and luajit/trace_layouts.h, for test
scripts that patch LuaJIT objects inside a core: read from the headers
themselves, so a test and ljcore can never disagree on a field."""
import os
import re

LUAJIT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "luajit")

# gct values (~LJ_T*) of luajit/layout.h.
GCT = {"str": 4, "upval": 5, "thread": 6, "proto": 7, "func": 8, "trace": 9,
       "cdata": 10, "tab": 11, "udata": 12}


def _structs(header):
    """{variable name: {field: value}} of each `static const struct` in header."""
    with open(os.path.join(LUAJIT_DIR, header)) as f:
        text = f.read().replace("\\\n", " ")
    macros = dict(re.findall(r"#define\s+(\w+)\s+(.*)", text))
    out = {}
    for var, body in re.findall(r"static const struct \w+ (\w+) = \{(.*?)\};", text, re.S):
        # Macros expand to more fields (and may use others): to a fixpoint.
        while True:
            expanded = re.sub(r"\b([A-Z][A-Z0-9_]+)\b(?!\s*=)",
                              lambda m: macros.get(m.group(1), m.group(1)), body)
            if expanded == body:
                break
            body = expanded
        fields = {}
        for name, value in re.findall(r"\.(\w+)\s*=\s*(\"[^\"]*\"|0x[0-9a-fA-F]+|\d+)", body):
            fields[name] = value.strip('"') if value.startswith('"') else int(value, 0)
        out[var] = fields
    return out


def layout_name(variant):
    """The built-in layout of a build flavour of tools/build-luajit.sh
    (upstream-gc64-debug, luajit2-gc32-nojit, ...): what ljcore reads from
    DWARF for those builds too (a test checks the two agree)."""
    fork = "OpenResty luajit2 2.1" if variant.startswith("luajit2") else "upstream LuaJIT 2.1"
    refs = "GC64" if "gc64" in variant else "32-bit GC refs"
    jit = ", JIT disabled" if "nojit" in variant else ""
    arch = "arm64" if "arm64" in variant else "x86_64"
    return "%s, %s%s, %s" % (fork, refs, jit, arch)


def layout(name):
    """The fields of the layout named `name` (`vms[].layout` of --json, or
    layout_name()), with those of its JIT layout (T_*, J_*, gg_J) when it
    has one."""
    for var, fields in _structs("layouts.h").items():
        if fields.get("name") == name:
            found = dict(fields)
            break
    else:
        raise KeyError("no layout named " + repr(name))
    if "JIT disabled" not in name:
        fork = "luajit2" if "OpenResty" in name else "upstream"
        refs = "gc64" if found["gc64"] else "gc32"
        arch = "arm64" if "arm64" in name else "x64"
        jit = _structs("trace_layouts.h").get("lj_trace_layout_%s_%s_%s" % (fork, refs, arch))
        if jit:
            found.update({k: v for k, v in jit.items() if k != "name"})
    found["gct"] = found["ptrsize"] + 1  # LJ_GCT_OFFSET: after nextgc, marked
    return found
