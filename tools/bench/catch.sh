#!/usr/bin/env bash
# ljcore catch against the kernel writing the whole core: from the fatal
# signal to the crashed process reaped, for a worker with a big LuaJIT heap
# (fill_heap.lua, blocked in poll() when it is killed with SIGSEGV); and
# the snapshot's size beside the core's; and what a crash of a process
# without LuaJIT costs with ljcore catch installed and without. Needs root: it sets
# kernel.core_pattern (restored on exit).
# Usage: tools/bench/catch.sh [MB] [RUNS]      (results: build/bench/catch.txt)
set -euo pipefail

mb=${1:-1024} runs=${2:-3}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
[[ $(id -u) == 0 ]] || { echo "catch.sh: needs root (kernel.core_pattern)" >&2; exit 1; }

pattern_file=/proc/sys/kernel/core_pattern limit_file=/proc/sys/kernel/core_pipe_limit
saved_pattern=$(<"$pattern_file") saved_limit=$(<"$limit_file")
crashes=$out/catch-crashes
restore() {
  printf '%s\n' "$saved_limit" >"$limit_file"
  printf '%s\n' "$saved_pattern" >"$pattern_file"
}
trap restore EXIT
trap 'exit 143' TERM

# One crash: a worker filled to MB, then SIGSEGV; prints the milliseconds
# from the signal to its parent reaping it. LIMIT: its ulimit -c. WORKER:
# lua (fill_heap.lua) or plain (perl holding an MB string: no LuaJIT).
crash_once() {
  local limit=$1 worker=${2:-lua} ready=$out/catch-ready.$$
  rm -f "$ready" core core.[0-9]*
  if [[ $worker == lua ]]; then
    ( ulimit -c "$limit"; MB=$mb HANG=c exec "$exe" "$root/tools/bench/fill_heap.lua" ) \
      2>"$ready" &
  else
    ( ulimit -c "$limit"; MB=$mb exec perl -e \
        '$x = "x" x ($ENV{MB} << 20); print STDERR "hanging\n"; sleep 1000' ) 2>"$ready" &
  fi
  local pid=$!
  echo "$pid" >"$out/catch-last-pid"
  until grep -q hanging "$ready" 2>/dev/null; do sleep 0.2; done
  local t0; t0=$(date +%s%N)
  kill -SEGV "$pid"
  wait "$pid" || true
  echo $((($(date +%s%N) - t0) / 1000000))
  rm -f "$ready"
}

median_of() { tr ' ' '\n' | median; }

kernel_ms=() catch_ms=() plain_none_ms=() plain_kernel_ms=() plain_catch_ms=() plain_chain_ms=()
printf 'core\n' >"$pattern_file"
for ((i = 0; i < runs; i++)); do
  kernel_ms+=("$(crash_once unlimited)")
  core_bytes=$(cat core* | wc -c)
  rm -f core core.[0-9]*
  plain_none_ms+=("$(crash_once 0 plain)")
  plain_kernel_ms+=("$(crash_once unlimited plain)")
  rm -f core core.[0-9]*
done

# --chain: other processes' cores still go where they went. The worker's
# own core limit is 0: the kernel still pipes it to ljcore catch, which
# passes it on to no file, as the kernel would not write one.
rm -rf "$crashes"
printf '%s\n' "$saved_pattern" >"$pattern_file"
"$ljcore" catch --install --chain --dir "$crashes" --rate 1000 >/dev/null
for ((i = 0; i < runs; i++)); do
  catch_ms+=("$(crash_once 0)")
  lua_pid=$(<"$out/catch-last-pid")
  # Without LuaJIT: passed on to nothing (limit 0), or to the file.
  plain_catch_ms+=("$(crash_once 0 plain)")
  plain_chain_ms+=("$(crash_once unlimited plain)")
  rm -f core core.[0-9]*
done
"$ljcore" catch --uninstall --dir "$crashes" >/dev/null
# Other processes that crashed meanwhile are in the directory too: the
# last worker's crash is the one named by its PID.
mine=$(echo "$crashes"/2*-"$lua_pid")
snapshot_bytes=$(stat -c %s "$mine/snapshot.core" 2>/dev/null || true)
report_bytes=$(du -sb "$mine" | cut -f1)

{
  echo "heap: $mb MB; $runs crashes each; signal to reaped, median"
  echo "kernel writes the core: $(echo "${kernel_ms[*]}" | median_of) ms (${kernel_ms[*]})"
  echo "ljcore catch:           $(echo "${catch_ms[*]}" | median_of) ms (${catch_ms[*]})"
  echo "core: $core_bytes bytes; snapshot.core: ${snapshot_bytes:-none} bytes;" \
       "whole crash directory: $report_bytes bytes"
  sed -n 's/^left out: /left out: /p' "$mine/crash.txt"
  echo "a process without LuaJIT (perl holding $mb MB), signal to reaped, median:"
  echo "  no core (ulimit -c 0):             $(echo "${plain_none_ms[*]}" | median_of) ms (${plain_none_ms[*]})"
  echo "  kernel writes the core:            $(echo "${plain_kernel_ms[*]}" | median_of) ms (${plain_kernel_ms[*]})"
  echo "  ljcore catch, core to nowhere:     $(echo "${plain_catch_ms[*]}" | median_of) ms (${plain_catch_ms[*]})"
  echo "  ljcore catch --chain to the file:  $(echo "${plain_chain_ms[*]}" | median_of) ms (${plain_chain_ms[*]})"
} | tee catch.txt
