#!/bin/bash
# Session 22 run 3: evict-first loads of the pass's own tile (LOAD_STREAMING=1, new) and the L2
# prefetch distance (PREFETCH_AHEAD, tiles ahead) on today's tiles: u32/u32 pairs on 384x26x2
# (prefetch off by default: session 5 measured a loss on its 384x20 tile) and u32 keys on the
# long tile 256x40x3 (prefetch 264, tuned in session 5 on a 384x23 tile). Two rounds, in
# opposite orders.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
ab() {  # tag, defines, cases, sizes
  echo "== $1 ($SECONDS s)"
  HISTOSORT_KERNEL_DEFINES=$2 timeout 100 $B bench peers --no-cub \
    --sizes $4 --cases "$3" --json $OUT/$1.json 2>&1 | grep -E "^sort|rror|anic"
}
P=(def LOAD_STREAMING=1 PREFETCH_AHEAD=132 LOAD_STREAMING=1,PREFETCH_AHEAD=132)
K=(def LOAD_STREAMING=1 PREFETCH_AHEAD=132)
for r in 1 2; do
  order="0 1 2 3"; [ $r = 2 ] && order="3 2 1 0"
  for i in $order; do ab r$r-pairs-$i "${P[$i]/def/}" sort-pairs 2^24,2^26,2^28; done
  order="0 1 2"; [ $r = 2 ] && order="2 1 0"
  for i in $order; do ab r$r-u32-$i "${K[$i]/def/}" "sort-keys u32" 2^26,2^28; done
done
rm -f $OUT/*.svg
cd $OUT && tar czf json.tgz *.json && rm -f *.json
echo "done ($SECONDS s)"
