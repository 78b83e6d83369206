"""Checks `ljcore profile` of a running LuaJIT process against `ljcore bt --pid` of it.

Usage: profile_compare.py LJCORE LUAJIT SCRIPT MODE [SECONDS [PROFILE OPTION...]]
  MODE exact: SCRIPT spins forever in one Lua stack whose every frame stays on one line;
    at least 95% of the samples must carry exactly the frames bt --pid prints. The loops
    that call down spend a little time in their own frames, where a single bt --pid may
    find them, so the reference is the stack most of several bt --pid agree on.
  MODE native: as exact with --native: the frames, native and Lua, from the root to the
    innermost Lua frame must be those ljcore analyze --pid gives, in its order (an
    interpreter frame is named by the bytecode it runs, so any lj_BC_/lj_vm_/lj_ff_ frame
    counts as the same; what runs above the innermost Lua frame, a bytecode handler, a
    helper or the trace's code, changes from one instant to the next).
  MODE below: as exact, for a sampler that does not stop the process (--backend userspace):
    the frames it walks from L->base or g->jit_base are those bt --pid prints below the
    running one (names and files; the lines are the VM's last exit's). At least 95% of the
    samples must have them, none more, and every sample must be accounted for.
  MODE formats: the folded, speedscope and top outputs of SCRIPT's profile are whole, and
    the SVG and pprof ones pass tests/profile_formats/validate.sh (xmllint, protoc).
  MODE split: SCRIPT spends 70% of its time in share_a and 30% in share_b (equal cost per
    call); their shares of the samples must be within 5 points of that. LuaJIT's own
    profiler (-jp=f) on the same script is printed beside it.
Exit: 0 pass, 1 fail, 77 skip (no such LuaJIT build, or the kernel refuses to sample).
"""
import json
import os
import re
import subprocess
import sys
import time


def skip(why):
    print("skip: " + why)
    sys.exit(77)


def label(f):
    """A bt --json frame as cli/render_profile_folded.cpp labels a profile frame."""
    if f["what"] == "C":
        return "[C] " + (f.get("name") or f.get("c_symbol") or "?")
    where = f["short_src"] + (":%d" % f["current_line"] if f.get("current_line", -1) >= 0 else "")
    if f.get("name"):
        return f["name"] + " " + where
    if f["what"] == "main":
        return "main chunk " + where
    return "function <%s:%d> %s" % (f["short_src"], f["line_defined"], where)


# Options for every profile taken (a backend), from the command line.
OPTIONS = []


def profile(ljcore, pid, seconds, rate=99):
    r = subprocess.run([ljcore, "profile", "--pid", str(pid), "--rate", str(rate),
                        "--duration", str(seconds)] + OPTIONS, capture_output=True,
                       timeout=seconds + 60)
    err = r.stderr.decode(errors="replace")
    if r.returncode == 4:
        skip("the kernel refuses to sample here: " + err.strip().splitlines()[0])
    if r.returncode not in (0, 1):
        sys.exit("FAIL: ljcore profile exited with %d: %s" % (r.returncode, err))
    print(err.rstrip())
    # The summary accounts for every sample: its outcome lines add up.
    taken = int(re.search(r"(\d+) samples in", err).group(1))
    counted = sum(int(m) for m in re.findall(r"^  (\d+)\t", err, re.M))
    if counted != taken:
        sys.exit("FAIL: the outcomes count %d samples of %d taken" % (counted, taken))
    return folded_stacks(r.stdout)


def profile_enough(ljcore, pid, seconds):
    """profile() again (4 times at most) until the samples add up to what `seconds` at
    99 Hz give a process with a CPU of its own: on a loaded machine it gets a share of
    one, and a 95% would be judged on a few dozen samples, where a sample or two taken
    as a call is made moves the share by points."""
    stacks = []
    for _ in range(4):
        stacks += profile(ljcore, pid, seconds)
        if sum(n for _, n in stacks) >= 0.9 * seconds * 99:
            break
    return stacks


def folded_stacks(output):
    """ljcore profile's folded output ("root;...;leaf value" lines) as (frames, value)."""
    stacks = []
    for line in output.decode(errors="replace").splitlines():
        stack, _, value = line.rpartition(" ")
        stacks.append((stack.split(";"), int(value)))
    return stacks


def bt_frames(ljcore, pid):
    """The frames bt --pid --json gives the first VM's running coroutine, innermost first."""
    bt = subprocess.run([ljcore, "bt", "--json", "--pid", str(pid)], capture_output=True,
                        timeout=60)
    return json.loads(bt.stdout)["vms"][0]["stack"]["frames"]


def steady(snapshot, times=5):
    """The answer most of several calls of snapshot() give: one stop of the process may
    land where a spinning loop passes through a shallower stack for an instant."""
    seen = [snapshot() for _ in range(times)]
    return max(seen, key=seen.count)


