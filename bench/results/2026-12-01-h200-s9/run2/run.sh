#!/usr/bin/env bash
# session 9, run 2: why the 11-bit pass is 3.3x slower: ncu details 8 vs 11, look-back sleep
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
B=$PWD/.device/histosort; R=/tmp/s9r2; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s9r2.tgz -C /tmp s9r2; }
$B gen /tmp/d/k26.npy --dtype u32 --n 2^26 --seed 7 -q
for bits in 8 11; do
  HISTOSORT_ONESWEEP_DIGIT_BITS=$bits timeout 120 ncu --clock-control none -k regex:onesweep_pass -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats $B sort /tmp/d/k26.npy -o /tmp/d/o.npy --backend cuda -q > $R/full-$bits.txt 2>&1; t full $bits rc=$?
done; pack
for sl in 32 128 512; do
  HISTOSORT_KERNEL_DEFINES=LB_SLEEP=$sl HISTOSORT_ONESWEEP_DIGIT_BITS=11 timeout 90 ncu --clock-control none -k regex:onesweep_pass --section SpeedOfLight $B sort /tmp/d/k26.npy -o /tmp/d/o.npy --backend cuda -q > $R/ncu-sleep-$sl.txt 2>&1
  echo "sleep $sl: $(grep -E '^\s+onesweep|Duration' $R/ncu-sleep-$sl.txt | awk '/onesweep/{n=$1} /Duration/{printf "%s %s %s; ", n, $3, $2}')"
done 2>&1 | tee $R/sleep.txt; pack; t done
