#!/usr/bin/env bash
# Configures and builds zonekv into build/ (or $ZONEKV_BUILD_DIR).
# Usage: scripts/build.sh [extra cmake -D options]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ZONEKV_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
