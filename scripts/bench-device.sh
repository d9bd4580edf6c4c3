#!/usr/bin/env bash
# Runs the full `histosort bench` on the GPU machine, from the repo root, with the staged
# release binary (.device/histosort, see scripts/stage-device.sh). Results land in $OUT (or
# ./bench-out): <date>-h200.json, the SVG charts next to it, the tables (.txt) and the PTX/SASS
# export. Copy them into bench/results/ afterwards.
#
#   bash scripts/bench-device.sh              # every suite, one process (~7 min, see below)
#   bash scripts/bench-device.sh sort peers   # some suites only (the JSON name gets them)
#
# Estimated device time of the full run on an H200 (sizes and sample counts as in
# src/bench/mod.rs; cases stop sampling at ~1 s of timed work each):
#   NVRTC compile of the kernels on a fresh machine   ~0.5 min
#   hist-study  (64 MiB, 5 variants x 2 inputs, 1 + 20 + 50 runs each)   ~0.2 min
#   contention  (64 MiB, 5 variants x 9 distinct counts)                 ~0.5 min
#   sort        (4,194,915 / 2^24 / 2^28, keys and pairs, CPU baselines) ~1.5 min
#   graph       (2^10..2^24, b=4 and b=8, stream and graph)              ~0.7 min
#   scan        (2^20 / 2^24 / 2^28)                                     ~0.1 min
#   peers       (histosort side ~1 min; nvcc build of CUB ~1-2 min; CUB runs ~0.3 min)
#   total                                                                ~6-7 min
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${HISTOSORT_BIN:-.device/histosort}
out=${OUT:-bench-out}
mkdir -p "$out"
if [ ! -x "$bin" ]; then
  echo "no binary at $bin: run scripts/stage-device.sh first (or set HISTOSORT_BIN)" >&2
  exit 1
fi
stamp=$(date -u +%Y-%m-%d)
tag=h200
if [ "$#" -gt 0 ]; then tag="h200-$(echo "$*" | tr ' ' '-')"; fi
json="$out/$stamp-$tag.json"
echo "estimated device time: ~6-7 min for every suite (see the header of this script)"
echo "writing $json, charts and tables into $out/"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv 2>/dev/null | tee "$out/$stamp-$tag-nvidia-smi.txt"
command -v nvcc >/dev/null && nvcc --version | tail -2
start=$(date +%s)
"$bin" --backend cuda bench "$@" --json "$json" --export-ptx "$out/ptx" 2>&1 | tee "$out/$stamp-$tag.txt"
rc=${PIPESTATUS[0]}
echo "bench exited with $rc after $(( $(date +%s) - start )) s"
exit "$rc"
