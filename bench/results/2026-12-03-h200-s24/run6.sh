#!/bin/bash
# Session 24 run 6: run 5 found the packed sort's last pass (two 4-byte scattered runs per digit
# from a 5632-element tile) at 534 us against 380 for a middle pass and 445 for a pair pass
# (9984-pair tile). Do wider tiles for the packed passes pay? Whole sorts by tile
# (HISTOSORT_ONESWEEP_SHAPE, which the packed passes take), then ncu per pass for two of them.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
for sh in default 384x20x2 512x16x2 256x32x2 default; do
  echo "-- $sh ($SECONDS s)"
  if [ $sh = default ]; then unset HISTOSORT_ONESWEEP_SHAPE; else export HISTOSORT_ONESWEEP_SHAPE=$sh; fi
  timeout 90 $B bench peers --no-cub --sizes 2^22,2^24,2^26,2^28 --cases sort-pairs --json $OUT/t-$sh.json 2>&1 | grep -E "^sort|rror|anic"
done
unset HISTOSORT_ONESWEEP_SHAPE
rm -f $OUT/*.svg
for sh in 384x20x2 512x16x2; do
  echo "== ncu $sh ($SECONDS s)"
  HISTOSORT_ONESWEEP_SHAPE=$sh timeout 100 ncu --clock-control none -k regex:"onesweep_pass" -c 4 \
    --metrics gpu__time_duration.sum,lts__t_sectors_op_write.sum \
    --csv $B bench peers --no-cub --sizes 2^26 --cases sort-pairs --samples 3 --warmups 1 > $OUT/ncu-$sh.csv 2>&1
  grep onesweep_pass $OUT/ncu-$sh.csv | grep -E "duration|sectors" | awk -F'","' '{print $(NF-2), $NF}'
done
echo "done ($SECONDS s)"
