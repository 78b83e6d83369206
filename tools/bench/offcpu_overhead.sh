#!/usr/bin/env bash
# What `ljcore profile --off-cpu` costs a process that leaves the CPU very often: the wall
# time of ROUNDS round trips of a byte over two pipes between a LuaJIT process and a
# forked echo (switch_work.lua; the profiled process blocks in read() once a round), alone,
# under --off-cpu, and under --wall at 99 Hz; median of RUNS rounds (one run of each
# setting per round), the work started only once the sampler is in place (setup.sh's
# profiled_run). Medians of the wall time and of the CPU time both processes took (the
# profile's programs run in their context; the wall time also counts other processes
# on a loaded machine); the last column divides the extra CPU time by the switches (one
# per round trip).
# SPIN=N adds N steps of a Lua loop between round trips, to run at fewer switches a
# second (none: as many as the machine allows). CPU=N runs everything on that CPU: the
# round trips then switch between the two processes on one CPU, without the wakeups of
# an idle CPU whose cost varies more than the profile's on a loaded VM (SPIN=14000 CPU=1
# is about 50 000 to 60 000 round trips a second on this project's VM, quiet or not).
# Needs root (BPF). Usage: [SPIN=N] [CPU=N] tools/bench/offcpu_overhead.sh [RUNS]
# (results: build/bench/offcpu_overhead.txt)
set -euo pipefail

runs=${1:-5}
[[ -n ${CPU:-} ]] && taskset -pc "$CPU" $$ >/dev/null
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
    "${SPIN:-0} loop steps between them${CPU:+, on CPU $CPU}, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  for i in "${!configs[@]}"; do
    wall=$(awk -v i="$i" '$1 == i {print $2}' offcpu_overhead.runs | median)
    cpu=$(awk -v i="$i" '$1 == i {print $4}' offcpu_overhead.runs | median)
    ((i == 0)) && base=$wall && cbase=$cpu
    awk -v l="${configs[$i]:-not profiled}" -v w="$wall" -v b="$base" -v n="$n" \
      -v c="$cpu" -v cb="$cbase" \
      'BEGIN { printf "%-14s wall %7.3f s %+6.1f%%  cpu %7.3f s %+6.1f%%  %8.0f switches/s", \
                 l, w, (w - b) * 100 / b, c, (c - cb) * 100 / cb, n / w
               if (c > cb) printf "   %.2f us of CPU per switch", (c - cb) * 1e6 / n
               printf "\n" }'
  done
} | tee offcpu_overhead.txt
