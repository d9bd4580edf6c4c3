#!/bin/bash
# Session 38, run 1: session 37's run7.sh (the u64 hybrid with balanced warps and 256-thread
# in-bucket blocks, ~7 min), then the CPU byte histogram on the device host's cores: the
# AVX-512 counter (cpu::hist_simd) against the scalar one, 1 thread and all (examples/hist_prof,
# 256 MiB of random bytes, best of 7, checked against the reference). Carry .device
# (bins.tar.xz and hist_prof).
cd "$(dirname "$0")/../../.." || exit 1
bash bench/results/2026-12-07-s37/run7.sh
exec > >(tee -a "$OUT/log.txt") 2>&1
echo "-- host CPU byte histogram"
lscpu | grep -E "Model name|^CPU\(s\)"
grep -o -w -E "avx512vbmi2|avx512_vbmi2|avx512bitalg|avx512_bitalg|gfni" /proc/cpuinfo | sort | uniq -c
n=$(nproc)
for t in 1 2 $n; do
    for w in simd scalar; do
        timeout 60 .device/hist_prof $w $t 7
    done
done
