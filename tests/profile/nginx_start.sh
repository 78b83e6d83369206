# Sourced by the nginx profile tests (nginx_*.sh). start_nginx CONF WORKERS
# starts Debian's nginx (with libnginx-mod-http-lua) on testdata/nginx/CONF
# under a new prefix and waits for its socket and WORKERS workers; it skips
# the test (exit 77) where nginx, the module or curl is missing. It sets
# prefix and master. On exit nginx is stopped, the pids in background (the
# caller's request loops) are killed and the prefix is removed.
background=()

stop_nginx() {
  local pid
  pid=$(cat "$prefix/nginx.pid" 2>/dev/null || true)
  [[ -n $pid ]] && kill -QUIT "$pid" 2>/dev/null || true
  ((${#background[@]})) && kill "${background[@]}" 2>/dev/null || true
  # Gone before its prefix is: a worker still finishing a request would
  # write into it, and take a CPU from the next test.
  for _ in $(seq 100); do
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  rm -rf "$prefix"
}

start_nginx() { # CONF WORKERS
  local conf=$1 workers=$2 nginx=/usr/sbin/nginx
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  if [[ ! -x $nginx || ! -f /usr/lib/nginx/modules/ngx_http_lua_module.so ]]; then
    echo "skip: nginx or libnginx-mod-http-lua is not installed (tools/bootstrap.sh installs them)"
    exit 77
  fi
  command -v curl >/dev/null || { echo "skip: curl is not installed"; exit 77; }
  prefix=$(mktemp -d "/tmp/ljcore-${conf%.conf}.XXXXXX")
  trap stop_nginx EXIT
  mkdir -p "$prefix/tmp"
  cp "$root/testdata/nginx/$conf" "$prefix/nginx.conf"
  (cd "$prefix" && "$nginx" -p "$prefix/" -c nginx.conf -g "user root;")
  # Up to 30 s: on a loaded CI machine the workers may take seconds to
  # appear, and a test that started without them would fail for that.
  local up=0
  for _ in $(seq 300); do
    master=$(cat "$prefix/nginx.pid" 2>/dev/null || echo 0)
    if [[ -S $prefix/nginx.sock ]] && (($(pgrep -c -P "$master" || true) >= workers)); then
      up=1
      break
    fi
    sleep 0.1
  done
  if ((!up)); then
    echo "FAIL: nginx did not start $workers workers and its socket in 30 s:"
    cat "$prefix/error.log" 2>/dev/null || true
    exit 1
  fi
}

# request_loop URL...: asks for the URLs on one connection, again and again
# until $prefix/stop appears, counting answers equal to $want and the
# others; writes "GOOD BAD" to $prefix/responses.<its pid>. Run it in the
# background and put its pid in background, for profile_under_load.
request_loop() {
  local good=0 bad=0 body
  while [[ ! -f $prefix/stop ]]; do
    body=$(curl -s --max-time 10 --unix-socket "$prefix/nginx.sock" "$@" || true)
    if [[ $body == "$want" ]]; then good=$((good + 1)); else bad=$((bad + 1)); fi
  done
  echo "$good $bad" >"$prefix/responses.$BASHPID"
}

# profile_under_load OUT ARGS...: `ljcore profile --pid $master ARGS` into OUT
# while the caller's request loops (the pids in background) run, then stops
# them: each watches $prefix/stop and writes "GOOD BAD" answers to
# $prefix/responses.<its pid>. Shows the summary and skips (exit 77) where
# the kernel refuses to sample; sets status (ljcore's exit), good and bad.
profile_under_load() {
  local out=$1
  shift
  status=0
  "$ljcore" profile --pid "$master" "$@" >"$out" 2>"$prefix/summary" || status=$?
  touch "$prefix/stop"
  wait "${background[@]}" || true
  background=()
  cat "$prefix/summary"
  if ((status == 4)); then
    echo "skip: the kernel refuses to sample here: $(head -1 "$prefix/summary")"
    exit 77
  fi
  read -r good bad < <(cat "$prefix"/responses.* | awk '{g += $1; b += $2} END {print g, b}')
  echo "responses while profiled: $good right, $bad wrong"
}
