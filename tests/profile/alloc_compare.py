"""Checks `ljcore profile --alloc` of a running LuaJIT process that leaks from one
function and churns through garbage in another (testdata/profile/alloc_leak.lua).

Usage: alloc_compare.py LJCORE LUAJIT SCRIPT SECONDS
  --alloc (outstanding): at least 90% of the bytes still allocated at the end go to
    stacks through leak().
  --alloc=all: churn() leads with more than half the bytes, and the share of leak() is
    within half and twice what LuaJIT itself counts for the two (collectgarbage("count")
    with the GC stopped, written by the script to ALLOC_ORACLE): the profile's window
    may hold a doubling of leak()'s ever-growing table, or none.
  Both: every sampled allocation is accounted for in the summary, none failed.
Exit: 0 pass, 1 fail, 77 skip (no such LuaJIT build, or the kernel refuses uprobes).
"""
import os
import re
import subprocess
import sys
import tempfile
import time

from profile_compare import folded_stacks


def skip(why):
    print("skip: " + why)
    sys.exit(77)


def profile(ljcore, pid, seconds, mode):
    r = subprocess.run([ljcore, "profile", "--pid", str(pid), "--alloc=" + mode,
                        "--duration", str(seconds), "--sample-bytes", "16K"],
                       capture_output=True, timeout=seconds + 60)
    err = r.stderr.decode(errors="replace")
    if r.returncode == 4:
        skip("the kernel refuses uprobes here: " + err.strip().splitlines()[0])
    print(err.rstrip())
    if r.returncode != 0:
        sys.exit("FAIL: ljcore profile --alloc=%s exited with %d" % (mode, r.returncode))
    taken = int(re.search(r"(\d+) sampled allocations in", err).group(1))
    counted = sum(int(m) for m in re.findall(r"^  (\d+)\t", err, re.M))
    if counted != taken or taken < 50:
        sys.exit("FAIL: the outcomes count %d of %d sampled allocations (50 at least)"
                 % (counted, taken))
    return folded_stacks(r.stdout)


def share(stacks, function):
    """The share of the bytes whose stack goes through function (a Lua frame named so)."""
    total = sum(v for _, v in stacks)
    mine = sum(v for s, v in stacks if any(f.startswith(function + " ") for f in s))
    return mine / max(total, 1), total


def show(stacks):
    for s, v in sorted(stacks, key=lambda x: -x[1])[:6]:
        print("  %10d  %s" % (v, ";".join(s)[-300:]))


def main():
    ljcore, luajit, script, seconds = sys.argv[1:5]
    seconds = float(seconds)
    if not os.access(luajit, os.X_OK):
        skip("no LuaJIT build at " + luajit + " (tools/build-luajit.sh makes it)")
    with tempfile.TemporaryDirectory() as tmp:
        oracle = os.path.join(tmp, "oracle")
        proc = subprocess.Popen([luajit, script], env=dict(os.environ, ALLOC_ORACLE=oracle))
        try:
            # The warm-up that ends with the oracle takes seconds on a
            # loaded machine: up to 60 s.
            for _ in range(1200):
                if os.path.exists(oracle) and open(oracle).read().count("\n") == 2:
                    break
                time.sleep(0.05)
            else:
                sys.exit("FAIL: the script wrote no oracle in 60 s")
            counted = dict(l.split() for l in open(oracle).read().splitlines())
            churn, leak = int(counted["churn"]), int(counted["leak"])
            want_leak = leak / (leak + churn)
            print("LuaJIT counts per 200 rounds: churn %d bytes, leak %d bytes (leak %.1f%%)"
                  % (churn, leak, 100 * want_leak))

            fail = []
            outstanding = profile(ljcore, proc.pid, seconds, "outstanding")
            got, total = share(outstanding, "leak")
            print("outstanding: %.1f%% of %d bytes through leak()" % (100 * got, total))
            if got < 0.90:
                show(outstanding)
                fail.append("less than 90% of the outstanding bytes go to leak()")

            everything = profile(ljcore, proc.pid, seconds, "all")
            got_leak, total = share(everything, "leak")
            got_churn, _ = share(everything, "churn")
            print("all: %.1f%% of %d bytes through churn(), %.1f%% through leak() "
                  "(LuaJIT: %.1f%%)" % (100 * got_churn, total, 100 * got_leak,
                                        100 * want_leak))
            if got_churn <= 0.5 or not want_leak / 2 <= got_leak <= want_leak * 2:
                show(everything)
                fail.append("churn() does not lead --alloc=all, or leak()'s share is off")
        finally:
            proc.kill()
            proc.wait()
    if fail:
        sys.exit("FAIL: " + "; ".join(fail))
    print("ok")


main()
