#!/usr/bin/env bash
# ljcore profile of a real nginx under load (Debian nginx + libnginx-mod-http-lua,
# testdata/nginx/profile.conf: two workers, a handler in named Lua functions): given the
# master, it samples the workers; the handler's Lua frames are named as debug.traceback
# names them; every sample is accounted for; and every response of the request loop
# stays correct while profiled.
# Usage: nginx_profile.sh LJCORE [SECONDS] [PROFILE OPTION...]
# Exit: 0 pass, 1 fail, 77 skip (no nginx module, or the kernel refuses to sample).
set -euo pipefail

ljcore=$1
seconds=${2:-3}
shift $(($# < 2 ? $# : 2))
source "$(dirname "${BASH_SOURCE[0]}")/nginx_start.sh"
start_nginx profile.conf 2

# The handler's answer for n, as LuaJIT computes it (doubles, exact here).
n=200000
want="ok $(python3 -c "
s = 0
for i in range(1, $n + 1): s = (s + i * i) % 1000003
print(s)")"

# Two clients request as fast as they are answered, and count wrong answers.
request_loop "http://localhost/work?n=$n" & loop=$!
request_loop "http://localhost/work?n=$n" & loop2=$!
background=("$loop" "$loop2")
sleep 0.5

profile_under_load "$prefix/folded" --duration "$seconds" "$@"

fail=()
((status == 0 || status == 1)) || fail+=("ljcore profile exited with $status")
((bad == 0 && good > 0)) || fail+=("the server answered $bad requests wrong, $good right")
# Given the master, both workers are sampled.
workers=$(pgrep -P "$master" | sort -n | tr '\n' ' ')
for w in $workers; do
  grep -q "processes.* $w\b" "$prefix/summary" || fail+=("worker $w was not sampled")
done
# The handler's frames, named as debug.traceback names them: the local functions by
# their names, in the content_by_lua chunk (at a line, unless the userspace sampler
# found the frame from g->jit_base, without the trace's pc).
for fn in handle_work checksum; do
  grep -Eq "(^|;)$fn content_by_lua\(nginx\.conf:[0-9]+\)(:[0-9]+)?(;| )" "$prefix/folded" ||
    fail+=("no frame of $fn in the profile")
done
# Every sample is accounted for: the outcome lines add up to the samples taken.
taken=$(grep -oE '[0-9]+ samples in' "$prefix/summary" | cut -d' ' -f1)
counted=$(awk -F'\t' '/^  [0-9]+\t/ {n += $1} END {print n + 0}' "$prefix/summary")
[[ $taken == "$counted" ]] || fail+=("the outcomes count $counted of $taken samples")
in_handler=$(awk '/checksum content_by_lua/ {n += $NF} END {print n + 0}' "$prefix/folded")
echo "samples in checksum: $in_handler of $taken"
((in_handler > 0)) || fail+=("no sample in the handler's loop")
if ((${#fail[@]})); then
  printf 'FAIL: %s\n' "${fail[@]}"
  head -20 "$prefix/folded"
  exit 1
fi
echo "ok"
