#!/usr/bin/env bash
# Builds the release binary and every test executable here (no GPU or CUDA toolkit needed) and
# stages them, stripped, in .device/ (git-ignored), so that a GPU machine without a Rust
# toolchain can run them:
#   bash scripts/stage-device.sh            # then, on the GPU machine, from the repo root:
#   HISTOSORT_REQUIRE_GPU=1 bash .device/run-gpu-suite.sh [--large | --sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
out=.device
rm -rf "$out"
mkdir -p "$out/tests"
cargo build --release --bin histosort
cargo test --release --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        # The library and the binary are both named histosort: the kind keeps them apart.
        kind = m["target"]["kind"]
        suffix = "-lib" if "lib" in kind else "-bin" if "bin" in kind else ""
        print(m["target"]["name"] + suffix, m["executable"])
' | while read -r name exe; do
  cp "$exe" "$out/tests/$name"
done
cp "$target/release/histosort" "$out/histosort"
strip "$out/histosort" "$out"/tests/* 2>/dev/null || true
cat > "$out/run-gpu-suite.sh" <<'RUN'
#!/usr/bin/env bash
# Runs every staged test executable; with --large, also the sort of more than 2^31 keys; with
# --sanitize, also runs the CUDA-only tests under
# compute-sanitizer's memcheck, racecheck and synccheck (without the planted out-of-memory
# test, whose refused allocation memcheck would report).
set -uo pipefail
cd "$(dirname "$0")/.."
export HISTOSORT_REQUIRE_GPU=${HISTOSORT_REQUIRE_GPU:-1}
fail=0
for t in .device/tests/*; do
  echo "=== $(basename "$t")"
  case "$(basename "$t")" in
    # The CLI tests run the staged binary (their default backend, auto, is the GPU here).
    cli) HISTOSORT_BIN=$PWD/.device/histosort "$t" --test-threads=1 || fail=1 ;;
    *) "$t" --test-threads=1 || fail=1 ;;
  esac
done
if [ "${1:-}" = "--large" ]; then
  # A sort of more than 2^31 keys (about 26 GB of host memory, 17 GB of GPU memory).
  echo "=== cuda_runtime onesweep_above_2_pow_31 (ignored by default)"
  .device/tests/cuda_runtime --ignored --exact onesweep_above_2_pow_31 --test-threads=1 || fail=1
fi
if [ "${1:-}" = "--sanitize" ]; then
  for tool in memcheck racecheck synccheck; do
    echo "=== compute-sanitizer --tool $tool"
    HISTOSORT_SANITIZE_SMALL=1 compute-sanitizer --tool "$tool" --error-exitcode 97 \
      .device/tests/cuda_runtime --test-threads=1 --skip out_of_memory || fail=1
  done
fi
exit $fail
RUN
chmod +x "$out/run-gpu-suite.sh"
du -sh "$out"
