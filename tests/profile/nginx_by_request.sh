#!/usr/bin/env bash
# ljcore profile --by-request of a real nginx under load (Debian nginx +
# libnginx-mod-http-lua, testdata/nginx/requests.conf): two locations whose Lua
# costs 3:1 in CPU, one of them yielding mid-request (ngx.sleep) while the other
# runs. Folded stacks rooted at "GET /heavy" and "GET /light" share their samples
# 75/25 within 5 points, each handler's frames under its own request, and every
# response of the load stays right while profiled. (top's table of the same is
# rendered from the same labels: tests/unit/test_profile_requests.cpp.)
# Usage: nginx_by_request.sh LJCORE [SECONDS] [PROFILE OPTION...]
# Exit: 0 pass, 1 fail, 77 skip (no nginx module, or the kernel refuses to sample).
set -euo pipefail

ljcore=$1
seconds=${2:-3}
shift $(($# < 2 ? $# : 2))
source "$(dirname "${BASH_SOURCE[0]}")/nginx_start.sh"
start_nginx requests.conf 1

# The handlers' answers: spin(n) is the sum of i*i mod 1000003 for i up to n,
# which LuaJIT's doubles compute exactly here.
n=1000000
want=$(python3 -c "
spin = lambda n: n * (n + 1) * (2 * n + 1) // 6 % 1000003
print('heavy %d %d' % (spin(2 * $n), spin($n)))
print('light %d' % spin($n))")

# Two clients, each asking for /heavy then /light on one connection as fast as
# they are answered, counting wrong answers.
request_loop "http://localhost/heavy?x=1" "http://localhost/light" & load1=$!
request_loop "http://localhost/heavy?x=1" "http://localhost/light" & load2=$!
background=("$load1" "$load2")
sleep 0.5

# 999 Hz: a few hundred samples of the requests even on a loaded machine, where
# 75 +- 5 is more than 3 standard deviations wide.
fail=()
profile_under_load "$prefix/folded" --duration "$seconds" --rate 999 --by-request "$@"
((status == 0 || status == 1)) || fail+=("ljcore profile exited with $status")
((bad == 0 && good > 0)) || fail+=("the server answered $bad request pairs wrong, $good right")

# The share of /heavy among the samples of the two requests, in percent.
heavy_share() { # HEAVY LIGHT
  awk -v h="$1" -v l="$2" 'BEGIN { if (h + l) printf "%.1f", 100 * h / (h + l); else print -1 }'
}
root_samples() { awk -v root="$1" 'index($0, root ";") == 1 || index($0, root " ") == 1 {
  n += $NF } END { print n + 0 }' "$prefix/folded"; }
heavy=$(root_samples "GET /heavy") light=$(root_samples "GET /light")
none=$(root_samples "[no request]")
share=$(heavy_share "$heavy" "$light")
echo "folded: GET /heavy $heavy, GET /light $light, [no request] $none: /heavy $share%"
# The query string is not part of the path.
grep -q '^GET /heavy?' "$prefix/folded" && fail+=("a root frame kept the query string")
# The handlers' frames are under their request's root.
grep -Eq '^GET /heavy;.*heavy content_by_lua\(nginx\.conf:[0-9]+\)' "$prefix/folded" ||
  fail+=("no frame of heavy under GET /heavy")
grep -Eq '^GET /light;.*light content_by_lua\(nginx\.conf:[0-9]+\)' "$prefix/folded" ||
  fail+=("no frame of light under GET /light")
grep -Eq '^GET /light;.*heavy content_by_lua' "$prefix/folded" &&
  fail+=("a frame of heavy under GET /light")
((heavy + light >= 300)) || fail+=("only $((heavy + light)) samples in the two requests")
awk -v s="$share" 'BEGIN { exit !(s >= 70 && s <= 80) }' ||
  fail+=("/heavy has $share% of the requests' samples, not 75 +- 5")

if ((${#fail[@]})); then
  printf 'FAIL: %s\n' "${fail[@]}"
  head -20 "$prefix/folded"
  exit 1
fi
echo "ok"
