#!/bin/bash
# Session 10 run 4: the full peers suite on the final defaults, CUB in the same run.
cd "$(dirname "$0")/.."
exec > >(tee -a $OUT/log.txt) 2>&1
timeout 560 .device/histosort bench peers --json $OUT/peers.json 2>&1 | grep -v "^\s*$" | tail -80
rm -f $OUT/*.svg
