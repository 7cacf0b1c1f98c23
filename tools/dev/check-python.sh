#!/usr/bin/env bash
# Runs the Python module's pytest suite (tests/python/) against a build:
#
#   tools/dev/check-python.sh [BUILD_DIR]     (default: build)
#
# BUILD_DIR must hold the module (target crushkit_python, built by default
# when pybind11-dev is installed, but not in sanitizer builds) and the CLI
# (target crushkit), whose answers the tests compare with. The same suite is
# the ctest entry python_tests of builds with tests; CI's sanitizer flow, whose
# only non-sanitized build has no tests, runs it through this script.
# Uses Debian's /usr/bin/python3, the interpreter the module is built for.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
shopt -s nullglob
modules=("$build"/python/crushkit*.so)
if ((${#modules[@]} == 0)); then
  echo "check-python: no crushkit module in $build/python (build target crushkit_python)" >&2
  exit 1
fi
[[ -x "$build/tools/crushkit" ]] || { echo "check-python: $build/tools/crushkit not built" >&2; exit 1; }
PYTHONPATH="$build/python" CRUSHKIT_CLI="$build/tools/crushkit" CRUSHKIT_SOURCE_DIR="$repo" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider "$repo/tests/python"
