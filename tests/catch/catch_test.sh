#!/usr/bin/env bash
# ljcore catch through the kernel's own path: installs it as core_pattern's
# handler, crashes real processes, and checks what it kept.
# Usage: catch_test.sh LJCORE ROOT CASE [ARGS...]
#   ROOT: the source tree (testdata/, build/luajit/).
#   scenario VARIANT SCENARIO: the crash's report.txt is what `analyze --all
#     --locals` prints of the full core of the same crash, its snapshot.core
#     gives LuaJIT's own traceback (the oracle) and the same `bt --all`,
#     `bt --locals` and `traces` as that core (--keep-core=always keeps it).
#   chain: a LuaJIT and a non-LuaJIT crash reach the file handler that was
#     there before (core_pattern "core"), byte for byte the core the kernel
#     piped (the one --keep-core kept), with no report for the non-LuaJIT one.
#   passthrough: a crash of a process without LuaJIT (sleep) leaves no
#     directory and no count, and its core reaches the file handler whole.
#   redact: with --redact, no file of the crash directory holds a secret
#     string (a local, a table entry, a string made from it, LuaJIT's string
#     buffer) that an unredacted snapshot of the core holds; the report
#     shows its length, the snapshot a string of as many zeros.
#   container: a crash in its own PID namespace and root (unshare, chroot):
#     the report has both PIDs, its files come from the process's root (the
#     executable is at a path the host does not have), the traceback is the
#     oracle's.
#   nginx: a real nginx worker (Debian nginx + libnginx-mod-http-lua) crashed
#     in a content_by_lua handler: the report shows the request, the
#     snapshot the oracle's traceback and the bt --all, bt --locals and
#     traces the full core gives. With
#     "redact": with --redact, no file of the crash directory holds the
#     request's URI or a header that an unredacted snapshot holds.
#   burst VARIANT: 100 crashes in 10 s: at most --rate reports, the quota
#     holds, nothing half-written, the summary counts all 100.
# Changes kernel.core_pattern and core_pipe_limit: both are restored on any
# exit (EXIT/INT/TERM trap). ctest runs these under one RESOURCE_LOCK with
# every test that crashes processes. Exit 77: not root, sysctl read-only,
# or inputs missing.
set -euo pipefail

ljcore=$1 root=$2 case=$3
shift 3

skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[[ $(id -u) == 0 ]] || skip "needs root to set kernel.core_pattern"
pattern_file=/proc/sys/kernel/core_pattern limit_file=/proc/sys/kernel/core_pipe_limit
saved_pattern=$(<"$pattern_file") saved_limit=$(<"$limit_file")
[[ -w $pattern_file ]] && printf '%s\n' "$saved_pattern" 2>/dev/null >"$pattern_file" ||
  skip "kernel.core_pattern is not writable here"
[[ $saved_pattern != *' catch --handle='* ]] || skip "ljcore catch is installed already"

