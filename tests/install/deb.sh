#!/usr/bin/env bash
# The Debian package tools/package.sh builds installs with apt-get, and the
# installed /usr/bin/ljcore analyzes the bundled example as the build does;
# then the package is removed again. Needs root and apt-get (it changes the
# machine), and no ljcore installed otherwise.
# Usage: tests/install/deb.sh LJCORE EXAMPLE-DIR
set -euo pipefail
ljcore=$1 example=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

((EUID == 0)) || { echo "skip: installing a package needs root"; exit 77; }
command -v apt-get >/dev/null || { echo "skip: no apt-get"; exit 77; }
command -v dpkg-shlibdeps >/dev/null || { echo "skip: no dpkg-shlibdeps (dpkg-dev)"; exit 77; }
if dpkg-query -W -f='${Status}' ljcore 2>/dev/null | grep -q 'ok installed'; then
  echo "skip: a ljcore package is installed already; not replacing it"
  exit 77
fi
[[ -e /usr/bin/ljcore ]] && { echo "skip: /usr/bin/ljcore exists, not from a package"; exit 77; }

deb=$("$root/tools/package.sh")
echo "package: $deb"
dpkg-deb -f "$deb" Depends
tmp=$(mktemp -d)
trap 'DEBIAN_FRONTEND=noninteractive apt-get remove -y ljcore >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" >"$tmp/apt.log" 2>&1 ||
  { cat "$tmp/apt.log"; echo "FAIL: apt-get install $deb"; exit 1; }

failed=0
for f in /usr/bin/ljcore /usr/share/man/man1/ljcore.1 /usr/share/bash-completion/completions/ljcore \
         /usr/share/zsh/vendor-completions/_ljcore; do
  [[ -e $f ]] && echo "ok: $f" || { echo "FAIL: $f not installed"; failed=1; }
done
for args in "analyze" "bt --format=luajit" "analyze --json"; do
  s1=0 s2=0
  /usr/bin/ljcore $args --exe "$example/luajit" "$example/core.zst" >"$tmp/installed" 2>&1 || s1=$?
  "$ljcore" $args --exe "$example/luajit" "$example/core.zst" >"$tmp/built" 2>&1 || s2=$?
  if [[ $s1 == "$s2" ]] && cmp -s "$tmp/installed" "$tmp/built"; then
    echo "ok: ljcore $args (exit $s1)"
  else
    echo "FAIL: installed ljcore $args differs from the build's (exit $s1 vs $s2)"
    diff -u "$tmp/built" "$tmp/installed" | head -20
    failed=1
  fi
done
DEBIAN_FRONTEND=noninteractive apt-get remove -y ljcore >/dev/null 2>&1
[[ -e /usr/bin/ljcore ]] && { echo "FAIL: apt-get remove left /usr/bin/ljcore"; failed=1; }
exit $failed
