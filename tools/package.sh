#!/usr/bin/env bash
# Builds a Debian package of ljcore with CPack, from build/cmake (configured
# as tools/build.sh does): build/package/ljcore_<version>_<arch>.deb,
# holding /usr/bin/ljcore, its man page and its bash and zsh completion.
# dpkg-shlibdeps (dpkg-dev) computes its Depends.
# Usage: tools/package.sh      (prints the .deb's path)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cmake -S "$root" -B "$root/build/cmake" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build/cmake" -j "$(nproc)" --target ljcore >/dev/null
rm -f "$root"/build/package/ljcore_*.deb
cpack -G DEB --config "$root/build/cmake/CPackConfig.cmake" -B "$root/build/package" >/dev/null
ls "$root"/build/package/ljcore_*.deb
