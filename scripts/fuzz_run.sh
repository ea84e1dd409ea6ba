#!/usr/bin/env bash
# Runs one libFuzzer target of fuzz/ for SECONDS from its seed corpus.
# Usage: scripts/fuzz_run.sh TARGET [SECONDS]   (after a ZONEKV_FUZZ=ON build)
#   TARGET    a directory name of fuzz/corpus/ (superblock, flags, ...)
#   SECONDS   fuzzing time, default 30
# New corpus entries go to $ZONEKV_FUZZ_BUILD_DIR/fuzz-work/TARGET (the
# checked-in seeds are only read); a crashing input is saved as
# $ZONEKV_FUZZ_BUILD_DIR/fuzz-artifacts/TARGET-crash-<sha1>. Prints the
# run's final line (executions, coverage); exits non-zero on a crash, a leak,
# a sanitizer report or a timeout, after printing the report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ZONEKV_FUZZ_BUILD_DIR:-$root/build-fuzz}
target=$1
seconds=${2:-30}
work="$build/fuzz-work/$target"
artifacts="$build/fuzz-artifacts"
log="$build/fuzz-logs/$target.log"
mkdir -p "$work" "$artifacts" "$build/fuzz-logs"
status=0
"$build/fuzz/${target}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$artifacts/$target-" "$work" "$root/fuzz/corpus/$target" >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  echo "== fuzz: $target FAILED (exit $status); input saved under $artifacts/; log $log:"
  grep -v '^#[0-9]' "$log" | tail -40
  exit 1
fi
echo "== fuzz: $target ${seconds}s: $(grep -E '^#[0-9]+' "$log" | tail -1)"
