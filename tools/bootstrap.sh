#!/usr/bin/env bash
# Installs what building and testing ljcore needs on a fresh Debian 12 machine.
# Idempotent: on a machine that already has everything it runs no apt at all.
set -euo pipefail

packages=(
  build-essential cmake pkg-config          # toolchain
  libelf-dev libdw-dev libbz2-dev llvm-14-dev  # ELF/DWARF readers (bzip2: libdw's, linked in)
  nlohmann-json3-dev doctest-dev libcli11-dev
  libzstd-dev liblzma-dev liblz4-dev zstd xz-utils lz4  # compressed cores, as systemd-coredump writes them
  clang libbpf-dev bpftool                  # the profiler's BPF program (walker.h) and its skeleton
  lld                                       # links the -pjfields LuaJIT build (tools/build-luajit.sh)
  libprotobuf-dev protobuf-compiler zlib1g-dev  # profile --format pprof: profile.proto, gzip
  libseccomp-dev                            # catch: the sandbox its analysis runs in
  libxml2-utils                             # xmllint checks the profile SVG in tests
  clang-16 libclang-rt-16-dev               # libFuzzer harnesses (tools/fuzz.sh)
  gdb elfutils                              # gcore for test cores; gdb, eu-stack read snapshots
  dpkg-dev                                  # apt-get source (LuaJIT test builds)
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user  # aarch64 LuaJIT and its guest cores
  nginx libnginx-mod-http-lua curl          # a real OpenResty-style worker to crash
  file binutils hyperfine gawk
)

# deb-src entry so tools/build-luajit.sh can `apt-get source luajit luajit2`.
src_list=/etc/apt/sources.list.d/ljcore-src.sources
need_update=0
if [[ ! -f $src_list ]]; then
  cat > "$src_list" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  need_update=1
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  need_update=1
fi
if ((need_update)); then
  apt-get update
fi
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
echo "bootstrap: ok"
