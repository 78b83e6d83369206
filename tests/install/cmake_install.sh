#!/usr/bin/env bash
# `cmake --install` puts the command, its man page and its bash and zsh
# completion in place, and the installed command runs.
# Usage: tests/install/cmake_install.sh BUILD-DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp" >/dev/null
failed=0
for f in bin/ljcore share/man/man1/ljcore.1 share/bash-completion/completions/ljcore \
         share/zsh/vendor-completions/_ljcore; do
  [[ -s $tmp/$f ]] && echo "ok: $f" || { echo "FAIL: $f not installed"; failed=1; }
done
"$tmp/bin/ljcore" --version | grep -q '^ljcore ' || { echo "FAIL: installed ljcore --version"; failed=1; }
# The completion loads and offers the commands.
out=$(bash -c 'source "$1"; COMP_WORDS=(ljcore an); COMP_CWORD=1; _ljcore; echo "${COMPREPLY[*]}"' \
  _ "$tmp/share/bash-completion/completions/ljcore")
[[ $out == analyze ]] && echo "ok: bash completion" || { echo "FAIL: bash completion gave '$out'"; failed=1; }
exit $failed
