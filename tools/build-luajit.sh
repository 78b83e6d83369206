#!/usr/bin/env bash
# Builds Debian's LuaJIT variants once and caches them under build/luajit/<variant>/.
# Usage: tools/build-luajit.sh [VARIANT...]
# VARIANT = <upstream|luajit2>-<gc64|gc32>-<debug|stripped|nojit>[-fields|-gfields|-pjfields][-arm64]
#   or distro-<luajit|luajit2>,
#   or any name under build/luajit/ holding a build made elsewhere (see below);
#   default: every variant in tools/variants.txt.
#   upstream = Debian source package "luajit" (LuaJIT 2.1), luajit2 = "luajit2" (OpenResty fork).
#   gc32     = -DLUAJIT_DISABLE_GC64 (both default to GC64 on x86_64).
#   stripped = built with -g as well, then `strip --strip-all` (no .symtab/.debug_*).
#   nojit    = -DLUAJIT_DISABLE_JIT (interpreter only), with debug info.
#   distro-* = /usr/bin/luajit of Debian's binary package "luajit" or "luajit2" exactly as
#              shipped (stripped, LuaJIT linked in statically), unpacked, not installed:
#              the two packages conflict with each other.
#   -fields  = lua_State given a field no built-in table knows (appended:
#              sizeof(lua_State) and so GG_State move), as a release or a
#              fork might: a build that only the layout read from its code
#              (analyzer/derive/) describes.
#   -gfields = the same in global_State: a uint32_t first in GCState (gc.*
#              move) and a pointer before `str` (the string table, vmstate,
#              mainthref, cur_L... and so jit_State and the dispatch move).
#   -pjfields = an MRef in GCproto before chunkname (its debug fields and
#              the bytecode after it move), a pointer in jit_State
#              before `trace` (trace, sizetrace and the dispatch move) and
#              an MRef in GCtrace before startpt (all of GCtrace from
#              there on moves, its size too); linked by lld, which keeps
#              relative relocations' values out of the data they patch.
#   -arm64   = cross-built for aarch64 (gcc-aarch64-linux-gnu); run it with
#              qemu-aarch64 -L /usr/aarch64-linux-gnu, which writes guest cores.
# Result: build/luajit/<variant>/src/luajit; run it with
#   LUA_PATH="build/luajit/<variant>/src/?.lua;;" so require("jit.dump") works.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
variants=("$@")
((${#variants[@]})) || mapfile -t variants < <(grep -Ev '^(#|$)' "$root/tools/variants.txt")

# Fetch and unpack both Debian source packages once (patches applied by dpkg-source).
fetch_sources() {
  local src=$root/build/src
  if ! compgen -G "$src/luajit-*/src/Makefile" >/dev/null ||
     ! compgen -G "$src/luajit2-*/src/Makefile" >/dev/null; then
    rm -rf "$src" && mkdir -p "$src"
    (cd "$src" && apt-get source -q luajit luajit2 >apt-source.log 2>&1) ||
      { cat "$src/apt-source.log" >&2; echo "apt-get source failed (deb-src entry? run tools/bootstrap.sh)" >&2; exit 1; }
  fi
}

# Unpacks /usr/bin/luajit of Debian binary package $1 into $2/root, with
# $2/src/luajit pointing at it like the source builds, and $2/src/jit at the
# jit.* modules (jit.dump for the traces tests) of the matching
# lib$1-5.1-common, which ships them apart from the binary.
unpack_distro() {
  local pkg=$1 out=$2 deb
  rm -rf "$out" && mkdir -p "$out/src"
  # apt-get download writes to the cwd; -o APT::Sandbox::User=root keeps it
  # from warning that _apt cannot write to build/.
  (cd "$out" && apt-get download -q -o APT::Sandbox::User=root "$pkg" "lib$pkg-5.1-common" \
    >download.log 2>&1) ||
    { cat "$out/download.log" >&2; echo "apt-get download $pkg failed" >&2; exit 1; }
  for deb in "$out"/*.deb; do dpkg-deb -x "$deb" "$out/root"; done
  ln -s ../root/usr/bin/luajit "$out/src/luajit"
  ln -s "$(cd "$out/src" && echo ../root/usr/share/luajit*/jit)" "$out/src/jit"
  touch "$out/.built"
}

# add_member FILE STRUCT_LINE ANCHOR before|after MEMBER: MEMBER declared
# next to the line of struct STRUCT_LINE that starts with ANCHOR (sed
# regexes, ANCHOR to the end of its line), a field no built-in table knows.
add_member() {
  local file=$1 struct=$2 anchor=$3 where=$4 member=$5
  local line="  $member\t/* A field no table knows. */" edit
  if [[ $where == before ]]; then edit="s|^\($anchor.*\)$|$line\n\1|"; else edit="s|^\($anchor.*\)$|\1\n$line|"; fi
  sed -i "/^$struct/,/^}/$edit" "$file"
  grep -qF "$member" "$file" || { echo "$v: could not add $member to $file" >&2; exit 1; }
}

# The members a -*fields variant's sources are given, and how it is linked
# (fields_ldflags): add_fields FIELDS DIR.
add_fields() {
  fields_ldflags=
  case $1 in
    -fields) # After stacksize, lua_State's last member in every fork.
      add_member "$2/src/lj_obj.h" 'struct lua_State {' '  MSize stacksize;' after \
        'void *ljcore_extra;' ;;
    -gfields)
      add_member "$2/src/lj_obj.h" 'typedef struct GCState {' '  GCSize total;' before \
        'uint32_t ljcore_gc_extra;'
      add_member "$2/src/lj_obj.h" 'typedef struct global_State {' '  StrInternState str;' before \
        'void *ljcore_g_extra;' ;;
    -pjfields) # Linked by lld, which leaves relative relocations' values out of the file.
      fields_ldflags=-fuse-ld=lld
      add_member "$2/src/lj_obj.h" 'typedef struct GCproto {' '  GCRef chunkname;' before \
        'MRef ljcore_pt_extra;'
      add_member "$2/src/lj_jit.h" 'typedef struct jit_State {' '  GCRef \*trace;' before \
        'void *ljcore_j_extra;'
      add_member "$2/src/lj_jit.h" 'typedef struct GCtrace {' '  GCRef startpt;' before \
        'MRef ljcore_t_extra;' ;;
  esac
}

