# Helpers for the device run scripts under bench/results/ (sourced, not run): the preamble that
# every run repeats, the probe's build and summary, `bench peers` and one cuda_runtime test
# selection, each printing a `-- LABEL (N s)` header. A script sources it from the repo root's
# bench/results/ folder:
#   . "$(dirname "$0")/../device-lib.sh"
# Carry .device with bins.tar.xz (histosort, tests/cuda_runtime, run-gpu-suite.sh).

# The repo root, the carried binaries unpacked into $D, the output mirrored to $OUT/log.txt,
# the GPU named.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
bash bench/results/2026-12-06-s34/unpack.sh
D=$PWD/.device
B=/tmp/probe
mkdir -p "$B"
exec > >(tee -a "$OUT/log.txt") 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader

# probe_build NAME NVCC_FLAGS...: bench/proto/hybrid_inbucket.cu built as $B/NAME (run it in the
# background and wait on its pid: a bare `wait` would also wait for the log's tee).
probe_build() {
    local name=$1
    shift
    (cd bench/proto && timeout 300 nice nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo "$@" \
        hybrid_inbucket.cu -o "$B/$name" 2>&1 | grep -v Warn | head -8)
}

# probe_run NAME LOG2_N REPS: the probe's setting, its check and the in-bucket kernel's time.
probe_run() {
    echo "=== $1 2^$2 ($SECONDS s)"
    timeout 40 "$B/$1" "$2" "$3" > /tmp/o.txt 2>&1
    grep -E "^n =|chunk_log2|per SM|MISMATCH|equals|not run|rror" /tmp/o.txt
    grep -A2 "^hybrid_local_sort (top" /tmp/o.txt | tail -2
}

# peers LABEL SIZES CASES [VAR=VALUE...]: `bench peers` with CUB unless NOCUB=--no-cub, its JSON
# as $OUT/LABEL.json.
peers() {
    local l=$1 sizes=$2 cases=$3
    shift 3
    echo "-- $l ($SECONDS s)"
    env "$@" timeout 120 "$D/histosort" bench peers $NOCUB --sizes "$sizes" --cases "$cases" \
        --json "$OUT/$l.json" 2>&1 | grep -E "^sort|^hist|^scan|rror|anic|bench on"
}

# pack_json: the JSON under $OUT in one archive (a call brings back at most 8 files).
pack_json() {
    (cd "$OUT" && tar czf json.tgz ./*.json && rm -f ./*.json ./*.svg)
}

# cuda_test LABEL LIMIT_S [VAR=VALUE...] -- TEST_ARGS...: cuda_runtime's tests, one at a time.
cuda_test() {
    local l=$1 s=$2
    shift 2
    local vars=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        vars+=("$1")
        shift
    done
    shift
    echo "-- $l ($SECONDS s, limit $s s)"
    env "${vars[@]}" timeout "$s" "$D/tests/cuda_runtime" --test-threads 1 "$@" 2>&1 |
        grep -E "^test |^test result|FAILED|panicked|failed|rror|mismatch" | head -60
}

# table STOP_S LIMIT_S CASE...: issue 5's table (2^12 to 2^28, CUB in the same run), one
# `bench peers` per case as $OUT/CASE.json (spaces as dashes); a case is skipped once $SECONDS
# passes STOP_S, and each runs until at most LIMIT_S.
table() {
    local stop=$1 limit=$2 c l
    shift 2
    local s=2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
    for c in "$@"; do
        if [ "$SECONDS" -gt "$stop" ] || [ $((limit - SECONDS)) -le 0 ]; then
            echo "skipped $c (time)"
            continue
        fi
        l=${c// /-}
        echo "-- $l ($SECONDS s)"
        timeout $((limit - SECONDS)) "$D/histosort" bench peers --sizes "$s" --cases "$c" \
            --json "$OUT/$l.json" 2>&1 | grep -E "^sort|rror|anic|bench on"
    done
}
