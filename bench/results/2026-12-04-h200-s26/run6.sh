#!/bin/bash
# Session 26 run 6: u64 keys with 8- and 16-byte values, hybrid against LSD passes
# (examples/gpu_wide_pairs.rs), at 2^21, 2^23, 2^25, 2^27: does the hybrid's default for 64-bit
# pairs (from 2^21, measured with 4-byte values) hold for wider values?
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-04-h200-s26/unpack.sh > /dev/null
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 .device/gpu_wide_pairs 21 23 25 27
echo "rc $? ($SECONDS s)"
