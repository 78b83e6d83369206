#!/usr/bin/env bash
# Speed of the scan of writable memory for VMs (`--scan always`) on a core of SPARSE_MB
# megabytes (default 1024) of memory the process touched a page per megabyte of, beside a
# GC heap of 64 MB (tools/bench/sparse_heap.lua): `ljcore bt` with and without the scan,
# hyperfine medians and mean CPU, and the scan's own share (their difference); on a busy
# machine, compare the CPU. Needs hyperfine.
# Usage: tools/bench/scan.sh [SPARSE_MB]      (results: build/bench/scan.txt)
set -euo pipefail

mb=${1:-1024}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

core=sparse-$mb.core
crash_into "$core" sparse.log sparse_heap.lua SPARSE_MB="$mb"
echo "core: $core, $(du -h --apparent-size "$core" | cut -f1) ($(du -h "$core" | cut -f1) on disk;" \
  "$(cat sparse.log))" | tee scan.txt
hyperfine -N --warmup 3 --runs 21 --export-json scan-speed.json \
  "$ljcore bt --scan never $core" "$ljcore bt --scan always $core" >/dev/null
python3 - scan-speed.json <<'PY' | tee -a scan.txt
import json, sys
never, always = json.load(open(sys.argv[1]))["results"]
cpu = lambda r: (r["user"] + r["system"]) * 1000
for r in (never, always):
    print("median %7.1f ms wall, mean %6.1f ms CPU  %s" % (r["median"] * 1000, cpu(r), r["command"]))
print("the scan: %.1f ms wall, %.1f ms CPU" % ((always["median"] - never["median"]) * 1000,
                                           cpu(always) - cpu(never)))
PY
