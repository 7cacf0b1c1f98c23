#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds, and runs the whole test suite
# (CI's entry point, .ci/run):
#   1. Release -Werror build of the libraries, tools and benchmarks (gcc -O3
#      warnings are part of the gate; tests are not built here) and one
#      smoke run of each benchmark binary;
#   2. every test -- unit and golden tests, differential tests against Ceph's
#      crushtool and osdmaptool, cram tests, limits, fuzz-corpus and
#      regression replays -- built with ASan+UBSan (-fno-sanitize-recover=all,
#      -O1, -Werror: warnings in test code fail here) and run once
#      (tools/dev/run-sanitized-tests.sh asan);
#   3. the concurrent-mapping tests under TSan (run-sanitized-tests.sh tsan);
#   4. the embedding check: crush_core installed into a temporary prefix and
#      samples/embed built against it with find_package(crush)
#      (tools/dev/check-embed.sh).
# The suite runs once, under the sanitizers. Each phase prints its start
# time ("== [N s] ...") so CI logs give the breakdown; budget and estimates:
# tests/fuzz/README.md "CI".
#
# CRUSH_SKIP_SANITIZERS=1: quick local run instead -- the Release build and
# the whole suite on it, no sanitizer builds.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/dev/setup.sh
export CEPH_ARGS="--crash_dir=$(mktemp -d)"
t0=$SECONDS
stamp() { echo "== [$((SECONDS - t0)) s] $*"; }

build_dir=${BUILD_DIR:-build}
if [[ "${CRUSH_SKIP_SANITIZERS:-0}" == 1 ]]; then
  stamp "Release -Werror build, tests included"
  bash tools/dev/build.sh -DCRUSH_WERROR=ON -DCRUSH_BUILD_TESTS=ON
  stamp "whole suite, Release"
  ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 900
  stamp "embedding check"
  bash tools/dev/check-embed.sh
  stamp "done"
  exit 0
fi
stamp "Release -Werror build (libraries, tools, benchmarks)"
bash tools/dev/build.sh -DCRUSH_WERROR=ON -DCRUSH_BUILD_TESTS=OFF -DCRUSH_BUILD_BENCHMARKS=ON
stamp "benchmark smoke runs, Release"
# What crush_cc_benchmark's ctest entry runs when tests are built.
for b in "$build_dir"/crush/crush_mapper_benchmark "$build_dir"/osdmap/pg_mapping_benchmark \
         "$build_dir"/compiler/compile_benchmark; do
  [[ -x "$b" ]] || { echo "missing benchmark $b" >&2; exit 1; }
  "$b" --benchmark_min_time=0.01 >/dev/null
done

stamp "whole suite, ASan+UBSan"
BUILD_DIR="${ASAN_BUILD_DIR:-build-asan}" bash tools/dev/run-sanitized-tests.sh asan
stamp "concurrent-mapping tests, TSan"
BUILD_DIR="${TSAN_BUILD_DIR:-build-tsan}" bash tools/dev/run-sanitized-tests.sh tsan
stamp "embedding check (installed crush_core, samples/embed)"
bash tools/dev/check-embed.sh
stamp "done"
