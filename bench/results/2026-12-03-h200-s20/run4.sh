#!/bin/bash
# Session 20 run 4: the digit histogram's block shape (HISTOSORT_HIST_LANES): the default 1024
# threads x 4 passes x 1 block per SM (32 warps) against 1024x2x2 and 512x1x4 (64 warps) and
# 512x2x3 (48 warps), the passes split into groups that read the same keys at the same time.
# ncu of the histogram kernel (u32 2^28), whole sorts (one round: little device time was left
# after the machine was taken back mid-run once), the histogram test on two non-default shapes.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
S0="threads=1024,passes=4,blocks=1"; SA="threads=1024,passes=2,blocks=2"
SB="threads=512,passes=2,blocks=3"; SC="threads=512,passes=1,blocks=4"
for s in $S0 $SA $SB $SC; do echo "== ncu $s ($SECONDS s)"
  HISTOSORT_HIST_LANES=$s timeout 40 ncu --clock-control base -k regex:histogram_lanes -c 2 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
    --csv $B bench peers --no-cub --sizes 2^28 --cases "sort-keys u32" 2>&1 | grep histogram_lanes | awk -F'","' '{print $1, $(NF-2), $(NF)}'
done
for r in 1; do for s in $S0 $SA $SB $SC; do
  echo "== round $r $s ($SECONDS s)"
  HISTOSORT_HIST_LANES=$s timeout 60 $B bench peers --no-cub --sizes 2^24,2^26,2^28 \
    --cases "sort-keys u32,sort-keys u64,sort-keys f32" --json $OUT/r$r-$(echo $s | tr -d 'a-z=' | tr ',' 'x').json 2>&1 | grep -E "^sort|rror|anic"
done; done
rm -f $OUT/*.svg
echo "== digit histogram test, 512x1x4 and 1024x2x2 ($SECONDS s)"
for s in $SC $SA; do HISTOSORT_HIST_LANES=$s timeout 40 $T/cuda_runtime --test-threads 1 digit_histograms 2>&1 | grep -E "test result|panicked" | head -3; done
echo "done ($SECONDS s)"
