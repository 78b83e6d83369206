#!/usr/bin/env bash
# What `ljcore profile --off-cpu` costs a process that leaves the CPU very often: the wall
# time of ROUNDS round trips of a byte over two pipes between a LuaJIT process and a
# forked echo (switch_work.lua; the profiled process blocks in read() once a round), alone,
# under --off-cpu, and under --wall at 99 Hz; median of RUNS rounds (one run of each
# setting per round), the work started only once the sampler is in place (setup.sh's
# profiled_run). Each switch out of the profiled thread walks its Lua frames in the
# kernel: the last column divides the extra time by the switches (one per round trip).
# SPIN=N adds N steps of a Lua loop between round trips, to run at fewer switches a
# second (none: as many as the machine allows).
# Needs root (BPF). Usage: [SPIN=N] tools/bench/offcpu_overhead.sh [RUNS]
# (results: build/bench/offcpu_overhead.txt)
set -euo pipefail

runs=${1:-5}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
configs=("" "--off-cpu" "--wall")
for round in $(seq "$runs"); do
  for i in "${!configs[@]}"; do
    # shellcheck disable=SC2086 # the options are words
    echo "$i $(ROUNDS=${ROUNDS:-200000} profiled_run offcpu switch_work.lua ${configs[$i]})"
  done
done >offcpu_overhead.runs
{
  n=$(awk '{print $3; exit}' offcpu_overhead.runs)
  echo "median of $runs rounds of $n round trips (one switch out of the profiled process each)," \
    "${SPIN:-0} loop steps between them"
  for i in "${!configs[@]}"; do
    wall=$(awk -v i="$i" '$1 == i {print $2}' offcpu_overhead.runs | median)
    ((i == 0)) && base=$wall
    awk -v l="${configs[$i]:-not profiled}" -v w="$wall" -v b="$base" -v n="$n" \
      'BEGIN { printf "%-14s wall %7.3f s %+6.1f%%  %8.0f switches/s", l, w, (w - b) * 100 / b, n / w
               if (w > b) printf "   %.2f us per switch", (w - b) * 1e6 / n
               printf "\n" }'
  done
} | tee offcpu_overhead.txt
