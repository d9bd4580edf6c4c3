#!/bin/bash
# Session 42: session 41's next-h200.sh as it was (run on whichever card came; the log names it).
# For the next session that gets an H200 (restage first; carry .device): issue 5's whole table
# on the card the issue names (its last H200 figures are from sessions 24-25, before the u64
# hybrid's defaults, the packed pairs' tiles and the prefetch), CUB in the same run, then the
# packed hybrid forced on against the default and the u64 keys' prefetch A/B, whose defaults
# were set on H100s (sessions 39-41) and are predicted to gain less or nothing on the H200.
# ~560 s.
. "$(dirname "$0")/../device-lib.sh"
table 380 420 "sort-keys u32" "sort-pairs u32" "sort-keys f32" "sort-keys u64"
pairs=0 u64=0
[ -s "$OUT/sort-pairs-u32.json" ] && pairs=1
[ -s "$OUT/sort-keys-u64.json" ] && u64=1
pack_json
mv "$OUT/json.tgz" "$OUT/json-table.tgz"
# The A/Bs against the table's own rows (each ~25-40 s; skipped where the table's row is missing
# or too little time is left under the device's 600 s).
NOCUB=--no-cub
[ $SECONDS -lt 470 ] && [ $pairs = 1 ] &&
  peers pairs-hyb 2^24,2^26,2^27,2^28 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
[ $SECONDS -lt 500 ] && [ $u64 = 1 ] &&
  peers u64-pf0 2^24,2^26 "sort-keys u64" HISTOSORT_KERNEL_DEFINES=HYB_PREFETCH_AHEAD=0
ls "$OUT"/*.json >/dev/null 2>&1 && pack_json
echo "done ($SECONDS s)"
