#!/bin/bash
# Session 33 run 1 (speed, H100): the pass kernel's tiles, L2 prefetch and value order were tuned
# on the H200; here u32/u32 pairs (level with CUB on the H100) and u32 / f32 keys at 2^26-2^28
# are swept on this card, defaults run first and last (--no-cub: the ratios come from run 2).
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s33/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
# $1 label, $2 sizes, $3 case, then env
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
pk p-512x20 $P "sort-pairs u32" $S=512x20x2
pk p-256x24x3 $P "sort-pairs u32" $S=256x24x3
pk p-pf132 $P "sort-pairs u32" $K=PREFETCH_AHEAD=132
pk p-vl0 $P "sort-pairs u32" $K=VALUES_LATE=0
pk p-base2 $P "sort-pairs u32" X=1
Q=2^26,2^28
for t in f32 u32; do
  pk $t-base $Q "sort-keys $t" X=1
  pk $t-256x36 $Q "sort-keys $t" $S=256x36x3
  pk $t-256x44 $Q "sort-keys $t" $S=256x44x3
  pk $t-pf264 $Q "sort-keys $t" $K=PREFETCH_AHEAD=264
  pk $t-pf0 $Q "sort-keys $t" $K=PREFETCH_AHEAD=0
done
pk f32-base2 $Q "sort-keys f32" X=1
(cd $OUT && tar czf json.tgz *.json && rm -f *.json)
echo "done ($SECONDS s)"
