#!/usr/bin/env bash
# Where `ljcore profile --off-cpu`'s cost goes, measured inside the kernel: one run of
# offcpu_overhead.sh's ping-pong (switch_work.lua, ROUNDS round trips, SPIN loop steps
# between them) under --off-cpu with kernel.bpf_stats_enabled set (restored after), and the
# run time of its two BPF programs divided by the round trips (one switch out of the
# profiled thread each; every other switch and wakeup of the machine also runs them, a
# map lookup each), and the CPU the profiler itself took during the work. The wall clock
# of a latency-bound ping-pong on a loaded machine varies more than the cost measured.
# Needs root (BPF). Usage: [ROUNDS=N] [SPIN=N] tools/bench/offcpu_bpf_cost.sh
# (results: build/bench/offcpu_bpf_cost.txt)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
rounds=${ROUNDS:-200000}
start=$out/offcpu_cost_start.$$
# id name run_time_ns run_cnt of each program of the off-CPU sampler
stats() {
  bpftool prog show -j | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if p.get("name") in ("on_switch", "on_wakeup", "on_return"):
        print(p["id"], p["name"], p.get("run_time_ns", 0), p.get("run_cnt", 0))' | sort -n
}
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }

was=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -q kernel.bpf_stats_enabled="$was"; rm -f "$start"' EXIT
sysctl -q kernel.bpf_stats_enabled=1
rm -f "$start"
START=$start ROUNDS=$rounds "$exe" "$root/tools/bench/switch_work.lua" >offcpu_cost_work.out &
work=$!
sleep 0.5 # its VM made, waiting for START
"$ljcore" profile --off-cpu --pid "$work" --duration 600 -o /dev/null 2>offcpu_cost_run.err &
prof=$!
sleep 1.5
sampling "$prof"
stats >offcpu_cost.before
ticks=$(cpu_ticks "$prof")
touch "$start"
wait "$work"
stats >offcpu_cost.after
ticks=$(($(cpu_ticks "$prof") - ticks))
kill -INT "$prof"
wait "$prof" || true
{
  read -r secs n _ <offcpu_cost_work.out
  echo "$n round trips in $secs s under --off-cpu, ${SPIN:-0} loop steps between them"
  join offcpu_cost.before offcpu_cost.after | awk -v n="$n" '
    { printf "%-10s %9d runs %8.0f ns a run  %6.0f ns per round trip\n", $2, $7 - $4,
        ($7 > $4 ? ($6 - $3) / ($7 - $4) : 0), ($6 - $3) / n }'
  echo "the profiler's own CPU during the work: $((ticks * 10)) ms"
  sed -n '/^ljcore: process/,$p' offcpu_cost_run.err
} | tee offcpu_bpf_cost.txt
