#!/bin/bash
# ljcore profile --diff of two real profiles of testdata/profile/diff_change.lua, before
# and after its function grow takes three times the work: the table lists grow first (and
# grown), read from folded stacks and from pprof, and the differential
# flame graph is an SVG that xmllint reads, with grow drawn red.
# Usage: diff.sh LJCORE LUAJIT [SECONDS]. Exit 77 (skip) where the kernel refuses to sample.
set -u
ljcore=$1 luajit=$2 seconds=${3:-1.5}
script=$(dirname "$0")/../../testdata/profile/diff_change.lua
[ -x "$luajit" ] || { echo "skip: $luajit not built (tools/build-luajit.sh)"; exit 77; }
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT

profile() { # NAME CHANGED FORMAT...: a profile of the script in each format
	local name=$1 changed=$2 format rc
	shift 2
	CHANGED=$changed "$luajit" "$script" &
	pids+=($!)
	sleep 1 # past start-up
	for format; do
		"$ljcore" profile --pid $! --rate 499 --duration "$seconds" --format "$format" \
			-o "$tmp/$name.$format" 2>"$tmp/$name.err"
		rc=$?
		if [ $rc = 4 ]; then
			echo "skip: the kernel refuses to sample: $(head -1 "$tmp/$name.err")"
			exit 77
		fi
		[ $rc -le 1 ] || { echo "FAIL: profile exited $rc: $(cat "$tmp/$name.err")"; exit 1; }
	done
	kill $!
}
profile before 0 folded
profile after 1 folded pprof

fail=0
for a in after.folded after.pprof; do
	"$ljcore" profile --diff "$tmp/before.folded" "$tmp/$a" >"$tmp/table" ||
		{ echo "FAIL: --diff before.folded $a exited $?"; fail=1; continue; }
	# The header, the column names, then the biggest change.
	first=$(sed -n 3p "$tmp/table")
	echo "before.folded -> $a: $first"
	if ! grep -Eq '^ *\+[0-9.]+% .* grow [^ ]*diff_change\.lua$' <<<"$first"; then
		echo "FAIL: grow is not first, grown:"
		cat "$tmp/table"
		fail=1
	fi
done
"$ljcore" profile --diff "$tmp/before.folded" "$tmp/after.folded" --format svg -o "$tmp/d.svg" ||
	fail=1
if command -v xmllint >/dev/null; then
	xmllint --noout "$tmp/d.svg" || { echo "FAIL: the differential SVG is not XML"; fail=1; }
fi
# grow's frame, grown: a red fill (255, less, less).
grep -q '<title>grow [^<]*+[0-9.]*%)</title><rect [^>]*fill="rgb(255,' "$tmp/d.svg" ||
	{ echo "FAIL: grow is not drawn red"; fail=1; }
exit $fail
