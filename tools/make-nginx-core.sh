#!/usr/bin/env bash
# Crashes a real nginx worker (Debian's nginx + libnginx-mod-http-lua, the
# LuaJIT inside is Debian's libluajit2 as shipped) inside a content_by_lua
# handler, and keeps the worker's core with LuaJIT's own traceback of the
# crashing frame, like tools/make-cores.sh does for the luajit scenarios.
# Output: build/cores/nginx/content_by_lua/
#   core.kernel, oracle.kernel.txt   worker core dumped by the kernel
#   core.gcore,  oracle.gcore.txt    worker core written by gdb's gcore at the signal
#   oracle.<kind>.request.txt        the request as ngx.var saw it ("name value" lines)
#   exe                              symlink to /usr/sbin/nginx
#   skip-reason                      written instead when a kind cannot be made here
# Cached: outputs newer than testdata/nginx/nginx.conf are kept.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
conf=$root/testdata/nginx/nginx.conf
dir=$root/build/cores/nginx/content_by_lua
nginx=/usr/sbin/nginx
mkdir -p "$dir"
cd "$dir"
rm -f skip-reason

skip() { echo "nginx: $*" | tee -a skip-reason; }

if [[ ! -x $nginx || ! -f /usr/lib/nginx/modules/ngx_http_lua_module.so ]]; then
  skip "skipped: nginx or libnginx-mod-http-lua is not installed (tools/bootstrap.sh installs them)"
  exit 0
fi
ln -sfn "$nginx" exe

# Starts nginx with its prefix in $prefix, prints the worker's pid.
start_nginx() {
  prefix=$1
  rm -rf "$prefix" && mkdir -p "$prefix/tmp"
  cp "$conf" "$prefix/nginx.conf"
  # Run from the prefix: the relative unix socket path resolves there.
  # "user root" keeps the worker able to write its core into the prefix.
  (cd "$prefix" && ORACLE=$prefix/oracle.txt "$nginx" -p "$prefix/" -c nginx.conf \
     -g "user root; working_directory $prefix;")
  local i
  for i in $(seq 50); do
    [[ -S $prefix/nginx.sock ]] && worker_pid >/dev/null && return 0
    sleep 0.1
  done
  echo "nginx did not start; see $prefix/error.log" >&2
  cat "$prefix/error.log" >&2
  return 1
}
worker_pid() { pgrep -P "$(cat "$prefix/nginx.pid")" | head -1; }
stop_nginx() { [[ -f $prefix/nginx.pid ]] && kill -QUIT "$(cat "$prefix/nginx.pid")" 2>/dev/null || true; }
request() { curl -s -o /dev/null --max-time 10 --unix-socket "$prefix/nginx.sock" -H "Host: example.test" "http://localhost/crash?how=abort&id=42" || true; }
fresh() { local f; for f; do [[ -s $f && $f -nt $conf ]] || return 1; done; }

make_kernel() {
  if fresh core.kernel oracle.kernel.txt; then echo "nginx: kernel cached"; return 0; fi
  local pattern; pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo '?')
  if [[ $pattern == '|'* || $pattern == */* ]]; then
    skip "kernel skipped: core_pattern '$pattern' does not leave a core in the worker's cwd"
    return 0
  fi
  ulimit -c unlimited 2>/dev/null || true
  start_nginx "$dir/run.kernel"
  trap stop_nginx RETURN
  local pid; pid=$(worker_pid)
  request
  local i; for i in $(seq 100); do [[ -f $prefix/core || -f $prefix/core.$pid ]] && break; sleep 0.1; done
  local c; for c in "$prefix/core" "$prefix/core.$pid"; do [[ -f $c ]] && break; done
  if [[ ! -f $c ]]; then
    skip "kernel skipped: the worker wrote no core (core_pattern '$pattern'); see $prefix/error.log"
    return 0
  fi
  # The kernel may still be writing: wait until the master has reaped the worker.
  for i in $(seq 100); do grep -q "exited on signal" "$prefix/error.log" && break; sleep 0.1; done
  mv "$c" core.kernel && mv "$prefix/oracle.txt" oracle.kernel.txt
  mv "$prefix/oracle.txt.request" oracle.kernel.request.txt
  echo "nginx: kernel ok ($(du -h --apparent-size core.kernel | cut -f1))"
}

make_gcore() {
  if fresh core.gcore oracle.gcore.txt; then echo "nginx: gcore cached"; return 0; fi
  command -v gdb >/dev/null || { skip "gcore skipped: gdb not installed"; return 0; }
  start_nginx "$dir/run.gcore"
  trap stop_nginx RETURN
  local pid; pid=$(worker_pid)
  # gdb attaches to the idle worker, lets it run into the request's abort(),
  # and dumps it at the signal.
  DEBUGINFOD_URLS='' timeout -k 5 120 gdb -batch -nx -iex 'set debuginfod enabled off' \
    -p "$pid" -ex continue -ex "gcore $dir/core.gcore" -ex kill >"$dir/run.gcore.log" 2>&1 &
  local gdb_pid=$!
  local i; for i in $(seq 100); do grep -q '^Continuing' "$dir/run.gcore.log" && break; sleep 0.1; done
  request
  wait "$gdb_pid" || true
  if ! grep -q 'received signal SIG' run.gcore.log || [[ ! -s core.gcore ]]; then
    echo "nginx: gcore failed; see $dir/run.gcore.log" >&2
    return 1
  fi
  mv "$prefix/oracle.txt" oracle.gcore.txt
  mv "$prefix/oracle.txt.request" oracle.gcore.request.txt
  echo "nginx: gcore ok ($(du -h --apparent-size core.gcore | cut -f1))"
}

(make_kernel)
(make_gcore)
