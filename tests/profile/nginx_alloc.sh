#!/usr/bin/env bash
# ljcore profile --alloc of a real nginx (Debian nginx + libnginx-mod-http-lua,
# testdata/nginx/leak.conf) whose /leak handler keeps a record of every request: given
# the master, it probes the worker's allocator while 1000 requests leak and a ping loop
# churns; the leaking handler's stack (handle_leak) must lead the outstanding bytes,
# every sampled allocation must be accounted for, and every answer stays right.
# Usage: nginx_alloc.sh LJCORE [SECONDS]
# Exit: 0 pass, 1 fail, 77 skip (no nginx module, or the kernel refuses uprobes).
set -euo pipefail

ljcore=$1
seconds=${2:-6}
source "$(dirname "${BASH_SOURCE[0]}")/nginx_start.sh"
start_nginx leak.conf 1
sock=(--unix-socket "$prefix/nginx.sock")

# Pings all along (curl's URL ranges: one connection, request after request), so that
# the worker allocates and its collector runs after the profile's end too.
curl -s "${sock[@]}" "http://localhost/ping?[1-10000000]" >/dev/null &
background=($!)

"$ljcore" profile --alloc --pid "$master" --duration "$seconds" --sample-bytes 8K \
  >"$prefix/folded" 2>"$prefix/summary" &
profiler=$!
# The leaking requests once the worker's allocator is probed: the kernel maps
# [uprobes] into a process at a probe's first hit (the pings hit it at once).
# Finding the VMs and loading the probes takes seconds on a loaded machine.
worker=$(pgrep -P "$master" | head -1)
for _ in $(seq 300); do
  grep -q '\[uprobes\]' "/proc/$worker/maps" 2>/dev/null && break
  kill -0 "$profiler" 2>/dev/null || break
  sleep 0.1
done
curl -s "${sock[@]}" "http://localhost/leak?[1-1000]" >"$prefix/answers"
status=0
wait "$profiler" || status=$?
cat "$prefix/summary"
if ((status == 4)); then
  echo "skip: the kernel refuses uprobes here: $(head -1 "$prefix/summary")"
  exit 77
fi

fail=()
((status == 0)) || fail+=("ljcore profile --alloc exited with $status")
last=$(tail -1 "$prefix/answers")
[[ $(wc -l <"$prefix/answers") == 1000 && $last == "seen 1000" ]] ||
  fail+=("the 1000 leaking requests were not all answered right (last: $last)")
taken=$(grep -oE '[0-9]+ sampled allocations in' "$prefix/summary" | cut -d' ' -f1)
counted=$(awk -F'\t' '/^  [0-9]+\t/ {n += $1} END {print n + 0}' "$prefix/summary")
[[ $taken == "$counted" ]] || fail+=("the outcomes count $counted of $taken sampled allocations")
echo "outstanding bytes by stack, the largest first:"
awk '{print $NF, $0}' "$prefix/folded" | sort -rn | cut -d' ' -f2- | head -5 | sed 's/^/  /'
leader=$(awk '{print $NF, $0}' "$prefix/folded" | sort -rn | head -1)
[[ $leader == *"handle_leak content_by_lua(nginx.conf:"* ]] ||
  fail+=("the leaking handler's stack does not lead the outstanding bytes: $leader")
total=$(awk '{n += $NF} END {print n + 0}' "$prefix/folded")
for fn in handle_leak remember_request; do
  n=$(awk -v fn="$fn content_by_lua" 'index($0, fn) {n += $NF} END {print n + 0}' "$prefix/folded")
  echo "through $fn: $n of $total outstanding bytes"
done

if ((${#fail[@]})); then
  printf 'FAIL: %s\n' "${fail[@]}"
  exit 1
fi
echo "ok"
