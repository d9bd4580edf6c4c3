#!/bin/bash
# Session 39, run 5: the library with the u64 keys' new hybrid minimum (2.5 x 2^20), staged
# from this session's last source commit: u64 keys at 2^21, 2.5 x 2^20, 2^22, 2^23 with CUB
# (the defaults, expected 2^22 ~0.26 ms), then the GPU suites that sort through the defaults
# (sort, pairs, the CLI on the staged binary) and the histogram suite (the CPU byte counter
# is their reference's neighbour; its GPU paths are unchanged). Carry .device.
. "$(dirname "$0")/../device-lib.sh"
NOCUB=
peers u64-default 2^21,2621440,2^22,2^23 "sort-keys u64"
pack_json
for t in sort pairs histogram; do
    echo "-- $t ($SECONDS s)"
    timeout 150 "$D/tests/$t" --test-threads=1 2>&1 | grep -E "^test result|FAILED|panicked|failed"
done
echo "-- cli ($SECONDS s)"
HISTOSORT_BIN=$D/histosort timeout 150 "$D/tests/cli" --test-threads=1 2>&1 |
    grep -E "^test result|FAILED|panicked|failed"
echo "done ($SECONDS s)"
