#!/usr/bin/env bash
# Regenerates the regression fixtures in testdata/fixtures/ from the cores
# tools/make-cores.sh made: one fixture per variant x scenario (kernel core),
# a minimized zstd core plus the expected analysis. Commit a regenerated set
# only with a reason: each changed expected.json is a change of output.
# Usage: tools/make-fixtures.sh [--missing] [VARIANT...]
#   --missing: only make fixtures that do not exist yet (new scenarios or
#   variants), leaving the committed ones byte for byte as they are.
#   default: the variants of tools/variants.txt except the stripped source
#   builds, plus nginx. A stripped build's memory is that of its debug twin,
#   and what stripping changes (the files' symbols and DWARF) a fixture
#   never sees: it is checked from its core alone. The distro variants,
#   stripped as shipped, are in. Keeps testdata/fixtures at a few MB.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ljcore=$root/build/cmake/ljcore
[[ -x $ljcore ]] || "$root/tools/build.sh" >/dev/null
only_missing=0
if [[ ${1:-} == --missing ]]; then
  only_missing=1
  shift
fi
variants=("$@")
if ((${#variants[@]} == 0)); then
  mapfile -t variants < <(grep -Ev '^(#|$)|-stripped' "$root/tools/variants.txt")
  variants+=(nginx)
fi

# The oracle comparison of a scenario's kernel core in directory $2.
oracle_check() {
  local scenario=$1 d=$2 check
  if [[ -f $root/testdata/traces/$scenario.lua ]]; then
    check=(traces_compare.sh "$ljcore" "$d/core.kernel" "$d/oracle.kernel.txt" "$d/exe")
  elif [[ $scenario == two_vms ]]; then
    check=(threads_compare.sh "$ljcore" "$d" kernel)
  elif [[ -f $root/testdata/coroutines/$scenario.lua ]]; then
    check=(coroutines_compare.sh "$ljcore" "$d/core.kernel" "$d/oracle.kernel.txt" "$d/exe")
  else
    check=(compare.sh "$ljcore" "$d/core.kernel" "$d/oracle.kernel.txt" "$d/exe")
  fi
  bash "$root/tests/oracle/${check[0]}" "${check[@]:1}" >/dev/null 2>&1
}

made=0 skipped=0
for v in "${variants[@]}"; do
  for dir in "$root/build/cores/$v"/*/; do
    scenario=$(basename "$dir")
    core=$dir/core.kernel
    [[ -f $core ]] || continue
    ((only_missing)) && [[ -d $root/testdata/fixtures/$v/$scenario ]] && continue
    # gc/ and retained/ scenarios are checked against their own census (tests/gc,
    # tests/retained), and
    # their heaps would make the largest fixtures by far.
    [[ -f $root/testdata/gc/$scenario.lua ]] && continue
    [[ -f $root/testdata/retained/$scenario.lua ]] && continue
    # A fixture pins a correct reading: only where ljcore matches
    # LuaJIT's own view (traceback, coroutines, jit.dump) on the core, and
    # again on the fixture's minimized core, which must have kept all of it.
    if ! oracle_check "$scenario" "$dir"; then
      echo "skip $v/$scenario: ljcore does not match the oracle on it yet"
      skipped=$((skipped + 1))
      continue
    fi
    out=$root/testdata/fixtures/$v/$scenario
    rm -rf "$out"
    sysroot=(); [[ -f $dir/sysroot ]] && sysroot=(--sysroot "$(cat "$dir/sysroot")")
    "$ljcore" fixture new "$core" -o "$out" --exe "$dir/exe" "${sysroot[@]}" --scenario "$scenario" \
      --flavour "$v" --made-by "kernel core, tools/make-cores.sh" >/dev/null
    # The same inputs, with the fixture's core in place of the original.
    mirror=$(mktemp -d)
    ln -s "$dir"/* "$mirror"/ && ln -sf "$out/core.zst" "$mirror/core.kernel"
    if ! oracle_check "$scenario" "$mirror"; then
      rm -rf "$mirror"
      echo "make-fixtures: $v/$scenario: the fixture's core no longer matches the oracle" >&2
      exit 1
    fi
    rm -rf "$mirror"
    made=$((made + 1))
  done
done
echo "$made fixtures made, $skipped skipped; $(du -sh "$root/testdata/fixtures" | cut -f1) in all"
