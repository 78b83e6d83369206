#!/usr/bin/env bash
# Crashes every testdata/{scenarios,coroutines,traces,gc,retained,locals}/*.lua under each LuaJIT
# variant and keeps, per run, the core and LuaJIT's own view of itself written just before
# the crash (the oracle ljcore must match): for scenarios the traceback of the crashing
# frame, for coroutines/ scripts a block per coroutine, for traces/ scripts jit.dump's
# listing of every trace, for gc/ scripts their planted objects and g->gc.total, for
# retained/ scripts the retained size LuaJIT measured for each structure, for
# locals/ scripts what debug.getlocal and debug.getupvalue see at every level.
# Usage: tools/make-cores.sh [VARIANT...]   (default: tools/variants.txt)
# Output: build/cores/<variant>/<scenario>/
#   <scenario>.lua                    copy of the script, run by this relative name so chunk
#                                     names in oracles read "<scenario>.lua:LINE"
#   core.kernel, oracle.kernel.txt    core dumped by the kernel (ulimit -c unlimited)
#   core.gcore,  oracle.gcore.txt     core written by gdb's gcore at the fatal signal
#   exe                               symlink to the luajit binary that crashed
#   run.kernel.log, run.gcore.log     stdout/stderr of the runs
# Oracles are debug.traceback("", 1) verbatim: "\nstack traceback:\n\t..." with no final
# newline. Outputs newer than both the script and luajit are kept (cache); delete the
# directory to force a rerun. Env: JOBS (parallel scenarios, default nproc), SCRIPT_DIRS
# (which testdata/ directories to run, default all: "scenarios coroutines traces gc
# retained locals").
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
variants=("$@")
((${#variants[@]})) || mapfile -t variants < <(grep -Ev '^(#|$)' "$root/tools/variants.txt")
jobs_max=${JOBS:-$(nproc)}

# Builds are cached, so this is instant when the variants exist.
"$root/tools/build-luajit.sh" "${variants[@]}" >/dev/null

# Scenarios check the crashing stack; coroutines/ scripts check every coroutine.
scripts=()
for d in ${SCRIPT_DIRS:-scenarios coroutines traces gc retained locals}; do
  scripts+=("$root/testdata/$d"/*.lua)
done
[[ -e ${scripts[0]} ]] || { echo "no scenarios in testdata/${SCRIPT_DIRS:-scenarios}" >&2; exit 1; }

# Kernel cores only land in the cwd when core_pattern is a plain relative name.
core_pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo '?')
kernel_reason=
case $core_pattern in
  '|'*) kernel_reason="core_pattern pipes cores to '${core_pattern#|}'" ;;
  */*)  kernel_reason="core_pattern '$core_pattern' writes cores outside the cwd" ;;
esac
have_gdb=1; command -v gdb >/dev/null || have_gdb=0

# Modules the scenarios require (testdata/lib/*.lua), copied next to each.
libs=("$root"/testdata/lib/*.lua)

# fresh OUT... : every OUT exists and is newer than the script, the modules and luajit.
fresh() {
  local f l
  for f; do
    [[ -s $f && $f -nt $script && $f -nt $exe ]] || return 1
    for l in "${libs[@]}"; do [[ $f -nt $l ]] || return 1; done
  done
}

# Checks the run's exit status: scenarios must die by a signal (128+N), else they are broken.
check_crash() {
  local rc=$1 log=$2
  if ((rc <= 128)); then
    echo "$tag: $kind run exited with $rc instead of crashing; see $log" >&2
    return 1
  fi
}

run_kernel() {
  kind=kernel
  if fresh core.kernel oracle.kernel.txt; then echo "$tag: kernel cached"; return 0; fi
  if [[ -n $kernel_reason ]]; then echo "$tag: kernel skipped: $kernel_reason"; return 0; fi
  rm -f core core.[0-9]* qemu_*.core core.kernel oracle.kernel.txt
  local rc=0
  # Subshell: the raised core limit must not leak; core_uses_pid decides core vs core.PID.
  ( ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)"
    [[ $(ulimit -c) != 0 ]] || { echo "hard core limit is 0" >&2; exit 99; }
    # timeout: a scenario that stops crashing must not hang us (rc 124 counts as no crash).
    # "; exit $?" prevents an implicit exec, so the crash report lands in the log.
    ORACLE=oracle.kernel.txt LUA_PATH="$lua_path" timeout 60 "${runner[@]}" "$exe" "$name.lua"; exit $?
  ) >run.kernel.log 2>&1 || rc=$?
  if ((rc == 99)); then echo "$tag: kernel skipped: hard core limit (ulimit -Hc) is 0"; return 0; fi
  check_crash "$rc" run.kernel.log || return 1
  [[ -s oracle.kernel.txt ]] || { echo "$tag: no oracle written; see run.kernel.log" >&2; return 1; }
  # qemu-user writes the guest's core as qemu_<prog>_<time>_<pid>.core.
  local cores=(core core.[0-9]* qemu_*.core) c found=
  for c in "${cores[@]}"; do [[ -f $c ]] && found=$c; done
  if [[ -z $found ]]; then
    echo "$tag: kernel wrote no core (rc=$rc, core_pattern '$core_pattern'," \
         "ulimit -c $(ulimit -H -c) hard; a set-uid/non-dumpable process or a full disk also stop it)"
    return 0
  fi
  mv "$found" core.kernel
  # Under qemu the host process dumps too: keep only the guest core.
  rm -f core core.[0-9]* qemu_*.core
  echo "$tag: kernel ok ($(du -h --apparent-size core.kernel | cut -f1))"
}

run_gcore() {
  kind=gcore
  if fresh core.gcore oracle.gcore.txt; then echo "$tag: gcore cached"; return 0; fi
  ((have_gdb)) || { echo "$tag: gcore skipped: gdb not installed"; return 0; }
  # Builds made to check layouts derived from code: their memory is read the
  # same from either kind of core, and the kernel's is the cheaper to make.
  if [[ $variant =~ -(g|pj)fields$ ]]; then echo "$tag: gcore skipped: kernel cores only"; return 0; fi
  if ((${#runner[@]})); then echo "$tag: gcore skipped: gdb cannot run a qemu guest"; return 0; fi
  rm -f core.gcore oracle.gcore.txt
  # gdb stops at the fatal signal; gcore then dumps the process exactly at the crash.
  # No debuginfod (no network waits), no shell between gdb and luajit.
  local rc=0
  ORACLE=oracle.gcore.txt LUA_PATH="$lua_path" DEBUGINFOD_URLS='' \
    timeout -k 5 120 gdb -batch -nx -iex 'set debuginfod enabled off' -iex 'set startup-with-shell off' \
        -ex run -ex 'gcore core.gcore' -ex kill --args "$exe" "$name.lua" \
        >run.gcore.log 2>&1 || rc=$?
  if ! grep -q 'received signal SIG' run.gcore.log; then
    echo "$tag: gcore run did not stop at a signal (gdb rc=$rc); see run.gcore.log" >&2
    return 1
  fi
  [[ -s oracle.gcore.txt ]] || { echo "$tag: no oracle written; see run.gcore.log" >&2; return 1; }
  [[ -s core.gcore ]] || { echo "$tag: gdb wrote no core.gcore (rc=$rc); see run.gcore.log" >&2; return 1; }
  echo "$tag: gcore ok ($(du -h --apparent-size core.gcore | cut -f1))"
}

# One variant x scenario; runs in a background job, so it only touches its own directory.
make_one() {
  variant=$1 script=$2
  name=$(basename "$script" .lua)
  exe=$root/build/luajit/$variant/src/luajit
  lua_path="$root/build/luajit/$variant/src/?.lua;;"
  # aarch64 builds run under qemu-user; ljcore needs their libc from the
  # cross sysroot, which the test reads from the file "sysroot".
  runner=()
  if [[ $variant == *-arm64 ]]; then runner=(qemu-aarch64 -L /usr/aarch64-linux-gnu); fi
  tag=$variant/$name
  local dir=$root/build/cores/$variant/$name
  mkdir -p "$dir" && cd "$dir"
  # Copy only when changed, so the cache (mtime of outputs vs script) stays meaningful.
  cmp -s "$script" "$name.lua" || cp "$script" "$name.lua"
  local lib
  for lib in "${libs[@]}"; do cmp -s "$lib" "${lib##*/}" || cp "$lib" .; done
  ln -sfn "$exe" exe
  if ((${#runner[@]})); then echo /usr/aarch64-linux-gnu >sysroot; else rm -f sysroot; fi
  # traces/ scripts need jit.dump (jit/*.lua of a source build) and a JIT.
  if [[ $script == */testdata/traces/* ]]; then
    local why=
    [[ -f $root/build/luajit/$variant/src/jit/dump.lua ]] || why="$variant has no jit/dump.lua"
    [[ $variant == *-nojit* ]] && why="$variant is built without the JIT: no traces"
    if [[ -n $why ]]; then echo "$why" >skip-reason; echo "$tag: skipped: $why"; return 0; fi
    rm -f skip-reason
  fi
  local ok=0
  run_kernel || ok=1
  run_gcore || ok=1
  return $ok
}

start=$SECONDS
failed=0 pids=()
for v in "${variants[@]}"; do
  for s in "${scripts[@]}"; do
    # Bounded parallelism (oldest job first): each run is short, gdb start-up dominates.
    if ((${#pids[@]} >= jobs_max)); then
      wait "${pids[0]}" || failed=1
      pids=("${pids[@]:1}")
    fi
    make_one "$v" "$s" &
    pids+=($!)
  done
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
echo "make-cores: ${#variants[@]} variant(s) x ${#scripts[@]} scenario(s) in $((SECONDS - start))s"
((failed == 0)) || { echo "make-cores: some scenarios failed (see messages above)" >&2; exit 1; }
