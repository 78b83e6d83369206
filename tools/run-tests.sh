#!/usr/bin/env bash
# README command 2 (and .ci/run): install what is missing, build ljcore
# normally, with ASan+UBSan and as libFuzzer harnesses, build the LuaJIT
# variants the tests need (cached under build/luajit), crash the oracle scenarios into cores (cached
# under build/cores, plus a real nginx worker's and the two-VM C host's), then run
# every test in the normal build and, less what adds no coverage there, in
# the ASan one.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/bootstrap.sh"
"$root/tools/build.sh" --asan
# The libFuzzer harnesses, for the fuzz/smoke tests of build/cmake.
CC=clang-16 CXX=clang++-16 cmake -S "$root" -B "$root/build/fuzz" -DLJCORE_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build/fuzz" -j "$(nproc)"
"$root/tools/build-luajit.sh"
# A scenario that failed to crash as it should fails the run, but only after
# every test has run on the cores that were made.
status=0
"$root/tools/make-cores.sh" || status=1
"$root/tools/make-nginx-core.sh" || status=1
"$root/tools/make-host-cores.sh" || status=1

# The tests start python3 thousands of times: call the interpreter itself,
# not a version manager's shim (pyenv's costs half a second a start).
mkdir -p "$root/build/bin"
ln -sf "$(python3 -c 'import sys; print(sys.executable)')" "$root/build/bin/python3"
export PATH="$root/build/bin:$PATH"

# LeakSanitizer: ignore what libdw itself leaks (see the file).
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
# Under ASan, the combinations that run no code the others do not: a gcore
# core goes through the same readers as the kernel core of the same run,
# and a snapshot test spends its time in gdb and eu-stack; one variant's
# snapshots (and nginx's) keep the writer under ASan. The per-variant
# comparisons (tracebacks, mixed stacks, traces, locals...) keep the five
# variants that cover each axis: upstream-gc64-debug, 32-bit refs
# (luajit2-gc32-stripped), no JIT (luajit2-gc64-nojit), arm64
# (upstream-gc64-stripped-arm64) and Debian's build (distro-luajit2); the
# other 16 run the same code with other offsets, which the normal build
# checks. The package test installs the normal build's package either way.
other_variants='upstream-gc32-(debug|nojit|stripped)|upstream-gc64-(nojit|stripped|debug-arm64)'
other_variants+='|luajit2-gc32-(debug|nojit)|luajit2-gc64-(debug|stripped|debug-arm64|stripped-arm64)'
# CMake's regular expressions take at most nine groups: the -fields
# builds are spelt out.
other_variants+='|distro-luajit|upstream-gc64-stripped-fields|upstream-gc64-stripped-gfields'
other_variants+='|upstream-gc64-stripped-pjfields'
asan_redundant="/gcore\$|^snapshot/[^/]*(luajit2|distro|gc32|stripped|nojit|arm64)"
asan_redundant+="|^[a-z_-]+/($other_variants)(/|$)|^install/deb\$"
# catch runs its analysis in a child limited in address space (RLIMIT_AS),
# which ASan's shadow memory cannot fit in: the handler's tests run in the
# normal build only.
asan_redundant+="|^catch/"
# The profiler's naming runs the same code on every build: one under ASan.
asan_redundant+="|^profile/(luajit2-gc32-stripped|distro-luajit2)/"
# A CI log shows its tail: the failed tests' output (at most 80 lines
# each) is printed again at the very end, so that the reasons are there,
# not only the names.
failures=$root/build/failed-tests.txt
rm -f "$failures"
for dir in cmake asan; do
  echo "== ctest in build/$dir"
  exclude=()
  [[ $dir == asan ]] && exclude=(-E "$asan_redundant")
  failed=0
  ctest --test-dir "$root/build/$dir" -j "$(nproc)" --output-on-failure "${exclude[@]}" \
        --output-junit "$root/build/$dir/ctest-junit.xml" || failed=1
  log=$root/build/$dir/Testing/Temporary/LastTest.log
  if ((failed)); then
    status=1
    echo "== output of the tests that failed in build/$dir" >>"$failures"
    awk '/^[0-9]+\/[0-9]+ Testing: / { block = ""; n = 0 }
         { if (n++ < 80) block = block $0 "\n" }
         /^Test Failed/ { failed = 1 }
         /" time elapsed: / { if (failed) printf "%s\n", block; failed = 0 }' "$log" >>"$failures"
  fi
  # ctest hides the output of skipped tests; every skip says why on a
  # line starting with "skip:", so show those reasons here.
  if grep -q '^skip:' "$log" 2>/dev/null; then
    echo "== skipped in build/$dir, and why:"
    grep -h '^skip:' "$log" | sort | uniq -c
  fi
done
[[ -f $failures ]] && cat "$failures"
exit $status
