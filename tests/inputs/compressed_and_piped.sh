#!/usr/bin/env bash
# The inputs systemd-coredump leaves: a core compressed with xz or lz4 (told
# by its magic, so the copies here have no suffix) and a core piped into
# standard input (`coredumpctl dump PID | ljcore analyze -`) each give the
# same analysis as the plain core, made from the bundled example at test time.
# Usage: tests/inputs/compressed_and_piped.sh LJCORE CORE.zst EXE
set -euo pipefail

if (($# != 3)); then
  echo "usage: $0 LJCORE CORE.zst EXE" >&2
  exit 2
fi
ljcore=$1 zcore=$2 exe=$3
for tool in zstd xz lz4; do
  command -v "$tool" >/dev/null || { echo "skip: $tool is not installed"; exit 77; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zstd -q -d -c "$zcore" >"$tmp/core"
xz -T1 -c "$tmp/core" >"$tmp/xz-core"
lz4 -q -c "$tmp/core" >"$tmp/lz4-core"

# analyze ARGS...: the JSON without `source` (the one field that names the
# input), then the exit status.
analyze() {
  local status=0
  "$ljcore" analyze --json --exe "$exe" "$@" >"$tmp/out.json" || status=$?
  grep -v '^  "source": ' "$tmp/out.json"
  echo "exit status $status"
}

analyze "$tmp/core" >"$tmp/plain"
grep -q '"vms": \[$' "$tmp/plain" || { echo "FAIL: no VM in the plain core's analysis"; exit 1; }
failed=0
same() { # WHAT, the analysis on stdin
  if diff -u "$tmp/plain" - >"$tmp/diff"; then
    echo "ok: $1"
  else
    echo "FAIL: $1 differs from the plain core:"
    head -40 "$tmp/diff"
    failed=1
  fi
}
analyze "$tmp/xz-core" | same "xz file"
analyze "$tmp/lz4-core" | same "lz4 file"
analyze - <"$tmp/lz4-core" | same "lz4 file on standard input"
cat "$tmp/core" | analyze - | same "plain core through a pipe"
cat "$tmp/xz-core" | analyze - | same "xz core through a pipe"
cat "$zcore" | analyze - | same "zstd core through a pipe"

# The piped core is named as the input it came from.
cat "$tmp/xz-core" | "$ljcore" analyze --json --exe "$exe" - >"$tmp/piped.json" || true
grep -q '^  "source": "-",$' "$tmp/piped.json" ||
  { echo "FAIL: a piped core's source is not \"-\""; failed=1; }
exit $failed
