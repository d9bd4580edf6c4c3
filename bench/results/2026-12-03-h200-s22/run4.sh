#!/bin/bash
# Session 22 run 4 (typed as one command line in the warm window after run 3; kept here as it
# ran, from this folder): the long tile's prefetch distance, 132 against the default 264 tiles,
# u32 and f32 keys, rounds 132 / 264 / 132.
B=$PWD/../../../.device/histosort; export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/../../../.device/cache; for d in PREFETCH_AHEAD=132 "" PREFETCH_AHEAD=132; do echo "== '$d' ($SECONDS s)"; HISTOSORT_KERNEL_DEFINES=$d timeout 60 $B bench peers --no-cub --sizes 2^26,2^27,2^28 --cases "sort-keys u32,sort-keys f32" --json $OUT/pf-$SECONDS.json 2>&1 | grep -E "^sort|rror|anic"; done; rm -f $OUT/*.svg
