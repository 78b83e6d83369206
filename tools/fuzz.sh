#!/usr/bin/env bash
# tools/fuzz.sh [--no-build] TARGET SECONDS [libFuzzer options...]
# Fuzzes one harness of tests/fuzz (core_reader, analyze, render, derive) for
# SECONDS: builds build/fuzz with clang if needed (not with --no-build),
# seeds build/fuzz/corpus/TARGET from the fixtures' cores the first time,
# and keeps what crashes under build/fuzz/findings/TARGET. Exits with
# libFuzzer's status: 0 when nothing crashed. Extra options go to libFuzzer
# (e.g. -jobs=2 -workers=2).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build/fuzz
no_build=0
if [[ ${1:-} == --no-build ]]; then
  no_build=1
  shift
fi
if (( $# < 2 )); then
  echo "usage: tools/fuzz.sh [--no-build] TARGET SECONDS [libFuzzer options...]" >&2
  exit 2
fi
target=$1 seconds=$2
shift 2
harness=$build/tests/fuzz/fuzz_$target

if (( ! no_build )); then
  CC=clang-16 CXX=clang++-16 cmake -S "$root" -B "$build" -DLJCORE_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j "$(nproc)" --target "fuzz_$target"
fi
if [[ ! -x $harness ]]; then
  echo "skip: no $harness (tools/fuzz.sh builds it)"
  exit 77
fi

# Seeds: every fixture core, decompressed (the reader also gets them as
# they are, to fuzz the zstd path). Made once; the corpus then grows.
corpus=$build/corpus/$target
if [[ ! -d $corpus ]]; then
  mkdir -p "$corpus.tmp"
  # The deriver reads LuaJIT binaries, not cores.
  [[ $target == derive ]] && cp "$root/testdata/example/luajit" "$corpus.tmp/example-luajit"
  [[ $target == derive ]] || for core in "$root"/testdata/fixtures/*/*/core.zst; do
    name=$(basename "$(dirname "$(dirname "$core")")")-$(basename "$(dirname "$core")")
    zstd -qdf "$core" -o "$corpus.tmp/$name"
    [[ $target == core_reader ]] && cp "$core" "$corpus.tmp/$name.zst"
  done
  mv "$corpus.tmp" "$corpus"
fi

# No leak check after each input: libdw leaks a few bytes on every
# dwfl_end (tests/lsan.supp), so libFuzzer would stop the world to look for
# leaks after every input, at a cost close to the analysis itself. The
# ASan build's fuzz/regressions tests check the kept inputs for leaks.
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
findings=$build/findings/$target
mkdir -p "$findings"
# A harness's own time and memory limits: an input that takes longer or
# more is a finding too (unbounded loops and allocations).
exec nice "$harness" "$corpus" -dict="$root/tests/fuzz/ljcore.dict" \
  -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2560 -detect_leaks=0 \
  -artifact_prefix="$findings/" -print_final_stats=1 "$@"
