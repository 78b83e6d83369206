# Sourced by the comparison scripts. A core this machine could not make (no
# gdb, a core_pattern that pipes, no qemu) is a skip with its reason, never a
# failure and never a silent pass.
# require_inputs MAKER CORE [FILE...]: exit 77 with "skip: ..." unless CORE
# and every FILE exist; a skip-reason file next to CORE says why it is missing.
require_inputs() {
  local maker=$1 core=$2 f skip_file
  shift
  skip_file=$(dirname "$core")/skip-reason
  if [[ ! -e $core && -f $skip_file ]]; then
    sed 's/^/skip: /' "$skip_file"
    exit 77
  fi
  for f in "$@"; do
    if [[ ! -e $f ]]; then
      echo "skip: $f does not exist (run $maker)"
      exit 77
    fi
  done
}

# oracle_inputs "$@": the arguments of a comparison with a scenario's oracle
# (LJCORE CORE ORACLE EXE) as $ljcore $core $oracle $exe, the inputs checked
# by require_inputs, and a scratch directory $tmp that goes on exit.
oracle_inputs() {
  if (($# != 4)); then
    echo "usage: $0 LJCORE CORE ORACLE EXE" >&2
    exit 2
  fi
  ljcore=$1 core=$2 oracle=$3 exe=$4
  require_inputs tools/make-cores.sh "$core" "$oracle" "$exe"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
}

# add_sysroot ARRAY [DIR]: appends --sysroot to the named array when DIR (by
# default the directory of $core) names one: cores of foreign-architecture
# guests name their libraries under a sysroot.
add_sysroot() {
  local -n into=$1
  local file=${2:-$(dirname "$core")}/sysroot
  if [[ -f $file ]]; then into+=(--sysroot "$(<"$file")"); fi
}

# run_ljcore OUT COMMAND...: runs COMMAND with its output into OUT; any exit
# but 0 fails the test, showing the command and what it wrote to stderr.
run_ljcore() {
  local out=$1 rc=0
  shift
  "$@" >"$out" 2>"$tmp/stderr" || rc=$?
  if ((rc != 0)); then
    echo "FAIL: ljcore exited with $rc: $*"
    cat "$tmp/stderr"
    exit 1
  fi
}
