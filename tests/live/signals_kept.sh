#!/usr/bin/env bash
# ljcore stops a live process without taking anything from it: a signal that
# reaches a thread while ljcore stops it (a signal-delivery stop, reported
# before the stop ljcore asked for) must still be delivered after. The target
# counts queued real-time signals, one byte each through Python's wakeup fd;
# a sender keeps signalling it while `ljcore analyze --pid` stops it again and
# again (no LuaJIT in it: the stop and the resume are what is tested).
# Usage: signals_kept.sh LJCORE [STOPS]
# Exit: 0 pass, 1 fail, 77 skip (ptrace not permitted).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_common.sh"

ljcore=$1 stops=${2:-30}
work=$(mktemp -d /tmp/ljcore-signals.XXXXXX)
trap 'kill "${sender:-}" "${target:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

python3 - "$work" <<'PY' &
import fcntl, os, resource, signal, sys
work = sys.argv[1]
# Signals queued at once (each a byte once delivered) stay far below the
# pipe's room: none is lost for want of it.
resource.setrlimit(resource.RLIMIT_SIGPENDING, (10000, 10000))
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 1 << 20)
os.set_blocking(w, False)
signal.signal(signal.SIGRTMIN, lambda s, f: None)
signal.set_wakeup_fd(w)
open(work + "/ready", "w").close()
n = 0
while True:
    n += len(os.read(r, 65536))
    with open(work + "/count.new", "w") as f:
        f.write(str(n))
    os.rename(work + "/count.new", work + "/count")
PY
target=$!
for _ in $(seq 300); do [[ -e $work/ready ]] && break; sleep 0.1; done
[[ -e $work/ready ]] || { echo "FAIL: the target did not start"; exit 1; }

# Signals sent: counted only when kill succeeded (a full queue refuses one).
# At most 4096 in flight: past the target's 10 000 pending signals the kernel
# drops a kill()'s signal silently, kill() still succeeding (6.18; a 20 ms
# SIGSTOP lost half of them, with no ptrace at all).
(
  ulimit -i 10000
  sent=0 got=0
  while [[ ! -e $work/stop ]]; do
    if ((sent - got >= 4096)); then
      read -r got 2>/dev/null <"$work/count" || true
      ((sent - got >= 4096)) && { sleep 0.001; continue; }
    fi
    kill -s RTMIN "$target" 2>/dev/null && sent=$((sent + 1))
  done
  echo "$sent" >"$work/sent"
) &
sender=$!

for ((i = 0; i < stops; i++)); do
  rc=0
  out=$("$ljcore" analyze --pid "$target" 2>&1) || rc=$?
  skip_without_ptrace "$rc" "$out"
  # The target has no LuaJIT: exit 2 (no VM found) is the one right answer.
  if ((rc != 2)); then
    echo "FAIL: stop $i: ljcore exited $rc, not 2 (no VM):"
    head -5 <<<"$out"
    touch "$work/stop"
    exit 1
  fi
done
touch "$work/stop"
wait "$sender"
sent=$(cat "$work/sent") got=0
# Every signal sent is delivered at once now that nothing stops the target.
for _ in $(seq 100); do
  got=$(cat "$work/count" 2>/dev/null || echo 0)
  ((got >= sent)) && break
  sleep 0.1
done
echo "$stops stops: $got of $sent signals delivered"
((got == sent)) || { echo "FAIL: $((sent - got)) signals lost"; exit 1; }
echo "ok"
