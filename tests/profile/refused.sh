#!/usr/bin/env bash
# Where the kernel refuses bpf() (here: an unprivileged user), profile --alloc has no
# fallback: it must say what it needs and exit with 4, not profile nothing in silence.
# The process and ljcore run as nobody (setpriv), copied where nobody can run them.
# Usage: refused.sh LJCORE LUAJIT
# Exit: 0 pass, 1 fail, 77 skip (not root, so no unprivileged user to become).
set -euo pipefail

ljcore=$1
luajit=$2
if ((EUID != 0)) || ! command -v setpriv >/dev/null; then
  echo "skip: needs root and setpriv to run as an unprivileged user"
  exit 77
fi
[[ -x $luajit ]] || { echo "skip: no LuaJIT build at $luajit"; exit 77; }
dir=$(mktemp -d /tmp/ljcore-refused.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cp "$ljcore" "$luajit" "$dir/"
chmod 755 "$dir" "$dir/ljcore" "$dir/luajit"
as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups --inh-caps=-all "$@"; }

# ljcore starts the process and becomes its parent (exec), so that ptrace allows it
# whatever kernel.yama.ptrace_scope says: only bpf() is refused.
status=0
as_nobody sh -c '"$1"/luajit -e "local t = os.clock() while os.clock() - t < 20 do end" &
  sleep 0.3; exec "$1"/ljcore profile --alloc --pid $! --duration 1' sh "$dir" \
  >"$dir/out" 2>"$dir/err" || status=$?
pkill -u nobody -f "$dir/luajit" || true
cat "$dir/err"
fail=()
((status == 4)) || fail+=("exit status $status, not 4")
grep -q 'profile --alloc needs uprobes, which need bpf(); it was refused' "$dir/err" ||
  fail+=("no message saying what --alloc needs")
grep -q 'CAP_BPF' "$dir/err" || fail+=("the message does not name the capabilities")
[[ ! -s $dir/out ]] || fail+=("it wrote a profile")
if ((${#fail[@]})); then
  printf 'FAIL: %s\n' "${fail[@]}"
  exit 1
fi
echo "ok"
