#!/bin/bash
# Session 44, run 2 (~200 s): issue 6's rows with CUB in the same run, at `bench peers`' own
# sizes (byte histograms at 64 MiB and 1 GiB, every distinct count and entropy preset; scans
# at 2^28; even and range bins at 2^26; the 16-bit and RGBA histograms; the copy). Carry .device.
. "$(dirname "$0")/../device-lib.sh"
echo "-- issue6 ($SECONDS s)"
timeout 400 "$D/histosort" bench peers --cases "histogram,-sum,copy" \
    --json "$OUT/issue6.json" 2>&1 | grep -vE "^\s*$" | tail -60
pack_json
echo "done ($SECONDS s)"
