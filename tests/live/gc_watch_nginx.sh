#!/usr/bin/env bash
# ljcore gc --pid --every of a real nginx under load (Debian nginx +
# libnginx-mod-http-lua, testdata/nginx/leak.conf): its /leak handler keeps a record
# of every request in package.loaded.ljcore_seen, a cache that never evicts, while a
# ping loop makes garbage only. Given the master, four snapshots a second apart
# (three intervals) must name that cache as the one path that grew in every
# interval, in any VM; every request is answered right meanwhile; and killed with
# SIGKILL while it snapshots, ljcore leaves the worker running.
# Usage: gc_watch_nginx.sh LJCORE
# Exit: 0 pass, 1 fail, 77 skip (no nginx module, or ptrace not permitted).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/live_common.sh"

ljcore=$1
source "$(dirname "${BASH_SOURCE[0]}")/../profile/nginx_start.sh"
start_nginx leak.conf 1
url="http://localhost"
sock=(--unix-socket "$prefix/nginx.sock")

# Requests in batches of 200 on one connection each (curl's URL ranges) until told
# to stop; the answers of each loop go to a file of their own.
leak_loop() {
  while [[ ! -f $prefix/stop ]]; do curl -s "${sock[@]}" "$url/leak?[1-200]"; done >"$prefix/leaks"
}
ping_loop() {
  while [[ ! -f $prefix/stop ]]; do curl -s "${sock[@]}" "$url/ping?[1-200]"; done >"$prefix/pings"
}
leak_loop & leaks=$!
ping_loop & pings=$!
background=("$leaks" "$pings")
sleep 0.5

status=0
"$ljcore" gc --pid "$master" --every 1s --count 4 --json >"$prefix/watch.json" \
  2>"$prefix/stderr" || status=$?
# Killed at any moment, even inside a snapshot, ljcore leaves the worker running.
worker=$(pgrep -P "$master" | head -1)
"$ljcore" gc --pid "$worker" --every 20ms --count 100000 >/dev/null 2>&1 &
watcher=$!
sleep 0.3
kill -KILL "$watcher"
wait "$watcher" 2>/dev/null || true
sleep 0.1
worker_state=$(awk '{print $3}' "/proc/$worker/stat")
touch "$prefix/stop"
wait "$leaks" "$pings" || true
background=()
cat "$prefix/stderr"
skip_without_ptrace "$status" "$(<"$prefix/stderr")"

fail=()
((status == 0)) || fail+=("ljcore gc --every exited with $status")
[[ $worker_state != [tT] ]] || fail+=("the worker stayed stopped after ljcore was killed")
after=$(curl -s "${sock[@]}" "$url/ping?after") || true
[[ $after == "pong /ping?after "* ]] || fail+=("no answer after ljcore was killed: $after")
# Every leak answer counts the requests so far: "seen 1", "seen 2", ... with none
# missing; every ping is answered.
leaks_done=$(wc -l <"$prefix/leaks")
awk '$0 != "seen " NR {bad = 1} END {exit bad}' "$prefix/leaks" ||
  fail+=("a /leak answer is wrong or missing: $(awk '$0 != "seen " NR {print NR": "$0; exit}' "$prefix/leaks")")
pings_bad=$(grep -vc '^pong /ping?' "$prefix/pings" || true)
((pings_bad == 0)) || fail+=("$pings_bad /ping answers are wrong")
echo "requests answered while watched: $leaks_done leaks, $(wc -l <"$prefix/pings") pings"

python3 - "$prefix/watch.json" <<'PY' || fail+=("the watch did not name the leak, and it alone")
import json, sys
w = json.load(open(sys.argv[1]))
grew = []
for vm in w["vms"]:
    pauses = [s["paused_us"] / 1000 for s in vm["snapshots"]]
    print("process %d: %d snapshots, paused %s ms" %
          (vm["pid"], len(vm["snapshots"]), ", ".join("%.1f" % p for p in pauses)))
    assert len(vm["snapshots"]) == 4 and all(s["complete"] for s in vm["snapshots"])
    for g in vm["growing"]:
        print("  grew: %s %s" % (g["path"], g["bytes"]))
        grew.append(g["path"])
assert len(grew) == 1 and grew[0].endswith("package.loaded.ljcore_seen"), grew
PY
if ((${#fail[@]})); then
  printf 'FAIL: %s\n' "${fail[@]}"
  exit 1
fi
echo "ok"
