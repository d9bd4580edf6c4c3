#!/bin/bash
# Session 43, the first call (~570 s), whichever card comes. Carry .device.
# H200: issue 5's table with CUB in the same run (the H200's last is sessions 24-25), then the
#   packed hybrid forced on behind the default (session 41's A/B) where time is left.
# H100: session 41's dip (u32/u32 pairs and CUB at 5 x 2^24 ran 25-27 Gpairs/s against 30-32
#   around): keys and pairs at 5 x 2^24, 5 x 2^24 + 2^20, 6 x 2^24 with CUB, then a gap of 2 MiB
#   and of 64 MiB before each of histosort's buffers (HISTOSORT_ALLOC_PAD); then the packed
#   hybrid A/B.
. "$(dirname "$0")/../device-lib.sh"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    table 470 540 "sort-keys u32" "sort-pairs u32" "sort-keys f32" "sort-keys u64"
    pack_json
    mv "$OUT/json.tgz" "$OUT/json-table.tgz"
    NOCUB=--no-cub
    [ $SECONDS -lt 480 ] && peers pairs-hyb 2^26,2^27 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
else
    S=83886080,84934656,100663296
    NOCUB= peers keys-dip $S "sort-keys u32"
    NOCUB= peers pairs-dip $S "sort-pairs u32"
    NOCUB=--no-cub
    peers pairs-pad2m $S "sort-pairs u32" HISTOSORT_ALLOC_PAD=2097152
    peers pairs-pad64m $S "sort-pairs u32" HISTOSORT_ALLOC_PAD=67108864
    [ $SECONDS -lt 450 ] && peers pairs-hyb 2^24,2^26,2^27 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
    [ $SECONDS -lt 450 ] && NOCUB= peers pairs-def 2^24,2^26,2^27 "sort-pairs u32"
fi
ls "$OUT"/*.json >/dev/null 2>&1 && pack_json
echo "done ($SECONDS s)"
