#!/usr/bin/env bash
# What `ljcore profile` costs the process it samples: the wall time of a fixed amount of
# CPU-bound Lua work (interpreted; about 4 s), alone and while profiled: BPF at 99 and
# 999 Hz, the userspace backend at 99 Hz, and with --blocking at 99 Hz; median of RUNS
# runs each, taken in rounds (one run of each setting per round) so that a machine
# whose speed drifts (a VM's neighbours) slows every setting alike. The process times its
# own work (CLOCK_MONOTONIC and its CPU time, through the FFI and os.clock) and starts
# it only once the profiler has found its VM and is sampling, so the profiler's start-up
# (the pause to find the VM, loading the BPF program) is not counted: that is measured
# apart, as the pause the profiler reports.
# Needs root (the BPF sampler). Usage: tools/bench/profile_overhead.sh [RUNS]
# (results: build/bench/profile_overhead.txt)
set -euo pipefail

runs=${1:-5}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
configs=("" "--rate 99" "--rate 999" "--rate 99 --backend userspace"
  "--rate 99 --backend userspace --blocking")
for round in $(seq "$runs"); do
  for i in "${!configs[@]}"; do
    # shellcheck disable=SC2086 # the options are words
    echo "$i $(profiled_run profile profile_work.lua ${configs[$i]})"
  done
done >profile_overhead.runs
{
  echo "median of $runs rounds; slowdown against the unprofiled runs"
  for i in "${!configs[@]}"; do
    wall=$(awk -v i="$i" '$1 == i {print $2}' profile_overhead.runs | median)
    cpu=$(awk -v i="$i" '$1 == i {print $3}' profile_overhead.runs | median)
    ((i == 0)) && { base_wall=$wall base_cpu=$cpu; }
    awk -v l="${configs[$i]:-not profiled}" -v w="$wall" -v c="$cpu" -v bw="$base_wall" \
      -v bc="$base_cpu" 'BEGIN { printf "%-42s wall %6.3f s %+5.1f%%   CPU %6.3f s %+5.1f%%\n",
        l, w, (w - bw) * 100 / bw, c, (c - bc) * 100 / bc }'
  done
} | tee profile_overhead.txt
