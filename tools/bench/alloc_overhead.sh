#!/usr/bin/env bash
# What `ljcore profile --alloc` costs the process it probes: the wall time of a fixed,
# allocation-heavy piece of Lua work (binary trees, JIT on: every node a table, freed by
# the GC), alone and under the probe at the default --sample-bytes (512K), at 64K, and
# with --alloc=all; median of RUNS rounds (one run of each setting per round). As in
# profile_overhead.sh, the work starts only once the probe is in place and times itself.
# The probe is a uprobe and a uretprobe on the allocator, so every allocation and free
# traps into the kernel whether it is sampled or not; the last line divides the extra
# time by the allocator calls the work makes (each node allocated and freed: 2 calls)
# to give the cost of one call under the probe.
# Needs root (uprobes). Usage: tools/bench/alloc_overhead.sh [RUNS]
# (results: build/bench/alloc_overhead.txt)
set -euo pipefail

runs=${1:-3}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
configs=("" "--alloc" "--alloc --sample-bytes 64K" "--alloc=all")
for round in $(seq "$runs"); do
  for i in "${!configs[@]}"; do
    # shellcheck disable=SC2086 # the options are words
    echo "$i $(TREES=${TREES:-40} profiled_run alloc alloc_work.lua ${configs[$i]})"
  done
done >alloc_overhead.runs
{
  nodes=$(awk '{print $3; exit}' alloc_overhead.runs)
  echo "median of $runs rounds of $nodes tree nodes; slowdown against the unprobed runs"
  for i in "${!configs[@]}"; do
    wall=$(awk -v i="$i" '$1 == i {print $2}' alloc_overhead.runs | median)
    ((i == 0)) && base=$wall
    awk -v l="${configs[$i]:-not probed}" -v w="$wall" -v b="$base" -v n="$nodes" \
      'BEGIN { printf "%-32s wall %8.3f s %+8.1f%%", l, w, (w - b) * 100 / b
               if (w > b) printf "   %.2f us per allocator call", (w - b) * 1e6 / (2 * n)
               printf "\n" }'
  done
} | tee alloc_overhead.txt
