#!/usr/bin/env bash
# What JSON costs next to text: `bt --all --json` against `bt --all` on a core
# with COROUTINES suspended coroutines (default 100 000; coroutines.lua), and
# `gc --json` against `gc` on the 6 M-object core of gc.sh: wall time
# (hyperfine median) and peak RSS (GNU time). JSON is streamed, so both
# should stay within 2x of text. Needs hyperfine and GNU time.
# Usage: [LJCORE=BINARY] tools/bench/json.sh [COROUTINES]  (results: build/bench/json.txt)
set -euo pipefail

coroutines=${1:-100000}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

crash_into "coroutines-$coroutines.core" coroutines.log coroutines.lua COROUTINES="$coroutines"
crash_into gc-6000000.core gc-fill.log gc_heap.lua OBJECTS=6000000

# compare NAME COMMAND...: the command as text and with --json, median wall
# time of 5 runs and peak RSS of one.
compare() {
  local name=$1 text json
  shift
  text="$*" json="$* --json"
  hyperfine -N --warmup 1 --runs 5 --export-json "json-$name.json" "$text" "$json" >/dev/null
  python3 - "json-$name.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("median %8.1f ms  %s" % (r["median"] * 1000, r["command"]))
PY
  for cmd in "$text" "$json"; do
    /usr/bin/time -v $cmd >/dev/null 2>json-time.log
    printf 'max RSS %8s kB  %s\n' "$(awk -F': ' '/Maximum resident/ {print $2}' json-time.log)" \
      "$cmd"
  done
}
{
  echo "ljcore: $ljcore"
  compare bt "$ljcore" bt --all "coroutines-$coroutines.core"
  compare gc "$ljcore" gc gc-6000000.core
} | tee json.txt
