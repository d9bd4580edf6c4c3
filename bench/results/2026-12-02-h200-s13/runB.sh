#!/bin/bash
# Session 13 run B: the cluster look-back prototype (bench/proto/cluster_lookback.cu), 2^26 u32.
cd "$(dirname "$0")/../../.."
exec > >(tee -a $OUT/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
nvcc --version | tail -2
time nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v bench/proto/cluster_lookback.cu -o /tmp/cl 2>&1 | grep -E "error|registers|spill|Compiling entry" | sed 's/ptxas info    ://' | head -40
timeout 300 /tmp/cl 26
