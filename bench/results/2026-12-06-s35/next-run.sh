#!/bin/bash
# For the next session's first device run (written in session 35, not yet run): the packed
# hybrid for u32/u32 pairs, default off. Stage first (scripts/stage-device.sh; carry .device
# with bins.tar.xz holding histosort and tests/cuda_runtime). 1. the hybrid test with the warps
# balanced and with keys staged as ranked (both switches default off; the test passed with
# both off on the H100 in session 35, run 2); 2. u32/u32 pairs 2^22-2^28: the packed LSD sort
# with CUB in the same run, then the packed hybrid (HISTOSORT_HYBRID_MIN) as it is, balanced,
# balanced and staged, and the LSD sort again; 3. the in-bucket probe (bench/proto, nvcc).
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s34/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
B=/tmp/probe
mkdir -p $B
build() {
    local name=$1
    shift
    (cd bench/proto && nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo "$@" hybrid_inbucket.cu -o $B/$name 2>&1 | head -20)
}
# (Built in the background; waited for by pid: a bare `wait` would also wait for the tee above.)
pids=()
build pairs_b0 -DPROBE_PACKED=0 -DHYB_BALANCE=0 & pids+=($!)
build packed_b0 -DPROBE_PACKED=1 -DHYB_BALANCE=0 & pids+=($!)
build packed_b1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 & pids+=($!)
build packed_b1_s1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_STAGE=1 & pids+=($!)
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s)"; env "$@" timeout $s "${CMD[@]}" 2>&1 | grep -E "^test result|FAILED|panicked|failed|rror|mismatch" | head -20; }
CMD=($D/tests/cuda_runtime --test-threads 1 --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew)
t hybrid-test-balanced 240 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
t hybrid-test-balanced-staged 240 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1,HYB_STAGE=1
pk() {
  local l=$1; shift
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 150 $D/histosort bench peers $NOCUB --sizes 2^22,2^24,2^26,2^28 --cases "sort-pairs u32" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic|bench on"
}
NOCUB=
pk p-lsd X=1
NOCUB=--no-cub
pk p-hybrid HISTOSORT_HYBRID_MIN=2097152
pk p-hybrid-bal HISTOSORT_HYBRID_MIN=2097152 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
pk p-hybrid-bal-st HISTOSORT_HYBRID_MIN=2097152 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1,HYB_STAGE=1
pk p-lsd-again X=1
wait "${pids[@]}"
for lg in 26 28; do
    for b in pairs_b0 packed_b0 packed_b1 packed_b1_s1; do
        echo "=== $b 2^$lg"
        timeout 100 $B/$b $lg 21 | head -16
    done
done
(cd $OUT && tar czf json.tgz *.json && rm -f *.json *.svg)
echo "done ($SECONDS s)"
