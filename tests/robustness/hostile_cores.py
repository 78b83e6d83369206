"""A hostile core cannot make ljcore run or allocate without bound.

Usage: hostile_cores.py LJCORE CORE EXE VARIANT [CASE...]
  CORE: a real core of tools/make-cores.sh (build/cores/VARIANT/SCENARIO/
  core.kernel), EXE the program it is a core of, VARIANT its LuaJIT build
  flavour (its layout: luajit/layouts.h).
Each case patches a copy of CORE where a length, a count or a link says
more than any heap holds: a GC list that is a long cycle, a string of 4 GB,
a stack of 2^40 bytes, notes and segments past the end of the file, ...
Every command (`analyze --all --json`, `bt --json`, `traces --json
--mcode`, `gc --paths --retained --json`) must then end within the time limit with a
status of README's "Exit status", its peak RSS must stay under the cap
(proportional to the core), and it must say what it could not read.
Environment: HOSTILE_SECONDS (default 20), HOSTILE_RSS_MB (the cap above
twice the core's size, default 256; ASan builds need more).
Exit: 0 pass, 1 fail, 2 usage, 77 skip (core never made).
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))
from inputs import require_inputs, skip  # noqa: E402
from layouts import GCT, layout, layout_name  # noqa: E402

COMMANDS = {
    "analyze": ["analyze", "--all", "--json"],
    "bt": ["bt", "--json"],
    "traces": ["traces", "--json", "--mcode"],
    "gc": ["gc", "--paths", "--retained", "--json"],
}
# README "Exit status": complete, partial, no VM, unreadable input.
DOCUMENTED_STATUS = (0, 1, 2, 3)
U32_MAX = 0xFFFFFFFF


class Core:
    """A copy of a core in memory, patched at the target's addresses."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = bytearray(f.read())
        phoff, = struct.unpack_from("<Q", self.data, 0x20)
        self.phentsize, self.phnum = struct.unpack_from("<HH", self.data, 0x36)
        self.phoff = phoff
        self.loads = []  # (vaddr, filesz, offset)
        for i in range(self.phnum):
            p_type, _, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", self.data,
                                                                  self.phdr(i))
            if p_type == 1:
                self.loads.append((vaddr, filesz, off))

    def phdr(self, i):
        return self.phoff + i * self.phentsize

    def offset(self, addr, size):
        for vaddr, filesz, off in self.loads:
            if vaddr <= addr and addr + size <= vaddr + filesz:
                return off + addr - vaddr
        raise LookupError("0x%x is not in the core" % addr)

    def read(self, addr, fmt):
        return struct.unpack_from("<" + fmt, self.data, self.offset(addr, struct.calcsize(fmt)))[0]

    def write(self, addr, fmt, value):
        struct.pack_into("<" + fmt, self.data, self.offset(addr, struct.calcsize(fmt)), value)

    def copy(self):
        other = Core.__new__(Core)
        other.__dict__.update(self.__dict__)
        other.data = bytearray(self.data)
        return other

    def fill(self, addr, byte, size):
        """Sets up to size bytes from addr on, as many as its segment holds."""
        for vaddr, filesz, off in self.loads:
            if vaddr <= addr < vaddr + filesz:
                n = min(size, vaddr + filesz - addr)
                start = off + addr - vaddr
                self.data[start:start + n] = bytes([byte]) * n
                return
        raise LookupError("0x%x is not in the core" % addr)

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.data)


class Vm:
    """The objects of the intact core's VM the cases patch, with the
    layout's offsets."""

    def __init__(self, core, ly, analysis):
        vm = analysis["vms"][0]
        self.core, self.ly, self.listed = core, ly, None
        self.g = int(vm["global_state"], 16)
        self.main = int(vm["main_thread"], 16)
        self.current = int(vm["current_thread"], 16)
        self.ref_fmt = "Q" if ly["ptrsize"] == 8 else "I"
        self.frames = vm["stack"]["frames"]

    def ref(self, addr):
        return self.core.read(addr, self.ref_fmt)

    def set_ref(self, addr, value):
        self.core.write(addr, self.ref_fmt, value)

    def gct(self, obj):
        return self.core.read(obj + self.ly["gct"], "B")

    def on(self, core):
        """This VM in a copy of its core, before the copy is patched."""
        self.gc_list()
        other = Vm.__new__(Vm)
        other.__dict__.update(self.__dict__)
        other.core = core
        return other

    def gc_list(self):
        """g->gc.root through nextgc in the intact core: the objects, in
        order."""
        if self.listed is None:
            self.listed, o = [], self.ref(self.g + self.ly["g_gc_root"])
            while o and len(self.listed) < 1000000:
                self.listed.append(o)
                o = self.ref(o)
        return self.listed

    def objects(self, kind):
        return [o for o in self.gc_list() if self.gct(o) == GCT[kind]]

    def lua_protos(self):
        """The prototypes of the Lua functions on the running stack."""
        out = []
        for f in self.frames:
            if f["what"] in ("Lua", "main"):
                pc = self.ref(int(f["function"], 16) + self.ly["fn_pc"])
                out.append(pc - self.ly["pt_size"])
        return out


