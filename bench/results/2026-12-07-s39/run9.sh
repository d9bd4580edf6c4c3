#!/bin/bash
# Session 39, run 9 (typed at the warm device's prompt in two calls, kept here): run 8's CLI and
# pairs suites again with longer limits (run 8's 60 s and 100 s cut them off on a cold cache).
. "$(dirname "$0")/../device-lib.sh"
echo "-- cli ($SECONDS s)"
HISTOSORT_BIN=$D/histosort timeout 140 "$D/tests/cli" --test-threads=1 2>&1 |
    grep -E "^test result|FAILED|panicked|failed"
echo "-- pairs ($SECONDS s)"
timeout 135 "$D/tests/pairs" --test-threads=2 2>&1 | grep -E "^test result|FAILED|panicked"
