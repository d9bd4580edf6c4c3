#!/bin/bash
# Session 40, run 1: what a first use costs (the kernel cache empty, then warm: `info`, `demo`,
# `sort` of a 2^24 u32 file), then issue 5's table at every power of two from 2^12 to 2^28
# (u32 keys, u32/u32 pairs, u64 keys, f32 keys) and u32 bits [0,16) at 2^24-2^28, CUB in the
# same run, on the defaults of session 39 (staged binary built from 2e2400f; later commits
# change no code). Carry .device.
. "$(dirname "$0")/../device-lib.sh"
H=$D/histosort
W=/tmp/s40
mkdir -p $W
t() { local s=$EPOCHREALTIME; "$@" > /tmp/t.out 2>&1; local rc=$?;
      python3 -c "import sys; print(f'{sys.argv[1]}: rc {sys.argv[2]}, {float(sys.argv[4]) - float(sys.argv[3]):.2f} s')" \
        "$*" $rc $s $EPOCHREALTIME; }
echo "-- first use ($SECONDS s)"
$H gen $W/k24.npy --dtype u32 --n 2^24 --seed 5 -q
for round in cold warm; do
  [ $round = cold ] && rm -rf /tmp/hc-first
  export HISTOSORT_CACHE_DIR=/tmp/hc-first
  echo "[$round]"
  t $H info
  t $H demo -q
  grep -iE "speed|GB/s|keys/s|valid" /tmp/t.out | head -6
  t $H sort $W/k24.npy -o $W/s24-$round.npy -q
  echo "cache entries: $(ls /tmp/hc-first 2>/dev/null | wc -l)"
done
export HISTOSORT_CACHE_DIR=/tmp/hcache
S=2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
# (`sort-keys u32` also takes the bits [0,16) case where the suite has it.)
for c in "sort-keys u32" "sort-pairs u32" "sort-keys u64" "sort-keys f32"; do
  l=${c// /-}
  echo "-- $l ($SECONDS s)"
  timeout 200 $H bench peers --sizes "$S" --cases "$c" --json "$OUT/$l.json" 2>&1 |
    grep -E "^sort|rror|anic|bench on"
done
pack_json
ls $OUT
echo "done ($SECONDS s)"
