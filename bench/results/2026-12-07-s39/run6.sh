#!/bin/bash
# Session 39, run 6 (typed at the warm device's prompt, kept here): the sort and pairs suites
# again, two test threads and a longer limit (run 5's 150 s cut both off before they reported).
. "$(dirname "$0")/../device-lib.sh"
for t in sort pairs; do
    echo "-- $t ($SECONDS s)"
    timeout 270 "$D/tests/$t" --test-threads=2 2>&1 |
        grep -E "^test |^test result|FAILED|panicked" | tail -80
done
