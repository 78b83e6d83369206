#!/usr/bin/env bash
# Speed and memory of ljcore on a big core (a LuaJIT heap of ~450 MB), next
# to gdb's plain backtrace of the same core. Needs hyperfine and GNU time.
# Usage: tools/bench/run.sh [MB]      (results: build/bench/)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mb=${1:-450}
variant=upstream-gc64-debug
"$root/tools/build-luajit.sh" "$variant" >/dev/null
"$root/tools/build.sh" >/dev/null
exe=$root/build/luajit/$variant/src/luajit
ljcore=$root/build/cmake/ljcore
out=$root/build/bench
mkdir -p "$out" && cd "$out"

if [[ ! -s core.big || core.big -ot $root/tools/bench/fill_heap.lua ]]; then
  rm -f core core.[0-9]*
  ( ulimit -c unlimited; MB=$mb "$exe" "$root/tools/bench/fill_heap.lua"; exit $? ) 2>fill.log || true
  found=
  for c in core core.[0-9]*; do [[ -f $c ]] && found=$c; done
  if [[ -z $found ]]; then
    # The kernel left no file (core_pattern): let gdb write it.
    MB=$mb gdb -batch -nx -ex run -ex 'gcore core.big' -ex kill \
      --args "$exe" "$root/tools/bench/fill_heap.lua" >gdb.log 2>&1
  else
    mv "$found" core.big
  fi
fi
echo "core: $(du -h --apparent-size core.big | cut -f1) ($(cat fill.log 2>/dev/null))"

hyperfine --warmup 1 --runs 5 --export-json speed.json \
  "$ljcore analyze core.big" \
  "gdb -batch -nx -ex bt $exe core.big"
# hyperfine's summary shows the mean; the brief asks for the median.
awk -F'"' '/"command"/ {cmd=$4} /"median"/ {split($0, v, ": "); sub(",", "", v[2]);
  printf "median %8.1f ms  %s\n", v[2] * 1000, cmd}' speed.json | tee speed.txt
for cmd in "$ljcore analyze core.big" "gdb -batch -nx -ex bt $exe core.big"; do
  /usr/bin/time -v $cmd >/dev/null 2>time.log || true
  printf '%s: max RSS %s kB\n' "${cmd%% *}" \
    "$(awk -F': ' '/Maximum resident/ {print $2}' time.log)"
done | tee memory.txt
