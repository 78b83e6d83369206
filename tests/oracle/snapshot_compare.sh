#!/usr/bin/env bash
# Checks `ljcore snapshot` of a core: the minimized core must
#   - be at most 2 MiB or 1% of the original, whichever is larger;
#   - give the same `analyze --json` and `traces --json` as the original, and
#     made with --all, the same `analyze --all --json`;
#   - still be a core other tools read: eu-stack and gdb show the same native
#     stacks on it as on the original (gdb only for cores of this machine's
#     architecture: Debian's gdb reads no other).
# Usage: tests/oracle/snapshot_compare.sh LJCORE CORE EXE
# Exit: 0 ok, 1 mismatch, 2 usage, 77 skip.
set -euo pipefail

if (($# != 3)); then
  echo "usage: $0 LJCORE CORE EXE" >&2
  exit 2
fi
ljcore=$1 core=$2 exe=$3

source "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
require_inputs tools/make-cores.sh "$core" "$exe"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
snap=$tmp/snap.core
files=(--exe "$exe")
add_sysroot files
status=0

"$ljcore" snapshot "${files[@]}" "$core" -o "$snap"
"$ljcore" snapshot --all "${files[@]}" "$core" -o "$snap.all" >/dev/null
core_bytes=$(stat -c %s "$core")
snap_bytes=$(stat -c %s "$snap")
limit=$((core_bytes / 100))
((limit < 2 << 20)) && limit=$((2 << 20))
if ((snap_bytes > limit)); then
  echo "FAIL: snapshot is $snap_bytes bytes, over the $limit allowed for a $core_bytes-byte core"
  status=1
fi

# The same JSON but for the path of the core it was read from.
same_json() { # NAME SNAPSHOT ARGS...
  local name=$1 snapshot=$2 rc_core=0 rc_snap=0
  shift 2
  "$ljcore" "$@" "${files[@]}" "$core" >"$tmp/$name.core.json" 2>/dev/null || rc_core=$?
  "$ljcore" "$@" "${files[@]}" "$snapshot" >"$tmp/$name.snap.json" 2>/dev/null || rc_snap=$?
  if ((rc_core != rc_snap)); then
    echo "FAIL: $name: exit $rc_core on the core, $rc_snap on the snapshot"
    status=1
  fi
  if ! python3 - "$tmp/$name.core.json" "$tmp/$name.snap.json" <<'EOF'; then
import json, sys
a, b = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:])
for j in (a, b):
    j.pop("source", None)
sys.exit(0 if a == b else 1)
EOF
    echo "FAIL: $name differs on the snapshot:"
    diff <(python3 -m json.tool "$tmp/$name.core.json") \
         <(python3 -m json.tool "$tmp/$name.snap.json") | sed -n 1,40p
    status=1
  fi
}
same_json analyze "$snap" analyze --json
same_json traces "$snap" traces --json
same_json analyze-all "$snap.all" analyze --all --json

# The stack lines a tool prints for a core ("#N ..."), which must not be empty.
same_stacks() { # TOOL COMMAND... (CORE is appended)
  local tool=$1
  shift
  "$@" "$core" 2>/dev/null | grep '^#' >"$tmp/$tool.core.txt" || true
  "$@" "$snap" 2>/dev/null | grep '^#' >"$tmp/$tool.snap.txt" || true
  if [[ ! -s $tmp/$tool.core.txt ]]; then
    echo "FAIL: $tool shows no stack on the original core"
    status=1
  elif ! diff "$tmp/$tool.core.txt" "$tmp/$tool.snap.txt" >"$tmp/$tool.diff"; then
    echo "FAIL: $tool shows other stacks on the snapshot:"
    sed -n 1,40p "$tmp/$tool.diff"
    status=1
  else
    echo "$tool: $(wc -l <"$tmp/$tool.core.txt") frames alike"
  fi
}
if command -v eu-stack >/dev/null; then
  same_stacks eu-stack eu-stack -e "$exe" --core
else
  echo "skip eu-stack part: eu-stack not installed (elfutils)"
fi
core_arch=$(file -b "$core" | cut -d, -f2)
if ! command -v gdb >/dev/null; then
  echo "skip gdb part: gdb not installed"
elif [[ $core_arch != *"$(uname -m | tr _ -)"* ]]; then
  echo "skip gdb part: a core of another architecture ($core_arch)"
else
  same_stacks gdb gdb -batch -nx -ex 'thread apply all bt' "$exe"
fi

((status == 0)) && echo "ok: snapshot of $snap_bytes bytes ($core_bytes in the core)"
exit $status
