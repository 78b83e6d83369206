#!/usr/bin/env bash
# check.sh RENDER_FOLDED FOLDED: renders FOLDED in every format and
# validates each output (validate.sh); the folded output must be FOLDED's
# stacks again, summed.
set -euo pipefail
render=$1 folded=$2
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$render" "$folded" "$out"
skipped=0
run() {
	local rc=0
	"$here/validate.sh" "$@" || rc=$?
	((rc == 77)) && skipped=1 && return 0
	return $rc
}
run folded "$out/profile.folded"
diff <(awk '{ n[substr($0, 1, length($0) - length($NF) - 1)] += $NF }
	END { for (s in n) print s, n[s] }' "$folded" | LC_ALL=C sort) \
	<(LC_ALL=C sort "$out/profile.folded") || { echo "folded output differs from $folded" >&2; exit 1; }
run svg "$out/profile.svg"
run pprof "$out/profile.pb.gz"
run speedscope "$out/profile.speedscope.json"
run top "$out/profile.top.txt" "$folded"
((skipped)) && { echo "skip: a validator is not installed"; exit 77; }
echo "all formats of $folded valid"
