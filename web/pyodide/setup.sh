#!/usr/bin/env bash
# Prepares what web/pyodide/run.mjs needs; only the package registries (npm, PyPI) are used,
# nothing is fetched while the tests run. Called by `tox run -e pyodide`; by hand:
#   bash web/pyodide/setup.sh [GROUNDKIT_WHEEL]
# 1. npm ci: Pyodide (pinned in package-lock.json) into web/pyodide/node_modules
# 2. the groundkit wheel into web/pyodide/build/dist: GROUNDKIT_WHEEL, else $TOX_PACKAGE (the
#    wheel tox built for this env), else `pip wheel --no-deps` of the repository
# 3. the pinned test wheels (test-wheels.txt) into web/pyodide/build/wheels
# PYTHON selects the Python that runs pip (default: python3).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PYTHON="$(command -v "${PYTHON:-python3}")"
case "$PYTHON" in /*) ;; *) PYTHON="$PWD/$PYTHON" ;; esac  # absolute, before the cd (no realpath: a venv)
cd "$HERE"

npm ci --no-audit --no-fund --loglevel=error

# The Python version of this Pyodide build (314.x: 3.14), from its lock file.
PYVER="$(node -e 'const i = require("./node_modules/pyodide/pyodide-lock.json").info;
  process.stdout.write(i.python.split(".").slice(0, 2).join("."))')"

rm -rf build/dist build/wheels
mkdir -p build/dist build/wheels
wheel="${1:-}"
if [ -z "$wheel" ] && [ -n "${TOX_PACKAGE:-}" ]; then
  wheel="$TOX_PACKAGE"
fi
case "$wheel" in
  *.whl) cp "$wheel" build/dist/ ;;
  "") "$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir build/dist "$REPO" ;;
  *) echo "setup.sh: $wheel is not a wheel" >&2; exit 2 ;;
esac

"$PYTHON" -m pip download --quiet --dest build/wheels --no-deps --only-binary=:all: \
  --platform any --implementation py --abi none --python-version "$PYVER" \
  --require-hashes -r test-wheels.txt

echo "setup.sh: Pyodide $(node -p 'require("./node_modules/pyodide/package.json").version')" \
  "(Python $PYVER); $(ls build/dist) + $(ls build/wheels | wc -l) test wheels"
