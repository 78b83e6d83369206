#!/usr/bin/env bash
# `cmake --install` puts the command, its LLVM disassembler modules, its
# man page and its bash and zsh completion in place, and the installed
# command runs: it reads machine code with its module, and a copy of it
# alone, with the shared libLLVM, says the same.
# Usage: tests/install/cmake_install.sh BUILD-DIR
set -euo pipefail
build=$1
example=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../testdata/example" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp" >/dev/null
failed=0
for f in bin/ljcore share/man/man1/ljcore.1 share/bash-completion/completions/ljcore \
         share/zsh/vendor-completions/_ljcore; do
  [[ -s $tmp/$f ]] && echo "ok: $f" || { echo "FAIL: $f not installed"; failed=1; }
done
"$tmp/bin/ljcore" --version | grep -q '^ljcore ' || { echo "FAIL: installed ljcore --version"; failed=1; }
# Machine code through the module beside the installed ljcore; a copy of
# ljcore alone, or beside a module that is no ELF file, falls back to the
# shared libLLVM, with the same result.
module=$(find "$tmp" -name ljcore-mc-x86_64.so)
[[ -n $module ]] && echo "ok: ${module#"$tmp"/}" || { echo "FAIL: ljcore-mc-x86_64.so not installed"; failed=1; }
# (Not beside bin/: ../lib/ljcore would be the installed one.)
mkdir -p "$tmp/away/copy" "$tmp/away/bad"
cp "$tmp/bin/ljcore" "$tmp/away/copy/ljcore"
cp "$tmp/bin/ljcore" "$tmp/away/bad/ljcore"
echo 'not a module' >"$tmp/away/bad/ljcore-mc-x86_64.so"
declare -A dir=([bin]=bin [copy]=away/copy [bad]=away/bad)
for run in bin copy bad; do
  LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/$run.ld" "$tmp/${dir[$run]}/ljcore" layout "$example/luajit" \
    >"$tmp/$run.out" 2>&1 || true
  grep -ho 'file=[^ ]*ljcore-mc-x86_64.so\|file=libLLVM[^ ]*' "$tmp/$run.ld".* | sort -u >"$tmp/$run.loaded"
done
if [[ $(cat "$tmp/bin.loaded") == "file=$module" ]]; then
  echo "ok: installed ljcore loads its module"
else
  echo "FAIL: installed ljcore loaded: $(cat "$tmp/bin.loaded")"; failed=1
fi
for run in copy bad; do
  if grep -q '^file=libLLVM' "$tmp/$run.loaded"; then
    echo "ok: ljcore $run loads the shared libLLVM"
  else
    echo "FAIL: ljcore $run loaded: $(cat "$tmp/$run.loaded")"; failed=1
  fi
  if grep -q '^L_glref ' "$tmp/bin.out" && cmp -s "$tmp/bin.out" "$tmp/$run.out"; then
    echo "ok: layout derived alike through the module and by ljcore $run"
  else
    echo "FAIL: layout through the module and by ljcore $run differ:"
    diff "$tmp/bin.out" "$tmp/$run.out" | head -20; failed=1
  fi
done
# The completion loads and offers the commands.
out=$(bash -c 'source "$1"; COMP_WORDS=(ljcore an); COMP_CWORD=1; _ljcore; echo "${COMPREPLY[*]}"' \
  _ "$tmp/share/bash-completion/completions/ljcore")
[[ $out == analyze ]] && echo "ok: bash completion" || { echo "FAIL: bash completion gave '$out'"; failed=1; }
exit $failed
