#!/bin/bash
# Session 26 run 5: the committed defaults (u64 pairs on the hybrid from 2^21) against CUB
# below 2^21 for u64/u32 pairs; `--dist` with CUB on other key types (entropy-0.544 for u32
# keys, f32 keys and u32/u32 pairs; distinct-1024 for u32 keys), which checks CUB's new key
# generator (f32 images turned back into floats) with its own sortedness check.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-04-h200-s26/unpack.sh > /dev/null
B=$PWD/.device/histosort-new
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
echo "== u64/u32 pairs, small ($SECONDS s)"
timeout 200 $B bench peers --sizes 2^12,2^14,2^16,2^18,2^19,2^20,2^21 --cases "sort-pairs u64" --json $OUT/pairs64.json 2>&1 | grep -E "^sort|rror|anic|CUB"
echo "== entropy-0.544 ($SECONDS s)"
timeout 120 $B bench peers --sizes 2^22,2^24 --cases "sort-keys u32,sort-keys f32,sort-pairs u32" --dist entropy-0.544 --json $OUT/entropy.json 2>&1 | grep -E "^sort|rror|anic|CUB"
echo "== distinct-1024 ($SECONDS s)"
timeout 120 $B bench peers --sizes 2^24 --cases "sort-keys u32,sort-keys u64" --dist distinct-1024 --json $OUT/distinct.json 2>&1 | grep -E "^sort|rror|anic|CUB"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
