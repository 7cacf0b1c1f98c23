#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds, and runs the whole test suite
# (unit, golden, differential against Ceph's tools, benchmark smoke runs).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/dev/setup.sh
bash tools/dev/build.sh -DCRUSH_WERROR=ON
export CEPH_ARGS="--crash_dir=$(mktemp -d)"
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" --timeout 900