# The cases: each patches the core (a Core and a Vm of its intact
# reading) and says, per command, what its stderr must mention.

def gc_list_cycle(core, vm):
    """The last object of g->gc.root links back to the first: a cycle as
    long as the heap (the coroutine list and the census walk it)."""
    objs = vm.gc_list()
    vm.set_ref(objs[-1], objs[0])
    return {"gc": r"GC object list is cyclic", "analyze": r"cyclic"}


def string_4gb(core, vm):
    """The running function's chunk name claims 4 GB."""
    pt = vm.lua_protos()[0]
    chunk = vm.ref(pt + vm.ly["pt_chunkname"])
    core.write(chunk + vm.ly["str_len"], "I", U32_MAX)
    return {"bt": r"GCstr", "analyze": r"GCstr"}


def string_chain_cycle(core, vm):
    """A string of the string table links to itself, and g->str.num, the
    bound of a chain, claims 2^32-1 strings."""
    ly = vm.ly
    tab, mask = vm.ref(vm.g + ly["g_str_tab"]), core.read(vm.g + ly["g_str_mask"], "I")
    for b in range(mask + 1):
        s = vm.ref(tab + b * ly["ptrsize"]) & ~1
        if s:
            vm.set_ref(s, s)
            break
    core.write(vm.g + ly["g_str_num"], "I", U32_MAX)
    return {"gc": r"string table chain is cyclic"}


def stack_2p40(core, vm):
    """The running lua_State says its stack is 2^40 bytes: top and
    maxstack that far above its base, stacksize at its maximum."""
    ly, L = vm.ly, vm.current
    stack = vm.ref(L + ly["L_stack"])
    core.write(L + ly["L_top"], "Q", stack + (1 << 40))
    vm.set_ref(L + ly["L_maxstack"], (stack + (1 << 40)) & (0xFFFFFFFF if ly["ptrsize"] == 4
                                                           else (1 << 64) - 1))
    core.write(L + ly["L_stacksize"], "I", U32_MAX)
    return {"gc": r"stack claims \d+ slots"}


def table_huge(core, vm):
    """The globals table claims 2^32-1 array slots and 2^32 hash nodes."""
    env = vm.ref(vm.main + vm.ly["L_env"])
    core.write(env + vm.ly["tab_asize"], "I", U32_MAX)
    core.write(env + vm.ly["tab_hmask"], "I", U32_MAX)
    return {"gc": r"paths|table|unreadable|incomplete"}


def proto_huge(core, vm):
    """Every prototype on the stack claims 2^32-1 instructions, GC
    constants and lines, and its variable names run on past their end."""
    ly = vm.ly
    for pt in vm.lua_protos():
        core.write(pt + ly["pt_sizebc"], "I", U32_MAX)
        core.write(pt + ly["pt_sizekgc"], "I", U32_MAX)
        core.write(pt + ly["pt_numline"], "i", 0x7FFFFFFF)
    return {"bt": r"sizebc", "analyze": r"sizebc"}


