#!/bin/bash
# Session 10 run 3: pipelined scan on mbarrier hand-offs (tests, sanitizers, CUB), bins block size A/B.
cd "$(dirname "$0")/.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== tests"
timeout 120 $T/cuda_runtime --test-threads 1 pipelined_scan lookback_scan bins_histograms 2>&1 | grep -E "^test |test result"
timeout 150 $T/scan 2>&1 | grep -E "test result|FAIL|panic" | head
timeout 150 $T/histogram 2>&1 | grep -E "test result|FAIL|panic" | head
HISTOSORT_BINS_THREADS=1024 timeout 120 $T/cuda_runtime --test-threads 1 bins_histograms 2>&1 | grep -E "test result"
HISTOSORT_BINS_THREADS=1024 timeout 150 $T/histogram 2>&1 | grep -E "test result|FAIL|panic" | head
HISTOSORT_BINS_THREADS=512 timeout 120 $T/cuda_runtime --test-threads 1 bins_histograms 2>&1 | grep -E "test result"
echo "== sanitizers (pipelined scan)"
HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool racecheck $T/cuda_runtime --test-threads 1 pipelined_scan > $OUT/racecheck.txt 2>&1; tail -2 $OUT/racecheck.txt
HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool synccheck $T/cuda_runtime --test-threads 1 pipelined_scan 2>&1 | tail -2
HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool memcheck $T/cuda_runtime --test-threads 1 pipelined_scan 2>&1 | tail -2
HISTOSORT_SANITIZE_SMALL=1 HISTOSORT_BINS_THREADS=1024 timeout 150 compute-sanitizer --tool memcheck $T/cuda_runtime --test-threads 1 bins_histograms 2>&1 | tail -2
echo "== bins threads A/B (no CUB)"
for t in 256 512 1024 256 1024; do echo "-- threads $t"; HISTOSORT_BINS_THREADS=$t timeout 100 $B bench peers --no-cub --sizes 268435456 --cases "f32 even,i32 even,u32 even,range" 2>&1 | grep -E "^histogram"; done
echo "== peers with CUB: scans (new default), bins at 1024 threads, copy"
HISTOSORT_BINS_THREADS=1024 timeout 250 $B bench peers --sizes 268435456 --cases "sum,copy,f32 even,i32 even,u32 even,range" --json $OUT/peers.json 2>&1 | grep -v "^\s*$" | tail -24
rm -f $OUT/*.svg
