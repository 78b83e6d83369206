#!/usr/bin/env bash
# What starting ljcore costs: `ljcore --help` and `ljcore bt --format=luajit`
# of the bundled example core, as whole processes (hyperfine, median wall
# time and mean CPU), with what the dynamic loader does before main (its
# relocations, from LD_DEBUG=statistics) and the binary's size. Given other
# ljcore binaries, measures each beside build/cmake/ljcore (e.g. one built
# before a change). On a busy machine wall times wander: compare the CPU
# and loader figures, or run it on a quiet one.
# Usage: tools/bench/startup.sh [OTHER-LJCORE...]    (results: build/bench/startup.txt)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cmake -S "$root" -B "$root/build/cmake" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build/cmake" --target ljcore >/dev/null
example=$root/testdata/example
out=$root/build/bench
mkdir -p "$out"

for ljcore in "$@" "$root/build/cmake/ljcore"; do
  hyperfine -N --warmup 5 --runs 51 --export-json "$out/startup.json" \
    "$ljcore --help" "$ljcore bt --format=luajit --exe $example/luajit $example/core.zst" \
    >/dev/null
  echo "$ljcore: $(du -h --apparent-size "$ljcore" | cut -f1),$(
    LD_DEBUG=statistics "$ljcore" --help 2>&1 >/dev/null |
      awk '/total startup time in dynamic loader/ {c = $(NF - 1)}
        /number of relative relocations/ {rel = $NF} / number of relocations:/ && !/final/ {sym = $NF}
        END {printf " loader before main: %d relative + %d symbol relocations, %.1f M cycles",
          rel, sym, c / 1e6}')"
  # hyperfine's summary shows the mean; the median is steadier.
  jq -r '.results[] | "  median \(.median * 1e4 | round / 10) ms wall, mean \((.user + .system) * 1e4 | round / 10) ms CPU  \(.command | sub(" --exe [^ ]*"; ""))"' \
    "$out/startup.json"
done | tee "$out/startup.txt"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/startup.txt"
