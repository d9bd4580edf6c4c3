#!/bin/bash
# Session 41, run 2 (the machine of run 1 still warm; the same binaries): the packed one-bucket
# test again, which ran past run 1's 164 s limit, with room (it passed in 261 s, one core busy:
# the check's CPU reference). Carry .device.
cd "$(dirname "$0")/../../.." || exit 1
bash bench/results/2026-12-06-s34/unpack.sh
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
ls /tmp/hcache | wc -l; nproc
time timeout 420 .device/tests/cuda_runtime --test-threads 1 --nocapture \
  packed_hybrid_sorts_one_bucket_a_chunk 2>&1 | tail -30 | tee "$OUT/log.txt"
