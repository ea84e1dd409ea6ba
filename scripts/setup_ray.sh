#!/usr/bin/env bash
# Installs Ray from PyPI for `zonekv experiment --executor=ray[:ADDRESS]`,
# into the virtual environment build/ray-venv (Debian's python3, which is
# externally managed, with its system packages visible: matplotlib stays
# Debian's). `zonekv experiment --executor=ray...` runs the experiment runner
# with build/ray-venv/bin/python3. Safe to run repeatedly.
#   ZONEKV_RAY_SPEC   what pip installs (default: the Ray version the tests ran with);
#                     a cluster's Ray and Python versions must equal the driver's
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/build/ray-venv"
spec=${ZONEKV_RAY_SPEC:-ray==2.60.0}

"$root/scripts/setup.sh" python3-venv
if [ ! -x "$venv/bin/python3" ]; then
  mkdir -p "$root/build"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
if "$venv/bin/python3" - "$spec" <<'PY' 2>/dev/null; then
import sys
from importlib.metadata import version
import packaging.requirements
req = packaging.requirements.Requirement(sys.argv[1])
sys.exit(0 if req.specifier.contains(version(req.name), prereleases=True) else 1)
PY
  exit 0
fi
echo "zonekv setup: installing $spec from PyPI into $venv" >&2
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "$spec"
"$venv/bin/python3" -c 'import ray; print("zonekv setup: Ray %s in %s" % (ray.__version__, __import__("sys").prefix))' >&2
