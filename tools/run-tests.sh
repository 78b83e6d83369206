#!/usr/bin/env bash
# README command 2 (and .ci/run): install what is missing, build ljcore
# normally, with ASan+UBSan and as libFuzzer harnesses, build the LuaJIT
# variants the tests need (cached under build/luajit), crash the oracle scenarios into cores (cached
# under build/cores, plus a real nginx worker's and the two-VM C host's), then run
# every test in the normal build and, less what adds no coverage there, in
# the ASan one.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The wall time of each step, printed as it ends (a run stopped at CI's 45
# minutes still shows the steps before) and again at the end.
steps=()
step_start=$SECONDS
step_done() {
  steps+=("$(printf '%5d s  %s' $((SECONDS - step_start)) "$1")")
  echo "== step done: ${steps[-1]}"
  step_start=$SECONDS
}
"$root/tools/bootstrap.sh"
step_done "bootstrap.sh"
"$root/tools/build.sh" --asan
step_done "build.sh --asan"
# The libFuzzer harnesses, for the fuzz/smoke tests of build/cmake.
CC=clang-16 CXX=clang++-16 cmake -S "$root" -B "$root/build/fuzz" -DLJCORE_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build/fuzz" -j "$(nproc)"
step_done "build/fuzz"
"$root/tools/build-luajit.sh"
step_done "build-luajit.sh"
# A scenario that failed to crash as it should fails the run, but only after
# every test has run on the cores that were made.
status=0
"$root/tools/make-cores.sh" || status=1
step_done "make-cores.sh"
"$root/tools/make-nginx-core.sh" || status=1
"$root/tools/make-host-cores.sh" || status=1
step_done "make-nginx-core.sh, make-host-cores.sh"

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
# The profiler's naming runs the same code on every build: one under ASan. Of
# the tests of its shares, those whose code another runs too are left out: two
# of the three scripts of lines (one line mapping), the 70/30 split (its
# formats test samples the same way) and off-cpu (--wall and the off-CPU total
# run --off-cpu's code). One group for all: CMake allows nine.
asan_redundant+="|^profile/(luajit2-gc32-stripped/|distro-luajit2/|upstream-gc64-debug/lines-side_traces\$"
asan_redundant+="|upstream-gc64-debug/lines-stitched\$|upstream-gc64-debug/split_70_30\$"
asan_redundant+="|upstream-gc64-debug/off-cpu\$)"
# A CI log shows its tail: the failed tests are listed again at the very
# end with ctest's reason (Failed, Timeout, Subprocess aborted...), then
# each one's output, the reason being most often in its last lines: its
# first 12 (name, command) and its last 60.
failures=$root/build/failed-tests.txt
rm -f "$failures"
for dir in cmake asan; do
  echo "== ctest in build/$dir"
  exclude=()
  [[ $dir == asan ]] && exclude=(-E "$asan_redundant")
  # Under ASan, a report goes to a file of its own as well as failing its
  # test with an exit status no ljcore command has (86): a test that
  # hides ljcore's stderr, or accepts its exit status 1 (partial), cannot
  # hide the report too. UBSan reports stay on stderr, with the same exit.
  reports=$root/build/$dir/sanitizer-reports
  rm -rf "$reports"
  sanitizer_env=()
  if [[ $dir == asan ]]; then
    mkdir -p "$reports"
    sanitizer_env=(env "ASAN_OPTIONS=log_path=$reports/asan:exitcode=86"
                   "UBSAN_OPTIONS=print_stacktrace=1:exitcode=86")
  fi
  failed=0
  "${sanitizer_env[@]}" ctest --test-dir "$root/build/$dir" -j "$(nproc)" --output-on-failure \
        "${exclude[@]}" --output-junit "$root/build/$dir/ctest-junit.xml" |
    tee "$root/build/$dir/ctest-output.txt" || failed=1
  log=$root/build/$dir/Testing/Temporary/LastTest.log
  if ((failed)); then
    status=1
    {
      echo "== tests that failed in build/$dir"
      sed -n '/^The following tests FAILED:/,$p' "$root/build/$dir/ctest-output.txt" |
        grep -E '^[[:space:]]+[0-9]+ - ' || true
      echo "== their output"
      awk '/^[0-9]+\/[0-9]+ Testing: / { n = 0; delete line }
           { line[++n] = $0 }
           /^Test Failed/ { failed = 1 }
           /" time elapsed: / {
             if (failed)
               for (i = 1; i <= n; i++)
                 if (i <= 12 || i > n - 60) print line[i]
                 else if (i == 13) print "[... " n - 72 " lines ...]"
             failed = 0
           }' "$log"
    } >>"$failures"
  fi
  if compgen -G "$reports/*" >/dev/null; then
    status=1
    {
      echo "== sanitizer reports in build/$dir (the tests that exited with 86)"
      for r in "$reports"/*; do
        echo "-- $r"
        sed "/^Shadow bytes around/,\$d" "$r" | head -60
      done
    } >>"$failures"
  fi
  # ctest hides the output of skipped tests; every skip says why on a
  # line starting with "skip:", so show those reasons here.
  if grep -q '^skip:' "$log" 2>/dev/null; then
    echo "== skipped in build/$dir, and why:"
    grep -h '^skip:' "$log" | sort | uniq -c
  fi
  step_done "ctest in build/$dir"
done
echo "== time per step"
printf '%s\n' "${steps[@]}"
[[ -f $failures ]] && cat "$failures"
exit $status
