#!/usr/bin/env bash
# What `ljcore profile` costs the process it samples: the wall time of a CPU-bound Lua
# benchmark (testdata/profile/split_70_30.lua, interpreted, for a fixed amount of work)
# alone, and while profiled at 99 Hz and at 999 Hz; median of RUNS runs each.
# Needs root (the BPF sampler). Usage: tools/bench/profile_overhead.sh [RUNS]
# (results: build/bench/profile_overhead.txt)
set -euo pipefail

runs=${1:-5}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
work=$out/profile_work.lua
# A fixed amount of work, about 3 s: the split script's loop, counted.
cat >"$work" <<'LUA'
jit.off()
local function work(n) local s = 0 for i = 1, n do s = s + i % 3 end return s end
for _ = 1, 12000 do work(20000) end
LUA

one_run() { # RATE (0: not profiled) -> seconds of the benchmark
  local rate=$1 start end pid prof=
  start=$(date +%s.%N)
  "$exe" "$work" &
  pid=$!
  if ((rate)); then
    "$ljcore" profile --pid "$pid" --rate "$rate" --duration 600 -o /dev/null 2>/dev/null &
    prof=$!
  fi
  wait "$pid"
  end=$(date +%s.%N)
  [[ -n $prof ]] && { kill -INT "$prof" 2>/dev/null; wait "$prof" || true; }
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

{
  base=
  for rate in 0 99 999; do
    t=$(for _ in $(seq "$runs"); do one_run "$rate"; done | median)
    [[ -z $base ]] && base=$t
    label=$([[ $rate == 0 ]] && echo "not profiled" || echo "profiled at $rate Hz")
    awk -v l="$label" -v t="$t" -v b="$base" \
      'BEGIN { printf "%-22s median %6.3f s  %+5.1f%%\n", l, t, (t - b) * 100 / b }'
  done
} | tee profile_overhead.txt
