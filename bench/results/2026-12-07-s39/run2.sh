#!/bin/bash
# Session 39, run 2: where the 64-bit hybrid should start now that its in-bucket block is the
# faster 256x10x4x13 one (session 38). u64 keys at 2^20-2^23 and u64/u32 pairs at 2^18-2^21,
# each with the hybrid off (HISTOSORT_HYBRID_MIN=0: the LSD sort) and forced on
# (HISTOSORT_HYBRID_MIN=2), CUB in the forced rows' calls, then the defaults again. Carry .device
# (bins.tar.xz staged from fde351d).
. "$(dirname "$0")/../device-lib.sh"
K="sort-keys u64"
P="sort-pairs u64/u32"
KS=2^20,2^21,2^22,2^23
PS=2^18,2^19,2^20,2^21
NOCUB=
peers keys-hyb $KS "$K" HISTOSORT_HYBRID_MIN=2
peers pairs-hyb $PS "$P" HISTOSORT_HYBRID_MIN=2
NOCUB=--no-cub
peers keys-lsd $KS "$K" HISTOSORT_HYBRID_MIN=0
peers pairs-lsd $PS "$P" HISTOSORT_HYBRID_MIN=0
peers keys-default $KS "$K"
peers pairs-default $PS "$P"
pack_json
echo "done ($SECONDS s)"
