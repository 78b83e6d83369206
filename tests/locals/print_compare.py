"""Checks `ljcore print CORE "frame L local NAME"` (and upvalue, and by index) on a
testdata/locals/ core against what debug.getlocal and debug.getupvalue saw: for every
Lua level of the oracle, its scalar locals and upvalues by name (the last of a name, the
innermost scope's), and its first local by index, with their types and values; and the
values the scenario names by path (globals, table keys, the registry), a library's
builtin named as its table holds it.
Usage: print_compare.py LJCORE CORE ORACLE EXE [SYSROOT]
Exit: 0 match, 1 mismatch."""
import json
import re
import subprocess
import sys

from locals_compare import expected_value, parse_oracle

SCALARS = ("nil", "boolean", "number", "string")


def print_value(cmd, expr):
    r = subprocess.run(cmd + [expr], capture_output=True, timeout=60)
    if r.returncode not in (0, 1):
        return None, "ljcore exited with %d: %s" % (r.returncode, r.stderr.decode(errors="replace"))
    vms = json.loads(r.stdout)["vms"]
    if len(vms) != 1 or not vms[0]["found"]:
        return None, "no value: %s" % (vms[0].get("error") if vms else "no VM")
    return vms[0], None


def checks(oracle):
    """(expression, oracle entry) pairs: scalars by name, first local by index."""
    for level, want in sorted(oracle.items()):
        if want["what"] == "C":
            continue
        # Varargs have negative debug.getlocal indices: not printed by name or index.
        named = [v for v in want["locals"] if v["kind"] == "local"]
        last = {}
        for v in named:
            last[v["name"]] = v
        for name, v in last.items():
            if v["type"] in SCALARS and not name.startswith("("):
                yield "frame %d local %s" % (level, name), v
        if named:
            yield "local 1 of frame %d" % level, named[0]
        for i, v in enumerate(want["upvalues"]):
            if v["type"] in SCALARS and v["name"]:
                yield "upvalue %s of frame %d" % (v["name"], level), v
            yield "frame %d upvalue %d" % (level, i + 1), v


def path_checks(oracle_path):
    """(expression, oracle entry) of the oracle's path lines: "path<TAB>EXPR<TAB>TYPE VALUE"."""
    for line in open(oracle_path).read().splitlines():
        if line.startswith("path\t"):
            _, expr, shown = line.split("\t")
            otype, _, ovalue = shown.partition(" ")
            yield expr, {"type": otype, "value": ovalue if otype in SCALARS else None}


def main():
    ljcore, core, oracle_path, exe = sys.argv[1:5]
    cmd = [ljcore, "print", "--json", "--max-string", "100000", "--exe", exe]
    if len(sys.argv) > 5:
        cmd += ["--sysroot", sys.argv[5]]
    cmd.append(core)
    # Levels compiled in a trace: a value its snapshot does not keep is
    # printed as lost, never guessed (locals_compare.py counts them too).
    bt = subprocess.run([ljcore, "bt", "--json"] + cmd[5:], capture_output=True, timeout=60)
    frames = json.loads(bt.stdout)["vms"][0]["stack"]["frames"]
    compiled = {f["level"] for f in frames if f.get("trace")}
    errors, checked, lost = [], 0, 0
    wanted = list(checks(parse_oracle(oracle_path))) + list(path_checks(oracle_path))
    for expr, want in wanted:
        got, why = print_value(cmd, expr)
        checked += 1
        level = int(expr.split("frame ")[1].split()[0]) if "frame " in expr else None
        if why and " is lost: " in why and level in compiled:
            lost += 1
            continue
        if why is None and got["type"] != want["type"]:
            why = "type %s, oracle %s" % (got["type"], want["type"])
        if why is None:
            why = expected_value(want["type"], want["value"], got)
        # A library's fast function is named as its table holds it.
        lib = re.fullmatch(r'package\.loaded\["(\w+)"\]\.(\w+)', expr)
        if why is None and lib and not got["value"].endswith("<%s.%s>" % lib.groups()):
            why = "value %r, not named %s.%s" % ((got["value"],) + lib.groups())
        if why:
            errors.append("%s: %s" % (expr, why))
    if checked == 0:
        sys.exit("FAIL: the oracle names no variable to print")
    if errors:
        print("FAIL:\n  " + "\n  ".join(errors))
        sys.exit(1)
    if lost == checked:
        sys.exit("FAIL: every value is lost")
    print("ok: %d expressions match the oracle%s"
          % (checked - lost, ", %d lost in trace frames" % lost if lost else ""))


if __name__ == "__main__":
    main()