# What a build's sources were given, recorded in its .built: a -*fields
# build made before add_fields changed is made again (and its cores, which
# tools/make-cores.sh keeps only while newer than luajit).
recipe_of() { # FIELDS
  [[ -z $1 ]] || printf '%s %s\n' "$1" "$(declare -f add_fields add_member | sha256sum | cut -c1-16)"
}
built() { # DIR RECIPE
  [[ -f $1/.built && $(<"$1/.built") == "$2" ]]
}

for v in "${variants[@]}"; do
  if [[ $v =~ ^distro-(luajit|luajit2)$ ]]; then
    pkg=${BASH_REMATCH[1]} out=$root/build/luajit/$v
    [[ -f $out/.built && -f $out/src/jit/dump.lua ]] || unpack_distro "$pkg" "$out"
    echo "$v: $out/src/luajit ($("$out/src/luajit" -v | head -1), $(basename "$out/${pkg}"_*.deb))"
    continue
  fi
  if [[ ! $v =~ ^(upstream|luajit2)-(gc64|gc32)-(debug|stripped|nojit)(-fields|-gfields|-pjfields)?(-arm64)?$ ]]; then
    # A build made elsewhere (another revision, from a fork's git history)
    # and placed at build/luajit/<name>/src/luajit with a .built mark is
    # used as it is: tools/make-cores.sh and tools/make-fixtures.sh take it.
    if [[ -f $root/build/luajit/$v/.built && -x $root/build/luajit/$v/src/luajit ]]; then
      echo "$v: $root/build/luajit/$v/src/luajit (made elsewhere)"
      continue
    fi
    echo "unknown variant '$v' (want <upstream|luajit2>-<gc64|gc32>-<debug|stripped|nojit>[-*fields][-arm64])" >&2
    exit 2
  fi
  flavour=${BASH_REMATCH[1]} gc=${BASH_REMATCH[2]} kind=${BASH_REMATCH[3]}
  fields=${BASH_REMATCH[4]} arm64=${BASH_REMATCH[5]}
  out=$root/build/luajit/$v
  recipe=$(recipe_of "$fields")
  if ! built "$out" "$recipe"; then
    fetch_sources
    # "luajit-*" does not match "luajit2-*": the dash comes right after "luajit".
    pkg=luajit; [[ $flavour == luajit2 ]] && pkg=luajit2
    srcdir=$(compgen -G "$root/build/src/$pkg-*/src/Makefile" | head -1)
    srcdir=${srcdir%/src/Makefile}
    xcflags=; [[ $gc == gc32 ]] && xcflags=-DLUAJIT_DISABLE_GC64
    [[ $kind == nojit ]] && xcflags+=" -DLUAJIT_DISABLE_JIT"
    # luajit2 2.1-20230119's lj_init.c picks its SSE4.2 string hash by the
    # JIT_F_* CPU flags, which lj_jit.h defines only when the JIT is built:
    # give them lj_jit.h's values so the interpreter-only build compiles.
    if [[ $kind == nojit && $flavour == luajit2 ]]; then
      xcflags+=" -DJIT_F_SSE3=0x10 -DJIT_F_SSE4_1=0x20 -DJIT_F_BMI2=0x40 -DJIT_F_SSE4_2=0x80"
    fi
    cross=(); strip=strip
    if [[ -n $arm64 ]]; then
      cross=(HOST_CC=gcc CROSS=aarch64-linux-gnu- TARGET_SYS=Linux)
      strip=aarch64-linux-gnu-strip
    fi
    twin=$root/build/luajit/${v/-stripped/-debug}
    # The same build as the debug twin, stripped: the twin built first (its
    # DWARF is what tests/layout compares the stripped build's layout with),
    # then copied, which saves a compile.
    if [[ $kind == stripped ]] && ! built "$twin" "$recipe"; then
      "${BASH_SOURCE[0]}" "${v/-stripped/-debug}" >/dev/null
    fi
    rm -rf "$out" && mkdir -p "$out"
    if [[ $kind == stripped ]] && built "$twin" "$recipe"; then
      cp -a "$twin/." "$out/"
    else
      cp -a "$srcdir/." "$out/"
      add_fields "$fields" "$out"
      # CCDEBUG=-g keeps DWARF (symbols are needed to find lj_* globals in the cores).
      link=(); [[ -n $fields_ldflags ]] && link=(LDFLAGS="$fields_ldflags")
      make -C "$out" -j2 Q= CCDEBUG=-g XCFLAGS="$xcflags" "${link[@]}" "${cross[@]}" \
        >"$out/build.log" 2>&1 ||
        { tail -30 "$out/build.log" >&2; echo "build of $v failed, see $out/build.log" >&2; exit 1; }
    fi
    if [[ $kind == stripped ]]; then "$strip" --strip-all "$out/src/luajit"; fi
    printf '%s' "$recipe" >"$out/.built"
  fi
  run=("$out/src/luajit"); [[ -n $arm64 ]] && run=(qemu-aarch64 -L /usr/aarch64-linux-gnu "${run[@]}")
  echo "$v: $out/src/luajit ($("${run[@]}" -v | head -1))"
done
