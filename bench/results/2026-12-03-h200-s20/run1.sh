#!/bin/bash
# Session 20 run 1: (a) the hybrid sort with one bucket per in-bucket block
# (HISTOSORT_HYBRID_FILL=0: u64 buckets sort on 48 bits in 6 passes, where chunks of 2-8
# buckets take 7) against the default chunks and the LSD sort, u64 keys 2^24-2^28, two rounds;
# its test first. (b) ncu of CUB's u32 and f32 sorts at 2^28 side by side (why CUB's f32 sort
# is 9% faster than its u32 one on the same bits).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== hybrid test, fill 0 and default ($SECONDS s)"
for f in 0 8; do HISTOSORT_HYBRID_FILL=$f timeout 100 $T/cuda_runtime --test-threads 1 hybrid 2>&1 | grep -E "test |test result|panicked|SKIP" | head -4; done
for r in 1 2; do
  for c in lsd:0:8 hyb8:16777216:8 hyb0:16777216:0; do IFS=: read name min fill <<< "$c"
    echo "== round $r $name ($SECONDS s)"
    HISTOSORT_HYBRID_MIN=$min HISTOSORT_HYBRID_FILL=$fill timeout 100 $B bench peers --no-cub \
      --sizes 2^24,2^25,2^26,2^27,2^28 --cases "sort-keys u64" --json $OUT/r$r-$name.json 2>&1 | grep -E "^sort|rror|anic"
  done
done
rm -f $OUT/*.svg
echo "== CUB under ncu ($SECONDS s)"
nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/cub_bench bench/cub/cub_bench.cu && \
timeout 200 ncu --clock-control base --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__shared_mem_per_block_dynamic \
  --csv /tmp/cub_bench --warmups 0 --samples 1 sort-keys u32 268435456 sort-keys f32 268435456 > $OUT/cub-ncu.csv 2> $OUT/cub-ncu.err
echo "rc $? ($SECONDS s)"; grep -c . $OUT/cub-ncu.csv; tail -3 $OUT/cub-ncu.err
echo "done ($SECONDS s)"
