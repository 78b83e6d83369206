#!/usr/bin/env bash
# diff.sh LJCORE RENDER_FOLDED FOLDED: ljcore profile --diff without a process.
# FOLDED against its own pprof rendering (render_folded) changes nothing: the pprof
# reader gives back the folded stacks. FOLDED against a copy whose parse_line stacks
# weigh five times as much lists parse_line first, grown, in the table, and draws it
# red in the differential flame graph.
set -euo pipefail
ljcore=$1 render=$2 folded=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$render" "$folded" "$out"
"$ljcore" profile --diff "$folded" "$out/profile.pb.gz" >"$out/same"
if [ "$(wc -l <"$out/same")" != 2 ]; then
	echo "FAIL: a profile differs from its own pprof rendering:" >&2
	cat "$out/same" >&2
	exit 1
fi
awk '{ n = $NF; if ($0 ~ /;parse_line [^;]*$/) n *= 5;
	print substr($0, 1, length($0) - length($NF)) n }' "$folded" >"$out/after.folded"
"$ljcore" profile --diff "$folded" "$out/after.folded" >"$out/table"
first=$(sed -n 3p "$out/table")
if ! grep -Eq '^ *\+[0-9.]+% .* parse_line [^ ]+\.lua$' <<<"$first"; then
	echo "FAIL: parse_line is not first, grown:" >&2
	cat "$out/table" >&2
	exit 1
fi
"$ljcore" profile --diff "$folded" "$out/after.folded" --format svg -o "$out/diff.svg"
grep -q '<title>parse_line [^<]*+[0-9.]*%)</title><rect [^>]*fill="rgb(255,' "$out/diff.svg" ||
	{ echo "FAIL: parse_line is not drawn red" >&2; exit 1; }
if command -v xmllint >/dev/null; then xmllint --noout "$out/diff.svg"; fi
"$ljcore" profile --diff "$folded" "$out/after.folded" --format folded >"$out/diff.folded"
[ "$(wc -l <"$out/diff.folded")" = "$(sort -u "$folded" | wc -l)" ] ||
	{ echo "FAIL: the folded diff has not a line per stack" >&2; exit 1; }
echo "$first"
