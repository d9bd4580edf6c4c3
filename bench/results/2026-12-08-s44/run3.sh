#!/bin/bash
# Session 44, run 3 (<= 560 s): every cuda_runtime test on whichever card comes (the whole
# binary last ran on an H200 in session 27; since then on H100s only). Carry .device.
. "$(dirname "$0")/../device-lib.sh"
cuda_test cuda-runtime 540 -- 
echo "done ($SECONDS s)"
