#!/usr/bin/env bash
# What `ljcore profile` costs the process it samples: the wall time of a fixed amount of
# CPU-bound Lua work (interpreted; about 4 s), alone and while profiled: BPF at 99 and
# 999 Hz, the userspace backend at 99 Hz, and with --blocking at 99 Hz; median of RUNS
# runs each. The process times its own work (CLOCK_MONOTONIC, through the FFI) and starts
# it only once the profiler has found its VM and is sampling, so the profiler's start-up
# (the pause to find the VM, loading the BPF program) is not counted: that is measured
# apart, as the pause the profiler reports.
# Needs root (the BPF sampler). Usage: tools/bench/profile_overhead.sh [RUNS]
# (results: build/bench/profile_overhead.txt)
set -euo pipefail

runs=${1:-5}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
work=$out/profile_work.lua
cat >"$work" <<'LUA'
-- Waits for the file named by START, then times the work and prints its seconds.
local ffi = require("ffi")
ffi.cdef [[
struct timespec { long tv_sec, tv_nsec; };
int clock_gettime(int clock, struct timespec *ts);
int usleep(unsigned usec);
]]
local function now()
  local ts = ffi.new("struct timespec")
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end
while not io.open(os.getenv("START")) do ffi.C.usleep(10000) end
jit.off()
local function work(n) local s = 0 for i = 1, n do s = s + i % 3 end return s end
local t0 = now()
for _ = 1, 16000 do work(20000) end
io.write(string.format("%.4f\n", now() - t0))
LUA

one_run() { # PROFILE OPTIONS... (none: not profiled) -> seconds of the work
  local start=$out/profile_start.$$ prof=
  rm -f "$start"
  START=$start "$exe" "$work" >"$out/profile_work.out" &
  local pid=$!
  if (($#)); then
    "$ljcore" profile --pid "$pid" --duration 600 -o /dev/null "$@" 2>"$out/profile_run.err" &
    prof=$!
    # Give it the time to find the VM and load its sampler before the work starts.
    sleep 1.5
  fi
  touch "$start"
  wait "$pid"
  [[ -n $prof ]] && { kill -INT "$prof" 2>/dev/null; wait "$prof" || true; }
  rm -f "$start"
  cat "$out/profile_work.out"
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

{
  base=
  for config in "" "--rate 99" "--rate 999" "--rate 99 --backend userspace" \
    "--rate 99 --backend userspace --blocking"; do
    # shellcheck disable=SC2086 # the options are words
    t=$(for _ in $(seq "$runs"); do one_run $config; done | median)
    [[ -z $base ]] && base=$t
    awk -v l="${config:-not profiled}" -v t="$t" -v b="$base" \
      'BEGIN { printf "%-44s median %6.3f s  %+5.1f%%\n", l, t, (t - b) * 100 / b }'
  done
} | tee profile_overhead.txt
