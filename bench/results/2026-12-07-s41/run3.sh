#!/bin/bash
# Session 41, run 3 (the machine of runs 1-2 still warm; the same binaries): the packed hybrid
# of u32/u32 pairs forced on against the default (the packed LSD sort) between the powers of
# two from 2^26 to 2^28 (its one-bucket blocks are sized for powers of two), CUB with the
# first round. Carry .device.
. "$(dirname "$0")/../device-lib.sh"
S=67108864,83886080,100663296,117440512,134217728,167772160,201326592,234881024
NOCUB= peers mid-default $S "sort-pairs u32"
NOCUB=--no-cub
peers mid-hyb $S "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
peers mid-default-again $S "sort-pairs u32"
peers mid-hyb-again $S "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
pack_json
echo "done ($SECONDS s)"
