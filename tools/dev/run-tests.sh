#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds, and runs the whole test suite:
# unit and golden tests, differential tests against Ceph's crushtool and
# osdmaptool, fuzz-corpus replays, benchmark smoke runs; then the core,
# compiler, limits and fuzz-replay tests again under ASan+UBSan.
# CRUSH_SKIP_SANITIZERS=1 skips the sanitizer pass (it rebuilds those parts).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/dev/setup.sh
bash tools/dev/build.sh -DCRUSH_WERROR=ON
export CEPH_ARGS="--crash_dir=$(mktemp -d)"
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" --timeout 900

if [[ "${CRUSH_SKIP_SANITIZERS:-0}" != 1 ]]; then
  echo "== ASan+UBSan: crush core, compiler, limits, fuzz replays"
  CRUSH_SANITIZE_EXCLUDE='benchmark|differential' \
  CRUSH_SANITIZE_TARGETS='crush_tests compiler_tests limits_tests decode_fuzzer_replay
    mapper_fuzzer_replay compile_fuzzer_replay osdmap_import_fuzzer_replay
    crushtool_args_fuzzer_replay' \
    bash tools/dev/run-sanitized-tests.sh asan -E '_NOT_BUILT$'
fi
