"""Checks the lines `ljcore profile` puts the samples of compiled code on against
LuaJIT's own profiler, `luajit -jp=l`, on the same script.

Usage: lines.py LJCORE LUAJIT SCRIPT [SECONDS]
  SCRIPT loops for SPLIT_SECONDS in traces (side traces, stitched calls, helpers). Each
  sample's line is that of its innermost Lua frame (a C function's or the GC's time goes
  to the line that called it, as -jp=l counts it). Every line of SCRIPT with at least 5%
  of either profile's samples must have a share within 5 points of the other's, and at
  most 1% of ljcore's samples may lack a line. Both sample about every millisecond (999 Hz,
  -jp's i1), so that chance moves a share by a point or two, not five (a failed walk, a trace no snapshot places).
  Both profile the same run: ljcore attaches to the process `luajit -jp=l` profiles, a
  second after its start, for SECONDS of its SECONDS + 3 of CPU (-jp also counts the
  start-up and the JIT's compiling, a few samples). Two runs of a script differ more
  than that (a line's share moved from 43% to 47% between runs of -jp alone), and a test
  comparing two runs failed on it.

  -jp=l is biased: it samples at the next profiler check, which a trace makes where the
  line changes and the interpreter at the next bytecode, so the time of a line is counted
  on the line that runs next. The scripts make each hot line a statement whose every check
  is on that line (a one-line loop), where that bias moves nothing.
Exit: 0 pass, 1 fail, 77 skip (no such LuaJIT build, or the kernel refuses to sample).
"""
import os
import re
import subprocess
import sys
import time


def skip(why):
    print("skip: " + why)
    sys.exit(77)


def ljcore_lines(ljcore, pid, seconds, name):
    """Samples per line of the script, the samples without a line, and all taken."""
    r = subprocess.run([ljcore, "profile", "--pid", str(pid), "--rate", "999", "--duration",
                        str(seconds)], capture_output=True, timeout=seconds + 60)
    err = r.stderr.decode(errors="replace")
    if r.returncode == 4:
        skip("the kernel refuses to sample here: " + err.strip().splitlines()[0])
    if r.returncode not in (0, 1):
        sys.exit("FAIL: ljcore profile exited with %d: %s" % (r.returncode, err))
    print(err.rstrip())
    taken = int(re.search(r"(\d+) samples in", err).group(1))
    lines, lineless, folded = {}, {}, 0
    for text in r.stdout.decode(errors="replace").splitlines():
        stack, _, value = text.rpartition(" ")
        n = int(value)
        folded += n
        # The innermost frame with a file and line: C functions and VM states above
        # it ("[C] gsub", "[GC]") count for the line that called them, and so does
        # a frame whose function was freed before it was named (a label with no
        # file: "(for generator) ", a gmatch closure made per call).
        line = None
        for f in reversed(stack.split(";")):
            m = re.search(r" (\S+):(\d+)$", f)
            if m:
                line = "%s:%s" % (os.path.basename(m.group(1)), m.group(2))
                break
            if not (f.startswith(("[C] ", "[GC]", "[JIT compiler]")) or f.endswith(" ")):
                break
        if line is None:
            lineless[stack] = lineless.get(stack, 0) + n
        elif line.startswith(name + ":"):
            lines[line] = lines.get(line, 0) + n
    # Samples the summary counts but no stack holds (failed walks) have no line.
    lineless["(not in a stack)"] = taken - folded
    return lines, lineless, taken


def jp_shares(out, name):
    """-jp=l's share (percent) of each line of the script, from its report."""
    shares = {}
    for m in re.finditer(r"^\s*(\d+)%\s+(\S+)$", out, re.M):
        if m.group(2).startswith(name + ":"):
            shares[m.group(2)] = int(m.group(1))
    return shares


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ljcore, luajit, script = sys.argv[1:4]
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 3
    if not os.access(luajit, os.X_OK):
        skip(luajit + " not built (tools/build-luajit.sh)")
    name = os.path.basename(script)
    # -jp reports when the script ends, after seconds + 3 of CPU (SPLIT_SECONDS): it runs
    # a second before ljcore attaches and about two after it detaches (time enough for a
    # slow attach on a loaded machine), the same loop.
    lua_path = os.path.join(os.path.dirname(luajit), "?.lua") + ";;"
    proc = subprocess.Popen([luajit, "-jp=lm0i1", script], stdout=subprocess.PIPE,
                            env=dict(os.environ, SPLIT_SECONDS=str(seconds + 3),
                                     LUA_PATH=lua_path))
    try:
        time.sleep(1)  # past start-up, and the JIT's compiling
        lines, lineless, taken = ljcore_lines(ljcore, proc.pid, seconds, name)
        try:
            out = proc.communicate(timeout=30)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            sys.exit("FAIL: luajit -jp=l did not end 30 s after the profile")
    finally:
        proc.kill()
        proc.wait()
    if proc.returncode != 0:
        sys.exit("FAIL: luajit -jp=l exited with %d: %s" % (proc.returncode, out))
    jp = jp_shares(out, name)
    failures = []
    print("%-28s %8s %8s" % ("line", "ljcore", "-jp=l"))
    for line in sorted(set(lines) | set(jp), key=lambda s: int(s.rpartition(":")[2])):
        ours = 100.0 * lines.get(line, 0) / max(taken, 1)
        theirs = jp.get(line, 0)
        print("%-28s %7.1f%% %7d%%" % (line, ours, theirs))
        if max(ours, theirs) >= 5 and abs(ours - theirs) > 5:
            failures.append("%s: %.1f%% here, %d%% by -jp=l" % (line, ours, theirs))
    without = sum(lineless.values())
    print("without a line: %d of %d samples (%.2f%%)" % (without, taken,
                                                        100.0 * without / max(taken, 1)))
    for stack, n in sorted(lineless.items(), key=lambda x: -x[1])[:5]:
        if n:
            print("  %5d  %s" % (n, stack[-300:]))
    if taken < 200:
        failures.append("only %d samples" % taken)
    if without > 0.01 * taken:
        failures.append("%.2f%% of the samples have no line" % (100.0 * without / taken))
    if failures:
        sys.exit("FAIL:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    main()
