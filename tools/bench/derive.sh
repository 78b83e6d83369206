#!/usr/bin/env bash
# What deriving a layout from LuaJIT's code costs (issue 27's budget: at
# most 2 ms added to `bt` of the example core): `bt` of the bundled example
# core through the built-in tables alone (`--layout tables`: the code not
# read), the same as a user runs it (the example's luajit has no DWARF, so
# its layout is derived from its code: LLVM loaded, the exported functions
# disassembled), and `ljcore layout` of the binary, as
# whole processes (hyperfine: median wall time, mean CPU). On a busy machine
# wall times wander: the CPU figures (user + system) are the ones to compare.
# Given other ljcore binaries, measures each beside build/cmake/ljcore.
# Usage: tools/bench/derive.sh [OTHER-LJCORE...]    (results: build/bench/derive.txt)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cmake -S "$root" -B "$root/build/cmake" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build/cmake" --target ljcore >/dev/null
example=$root/testdata/example
out=$root/build/bench
mkdir -p "$out"

for ljcore in "$@" "$root/build/cmake/ljcore"; do
  bt="$ljcore bt --format=luajit --exe $example/luajit"
  hyperfine -N --warmup 5 --runs 31 --export-json "$out/derive.json" \
    "$bt --layout tables $example/core.zst" "$bt $example/core.zst" \
    "$ljcore layout $example/luajit" >/dev/null
  echo "$ljcore:"
  jq -r '.results[] | "  median \(.median * 1e4 | round / 10) ms wall, mean \((.user + .system) * 1e4 | round / 10) ms CPU  \(.command | sub(" --exe [^ ]*"; "") | sub("/[^ ]*/"; ""; "g"))"' \
    "$out/derive.json"
  # What deriving adds to bt: the CPU of the default run less the table's.
  jq -r '.results as $r | "  deriving adds \((($r[1].user + $r[1].system) - ($r[0].user + $r[0].system)) * 1e4 | round / 10) ms CPU, \(($r[1].median - $r[0].median) * 1e4 | round / 10) ms median wall to bt"' \
    "$out/derive.json"
done | tee "$out/derive.txt"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/derive.txt"