def require_share(stacks, matches, what, failure):
    """At least 95% of the samples, and 20 samples at least, must match: prints their
    share, and the commonest stacks when it falls short."""
    total = sum(n for _, n in stacks)
    good = sum(n for s, n in stacks if matches(s))
    print("%d of %d samples (%.1f%%) %s" % (good, total, 100.0 * good / max(total, 1), what))
    if total < 20 or good < 0.95 * total:
        for s, n in sorted(stacks, key=lambda x: -x[1])[:5]:
            print("  %5d  %s" % (n, ";".join(s)[-400:]))
        sys.exit("FAIL: " + failure)


def exact(ljcore, pid, seconds):
    want = steady(lambda: [label(f) for f in reversed(bt_frames(ljcore, pid))])
    stacks = profile_enough(ljcore, pid, seconds)
    print("bt --pid: %d frames, leaf %s" % (len(want), want[-1]))
    require_share(stacks, lambda s: s == want, "carry exactly those frames",
                  "fewer than 95% exact")


def native_label(f):
    """A native frame of analyze --json as the profile labels it."""
    name = f.get("function") or ""
    if re.match(r"lj_(BC|vm|ff)_", name):
        return "[VM]"
    if name:
        return name
    return "[%s]" % (os.path.basename(f.get("module") or "") or "unknown")


def mixed_expected(ljcore, pid):
    """The VM thread's mixed stack, root first, as analyze --pid --json places it."""
    a = json.loads(subprocess.run([ljcore, "analyze", "--json", "--pid", str(pid)],
                                  capture_output=True, timeout=60).stdout)
    lua = a["vms"][0]["stack"]["frames"]
    thread = next(t for t in a["threads"] if t.get("lua_runs"))
    runs = {}
    for r in thread["lua_runs"]:
        runs.setdefault(r["native_frame"], []).append(r)
    out = []
    for j in range(len(thread["frames"]) - 1, -1, -1):
        out.append(native_label(thread["frames"][j]))
        for r in sorted(runs.get(j, []), key=lambda r: -r["first_level"]):
            first, n = r["first_level"], r["count"]
            out.extend(label(f) for f in reversed(lua[first:first + n]))
    return out


def to_innermost_lua(frames):
    """Root first, up to the innermost Lua (or [C]) frame."""
    lua = [i for i, f in enumerate(frames) if re.search(r"\.lua:\d+$|^\[C\] ", f)]
    return frames[:lua[-1] + 1] if lua else frames


def native(ljcore, pid, seconds):
    want = steady(lambda: to_innermost_lua(mixed_expected(ljcore, pid)))
    stacks = profile_enough(ljcore, pid, seconds)

    def matches(s):
        got = ["[VM]" if re.match(r"lj_(BC|vm|ff)_", f) else f for f in s]
        return to_innermost_lua(got) == want

    print("analyze --pid: %d frames: %s" % (len(want), ";".join(want)[-300:]))
    require_share(stacks, matches, "carry exactly those frames", "fewer than 95% exact")


def below(ljcore, pid, seconds):
    # Without the line: the frames walked from memory are at the VM's last exit.
    want = steady(lambda: [re.sub(r":\d+$", "", label(f))
                           for f in reversed(bt_frames(ljcore, pid))])
    stacks = profile_enough(ljcore, pid, seconds)

    def matches(s):
        got = [re.sub(r":\d+$", "", f) for f in s if not f.startswith("[trace ")]
        return bool(got) and len(got) <= len(want) and got == want[:len(got)]

    print("bt --pid: %d frames, root %s" % (len(want), want[0]))
    require_share(stacks, matches, "carry frames of those, from the root",
                  "fewer than 95% of the samples are frames below the running one")


def split(ljcore, luajit, script, pid, seconds):
    # 499 Hz: about 2000 samples, so that chance alone moves the share by
    # about one point, not the three that 400 samples would.
    stacks = profile(ljcore, pid, seconds, rate=499)
    leaf = {"share_a": 0, "share_b": 0}
    for s, n in stacks:
        for f in reversed(s):
            m = re.match(r"(share_[ab]) ", f)
            if m:
                leaf[m.group(1)] += n
                break
    both = leaf["share_a"] + leaf["share_b"]
    a = 100.0 * leaf["share_a"] / max(both, 1)
    print("ljcore profile: share_a %.1f%%, share_b %.1f%% of %d samples in them" %
          (a, 100 - a, both))
    # LuaJIT's own sampling profiler on the same work, for comparison.
    # jit/p.lua sits in the build's src/, as make-cores.sh finds jit.dump.
    lua_path = os.path.join(os.path.dirname(luajit), "?.lua") + ";;"
    jp = subprocess.run([luajit, "-jp=f", script], capture_output=True, timeout=120,
                        env=dict(os.environ, SPLIT_SECONDS="3", LUA_PATH=lua_path))
    print("LuaJIT -jp=f, 3 s:\n" + (jp.stdout + jp.stderr).decode(errors="replace").strip())
    if both < 50 or abs(a - 70) > 5:
        sys.exit("FAIL: share_a is %.1f%%, not 70 +- 5" % a)


