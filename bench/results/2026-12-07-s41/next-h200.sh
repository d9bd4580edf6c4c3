#!/bin/bash
# For the next session that gets an H200 (restage first; carry .device): issue 5's whole table
# on the card the issue names (its last H200 figures are from sessions 24-25, before the u64
# hybrid's defaults, the packed pairs' tiles and the prefetch), CUB in the same run, then the
# packed hybrid forced on against the default and the u64 keys' prefetch A/B, whose defaults
# were set on H100s (sessions 39-41) and are predicted to gain less or nothing on the H200.
# ~560 s.
. "$(dirname "$0")/../device-lib.sh"
table 380 420 "sort-keys u32" "sort-pairs u32" "sort-keys f32" "sort-keys u64"
pack_json
mv "$OUT/json.tgz" "$OUT/json-table.tgz"
NOCUB=--no-cub
[ $SECONDS -lt 470 ] && peers pairs-hyb 2^24,2^26,2^27,2^28 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
[ $SECONDS -lt 510 ] && peers u64-pf0 2^24,2^26 "sort-keys u64" \
  HISTOSORT_KERNEL_DEFINES=HYB_PREFETCH_AHEAD=0
pack_json
echo "done ($SECONDS s)"
