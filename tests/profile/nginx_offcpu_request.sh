#!/usr/bin/env bash
# ljcore profile --off-cpu --by-request of a real nginx (Debian nginx +
# libnginx-mod-http-lua, testdata/nginx/requests.conf) whose /blocking location
# blocks the worker in poll() for 20 ms through the FFI, as a blocking client
# library would, while /light only computes. The time the worker spends blocked
# in requests must be under "GET /blocking", through the Lua function that
# blocked (wait_backend), and every answer stays right while profiled.
# Usage: nginx_offcpu_request.sh LJCORE [SECONDS]
# Exit: 0 pass, 1 fail, 77 skip (no nginx module, or the kernel refuses BPF).
set -euo pipefail

ljcore=$1
seconds=${2:-3}
source "$(dirname "${BASH_SOURCE[0]}")/nginx_start.sh"
start_nginx requests.conf 1

# One client asking for /blocking then /light on one connection, as fast as
# they are answered, counting wrong answers (poll() returns 0: no fd ready).
want=$'blocking 0\nlight 999998'
request_loop "http://localhost/blocking" "http://localhost/light" & load1=$!
background=("$load1")
sleep 0.5

fail=()
profile_under_load "$prefix/folded" --off-cpu --by-request --duration "$seconds"
((status == 0 || status == 1)) || fail+=("ljcore profile exited with $status")
((bad == 0 && good > 0)) || fail+=("the server answered $bad request pairs wrong, $good right")

# Nanoseconds blocked under each request root.
blocked() { awk -v root="$1;[off-cpu: blocked];" 'index($0, root) == 1 { n += $NF } END { print n + 0 }' "$prefix/folded"; }
in_blocking=$(blocked "GET /blocking") in_light=$(blocked "GET /light")
echo "blocked: GET /blocking $((in_blocking / 1000000)) ms, GET /light $((in_light / 1000000)) ms"
# About 20 ms a pair of requests: at least half a second of it in 3 s, even
# on a loaded machine.
((in_blocking >= 500000000)) || fail+=("only $((in_blocking / 1000000)) ms blocked under GET /blocking")
((in_light * 10 <= in_blocking)) ||
  fail+=("GET /light has $((in_light / 1000000)) ms blocked, more than a tenth of /blocking's")
grep -Eq '^GET /blocking;\[off-cpu: blocked\];.*wait_backend' "$prefix/folded" ||
  fail+=("no wait_backend under GET /blocking's blocked time")

if ((${#fail[@]})); then
  printf 'FAIL: %s\n' "${fail[@]}"
  head -20 "$prefix/folded"
  exit 1
fi
echo "ok"
