#!/bin/bash
# Session 44, run 4 (~520 s, the H100 still warm): the byte histogram's block size at 64 MiB
# (distinct-8 and distinct-1 were 1.18-1.19x CUB in run 2; 1.2x asked), CUB in each run; then
# every cuda_runtime test on this binary. Carry .device.
. "$(dirname "$0")/../device-lib.sh"
for t in 512 1024 256 512; do
    peers hist-threads-$t 2^20 "histogram u8" HISTOSORT_HIST_THREADS=$t
done
pack_json
cuda_test cuda-runtime $((560 - SECONDS)) --
echo "done ($SECONDS s)"
