#!/usr/bin/env bash
# Builds the C hosts of testdata/hosts/ against each LuaJIT variant's static library and
# crashes them into cores, like tools/make-cores.sh does for scripts.
# Usage: [HOSTS="two_vms ..."] tools/make-host-cores.sh [VARIANT...]   (default: every host,
#        the source-built variants of tools/variants.txt but -gfields and -pjfields, made
#        to check layouts only; Debian's binary packages ship no libluajit.a to link)
# Hosts: two_vms (a VM parked in Lua in a worker thread, the main thread's crashing) and
# idle_vms (four workers' VMs idle, three of them in C, the main thread's crashing).
# Output: build/hosts/<variant>/HOST (stripped for -stripped variants), and
# build/cores/<variant>/HOST/:
#   core.kernel, core.gcore         the cores (kernel: ulimit -c; gcore: gdb at the signal)
#   oracle.<kind>.txt               debug.traceback("", 1) of the crashing VM (main thread)
#   parked.<kind>.txt               the same, of the VM parked in Lua in a worker thread
#   vms.<kind>.txt                  idle_vms: "TID L KIND" of each VM, as the host saw it
#   exe                             symlink to the host; sysroot for aarch64 (qemu) cores
# Also, for the x86_64 variants of busy_variants below, build/hosts/<variant>/busy_vms
# (testdata/hosts/busy_vms.c: three workers running Lua, a VM each, while the main thread's
# VM crashes) and build/cores/<variant>/busy_vms/:
#   core.N, oracle.N.txt            N = 1..busy_runs: kernel cores (sparse, about 1 MB on
#                                   disk each), the crashed VM's debug.traceback("", 1)
#   exe                             symlink to the host
# Cached: outputs newer than the sources and the library are kept.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
variants=("$@")
((${#variants[@]})) ||
  mapfile -t variants < <(grep -Ev '^(#|$)' "$root/tools/variants.txt" | grep -Ev '^distro-|-(g|pj)fields$')
"$root/tools/build-luajit.sh" "${variants[@]}" >/dev/null
hosts=$root/testdata/hosts
read -ra host_names <<<"${HOSTS:-two_vms idle_vms}"

core_pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo '?')
kernel_ok=1
[[ $core_pattern == '|'* || $core_pattern == */* ]] && kernel_ok=0

newer() { # OUT: OUT exists and is newer than every source, the library and (if built) the host
  local s
  [[ -s $1 ]] || return 1
  for s in "${sources[@]}" "$lib"; do [[ $1 -nt $s ]] || return 1; done
  [[ $1 == "$exe" || $1 -nt $exe ]]
}

# The busy host: its cores catch workers anywhere in the interpreter, now and then between
# storing BASE to L->base and calling C. Fifty of them on one variant of each GC ref width,
# kept uncompressed (ljcore reads each in milliseconds), keep the check within seconds.
busy_variants=" upstream-gc64-debug luajit2-gc32-debug "
busy_runs=50
busy_sources=("$hosts/busy_vms.c" "$hosts/busy.lua" "$hosts/crash.lua")

# make_busy_cores VARIANT LIB: the busy host's cores of VARIANT, when not cached.
make_busy_cores() {
  local v=$1 lib=$2 exe dir i s fresh=1 rc found
  exe=$root/build/hosts/$v/busy_vms
  dir=$root/build/cores/$v/busy_vms
  for s in "${busy_sources[@]}" "$lib"; do [[ $exe -nt $s ]] || fresh=0; done
  if ((!fresh)); then
    gcc -g -O1 -pthread -rdynamic -I"$(dirname "$lib")" -o "$exe" "$hosts/busy_vms.c" "$lib" -lm -ldl
  fi
  for ((i = 1; i <= busy_runs; i++)); do
    [[ $dir/core.$i -nt $exe && $dir/oracle.$i.txt -nt $exe ]] || fresh=0
  done
  ((fresh)) && return 0
  rm -rf "$dir" && mkdir -p "$dir/run"
  ln -sfn "$exe" "$dir/exe"
  cp "$hosts/busy.lua" "$hosts/crash.lua" "$dir/run/"
  cd "$dir/run"
  for ((i = 1; i <= busy_runs; i++)); do
    rm -f core core.[0-9]*
    rc=0
    ( ulimit -c unlimited; ORACLE=../oracle.$i.txt timeout 60 "$exe" busy.lua crash.lua 3; exit $? ) \
      >run.log 2>&1 || rc=$?
    found=
    for s in core core.[0-9]*; do [[ -f $s ]] && found=$s; done
    if ((rc <= 128)) || [[ -z $found ]]; then
      echo "$v/busy_vms: run $i gave rc=$rc and no core; see $dir/run/run.log" >&2
      return 1
    fi
    mv "$found" "../core.$i"
  done
  cd "$root" && rm -rf "$dir/run"
  echo "$v/busy_vms: $busy_runs kernel cores ok"
}

failed=0
for v in "${variants[@]}"; do
  src=$root/build/luajit/$v/src
  lib=$src/libluajit.a
  [[ -f $lib ]] || { echo "$v: no $lib, skipped"; continue; }
  cc=gcc runner=()
  if [[ $v == *-arm64 ]]; then cc=aarch64-linux-gnu-gcc runner=(qemu-aarch64 -L /usr/aarch64-linux-gnu); fi
  for host in "${host_names[@]}"; do
    sources=("$hosts/$host.c" "$hosts/blocked.h" "$hosts/parked.lua" "$hosts/crash.lua")
    exe=$root/build/hosts/$v/$host
    mkdir -p "$(dirname "$exe")"
    if ! newer "$exe"; then
      # -rdynamic: the FFI resolves read/write/abort through the host's own symbols.
      "$cc" -g -O1 -pthread -rdynamic -I"$src" -o "$exe" "$hosts/$host.c" "$lib" -lm -ldl
      # A stripped variant's host is stripped too: no symtab, no DWARF (lj_* are hidden, so
      # -rdynamic does not export them).
      if [[ $v == *-stripped* ]]; then "${cc%gcc}strip" --strip-all "$exe"; fi
    fi
    dir=$root/build/cores/$v/$host
    mkdir -p "$dir" && cd "$dir"
    cp "$hosts/parked.lua" "$hosts/crash.lua" .
    ln -sfn "$exe" exe
    if ((${#runner[@]})); then echo /usr/aarch64-linux-gnu >sysroot; else rm -f sysroot; fi

    if ((kernel_ok)) && ! { newer core.kernel && newer oracle.kernel.txt; }; then
      rm -f core core.[0-9]* qemu_*.core core.kernel
      rc=0
      ( ulimit -c unlimited
        ORACLE=oracle.kernel.txt ORACLE_PARKED=parked.kernel.txt VMS=vms.kernel.txt \
          timeout 60 "${runner[@]}" ./exe parked.lua crash.lua; exit $?
      ) >run.kernel.log 2>&1 || rc=$?
      found=
      for c in core core.[0-9]* qemu_*.core; do [[ -f $c ]] && found=$c; done
      if ((rc > 128)) && [[ -n $found ]]; then
        mv "$found" core.kernel
        rm -f core core.[0-9]* qemu_*.core
        echo "$v/$host: kernel ok"
      else
        echo "$v/$host: kernel run gave rc=$rc and no core; see $dir/run.kernel.log" >&2
        failed=1
      fi
    fi
    if ((${#runner[@]} == 0)) && command -v gdb >/dev/null && ! { newer core.gcore && newer oracle.gcore.txt; }; then
      rm -f core.gcore
      ORACLE=oracle.gcore.txt ORACLE_PARKED=parked.gcore.txt VMS=vms.gcore.txt DEBUGINFOD_URLS='' \
        timeout -k 5 120 gdb -batch -nx -iex 'set debuginfod enabled off' -iex 'set startup-with-shell off' \
          -ex run -ex 'gcore core.gcore' -ex kill --args ./exe parked.lua crash.lua >run.gcore.log 2>&1 || true
      if [[ -s core.gcore ]]; then echo "$v/$host: gcore ok"; else
        echo "$v/$host: gdb wrote no core; see $dir/run.gcore.log" >&2; failed=1; fi
    fi
    cd "$root"
  done
  if ((kernel_ok)) && [[ $busy_variants == *" $v "* ]]; then
    make_busy_cores "$v" "$lib" || failed=1
    cd "$root"
  fi
done
exit $failed
