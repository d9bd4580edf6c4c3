#!/bin/bash
# Session 39, run 8: the u64/u32 pairs' new hybrid minimum (2^20) through the library's
# defaults, with CUB, from just past the fused sort to 2^21; then the CLI suite (23, the staged
# binary; its info test now checks the CPU counter line) and the pairs suite (37 tests).
# Carry .device (bins.tar.xz staged from this session's last source commit).
. "$(dirname "$0")/../device-lib.sh"
NOCUB=
peers pairs-default 1048577,1310720,1572864,2^21 "sort-pairs u64/u32"
pack_json
"$D/histosort" info | head -3
echo "-- cli ($SECONDS s)"
HISTOSORT_BIN=$D/histosort timeout 60 "$D/tests/cli" --test-threads=1 2>&1 |
    grep -E "^test result|FAILED|panicked|failed"
echo "-- pairs ($SECONDS s)"
timeout 100 "$D/tests/pairs" --test-threads=2 2>&1 | grep -E "^test result|FAILED|panicked"
echo "done ($SECONDS s)"
