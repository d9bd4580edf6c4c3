#!/bin/bash
# Session 42 on an H200 (after the device refused starts for an hour, one call may be all): the
# small-sorts GPU test with this session's new sizes (the single launch from the pass module),
# then issue 5's whole table with CUB in the same run (its 2^18 and 2^20 rows time the single
# launch), then session 41's A/Bs where time is left. ~580 s. Carry .device.
. "$(dirname "$0")/../device-lib.sh"
cuda_test fused 150 -- small_sorts_counting_sort_and_single_launch
table 450 540 "sort-keys u32" "sort-pairs u32" "sort-keys f32" "sort-keys u64"
pack_json
mv "$OUT/json.tgz" "$OUT/json-table.tgz"
NOCUB=--no-cub
[ $SECONDS -lt 520 ] && peers pairs-hyb 2^26,2^27 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
ls "$OUT"/*.json >/dev/null 2>&1 && pack_json
echo "done ($SECONDS s)"
