#!/bin/bash
# Session 41, run 4 (histosort staged from this session's code with HISTOSORT_ALLOC_PAD; the
# test binary is run 1's, unused): run 3 saw histosort, its hybrid and CUB all drop to ~25-27
# Gpairs/s at 5 x 2^24 and 5 x 2^25 u32/u32 pairs (30-32 at the sizes around). Is it the keys
# too, the length itself, or where the buffers lie? 5 x 2^24, 5 x 2^24 + 2^20 and 6 x 2^24
# with CUB, then a gap of 2 MiB and 64 MiB allocated before each of histosort's buffers (held
# as long as the backend). (Cut to fit ~250 s after a refused start.)
# Carry .device.
. "$(dirname "$0")/../device-lib.sh"
S=83886080,84934656,100663296
NOCUB= peers keys-dip $S "sort-keys u32"
NOCUB= peers pairs-dip $S "sort-pairs u32"
NOCUB=--no-cub
peers pairs-pad2m $S "sort-pairs u32" HISTOSORT_ALLOC_PAD=2097152
peers pairs-pad64m $S "sort-pairs u32" HISTOSORT_ALLOC_PAD=67108864
pack_json
echo "done ($SECONDS s)"
