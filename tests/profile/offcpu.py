"""Checks `ljcore profile --off-cpu` and `--wall` of running LuaJIT processes against the
times they block for by construction, or measure themselves.

Usage: offcpu.py LJCORE LUAJIT MODE [SECONDS]
  MODE off-cpu: testdata/profile/offcpu_poll.lua blocks in poll() 30 ms in wait_long and
    10 ms in wait_short per round, then in read() of a pipe in read_pipe. Of the blocked
    time under the two poll functions, wait_long must have 75% within 5 points; read_pipe
    must have blocked time of its own; every stack must start at [off-cpu: blocked] or
    [off-cpu: runqueue]; the pprof output's sample type is off-cpu in nanoseconds.
  MODE wall: testdata/profile/offcpu_wall.lua spins and blocks by turns, writing its own
    CPU and wall-clock seconds to a side file; the share of [on-cpu] time in the profile
    must be within 5 points of the share its clocks measured over the same seconds.
Exit: 0 pass, 1 fail, 77 skip (no such LuaJIT build, or the kernel refuses BPF).
"""
import gzip
import os
import re
import subprocess
import sys
import tempfile
import time

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata",
                       "profile")


def skip(why):
    print("skip: " + why)
    sys.exit(77)


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def profile(ljcore, pid, mode, seconds, fmt, out):
    r = subprocess.run([ljcore, "profile", "--pid", str(pid), "--" + mode, "--rate", "499",
                        "--duration", str(seconds), "--format", fmt, "-o", out],
                       capture_output=True, timeout=seconds + 60)
    err = r.stderr.decode(errors="replace")
    if r.returncode == 4:
        skip("the kernel refuses to sample here: " + err.strip().splitlines()[0])
    if r.returncode not in (0, 1):
        fail("ljcore profile --%s exited with %d: %s" % (mode, r.returncode, err))
    print(err.rstrip())
    return err


def folded(path):
    stacks = []
    with open(path, errors="replace") as f:
        for line in f:
            stack, _, value = line.rstrip("\n").rpartition(" ")
            stacks.append((stack.split(";"), int(value)))
    return stacks


def share(part, whole):
    return 100.0 * part / whole if whole else 0.0


def check_off_cpu(ljcore, luajit, seconds, tmp):
    proc = subprocess.Popen([luajit, os.path.join(SCRIPTS, "offcpu_poll.lua")])
    try:
        time.sleep(0.5)  # past start-up
        profile(ljcore, proc.pid, "off-cpu", seconds, "folded", tmp + "/off.folded")
        profile(ljcore, proc.pid, "off-cpu", 0.5, "pprof", tmp + "/off.pprof")
    finally:
        proc.kill()
        proc.wait()
    stacks = folded(tmp + "/off.folded")
    by = {"wait_long": 0, "wait_short": 0, "read_pipe": 0}
    total = 0
    for frames, ns in stacks:
        if frames[0] not in ("[off-cpu: blocked]", "[off-cpu: runqueue]"):
            fail("a stack without its off-CPU root: " + ";".join(frames))
        total += ns
        if frames[0] != "[off-cpu: blocked]":
            continue
        for name in by:
            if any(f.startswith(name + " ") for f in frames):
                by[name] += ns
    print("blocked ns by function: %s of %d off the CPU" % (by, total))
    if total < 0.5 * seconds * 1e9:
        fail("%.2f s off the CPU in %.1f s of a process that mostly blocks" %
             (total / 1e9, seconds))
    long_share = share(by["wait_long"], by["wait_long"] + by["wait_short"])
    print("wait_long %.1f%% of the poll time (75%% expected)" % long_share)
    if abs(long_share - 75) > 5:
        fail("wait_long has %.1f%% of the time blocked in poll, not 75 +- 5" % long_share)
    if share(by["read_pipe"], total) < 5:
        fail("read_pipe blocked for %.1f%% of the time: its read() is not under it" %
             share(by["read_pipe"], total))
    with open(tmp + "/off.pprof", "rb") as f:
        message = gzip.decompress(f.read())
    if b"off-cpu" not in message or b"nanoseconds" not in message:
        fail("the pprof profile's sample type is not off-cpu nanoseconds")


def clock_share(path, start, end):
    """The CPU's share of [start, end] (CLOCK_MONOTONIC) by the script's own lines."""
    with open(path) as f:
        lines = [tuple(map(float, line.split())) for line in f if len(line.split()) == 2]
    inside = [(now, cpu) for now, cpu in lines if start <= now <= end]
    if len(inside) < 10:
        fail("the script wrote %d lines in the profile's time" % len(inside))
    (now0, cpu0), (now1, cpu1) = inside[0], inside[-1]
    return share(cpu1 - cpu0, now1 - now0), now1 - now0


def check_wall(ljcore, luajit, seconds, tmp):
    side = tmp + "/split"
    proc = subprocess.Popen([luajit, os.path.join(SCRIPTS, "offcpu_wall.lua")],
                            env=dict(os.environ, WALL_SIDE=side))
    try:
        time.sleep(0.5)
        err = profile(ljcore, proc.pid, "wall", seconds, "folded", tmp + "/wall.folded")
        # The profile's seconds end about when ljcore does (it names as it goes).
        end = time.monotonic()
        took = float(re.search(r" in ([0-9.]+) s ", err).group(1))
    finally:
        proc.kill()
        proc.wait()
    measured, span = clock_share(side, end - took, end)
    on = off = 0
    for frames, ns in folded(tmp + "/wall.folded"):
        if frames[0] == "[on-cpu]":
            on += ns
        elif frames[0].startswith("[off-cpu: "):
            off += ns
        else:
            fail("a stack without its on- or off-CPU root: " + ";".join(frames))
    profiled = share(on, on + off)
    print("on the CPU: %.1f%% profiled, %.1f%% by the script's clocks over %.2f s" %
          (profiled, measured, span))
    if abs(profiled - measured) > 5:
        fail("the profile puts %.1f%% of the time on the CPU, the script measured %.1f%%" %
             (profiled, measured))
    if (on + off) < 0.8 * took * 1e9:
        fail("%.2f s profiled in %.2f s of wall-clock time" % ((on + off) / 1e9, took))


def main():
    ljcore, luajit, mode = sys.argv[1:4]
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 3
    if not os.access(luajit, os.X_OK):
        skip(luajit + " not built (tools/build-luajit.sh)")
    with tempfile.TemporaryDirectory() as tmp:
        if mode == "off-cpu":
            check_off_cpu(ljcore, luajit, seconds, tmp)
        else:
            check_wall(ljcore, luajit, seconds, tmp)
    print("ok")


main()