def run_format(ljcore, pid, fmt, seconds):
    r = subprocess.run([ljcore, "profile", "--pid", str(pid), "--duration", str(seconds),
                        "--format", fmt] + OPTIONS, capture_output=True, timeout=seconds + 60)
    err = r.stderr.decode(errors="replace")
    if r.returncode == 4:
        skip("the kernel refuses to sample here: " + err.strip().splitlines()[0])
    if r.returncode not in (0, 1):
        sys.exit("FAIL: --format %s exited with %d: %s" % (fmt, r.returncode, err))
    taken = int(re.search(r"(\d+) samples in", err).group(1))
    return r.stdout.decode(errors="replace"), taken


def formats(ljcore, pid, seconds):
    """Each output format of one profile is whole: speedscope's required fields, top's
    totals, folded counts, all adding up to the samples taken."""
    text, taken = run_format(ljcore, pid, "folded", seconds)
    folded = sum(int(line.rpartition(" ")[2]) for line in text.splitlines())
    text, taken_s = run_format(ljcore, pid, "speedscope", seconds)
    doc = json.loads(text)
    errors = []
    for key in ("$schema", "shared", "profiles"):
        if key not in doc:
            errors.append("speedscope: no " + key)
    frames = doc["shared"]["frames"]
    if not all("name" in f for f in frames):
        errors.append("speedscope: a frame without a name")
    prof = doc["profiles"][0]
    for key in ("type", "name", "unit", "startValue", "endValue", "samples", "weights"):
        if key not in prof:
            errors.append("speedscope: profile without " + key)
    if prof["type"] != "sampled" or len(prof["samples"]) != len(prof["weights"]):
        errors.append("speedscope: not a sampled profile with a weight per sample")
    if any(i >= len(frames) for s in prof["samples"] for i in s):
        errors.append("speedscope: a sample names a frame that is not there")
    weights = sum(prof["weights"])
    text, taken_t = run_format(ljcore, pid, "top", seconds)
    # The function table, before the blank line and the outcomes.
    table = text.split("\n\n")[0].splitlines()[1:]
    rows = [line.split() for line in table if re.match(r"\s+\d+ ", line)]
    top_total = max(float(r[3].rstrip("%")) for r in rows if len(r) > 4)
    print("folded %d of %d samples; speedscope weights %d of %d; top: root total %.2f%%" %
          (folded, taken, weights, taken_s, top_total))
    if folded == 0 or folded > taken:
        errors.append("folded counts %d samples of %d taken" % (folded, taken))
    if weights == 0 or weights > taken_s or prof["endValue"] != weights:
        errors.append("speedscope weights %d of %d taken" % (weights, taken_s))
    if abs(top_total - 100) > 0.01:
        errors.append("top: the root is in %.2f%% of the samples, not 100" % top_total)
    # SVG and pprof, read back by their own readers (xmllint, protoc).
    validate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "profile_formats", "validate.sh")
    for fmt, ext in (("svg", "svg"), ("pprof", "pb.gz")):
        out = "/tmp/ljcore-profile-%d.%s" % (os.getpid(), ext)
        r = subprocess.run([ljcore, "profile", "--pid", str(pid), "--duration", str(seconds),
                            "--format", fmt, "-o", out], capture_output=True,
                           timeout=seconds + 60)
        v = subprocess.run(["bash", validate, fmt, out], capture_output=True)
        os.unlink(out)
        print("%s: ljcore %d, %s" % (fmt, r.returncode,
                                     (v.stdout + v.stderr).decode(errors="replace").strip()))
        if r.returncode not in (0, 1) or v.returncode not in (0, 77):
            errors.append("%s: not read back by its reader" % fmt)
    if errors:
        sys.exit("FAIL:\n  " + "\n  ".join(errors))


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    ljcore, luajit, script, mode = sys.argv[1:5]
    seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 2
    OPTIONS.extend(sys.argv[6:])
    if not os.access(luajit, os.X_OK):
        skip(luajit + " not built (tools/build-luajit.sh)")
    proc = subprocess.Popen([luajit, script], stdout=subprocess.DEVNULL,
                            env=dict(os.environ, SPLIT_SECONDS="1000"))
    try:
        time.sleep(1)  # past start-up, and the JIT's compiling
        if mode == "exact":
            exact(ljcore, proc.pid, seconds)
        elif mode == "native":
            native(ljcore, proc.pid, seconds)
        elif mode == "below":
            below(ljcore, proc.pid, seconds)
        elif mode == "formats":
            formats(ljcore, proc.pid, seconds)
        else:
            split(ljcore, luajit, script, proc.pid, seconds)
        if proc.poll() is not None:
            sys.exit("FAIL: the profiled process died")
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
