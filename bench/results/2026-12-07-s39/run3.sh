#!/bin/bash
# Session 39, runs 3 and 4 (typed at the device prompt while it was warm, kept here): u64 keys
# with the hybrid forced on and off between 2^21 and 2^22 to place its minimum.
. "$(dirname "$0")/../device-lib.sh"
K="sort-keys u64"
NOCUB=--no-cub
# run 3
S=2621440,3145728,3670016
peers k-hyb $S "$K" HISTOSORT_HYBRID_MIN=2; peers k-lsd $S "$K" HISTOSORT_HYBRID_MIN=0
peers k-hyb2 $S "$K" HISTOSORT_HYBRID_MIN=2; peers k-lsd2 $S "$K" HISTOSORT_HYBRID_MIN=0
# run 4
S=2097152,2359296,2621440
for i in 1 2; do
    peers k-hyb$i $S "$K" HISTOSORT_HYBRID_MIN=2; peers k-lsd$i $S "$K" HISTOSORT_HYBRID_MIN=0
done
pack_json
