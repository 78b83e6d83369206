# Sourced by the benchmarks: builds the LuaJIT they run and ljcore (both
# cached), sets root, variant, exe, ljcore and out, and enters out.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
variant=upstream-gc64-debug
"$root/tools/build-luajit.sh" "$variant" >/dev/null
"$root/tools/build.sh" >/dev/null
exe=$root/build/luajit/$variant/src/luajit
ljcore=${LJCORE:-$root/build/cmake/ljcore}  # LJCORE: another build to measure
out=$root/build/bench
mkdir -p "$out" && cd "$out"

# crash_into CORE LOG SCRIPT [VAR=VALUE...]: runs tools/bench/SCRIPT with
# the environment given until it crashes and keeps its core as CORE (the
# kernel's, or gdb's gcore when core_pattern leaves no file); SCRIPT's
# stderr goes to LOG. Nothing to do while CORE is newer than SCRIPT.
crash_into() {
  local core=$1 log=$2 script=$root/tools/bench/$3 found= c
  shift 3
  [[ -s $core && $core -nt $script ]] && return 0
  rm -f core core.[0-9]*
  ( ulimit -c unlimited; env "$@" "$exe" "$script"; exit $? ) 2>"$log" || true
  for c in core core.[0-9]*; do [[ -f $c ]] && found=$c; done
  if [[ -n $found ]]; then
    mv "$found" "$core"
  else
    env "$@" gdb -batch -nx -ex run -ex "gcore $core" -ex kill --args "$exe" "$script" \
      >gdb.log 2>&1
  fi
}

# sampling PID: waits until the profiler PID waits for its samples (in
# epoll_wait or epoll_pwait for the BPF backends, a sleep for the userspace
# one; x86_64's numbers 232, 281, 230, 35), not in bpf() or finding the VM:
# on a loaded machine the verifier may take longer than the work.
sampling() {
  local call
  for _ in $(seq 1200); do
    # stderr first: a redirection that fails reports to the stderr of its time.
    read -r call _ 2>/dev/null <"/proc/$1/syscall" || return 0
    [[ $call == 232 || $call == 281 || $call == 230 || $call == 35 ]] && return 0
    sleep 0.1
  done
}

# profiled_run TAG SCRIPT [PROFILE OPTION...]: runs tools/bench/SCRIPT, a work
# script that waits for the file START names (timed_work.lua), under
# `ljcore profile --pid` with those options (none: not profiled), and prints
# what SCRIPT printed. The profiler gets 1.5 s to find the VM and load its
# sampler or probes, and more until it samples, before the work starts, so
# its start-up is not counted.
profiled_run() {
  local tag=$1 script=$root/tools/bench/$2 start=$out/$1_start.$$ prof= pid
  shift 2
  rm -f "$start"
  START=$start "$exe" "$script" >"$out/${tag}_work.out" &
  pid=$!
  if (($#)); then
    "$ljcore" profile --pid "$pid" --duration 600 -o /dev/null "$@" 2>"$out/${tag}_run.err" &
    prof=$!
    sleep 1.5
    sampling "$prof"
  fi
  touch "$start"
  wait "$pid"
  [[ -n $prof ]] && { kill -INT "$prof" 2>/dev/null; wait "$prof" || true; }
  rm -f "$start"
  cat "$out/${tag}_work.out"
}

# median: the median of the numbers on standard input, one per line.
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
