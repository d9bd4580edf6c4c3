#!/bin/bash
# Session 20 run 2: the digit histogram of 64-bit keys in one launch (two sets of SMs count
# passes 0-3 and 4-7 over the same keys at the same time; HISTOSORT_HIST_ONE_READ=0: one launch
# and one read per group of 4 passes, as before). Its test, A/B with CUB, ncu of the histogram
# kernel (time, bytes read from memory), and the sort suite.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== digit histogram test ($SECONDS s)"
timeout 120 $T/cuda_runtime --test-threads 1 digit_histograms 2>&1 | grep -E "test |test result|panicked|SKIP" | head -4
for r in 1 2; do for o in 1 0; do echo "== round $r one-read $o ($SECONDS s)"
  c=--no-cub; [ $r$o = 11 ] && c=
  HISTOSORT_HIST_ONE_READ=$o timeout 150 $B bench peers $c --sizes 2^22,2^24,2^26 \
    --cases "sort-keys u64,sort-keys u32" --json $OUT/r$r-o$o.json 2>&1 | grep -E "^sort|rror|anic"
done; done
rm -f $OUT/*.svg
for o in 1 0; do echo "== ncu one-read $o ($SECONDS s)"
  HISTOSORT_HIST_ONE_READ=$o timeout 120 ncu --clock-control base -k regex:histogram_lanes -c 4 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_op_read.sum,launch__grid_size \
    --csv $B bench peers --no-cub --sizes 2^26 --cases "sort-keys u64" > $OUT/ncu-o$o.csv 2>&1
  grep -E "histogram_lanes" $OUT/ncu-o$o.csv | awk -F'","' '{print $1, $(NF-2), $(NF)}' | head -12
done
echo "== sort suite ($SECONDS s)"
timeout 200 $T/sort --test-threads 2 > $OUT/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/sort.txt | head -5
echo "done ($SECONDS s)"
