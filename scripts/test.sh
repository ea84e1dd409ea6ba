#!/usr/bin/env bash
# Builds zonekv from scratch if needed and runs the fast test suite.
# Tests labelled `slow` are skipped; run them with: ctest --test-dir build -L slow
#   ZONEKV_SANITIZE=1 scripts/test.sh   also builds and tests with ASan+UBSan in build-asan/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)

"$root/scripts/build.sh"
ctest --test-dir "$root/build" -LE slow -j "$jobs" --output-on-failure --timeout 600

if [ "${ZONEKV_SANITIZE:-0}" = "1" ]; then
  ZONEKV_BUILD_DIR="$root/build-asan" "$root/scripts/build.sh" -DZONEKV_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$root/build-asan" -LE "slow|nosan" -j "$jobs" --output-on-failure --timeout 900
fi
