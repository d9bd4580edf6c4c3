#!/bin/bash
# Session 24 run 5: where packed pairs spend their time, pass by pass (ncu, clocks left alone):
# u32/u32 pairs 2^26, packed (first pass packs, last unpacks) against the pair passes.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
for m in 2 0; do
  echo "== HISTOSORT_PACKED_MIN=$m ($SECONDS s)"
  HISTOSORT_PACKED_MIN=$m timeout 200 ncu --clock-control none -k regex:"onesweep_pass|histogram_lanes" -c 15 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,lts__t_sectors_op_write.sum \
    --csv $B bench peers --no-cub --sizes 2^26 --cases sort-pairs --samples 3 --warmups 1 > $OUT/ncu-$m.csv 2>&1
  python3 - $OUT/ncu-$m.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; rows = rows[1:]
ki, mi, vi, ii = hdr.index("Kernel Name"), hdr.index("Metric Name"), hdr.index("Metric Value"), hdr.index("ID")
by = {}
for r in rows:
    by.setdefault((int(r[ii]), r[ki].split("(")[0]), {})[r[mi]] = r[vi]
for (i, k), m in sorted(by.items()):
    print(i, k, *(f"{n.split('__')[1]}={m.get(n)}" for n in ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "smsp__inst_executed.sum", "lts__t_sectors_op_write.sum"]))
PY
done
echo "done ($SECONDS s)"
