# Sourced by the live tests (tests/live/*.sh).

# skip_without_ptrace STATUS OUTPUT: exits 77, with the kernel's reason, when
# ljcore exited with STATUS 3 (unreadable) because ptrace was refused, as its
# OUTPUT says.
skip_without_ptrace() {
  if (($1 == 3)) && grep -q "cannot ptrace" <<<"$2"; then
    echo "skip: $(grep -o 'cannot ptrace.*' <<<"$2" | head -1)"
    exit 77
  fi
}

# analyze_running LJCORE LUAJIT SCRIPT [OPTION...]: starts SCRIPT under LUAJIT
# (pid; killed on exit), lets it reach its steady state (and compile, for the
# JIT case), and prints `ljcore analyze OPTION... --pid` of it, which it keeps
# in out. Skips without the build or ptrace; fails on an exit status above 1.
analyze_running() {
  local ljcore=$1 luajit=$2 script=$3 rc=0
  shift 3
  [[ -x $luajit ]] || { echo "skip: $luajit not built (run tools/build-luajit.sh)"; exit 77; }
  "$luajit" "$script" &
  pid=$!
  trap 'kill "$pid" 2>/dev/null || true' EXIT
  sleep 0.5
  out=$("$ljcore" analyze "$@" --pid "$pid" 2>&1) || rc=$?
  skip_without_ptrace "$rc" "$out"
  echo "$out"
  ((rc <= 1)) || { echo "FAIL: ljcore exited with $rc"; exit 1; }
}
