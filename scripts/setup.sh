#!/usr/bin/env bash
# Installs the Debian packages zonekv needs to build, test and plot, and
# any further packages named as arguments (scripts/test.sh asks for clang-14
# with ZONEKV_CLANG_TSA=1). Safe to run repeatedly: it installs only what is
# missing.
set -euo pipefail

PACKAGES=(cmake ninja-build g++ libgtest-dev librocksdb-dev rocksdb-tools libzbd-dev pkg-config python3 python3-matplotlib
          "$@")

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "zonekv setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
