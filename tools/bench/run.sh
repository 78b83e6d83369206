#!/usr/bin/env bash
# Speed and memory of ljcore on a big core (a LuaJIT heap of ~450 MB), next
# to gdb's plain backtrace of the same core; bt with and without --locals; what `ljcore snapshot` of that
# core keeps; and how long `ljcore snapshot --pid` stops a live process
# with such a heap, spinning in Lua (the VM register finds it) and blocked
# in C (found by scanning the heap).
# Needs hyperfine and GNU time. With GDB_UTILS set to a checkout of
# openresty-gdb-utils (github.com/openresty/openresty-gdb-utils, not packaged
# by Debian), gdb + its lbt, the tool ljcore bt stands in for, runs beside them.
# Usage: [GDB_UTILS=DIR] tools/bench/run.sh [MB]      (results: build/bench/*.txt)
set -euo pipefail

mb=${1:-450}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
rm -f pause.txt speed.json  # speed.json: the single file of older versions

crash_into core.big fill.log fill_heap.lua MB="$mb"
echo "core: $(du -h --apparent-size core.big | cut -f1) ($(cat fill.log 2>/dev/null))"

lbt=()
if [[ -n ${GDB_UTILS:-} && -f $GDB_UTILS/luajit21.py ]]; then
  # A script file, so that the command line hyperfine reports has no quotes.
  printf 'python import sys; sys.path.append("%s")\nsource %s/luajit21.py\n' \
    "$GDB_UTILS" "$GDB_UTILS" >lbt.gdb
  lbt=("gdb -batch -nx -x lbt.gdb -ex lbt $exe core.big")
fi
# No shell (-N): its start-up, subtracted by estimate, is as long as bt itself.
# ljcore's runs take milliseconds, where a machine's noise moves a median
# of five by a tenth: they get more runs than gdb's.
hyperfine -N --warmup 3 --runs 41 --export-json speed-ljcore.json \
  "$ljcore analyze core.big" \
  "$ljcore bt core.big" \
  "$ljcore bt --locals core.big" \
  "$ljcore snapshot core.big -o snap.core"
hyperfine -N --warmup 1 --runs 5 --export-json speed-gdb.json \
  "gdb -batch -nx -ex bt $exe core.big" \
  "${lbt[@]}"
# hyperfine's summary shows the mean; the brief asks for the median. With
# lbt run, bt's ratio to it too.
python3 - speed-ljcore.json speed-gdb.json <<'PY' | tee speed.txt
import json, sys
median = {r["command"]: r["median"] for f in sys.argv[1:] for r in json.load(open(f))["results"]}
for command, seconds in median.items():
    print("median %8.1f ms  %s" % (seconds * 1000, command))
bt = next(v for k, v in median.items() if k.endswith(" bt core.big"))
lbt = next((v for k, v in median.items() if " -ex lbt " in k), None)
if lbt:
    print("bt / (gdb + lbt): %.4f" % (bt / lbt))
PY
for cmd in "$ljcore analyze core.big" "gdb -batch -nx -ex bt $exe core.big"; do
  /usr/bin/time -v $cmd >/dev/null 2>time.log || true
  printf '%s: max RSS %s kB\n' "${cmd%% *}" \
    "$(awk -F': ' '/Maximum resident/ {print $2}' time.log)"
done | tee memory.txt

# What a snapshot of the core keeps: the default, and --all (every
# coroutine, found by walking the whole heap).
for mode in "" --all; do
  "$ljcore" snapshot $mode core.big -o snap.core | sed "s/^snap.core/snapshot ${mode:-(default)}/"
done | tee snapshot.txt
rm -f snap.core

# Live: median pause of snapshot --pid over 11 captures per process, of the
# running stacks (the default) and of every coroutine (--all: walks the heap).
for hang in lua c; do
  HANG=$hang MB=$mb "$exe" "$root/tools/bench/fill_heap.lua" 2>"live-$hang.log" &
  pid=$!
  until grep -q hanging "live-$hang.log" 2>/dev/null; do sleep 0.5; done
  for mode in "" --all; do
    for i in $(seq 11); do
      "$ljcore" snapshot $mode --pid "$pid" -o live.core | grep -o 'paused [0-9]* us' | awk '{print $2}'
    done | sort -n | awk -v h="$hang" -v m="${mode:-(default)}" '{v[NR]=$1} END {
      printf "snapshot --pid %s, %d MB heap, hanging in %s: median pause %.1f ms (min %.1f, max %.1f, %d runs)\n",
        m, '"$mb"', h, v[int((NR+1)/2)]/1000, v[1]/1000, v[NR]/1000, NR}' | tee -a pause.txt
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done
