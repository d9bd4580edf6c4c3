#!/bin/bash
# Session 39, run 7: u64/u32 pairs between 2^20 and 2^21 (the fused one-kernel sort stops at
# 2^20; the pairs' hybrid minimum is 2^21), the hybrid forced on (HISTOSORT_HYBRID_MIN=2) and
# off (=0), twice, CUB in the first call. Carry .device (bins.tar.xz staged from a3ed979).
. "$(dirname "$0")/../device-lib.sh"
P="sort-pairs u64/u32"
S=1048577,1310720,1572864,1835008
NOCUB=
peers p-hyb1 $S "$P" HISTOSORT_HYBRID_MIN=2
NOCUB=--no-cub
peers p-lsd1 $S "$P" HISTOSORT_HYBRID_MIN=0
peers p-hyb2 $S "$P" HISTOSORT_HYBRID_MIN=2
peers p-lsd2 $S "$P" HISTOSORT_HYBRID_MIN=0
pack_json
echo "done ($SECONDS s)"
