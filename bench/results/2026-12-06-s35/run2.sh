#!/bin/bash
# Session 35 run 2 (run 1, the probe alone, never got a machine): the packed hybrid for u32/u32
# pairs (two packed passes on bits 16-23 and 24-31, then the in-bucket kernel on the packed
# elements), default off. 1. the probe of the in-bucket kernel alone (bench/proto, nvcc), built
# while 2. the hybrid test runs with the packed hybrid (this test's backend takes the hybrid
# from 2^22 keys), with the warps as today and balanced; 3. the probe at 2^24/2^26/2^28, ncu of
# the balanced packed kernel at 2^26; 4. u32/u32 pairs 2^22-2^28: the packed LSD sort with CUB
# in the same run, then the packed hybrid (HISTOSORT_HYBRID_MIN) without and with balance.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s34/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
$D/histosort info 2>&1 | grep -i cuda
B=/tmp/probe
mkdir -p $B
build() {
    local name=$1
    shift
    (cd bench/proto && nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo "$@" hybrid_inbucket.cu -o $B/$name 2>&1 | head -20)
}
build pairs_b0 -DPROBE_PACKED=0 -DHYB_BALANCE=0 &
build packed_b0 -DPROBE_PACKED=1 -DHYB_BALANCE=0 &
build packed_b1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 &
build packed_b1_s1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_STAGE=1 &
build packed_b1_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=3 -DPROBE_FILL16=12 &
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s)"; env "$@" timeout $s "${CMD[@]}" 2>&1 | grep -E "^test result|FAILED|panicked|failed|rror" | head -20; }
CMD=($D/tests/cuda_runtime --test-threads 1 --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew)
t hybrid-test 240 X=1
t hybrid-test-balanced 240 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
wait $(jobs -p)
echo "-- probe ($SECONDS s)"
for lg in 26 28 24; do
    for b in pairs_b0 packed_b0 packed_b1 packed_b1_s1 packed_b1_i12; do
        echo "=== $b 2^$lg"
        timeout 100 $B/$b $lg 21 | head -16
    done
done
echo "-- ncu ($SECONDS s)"
timeout 120 ncu --kernel-name hybrid_local_sort --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --metrics smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
    $B/packed_b1 26 3 2>&1 | grep -v "^==PROF==" | grep -E "Duration|Throughput|inst_executed|bank_conflicts|Occupancy|Stall|Warp Cycles|Active Warps|Eligible" | head -30
pk() {
  local l=$1 s=$2 c=$3; shift 3
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 200 $D/histosort bench peers $NOCUB --sizes $s --cases "$c" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic|bench on"
}
P=2^22,2^23,2^24,2^25,2^26,2^27,2^28
NOCUB=
pk p-lsd $P "sort-pairs u32" X=1
NOCUB=--no-cub
pk p-hybrid $P "sort-pairs u32" HISTOSORT_HYBRID_MIN=2097152
pk p-hybrid-bal $P "sort-pairs u32" HISTOSORT_HYBRID_MIN=2097152 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
pk p-lsd-again $P "sort-pairs u32" X=1
(cd $OUT && tar czf json.tgz *.json && rm -f *.json *.svg)
echo "done ($SECONDS s)"
