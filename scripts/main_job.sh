#!/usr/bin/env bash
# The main job: builds zonekv, then runs the default experiment (the baseline
# against the best scheme available, on a write-heavy YCSB workload with
# BlobDB), prints its table and writes results.json, summary.md and figures.
# Timed (ZN540 profile); about 1-1.5 minutes on 2 cores once built.
# Usage: scripts/main_job.sh [--out=DIR] [more `zonekv experiment` flags, e.g. --seeds=3]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ZONEKV_BUILD_DIR:-$root/build}
out=$root/out/main
args=()
for a in "$@"; do
  case "$a" in
    --out=*) out=${a#--out=} ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$a") ;;
  esac
done
"$root/scripts/build.sh"
exec "$build/src/tools/zonekv" experiment main --out="$out" --seeds=2 "${args[@]}"
