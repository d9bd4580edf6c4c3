#!/bin/bash
# Session 44, run 1 (~480 s): issue 5's table with CUB in the same run, on whichever card comes
# (the H200's last table is sessions 24-25; every tuning since was made on the H100), then the
# u64/u32 pairs and the bits [0,16) row. Carry .device.
. "$(dirname "$0")/../device-lib.sh"
table 330 440 "sort-keys u32" "sort-pairs u32" "sort-keys f32" "sort-keys u64"
peers u64pairs-bits 2^24,2^26,2^28 "sort-pairs u64,bits [0,16)"
pack_json
echo "done ($SECONDS s)"
