#!/usr/bin/env bash
# validate.sh FORMAT FILE [FOLDED]: checks one output of `ljcore profile`
# with the tool that reads its format.
#   folded      every line is "frame;...;frame count"
#   svg         xmllint accepts it; it has frames with tooltips and its script
#   pprof       gzip, and protoc decodes it as cli/pprof.proto's Profile
#   speedscope  the file format schema's required fields, frame indices in range
#   top         the table and the outcome summary; with FOLDED, its root
#               function's total equals the sum of FOLDED's counts
# Exit 77 with "skip: ..." where a validator is not installed.
set -euo pipefail
format=$1 file=$2 folded=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "validate $format: $file: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || { echo "skip: $1 is not installed"; exit 77; }; }

case $format in
folded)
	grep -qvE '^[^;]+(;[^;]+)* [0-9]+$' "$file" && fail "a line is not 'frames count'"
	[[ -s $file ]] || fail "empty"
	;;
svg)
	need xmllint
	xmllint --noout "$file" || fail "xmllint refuses it"
	grep -q '<script' "$file" || fail "no script"
	grep -qE '<g data-x="[0-9]+" data-n="[0-9]+" data-d="0"><title>all \([0-9]+ ' "$file" ||
		fail "no root frame with its tooltip"
	;;
pprof)
	need protoc
	need gzip
	gzip -t "$file" || fail "not gzip"
	decoded=$(gzip -dc "$file" | protoc --proto_path="$root" \
		--decode=ljcore.pprof.Profile cli/pprof.proto) || fail "protoc cannot decode it"
	for field in sample_type sample location function string_table; do
		grep -q "^$field {\|^$field:" <<<"$decoded" || fail "no $field"
	done
	;;
speedscope)
	need python3
	python3 - "$file" <<'PY' || fail "not a speedscope file"
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
# The required fields of https://www.speedscope.app/file-format-schema.json:
# File: $schema, shared.frames, profiles; Frame: name; SampledProfile: type,
# name, unit, startValue, endValue, samples, weights.
assert doc["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = doc["shared"]["frames"]
assert isinstance(frames, list)
for f in frames:
    assert isinstance(f["name"], str), f
    assert isinstance(f.get("file", ""), str) and isinstance(f.get("line", 0), int), f
profiles = doc["profiles"]
assert isinstance(profiles, list) and profiles
for p in profiles:
    assert p["type"] == "sampled", p["type"]
    assert isinstance(p["name"], str)
    assert p["unit"] in ("none", "nanoseconds", "microseconds", "milliseconds",
                         "seconds", "bytes"), p["unit"]
    assert isinstance(p["startValue"], (int, float)) and isinstance(p["endValue"], (int, float))
    assert len(p["samples"]) == len(p["weights"])
    for stack in p["samples"]:
        assert all(isinstance(i, int) and 0 <= i < len(frames) for i in stack), stack
    assert p["endValue"] - p["startValue"] == sum(p["weights"])
if "activeProfileIndex" in doc:
    assert 0 <= doc["activeProfileIndex"] < len(profiles)
PY
	;;
top)
	head -1 "$file" | grep -qE '^ +self +self% +total +total% +function$' || fail "no table header"
	grep -qE '^[0-9]+ samples:$' "$file" || fail "no outcome summary"
	if [[ -n $folded ]]; then
		sum=$(awk '{ n += $NF } END { print n + 0 }' "$folded")
		taken=$(grep -E '^[0-9]+ samples:$' "$file" | cut -d' ' -f1)
		[[ $sum == "$taken" ]] || fail "$taken samples taken, the folded stacks add up to $sum"
		# Each function's self and total as the folded stacks count them
		# (total once per stack, however often the function recurses in it).
		python3 - "$file" "$folded" <<'PY' || fail "self or total differs from $folded"
import sys
from collections import Counter
want_self, want_total = Counter(), Counter()
for line in open(sys.argv[2], encoding="utf-8", errors="surrogateescape"):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    want_self[frames[-1]] += int(count)
    for f in set(frames):
        want_total[f] += int(count)
got = {}
for line in open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\n\n")[0].splitlines()[1:]:
    self, _, total, _, label = line.split(None, 4)
    got[label] = (int(self), int(total))
want = {f: (want_self[f], want_total[f]) for f in want_total}
for f in set(got) | set(want):
    assert got.get(f) == want.get(f), (f, got.get(f), want.get(f))
PY
	fi
	;;
*)
	fail "unknown format (folded, svg, pprof, speedscope, top)"
	;;
esac
echo "ok: $format $file"
