#!/bin/bash
# Session 40, run 2: the in-bucket kernel's L2 prefetch of a later block's chunk
# (HYB_PREFETCH_AHEAD, a define the library passes, 0 by default; set here through
# HISTOSORT_KERNEL_DEFINES) and one-bucket chunks on 256x5x8 blocks for the packed hybrid of
# u32/u32 pairs, then issue 5's table. Staged binary: 8648574 (the kernel's new switch, default
# off). Carry .device.
. "$(dirname "$0")/../device-lib.sh"
H=$D/histosort
PA=HISTOSORT_KERNEL_DEFINES=HYB_PREFETCH_AHEAD
NOCUB=--no-cub
# u32/u32 pairs: the packed LSD sort (default, CUB once), the packed hybrid forced on at its
# default block (256x10x4, fill 13/16), without and with the prefetch (one wave: 4 blocks on
# each of 132 SMs).
NOCUB= peers pairs-default 2^24,2^25,2^26,2^27,2^28 "sort-pairs u32"
peers pairs-hyb 2^24,2^25,2^26,2^27 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
peers pairs-hyb-pf528 2^24,2^25,2^26,2^27 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1 $PA=528
# 256x5x8 blocks (32 registers, no spills: 8 blocks, 2048 threads an SM) with a fill that
# makes every chunk one bucket (16 bits to sort: two passes, no tie walk), without and with the
# prefetch (one wave: 1056).
for f in 24:4 25:7 26:13; do
  peers pairs-hyb-b5-2e${f%:*} 2^${f%:*} "sort-pairs u32" HISTOSORT_HYBRID_MIN=1 \
    HISTOSORT_HYBRID_LOCAL=256x5x8x${f#*:}
  peers pairs-hyb-b5-2e${f%:*}-pf1056 2^${f%:*} "sort-pairs u32" HISTOSORT_HYBRID_MIN=1 \
    HISTOSORT_HYBRID_LOCAL=256x5x8x${f#*:} $PA=1056
done
# The same shape of block (5 pairs a thread, 2048 threads an SM) for 2^27 and 2^28's buckets.
peers pairs-hyb-b5-2e27 2^27 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1 HISTOSORT_HYBRID_LOCAL=512x5x4x13
peers pairs-hyb-b5-2e28 2^28 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1 HISTOSORT_HYBRID_LOCAL=1024x5x2x13
# u64 keys and u64/u32 pairs (the hybrid is their default): without and with.
peers u64-default 2^24,2^26,2^28 "sort-keys u64,sort-pairs u64"
peers u64-pf528 2^24,2^26,2^28 "sort-keys u64,sort-pairs u64" $PA=528
peers pairs-hyb-again 2^24,2^26 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
peers u64-default-again 2^24,2^26 "sort-keys u64,sort-pairs u64"
pack_json
mv "$OUT/json.tgz" "$OUT/json-exp.tgz"
echo "-- experiment done ($SECONDS s)"
# Issue 5's table, CUB in the same run (`sort-keys u32` also takes the bits [0,16) case).
S=2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
for c in "sort-keys u32" "sort-pairs u32" "sort-keys u64" "sort-keys f32"; do
  [ $SECONDS -gt 470 ] && { echo "skipped $c (time)"; continue; }
  l=${c// /-}
  echo "-- $l ($SECONDS s)"
  timeout $((560 - SECONDS)) $H bench peers --sizes "$S" --cases "$c" --json "$OUT/$l.json" 2>&1 |
    grep -E "^sort|rror|anic|bench on"
done
pack_json
echo "done ($SECONDS s)"
