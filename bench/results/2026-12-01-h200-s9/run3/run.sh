#!/usr/bin/env bash
# session 9, run 3: the wide look-back a tile at a time (AND/OR of a thread's words), LB_TILES 4/8, sleep; tile test
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s9r3; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s9r3.tgz -C /tmp s9r3; }
$B gen /tmp/d/k26.npy --dtype u32 --n 2^26 --seed 7 -q
$B gen /tmp/d/q26.npy --dtype u64 --n 2^26 --seed 8 -q
run() { # label file env...
  local l=$1 f=$2; shift 2
  env "$@" timeout 90 ncu --clock-control none -k regex:onesweep --section SpeedOfLight --metrics smsp__inst_executed.sum $B sort /tmp/d/$f.npy -o /tmp/d/o.npy --backend cuda -q > $R/ncu-$l.txt 2>&1
  echo "$l: $(grep -E '^\s+onesweep|Duration|inst_executed' $R/ncu-$l.txt | awk '/onesweep/{n=$1} /Duration/{printf "%s %s %s ", n, $3, $2} /inst_executed/{printf "(%s inst); ", $3}')"
}
{
run k26-8 k26 HISTOSORT_ONESWEEP_DIGIT_BITS=8
run k26-11-lb4 k26 HISTOSORT_ONESWEEP_DIGIT_BITS=11
run k26-11-lb8 k26 HISTOSORT_ONESWEEP_DIGIT_BITS=11 HISTOSORT_KERNEL_DEFINES=LB_TILES=8
run k26-11-lb4-s100 k26 HISTOSORT_ONESWEEP_DIGIT_BITS=11 HISTOSORT_KERNEL_DEFINES=LB_SLEEP=100
run k26-11-lb2 k26 HISTOSORT_ONESWEEP_DIGIT_BITS=11 HISTOSORT_KERNEL_DEFINES=LB_TILES=2
run q26-11-lb4 q26 HISTOSORT_ONESWEEP_DIGIT_BITS=11
} 2>&1 | tee $R/ncu.txt; t ncu; pack
python3 -c "
import numpy as np
k=np.load('/tmp/d/q26.npy'); o=np.load('/tmp/d/o.npy'); print('u64 2^26 11-bit', 'OK' if np.array_equal(o,np.sort(k)) else 'MISMATCH')"
timeout 200 .device/tests/cuda_runtime onesweep_tiles --test-threads=1 > $R/test-tiles.txt 2>&1; t tiles test rc=$?; grep -E "test result|FAILED|panicked|error" $R/test-tiles.txt | head -8; pack; t done
