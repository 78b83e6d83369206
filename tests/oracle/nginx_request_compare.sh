#!/usr/bin/env bash
# The nginx request ljcore reads from a worker core equals what the crashing
# handler's ngx.var saw (oracle.<kind>.request.txt by tools/make-nginx-core.sh):
# method, URI with args, Host header and client address, in text and JSON.
# Usage: nginx_request_compare.sh LJCORE CORE REQUEST_ORACLE
set -euo pipefail
ljcore=$1 core=$2 oracle=$3
[[ -f $core && -f $oracle ]] || { echo "skip: no nginx core or request oracle (tools/make-nginx-core.sh)"; exit 77; }

declare -A want
while read -r name value; do want[$name]=$value; done <"$oracle"

json=$("$ljcore" analyze --json "$core")
got() { jq -r ".vms[0].requests[0].$1 // \"<none>\"" <<<"$json"; }
status=0
check() { # FIELD ORACLE-NAME
  local g; g=$(got "$1")
  if [[ $g != "${want[$2]}" ]]; then echo "FAIL $1: ljcore '$g', ngx.var.$2 '${want[$2]}'"; status=1; fi
}
check method request_method
check uri request_uri
check host http_host
check client remote_addr
[[ $(got found_by) == "L->exdata" ]] || { echo "FAIL found_by: $(got found_by)"; status=1; }

want_line="${want[request_method]} ${want[request_uri]}, Host: ${want[http_host]}, client: ${want[remote_addr]}"
"$ljcore" analyze "$core" | grep -F "$want_line" >/dev/null || { echo "FAIL text: no line with '$want_line'"; status=1; }
[[ $status == 0 ]] && echo "ok: $want_line"
exit $status
