#!/bin/bash
# Session 11 run 2: hist_bytes block size (no CUB), then histograms and scans with CUB in the
# same run (fair timing: whole calls), and the scan pacing by size.
cd "$(dirname "$0")/.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
echo "== hist_bytes threads A/B (no CUB), 64 MiB and 1 GiB"
for t in 512 256 1024 512; do echo "-- threads $t"; HISTOSORT_HIST_THREADS=$t timeout 100 $B bench peers --no-cub --cases "histogram u8" 2>&1 | grep -E "^histogram u8" ; done
echo "== peers with CUB: u8 histograms, bins, u16, rgba, scans, copy"
timeout 300 $B bench peers --cases "histogram,sum,copy" --json $OUT/peers.json 2>&1 | grep -v "^\s*$" | tail -50
echo "== bench scan by size: default pacing, then never the long sleep"
timeout 100 $B bench scan --sizes 4194304,16777216,67108864,268435456 --samples 15 2>&1 | grep pipelined | head -24
HISTOSORT_SCAN_PIPE=pace_tiles=4294967295 timeout 100 $B bench scan --sizes 4194304,16777216,67108864,268435456 --samples 15 2>&1 | grep pipelined | head -24
rm -f $OUT/*.svg