def frame_pc_far(core, vm):
    """Every saved pc of the running stack jumps to the farthest segment
    of the core still inside its function, which claims 2^24 instructions
    (the most ljcore believes): the instruction before the pc reads, the
    bytecode between does not."""
    ly, L = vm.ly, vm.current
    stack = vm.ref(L + ly["L_stack"])
    size = 8 * core.read(L + ly["L_stacksize"], "I")
    fmt = "Q" if ly["gc64"] else "I"
    reach = 4 * ((1 << 24) - 2)
    moved = {}
    for f in vm.frames:
        if f["what"] not in ("Lua", "main"):
            continue
        pc = int(f["pc"], 16)
        starts = [v for v, n, _ in core.loads if pc + (1 << 16) < v < pc + reach and n]
        if starts:
            moved[pc] = pc + 4 * ((max(starts) + 4 - pc + 3) // 4)
    if not moved:
        return None
    links = [at for at in range(stack, stack + size, struct.calcsize(fmt))
             if core.read(at, fmt) in moved]
    if not links:
        return None
    for pt in vm.lua_protos():
        core.write(pt + ly["pt_sizebc"], "I", 1 << 24)
    for at in links:
        core.write(at, fmt, moved[core.read(at, fmt)])
    # What the walk makes of the garbage instruction before a pc depends
    # on the bytes there: only the bounds are asserted.
    return {}


def call_operand_garbage(core, vm):
    """The call instruction before a saved pc of the running stack says its
    frame sits 255 slots further down (its A operand), below the stack's
    bottom: the walk must say so, not end there as if it were the bottom."""
    ly = vm.ly
    for f in vm.frames:
        # A frame called from Lua (link type FRAME_LUA, 0) holds in its link
        # the pc to return to in its caller, right after the caller's CALL.
        if f.get("frame_type") != 0:
            continue
        link = int(f["slot"], 16)
        pc = core.read(link, "Q") if ly["gc64"] else core.read(link + 4, "I")
        core.write(pc - 4 + 1, "B", 0xFF)
        return {"bt": r"below the stack's bottom", "analyze": r"below the stack's bottom"}
    return None


def varinfo_unterminated(core, vm):
    """The variable names of the running function run on with no end."""
    varinfos = [vm.ref(pt + vm.ly["pt_varinfo"]) for pt in vm.lua_protos()]
    for varinfo in filter(None, varinfos):
        core.fill(varinfo, 0x41, 1 << 20)
    return {}


def upvalue_and_thread_cycles(core, vm):
    """Each thread's open upvalue list loops on itself, and so does the
    GC list at the last thread on it: a list walk meets that thread again
    and again before it knows the list is a cycle."""
    threads = vm.objects("thread")
    for L in threads:
        vm.set_ref(L + vm.ly["L_openupval"], L)
    vm.set_ref(threads[-1], threads[-1])
    return {"gc": r"cyclic", "analyze": r"cyclic"}


def trace_huge(core, vm):
    """Every trace claims 2^32-1 IR instructions, snapshots, snapshot map
    entries and bytes of machine code; jit_State claims 2^32-1 traces."""
    ly = vm.ly
    if "T_nins" not in ly:
        return None
    traces = vm.objects("trace")
    if not traces:
        return None
    for t in traces:
        core.write(t + ly["T_nins"], "I", U32_MAX)
        core.write(t + ly["T_nsnap"], "H", 0xFFFF)
        core.write(t + ly["T_nsnapmap"], "I", U32_MAX)
        core.write(t + ly["T_szmcode"], "I", U32_MAX)
    J = vm.g - ly["gg_g"] + ly["gg_J"]
    core.write(J + ly["J_sizetrace"], "I", U32_MAX)
    return {"traces": r"implausible", "gc": r"trace of \d+ IR instructions"}


def trace_at_caps(core, vm):
    """Every trace claims as many snapshot map entries and bytes of machine
    code as ljcore believes a trace can have (2^24 and 2^26): what the
    core does not hold of them must cost no memory."""
    ly = vm.ly
    traces = vm.objects("trace") if "T_nins" in ly else []
    if not traces:
        return None
    for t in traces:
        core.write(t + ly["T_nsnapmap"], "I", 1 << 24)
        core.write(t + ly["T_szmcode"], "I", 1 << 26)
    return {"traces": r"snapshot map"}


def deep_path(core, vm):
    """The elements of the largest array become a linked list, element k
    holding element k + 1 in its first slot, the array itself keeping only
    the first; the last element claims 2^20 hash nodes, so that it is among
    the largest objects, and its path is as long as the list."""
    ly = vm.ly
    tables = vm.objects("tab")
    big = max(tables, key=lambda t: core.read(t + ly["tab_asize"], "I"))
    asize, array = core.read(big + ly["tab_asize"], "I"), vm.ref(big + ly["tab_array"])
    if asize < 1000:
        return None

    def table_at(tv):  # the table a TValue holds (lj_obj.h), else 0
        raw = core.read(tv, "Q")
        if ly["gc64"]:
            return raw & ((1 << 47) - 1) if raw >> 47 == 0x1FFFF & ~GCT["tab"] else 0
        return raw & 0xFFFFFFFF if raw >> 32 == 0xFFFFFFFF & ~GCT["tab"] else 0

    def table_value(t):
        if ly["gc64"]:
            return ((0x1FFFF & ~GCT["tab"]) << 47) | t
        return ((0xFFFFFFFF & ~GCT["tab"]) << 32) | t

    chain = [t for t in (table_at(array + 8 * k) for k in range(1, asize)) if t]
    chain = [t for t in chain if core.read(t + ly["tab_asize"], "I") >= 2]
    if len(chain) < 1000:
        return None
    core.write(array + 8, "Q", table_value(chain[0]))
    core.write(big + ly["tab_asize"], "I", 2)
    for t, following in zip(chain, chain[1:]):
        core.write(vm.ref(t + ly["tab_array"]) + 8, "Q", table_value(following))
    core.write(chain[-1] + ly["tab_hmask"], "I", (1 << 20) - 1)
    return {"gc": ("stdout", r"\[1\]<\d+ steps>\[1\]")}


def many_threads(core, vm):
    """3000 small tables become copies of the main lua_State (their own
    nextgc kept): coroutines sharing one stack, each walked by analyze
    --all. (With 100 000 the output is 337 MB of JSON: bounded by what the
    core holds, but too slow for a test.)"""
    ly = vm.ly
    objs = sorted(vm.gc_list())
    start = core.offset(vm.main, ly["L_size"])
    state = bytes(core.data[start + ly["ptrsize"]:start + ly["L_size"]])
    made = 0
    for o, following in zip(objs, objs[1:]):
        if made < 3000 and following - o >= ly["L_size"] and vm.gct(o) == GCT["tab"]:
            try:
                at = core.offset(o, ly["L_size"])
            except LookupError:
                continue
            core.data[at + ly["ptrsize"]:at + ly["L_size"]] = state
            made += 1
    # Consistent coroutines, nothing to report: only the bounds count.
    return {} if made > 1000 else None


def note_huge(core, vm):
    """The note segment claims 1 TB."""
    for i in range(core.phnum):
        if struct.unpack_from("<I", core.data, core.phdr(i))[0] == 4:  # PT_NOTE
            struct.pack_into("<Q", core.data, core.phdr(i) + 32, 1 << 40)
    return {c: r"note segment runs past the end" for c in COMMANDS}


def note_desc_huge(core, vm):
    """The first note's descriptor claims 4 GB."""
    for i in range(core.phnum):
        p_type, _, off = struct.unpack_from("<IIQ", core.data, core.phdr(i))
        if p_type == 4:
            struct.pack_into("<I", core.data, off + 4, U32_MAX - 3)
    return {c: r"note|NT_PRSTATUS" for c in COMMANDS}


def segments_huge(core, vm):
    """Every PT_LOAD claims 1 TB in the file and 2^63 bytes of memory."""
    for i in range(core.phnum):
        if struct.unpack_from("<I", core.data, core.phdr(i))[0] == 1:
            struct.pack_into("<QQ", core.data, core.phdr(i) + 32, 1 << 40, 1 << 63)
    return {c: r"truncated" for c in COMMANDS}


def strempty_not_empty(core, vm):
    """g->strempty says it is one byte long: g fails its third check under
    every layout, so no VM is found, and ljcore says which candidate came
    closest and what it failed."""
    core.write(vm.g + vm.ly["g_strempty"] + vm.ly["str_len"], "I", 1)
    closest = r"closest candidate, g 0x0*%x .*failed: g->strempty is not an empty string" % vm.g
    return {"bt": closest, "analyze": closest}


CASES = [gc_list_cycle, string_4gb, string_chain_cycle, stack_2p40, table_huge, proto_huge,
         frame_pc_far, call_operand_garbage, varinfo_unterminated, upvalue_and_thread_cycles, trace_huge,
         trace_at_caps, deep_path, many_threads, note_huge, note_desc_huge, segments_huge,
         strempty_not_empty]


def run(ljcore, args, seconds, rss_cap_kb):
    """Runs ljcore: (status, seconds, peak RSS in KB, why it was killed or
    "", stdout, stderr). Killed past the time limit, or as soon as its RSS
    passes the cap: a runaway must not take the machine with it."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([ljcore] + args, stdout=out, stderr=err)
        start, status, peak, why = time.monotonic(), None, 0, ""
        while True:
            pid, wstatus = os.waitpid(p.pid, os.WNOHANG)
            if pid:
                if os.WIFEXITED(wstatus) and not why:
                    status = os.WEXITSTATUS(wstatus)
                elif not why:
                    why = "killed by signal %d" % os.WTERMSIG(wstatus)
                break
            # The peak of this program's own memory: VmHWM starts anew at
            # exec, unlike the child's ru_maxrss, which counts this
            # script's size at the fork.
            try:
                with open("/proc/%d/status" % p.pid) as f:
                    peak = max(peak, int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)))
            except (OSError, AttributeError):
                pass
            if not why and peak > rss_cap_kb:
                why = "RSS over %d MB" % (rss_cap_kb >> 10)
            elif not why and time.monotonic() - start > seconds:
                why = "still running after %d s" % seconds
            if why:
                p.kill()
            time.sleep(0.01)
        elapsed = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return status, elapsed, peak, why, out.read().decode(errors="replace"), \
            err.read().decode(errors="replace")


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    ljcore, core_path, exe, variant = sys.argv[1:5]
    wanted = sys.argv[5:]
    require_inputs("tools/make-cores.sh", core_path, exe)
    seconds = float(os.environ.get("HOSTILE_SECONDS", "20"))
    rss_cap_kb = (int(os.environ.get("HOSTILE_RSS_MB", "256")) << 10) + \
        2 * (os.path.getsize(core_path) >> 10)
    status, _, _, _, out, err = run(ljcore, ["analyze", "--json", "--exe", exe, core_path],
                                    seconds, rss_cap_kb)
    if status not in (0, 1) or not out.strip():
        print("FAIL: the intact core gives status %s: %s" % (status, err))
        return 1
    analysis = json.loads(out)
    if not analysis.get("vms"):
        skip(core_path + " has no VM to patch")
    intact = Core(core_path)
    vm = Vm(intact, layout(layout_name(variant)), analysis)
    errors, ran = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            if wanted and case.__name__ not in wanted:
                continue
            core = intact.copy()
            expect = case(core, vm.on(core))
            if expect is None:
                print("%-26s not applicable to this core" % case.__name__)
                continue
            ran += 1
            path = os.path.join(tmp, case.__name__ + ".core")
            core.save(path)
            for name, args in COMMANDS.items():
                status, elapsed, peak, why, out, err = run(
                    ljcore, args + ["--exe", exe, path], seconds, rss_cap_kb)
                print("%-26s %-8s status %-4s %6.2f s %7d KB %s" %
                      (case.__name__, name, status, elapsed, peak, why))
                what = "%s %s" % (case.__name__, name)
                if why or status not in DOCUMENTED_STATUS:
                    errors.append("%s: %s" % (what, why or "status %d is none of README's"
                                              % status))
                    continue
                # The reasons: on stderr, or in `problems` of the JSON.
                reasons = err
                if out.strip():
                    try:
                        reasons += "\n" + "\n".join(json.loads(out).get("problems", []))
                    except ValueError as e:
                        errors.append("%s: stdout is no JSON: %s" % (what, e))
                if status != 0 and not reasons.strip():
                    errors.append("%s: status %d with no reason given" % (what, status))
                elif name in expect:
                    # A reason, or (("stdout", regex)) what the output itself says.
                    said, pattern = (out, expect[name][1]) if isinstance(expect[name], tuple) \
                        else (reasons, expect[name])
                    if not re.search(pattern, said):
                        errors.append("%s: nothing says /%s/: %s" % (what, pattern, said[-600:]))
    for e in errors:
        print("FAIL: " + e)
    if not errors:
        print("ok: %d hostile cores, every command bounded in time (%g s) and memory "
              "(%d MB) and saying what it could not read" % (ran, seconds, rss_cap_kb >> 10))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