tmp=$(mktemp -d /tmp/ljcore-catch.XXXXXX)
crashes=$tmp/crashes
restore() {
  printf '%s\n' "$saved_limit" >"$limit_file"
  printf '%s\n' "$saved_pattern" >"$pattern_file"
  rm -rf "$tmp"
}
trap restore EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# The chained file handler only writes a core where the kernel would: a
# relative pattern lands in the crashing process's cwd.
chain_to_cwd() {
  [[ $saved_pattern != '|'* && $saved_pattern != */* ]]
}

install() {
  "$ljcore" catch --install --dir "$crashes" "$@" >"$tmp/install.log" ||
    fail "catch --install: $(cat "$tmp/install.log")"
  [[ $(<"$limit_file") != 0 ]] || fail "core_pipe_limit left 0"
}

# Waits until the handler of every crash so far has finished: no temporary
# directory left, and no handler running.
settle() {
  local i
  for ((i = 0; i < 600; i++)); do
    if ! pgrep -f -- "catch --handle=$crashes" >/dev/null &&
       ! compgen -G "$crashes/.tmp-*" >/dev/null; then
      return 0
    fi
    sleep 0.05
  done
  fail "handlers still running after 30 s"
}

# Runs testdata/scenarios/NAME.lua under VARIANT's luajit in DIR, as
# tools/make-cores.sh does, with its oracle written to DIR/oracle.txt.
crash_scenario() {
  local variant=$1 name=$2 dir=$3
  local exe=$root/build/luajit/$variant/src/luajit
  mkdir -p "$dir"
  cp "$root/testdata/scenarios/$name.lua" "$root"/testdata/lib/*.lua "$dir/" 2>/dev/null ||
    cp "$root/testdata/scenarios/$name.lua" "$dir/"
  ( cd "$dir" && ulimit -c unlimited &&
    ORACLE=oracle.txt LUA_PATH="$root/build/luajit/$variant/src/?.lua;;" \
      timeout 60 "$exe" "$name.lua"; exit $? ) >"$dir/run.log" 2>&1 || true
}

only_crash() {
  local dirs=("$crashes"/*/)
  ((${#dirs[@]} == 1)) && [[ -d ${dirs[0]} ]] || fail "expected one crash in $crashes, found: $(ls "$crashes")"
  echo "${dirs[0]%/}"
}

case_scenario() {
  local variant=$1 name=$2
  local exe=$root/build/luajit/$variant/src/luajit
  [[ -x $exe ]] || skip "$exe not built (tools/build-luajit.sh)"
  install --keep-core=always --chain
  crash_scenario "$variant" "$name" "$tmp/run"
  settle
  [[ -s $tmp/run/oracle.txt ]] || fail "$name wrote no oracle: $(cat "$tmp/run/run.log")"
  local c; c=$(only_crash)
  for f in report.txt report.json snapshot.core crash.txt core; do
    [[ -s $c/$f ]] || fail "$c/$f missing"
    [[ $(stat -c %a "$c/$f") == 600 ]] || fail "$c/$f is not 0600"
  done
  # The oracle: LuaJIT's own traceback, from the snapshot.
  local level=1
  [[ -f $tmp/run/oracle.txt.level ]] && level=$(<"$tmp/run/oracle.txt.level")
  { tail -c +2 "$tmp/run/oracle.txt"; printf '\n'; } >"$tmp/expected"
  "$ljcore" bt --format=luajit --level "$level" "$c/snapshot.core" >"$tmp/actual" ||
    fail "bt of the snapshot failed"
  diff -u "$tmp/expected" "$tmp/actual" || fail "snapshot's traceback is not the oracle's"
  # The report: what analyze --all --locals prints of the full core, but
  # for the line that names the source.
  "$ljcore" analyze --all --locals "$c/core" >"$tmp/analyze.txt" || true
  diff -u <(grep -v '^core: \|^process ' "$tmp/analyze.txt") \
          <(grep -v '^core: \|^process ' "$c/report.txt") ||
    fail "report.txt differs from analyze --all --locals of the core"
  local cmd
  for cmd in "bt --all" "bt --locals" "traces"; do
    $ljcore $cmd "$c/core" >"$tmp/core.out" 2>&1 || true
    $ljcore $cmd "$c/snapshot.core" >"$tmp/snap.out" 2>&1 || true
    diff -u "$tmp/core.out" "$tmp/snap.out" || fail "$cmd: snapshot.core differs from the core"
  done
  # grep reads all of it (no -q): under pipefail, a writer cut short by
  # grep's early exit would fail the pipe.
  "$ljcore" catch --list "$crashes" | grep -F "$(basename "$c")" >/dev/null || fail "--list misses $c"
  echo "ok: $variant $name ($(stat -c %s "$c/snapshot.core") bytes of snapshot," \
       "$(stat -c %s "$c/core") of core)"
}

case_chain() {
  chain_to_cwd || skip "core_pattern '$saved_pattern' does not write cores to the cwd"
  local exe=$root/build/luajit/upstream-gc64-debug/src/luajit
  [[ -x $exe ]] || skip "$exe not built (tools/build-luajit.sh)"
  install --keep-core=always --chain
  local name=${saved_pattern:-core}
  # A process without LuaJIT: kept whole, no report, passed on.
  mkdir -p "$tmp/plain"
  ( cd "$tmp/plain" && ulimit -c unlimited && exec bash -c 'kill -SEGV $$' ) 2>/dev/null || true
  settle
  local c; c=$(only_crash)
  [[ ! -e $c/report.txt ]] || fail "a report for a process without LuaJIT"
  [[ -f $tmp/plain/$name ]] || fail "the chained handler wrote no $tmp/plain/$name"
  cmp "$c/core" "$tmp/plain/$name" || fail "the chained core differs from the kernel's"
  [[ $(stat -c %a "$tmp/plain/$name") == 600 ]] || fail "the chained core is not 0600"
  # A LuaJIT crash: reported, and passed on too.
  rm -rf "$crashes"/2*
  crash_scenario upstream-gc64-debug nested_calls "$tmp/lua"
  settle
  c=$(only_crash)
  [[ -s $c/report.txt && -f $tmp/lua/$name ]] || fail "LuaJIT crash: no report or no chained core"
  cmp "$c/core" "$tmp/lua/$name" || fail "the chained core differs from the kernel's"
  # Complete: the file holds every segment's bytes.
  local need; need=$(readelf -lW "$tmp/lua/$name" | awk '$1 == "LOAD" || $1 == "NOTE" {
    e = strtonum($2) + strtonum($5); if (e > m) m = e } END { print m }')
  (($(stat -c %s "$tmp/lua/$name") >= need)) || fail "the chained core is truncated"
  echo "ok: chained cores identical to the kernel's"
}

case_passthrough() {
  chain_to_cwd || skip "core_pattern '$saved_pattern' does not write cores to the cwd"
  install --chain
  local name=${saved_pattern:-core}
  # sleep maps no LuaJIT: no analysis, no directory, no count; its core
  # only goes on to the file handler, whole.
  mkdir -p "$tmp/plain"
  ( cd "$tmp/plain" && ulimit -c unlimited && exec sleep 30 ) &
  local pid=$!
  sleep 0.2
  kill -SEGV "$pid"
  wait "$pid" 2>/dev/null || true
  settle
  [[ -z $(ls "$crashes") ]] || fail "a process without LuaJIT left $(ls "$crashes") in $crashes"
  [[ ! -e $crashes/.catch.rate ]] || fail "a process without LuaJIT was counted: $(cat "$crashes/.catch.rate")"
  [[ -f $tmp/plain/$name ]] || fail "the chained handler wrote no $tmp/plain/$name"
  local need; need=$(readelf -lW "$tmp/plain/$name" | awk '$1 == "LOAD" || $1 == "NOTE" {
    e = strtonum($2) + strtonum($5); if (e > m) m = e } END { print m }')
  ((need > 0 && $(stat -c %s "$tmp/plain/$name") >= need)) || fail "the chained core is truncated"
  # Not grep -q: under pipefail, readelf killed by SIGPIPE would fail it.
  readelf -n "$tmp/plain/$name" | grep NT_PRSTATUS >/dev/null || fail "the chained core has no notes"
  echo "ok: sleep's core passed on whole ($(stat -c %s "$tmp/plain/$name") bytes), nothing kept"
}

case_burst() {
  local variant=$1
  local exe=$root/build/luajit/$variant/src/luajit
  [[ -x $exe ]] || skip "$exe not built (tools/build-luajit.sh)"
  # A report is about 170 KiB: the quota holds two of the five the rate
  # lets through, so the oldest must go.
  local rate=5 quota=$((400 << 10))
  install --chain --rate "$rate" --quota "$quota"
  mkdir -p "$tmp/burst"
  cp "$root/testdata/scenarios/nested_calls.lua" "$tmp/burst/"
  local start=$SECONDS i j
  # Ten at a time: more than core_pipe_limit handlers at once and the
  # kernel drops the core before any handler sees it.
  for ((i = 0; i < 10; i++)); do
    for ((j = 0; j < 10; j++)); do
      ( cd "$tmp/burst" && ulimit -c 0 && exec "$exe" nested_calls.lua ) >/dev/null 2>&1 &
    done
    wait 2>/dev/null
  done
  settle
  local took=$((SECONDS - start))
  local n; n=$(find "$crashes" -mindepth 1 -maxdepth 1 -type d -name '2*' | wc -l)
  ((n >= 1 && n < rate)) || fail "$n crash directories: the rate ($rate) or the quota failed"
  ! compgen -G "$crashes/.tmp-*" >/dev/null || fail "temporary directories left"
  local d
  for d in "$crashes"/2*/; do
    for f in report.txt report.json snapshot.core crash.txt; do
      [[ -s $d/$f ]] || fail "half-written crash: $d$f missing"
    done
  done
  local bytes; bytes=$(du -sb --exclude='.*' "$crashes" | cut -f1)
  "$ljcore" catch --list "$crashes" >"$tmp/list"
  cat "$tmp/list"
  # The handler names an executable as /proc/PID/exe does: resolved.
  grep -qF "$(readlink -f "$exe"): 100 crashes, $((100 - rate)) over the rate limit" "$tmp/list" ||
    fail "the summary does not count all 100 crashes"
  local used; used=$(du -s --block-size=1 "$crashes"/2* | awk '{ s += $1 } END { print s }')
  ((used <= quota)) || fail "$used bytes of crashes, over the quota of $quota"
  echo "ok: 100 crashes in ${took}s, $rate reported, $n kept ($used bytes)"
}

case_redact() {
  local exe=$root/build/luajit/upstream-gc64-debug/src/luajit
  [[ -x $exe ]] || skip "$exe not built (tools/build-luajit.sh)"
  install --redact --keep-core=always --chain
  mkdir -p "$tmp/redact"
  cp "$root/testdata/catch/redact.lua" "$tmp/redact/"
  ( cd "$tmp/redact" && ulimit -c 0 && exec "$exe" redact.lua ) >/dev/null 2>&1 || true
  settle
  local c; c=$(only_crash) secret=SECRET_RED_ACTED_42
  # The kept core is the whole process, secret and all: out of the crash
  # directory, to check that the test means something. A snapshot made of
  # it without --redact keeps the string in the table, the string made
  # from it that nothing shows, and LuaJIT's string buffer.
  mv "$c/core" "$tmp/core"
  "$ljcore" snapshot --all "$tmp/core" -o "$tmp/plain.core" >/dev/null || fail "snapshot of the core failed"
  local copy
  for copy in "$secret" "Bearer $secret" "user=$secret;"; do
    grep -qaF "$copy" "$tmp/plain.core" || fail "an unredacted snapshot lacks '$copy': a broken test"
  done
  local found; found=$({ grep -rc SECRET "$c" || true; } | awk -F: '{ s += $NF } END { print s }')
  ((found == 0)) || { grep -rc SECRET "$c"; fail "$found lines of the crash directory hold SECRET"; }
  grep -qF 'secret = ""... (len 19)' "$c/report.txt" || fail "report.txt: no length for the string"
  # In the snapshot, the string object holds 19 zeros: its length.
  "$ljcore" bt --locals "$c/snapshot.core" >"$tmp/snap.txt" || fail "bt of the snapshot failed"
  grep -q "redact.lua:10" "$tmp/snap.txt" || fail "the snapshot lost the stack"
  grep -qF "secret = \"$(printf '\\0%.0s' {1..19})\"" "$tmp/snap.txt" ||
    { cat "$tmp/snap.txt"; fail "the snapshot's string is not 19 zeros"; }
  echo "ok: SECRET in none of the crash directory's files, its length in the report and snapshot"
}

case_container() {
  local exe=$root/build/luajit/upstream-gc64-debug/src/luajit
  [[ -x $exe ]] || skip "$exe not built (tools/build-luajit.sh)"
  command -v unshare >/dev/null && command -v chroot >/dev/null || skip "no unshare or chroot"
  # The container: luajit at /ljcore-catch-test-luajit (no such file on the
  # host), its libraries, the scenario.
  local box=$tmp/box lib
  mkdir -p "$box"
  cp "$exe" "$box/ljcore-catch-test-luajit"
  for lib in $(ldd "$exe" | grep -o '/[^ ]*'); do
    mkdir -p "$box$(dirname "$lib")"
    cp -L "$lib" "$box$lib"
  done
  cp "$root/testdata/scenarios/nested_calls.lua" "$box/"
  install --chain
  # sh is the namespace's init, luajit its child: "; exit" keeps sh from
  # exec'ing it.
  unshare --pid --fork sh -c "cd / && ORACLE=/oracle.txt chroot '$box' \
    /ljcore-catch-test-luajit nested_calls.lua; exit 0" >/dev/null 2>&1 || true
  settle
  [[ -s $box/oracle.txt ]] || fail "no oracle written in the container"
  local c; c=$(only_crash)
  grep -qx 'namespace pid: 2' "$c/crash.txt" || fail "crash.txt: not the container's PID: $(cat "$c/crash.txt")"
  local host_pid; host_pid=$(sed -n 's/^pid: //p' "$c/crash.txt")
  [[ $host_pid != 2 ]] || fail "crash.txt: not the host's PID"
  grep -q 'lua_pcall' "$c/report.txt" || fail "report.txt: no symbols from the container's luajit"
  { tail -c +2 "$box/oracle.txt"; printf '\n'; } >"$tmp/expected"
  "$ljcore" bt --format=luajit --level 1 --sysroot "$box" "$c/snapshot.core" >"$tmp/actual" ||
    fail "bt of the snapshot failed"
  diff -u "$tmp/expected" "$tmp/actual" || fail "snapshot's traceback is not the oracle's"
  echo "ok: host pid $host_pid, container pid 2, files from the container"
}

case_nginx() {
  local redact=${1:-} nginx=/usr/sbin/nginx prefix=$tmp/nginx
  [[ -x $nginx && -f /usr/lib/nginx/modules/ngx_http_lua_module.so ]] ||
    skip "nginx or libnginx-mod-http-lua is not installed (tools/bootstrap.sh installs them)"
  command -v curl >/dev/null || skip "no curl"
  install --keep-core=always --chain ${redact:+--redact}
  mkdir -p "$prefix/tmp"
  cp "$root/testdata/nginx/nginx.conf" "$prefix/"
  (cd "$prefix" && ORACLE=$prefix/oracle.txt "$nginx" -p "$prefix/" -c nginx.conf \
     -g "user root; working_directory $prefix;") || fail "nginx did not start"
  local i
  for ((i = 0; i < 50; i++)); do [[ -S $prefix/nginx.sock ]] && break; sleep 0.1; done
  # A header the handler never reads: only nginx's header buffer holds it.
  local key=SECRET_API_KEY_$RANDOM
  curl -s -o /dev/null --max-time 10 --unix-socket "$prefix/nginx.sock" -H "Host: example.test" \
    -H "X-Api-Key: $key" "http://localhost/crash?how=abort&id=42" || true
  for ((i = 0; i < 100; i++)); do grep -q "exited on signal" "$prefix/error.log" && break; sleep 0.1; done
  kill -QUIT "$(cat "$prefix/nginx.pid")" 2>/dev/null || true
  settle
  local c; c=$(only_crash)
  { tail -c +2 "$prefix/oracle.txt"; printf '\n'; } >"$tmp/expected"
  "$ljcore" bt --format=luajit --level 1 "$c/snapshot.core" >"$tmp/actual" ||
    fail "bt of the snapshot failed"
  diff -u "$tmp/expected" "$tmp/actual" || fail "snapshot's traceback is not the oracle's"
  if [[ -n $redact ]]; then
    # As in case_redact: the kept core out of the directory, and a check
    # that an unredacted snapshot would hold the header and the URI.
    mv "$c/core" "$tmp/core"
    "$ljcore" snapshot --all "$tmp/core" -o "$tmp/plain.core" >/dev/null || fail "snapshot of the core failed"
    local text
    for text in "$key" "/crash?how=abort&id=42"; do
      grep -qaF "$text" "$tmp/plain.core" || fail "an unredacted snapshot lacks '$text': a broken test"
    done
    grep -q 'nginx request .*(22 bytes)' "$c/report.txt" ||
      { grep nginx "$c/report.txt"; fail "report.txt: no length for the URI"; }
    local found; found=$({ grep -rc -e SECRET -e 'how=abort' "$c" || true; } | awk -F: '{ s += $NF } END { print s }')
    ((found == 0)) || { grep -rc -e SECRET -e 'how=abort' "$c"; fail "the crash directory holds the request"; }
    echo "ok: nginx worker, its request's URI and headers in none of the crash directory's files"
    return
  fi
  grep -q 'nginx request .*GET /crash?how=abort&id=42' "$c/report.txt" ||
    { grep nginx "$c/report.txt"; fail "report.txt: no request"; }
  grep -q 'example.test' "$c/report.txt" || fail "report.txt: no Host"
  local cmd
  for cmd in "bt --all" "bt --locals" "traces"; do
    $ljcore $cmd "$c/core" >"$tmp/core.out" 2>&1 || true
    $ljcore $cmd "$c/snapshot.core" >"$tmp/snap.out" 2>&1 || true
    diff -u "$tmp/core.out" "$tmp/snap.out" || fail "$cmd: snapshot.core differs from the core"
  done
  echo "ok: nginx worker ($(stat -c %s "$c/snapshot.core") bytes of snapshot," \
       "$(stat -c %s "$c/core") of core)"
}

case "$case" in
  scenario) case_scenario "$@" ;;
  chain) case_chain ;;
  passthrough) case_passthrough ;;
  burst) case_burst "$@" ;;
  redact) case_redact ;;
  container) case_container ;;
  nginx) case_nginx "$@" ;;
  *) echo "usage: $0 LJCORE ROOT scenario|chain|passthrough|redact|container|nginx [redact]|burst ..." >&2; exit 2 ;;
esac
