#!/bin/bash
# Session 33 run 2 (run 1 never got a machine; this is a shorter batch for the time left):
# the CLI tests on the GPU (staged binary through HISTOSORT_BIN, auto backend), the sort of
# more than 2^31 keys, then part of run 1's sweep (pairs tiles and prefetch, f32 tile/prefetch).
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s33/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
echo "== cli tests on the GPU ($SECONDS s)"
HISTOSORT_BIN=$D/histosort timeout 150 $D/tests/cli --test-threads=2 2>&1 | grep -E "^test |test result|panicked" | tail -30
echo "== onesweep_above_2_pow_31 ($SECONDS s)"
timeout 170 $D/tests/cuda_runtime --ignored --exact onesweep_above_2_pow_31 --test-threads=1 2>&1 | grep -E "^test |test result|panicked|SKIP"
pk() {
  local l=$1 s=$2 c=$3; shift 3
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 60 $D/histosort bench peers --no-cub --sizes $s --cases "$c" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic"
}
P=2^24,2^26,2^28
S=HISTOSORT_ONESWEEP_SHAPE
K=HISTOSORT_KERNEL_DEFINES
pk p-base $P "sort-pairs u32" X=1
pk p-384x22 $P "sort-pairs u32" $S=384x22x2
pk p-384x28 $P "sort-pairs u32" $S=384x28x2
pk p-pf132 $P "sort-pairs u32" $K=PREFETCH_AHEAD=132
pk p-base2 $P "sort-pairs u32" X=1
Q=2^26,2^28
pk f32-base $Q "sort-keys f32" X=1
pk f32-256x36 $Q "sort-keys f32" $S=256x36x3
pk f32-pf264 $Q "sort-keys f32" $K=PREFETCH_AHEAD=264
(cd $OUT && tar czf json.tgz *.json && rm -f *.json)
echo "done ($SECONDS s)"
