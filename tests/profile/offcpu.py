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
  MODE total: testdata/profile/offcpu_sleep.lua, told to start once the profiler samples,
    sleeps 20 ms at a time, then 200 us at a time (shorter than the 1 ms --off-cpu-period:
    sampled), then past the profile's end; the profile's time off the CPU, blocked and
    runqueue, must be the time the script measured itself off it within 10%: from its start
    to the profile's end, less the CPU it used; and of the time of the loop of usleep()
    calls, compiled, at most 5% may be on the line after it (the rest on its own line).
Exit: 0 pass, 1 fail, 77 skip (no such LuaJIT build, or the kernel refuses BPF).
"""
import gzip
import os
import re
import signal
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


def wait_sampling(pid):
    """Until the profiler waits for its samples (epoll_wait or epoll_pwait), past loading
    its programs: on a loaded machine the verifier may take longer than the work."""
    for _ in range(1200):
        try:
            with open("/proc/%d/syscall" % pid) as f:
                call = f.read().split()[0]
        except (OSError, IndexError):
            return
        if call in ("232", "281"):
            return
        time.sleep(0.05)


def check_total(ljcore, luajit, seconds, tmp):
    proc = subprocess.Popen([luajit, os.path.join(SCRIPTS, "offcpu_sleep.lua")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = tmp + "/total.folded"
    try:
        time.sleep(0.5)  # past start-up
        prof = subprocess.Popen([ljcore, "profile", "--pid", str(proc.pid), "--off-cpu",
                                 "--duration", "60", "-o", out], stderr=subprocess.PIPE)
        wait_sampling(prof.pid)
        try:
            proc.stdin.write(b"start\n")
            proc.stdin.flush()
        except BrokenPipeError:
            fail("the script exited before it was told to start")
        time.sleep(seconds)
        # The profile ends about now: each thread still off the CPU counts until then.
        end = time.monotonic()
        prof.send_signal(signal.SIGINT)
        err = prof.communicate(timeout=60)[1].decode(errors="replace")
        if prof.returncode == 4:
            skip("the kernel refuses to sample here: " + err.strip().splitlines()[0])
        if prof.returncode not in (0, 1):
            fail("ljcore profile --off-cpu exited with %d: %s" % (prof.returncode, err))
        print(err.rstrip())
    finally:
        proc.kill()
        proc.wait()
    line = proc.stdout.readline().decode()  # written before its last sleep, if it got there
    try:
        t0, cpu0, t1, cpu1 = map(float, line.split())
    except ValueError:
        fail("the script did not say its times in %.1f s: %r" % (seconds, line))
    if t1 > end:
        fail("the script's sleeps outlasted the profile (%.2f s)" % seconds)
    expected = (end - t0) - (cpu1 - cpu0)
    total = 0
    by = {"sleep_long": 0, "sleep_short": 0, "elsewhere": 0}
    # The usleep() loop's time by where it went: its line (32) or sleep_short when walked
    # in the interpreter or compiled, or the write after it (33), which does not block.
    loop = {"line 32": 0, "line 33": 0}
    for frames, ns in folded(out):
        if not frames[0].startswith("[off-cpu: "):
            fail("a stack without its off-CPU root: " + ";".join(frames))
        total += ns
        name = next((n for n in by if any(f.startswith(n + " ") for f in frames)), "elsewhere")
        by[name] += ns
        lua = [f for f in frames if re.search(r"offcpu_sleep\.lua:\d+$", f)]
        if name == "sleep_short" or (lua and lua[-1].endswith(".lua:32")):
            loop["line 32"] += ns
        elif lua and lua[-1].endswith(".lua:33"):
            loop["line 33"] += ns
    print("off the CPU: %.3f s profiled (%s), %.3f s by the script's clocks" %
          (total / 1e9, ", ".join("%s %.3f s" % (k, v / 1e9) for k, v in by.items()), expected))
    print("the usleep() loop: %.3f s on its line, %.3f s on the line after it" %
          (loop["line 32"] / 1e9, loop["line 33"] / 1e9))
    if abs(total / 1e9 - expected) > 0.1 * expected:
        fail("the profile has %.3f s off the CPU, the script was off it %.3f s" %
             (total / 1e9, expected))
    # The loop runs compiled, usleep() called from the trace: its time goes to the loop's
    # line, not to the snapshot after the call (the loop's exit, line 33). 1000 sleeps of
    # 200 us and more: a tenth of a second at least.
    in_loop = loop["line 32"] + loop["line 33"]
    if in_loop < 0.1e9:
        fail("the usleep() loop has %.3f s off the CPU" % (in_loop / 1e9))
    if loop["line 33"] > 0.05 * in_loop:
        fail("%.0f%% of the usleep() loop's time off the CPU is on line 33, after the loop" %
             (100.0 * loop["line 33"] / in_loop))


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
        elif mode == "total":
            check_total(ljcore, luajit, seconds, tmp)
        else:
            check_wall(ljcore, luajit, seconds, tmp)
    print("ok")


main()
