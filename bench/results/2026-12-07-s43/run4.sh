#!/bin/bash
# Session 43, run 4 (~330 s; the device time left after runs 1-3): issue 5's table with CUB in
# the same run on whichever card comes (the H200's last is sessions 24-25, the H100's session
# 41), u32 keys and u32/u32 pairs first. Carry .device.
. "$(dirname "$0")/../device-lib.sh"
table 240 320 "sort-keys u32" "sort-pairs u32" "sort-keys f32" "sort-keys u64"
pack_json
echo "done ($SECONDS s)"
