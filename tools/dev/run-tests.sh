#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds, and runs the whole test suite
# (CI's entry point, .ci/run). First the format check (tools/dev/lint.sh),
# then by default (CI) every test once under
# sanitizers:
#   0. a Release build of crushkit (for the differential suites below) and
#      of the Python module, and the module's pytest suite on it
#      (tools/dev/check-python.sh; sanitizer builds leave the module out);
#   1. -Werror build of everything under ASan+UBSan
#      (-fno-sanitize-recover=all) and every test run there: unit and golden
#      tests, limits, fuzz-corpus and regression replays, one
#      --benchmark_min_time=0.01 smoke run of each benchmark (each gtest
#      binary runs as two shards: CRUSH_TEST_SHARDS), the HTML report
#      in headless Chromium, and the differential, cram, compile and osdmap
#      suites against Ceph's crushtool and osdmaptool with the Release
#      crushkit as the tool under test (it also runs the whole matrices of
#      crushkit_output_paths and crushkit_input_kinds; the ASan crushkit
#      every writer, path kind, command and input kind at least once);
#   2. the threaded commands (crushtool --test, map-pgs, balance) give the
#      same bytes on one thread and four (tools/dev/check-threaded-cli.sh,
#      Release crushkit), and the multi-threaded core under TSan: concurrent
#      mapping on one map, the chunk pipeline, threaded crushtool --test;
#   3. the embedding check: the crush, compiler and osdmap components
#      installed into a temporary prefix and samples/embed built against it
#      with find_package(crushkit), the C sample with pkg-config, and the
#      map hot-swap daemon built against a TSan install and run under TSan
#      (tools/dev/check-embed.sh);
#   4. the Debian package: cpack -G DEB, installed with apt into a clean
#      Debian 12 root made by mmdebstrap, where the CLI and the C sample run
#      (tools/dev/check-deb.sh).
# CRUSH_CI_FLOW=release: the quicker developer loop instead -- the whole
# suite on a Release -Werror build (the Python tests included: ctest
# python_tests), then only crush_tests, crush_edit_tests, compiler_tests,
# limits_tests and the fuzz replays under ASan+UBSan (CRUSH_SKIP_SANITIZERS=1
# skips that), then the embedding check and the Debian package.
# Each phase prints its start time ("== [N s] ...").
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/dev/setup.sh --newer-oracles
export CEPH_ARGS="--crash_dir=$(mktemp -d)"
# Differential suites fail instead of skipping when Ceph's tools are missing.
export CRUSHKIT_REQUIRE_ORACLE=1
# ctest loopback_scenario_ci starts a real Ceph cluster on 127.0.0.1 (skipped
# unless this is set).
export CRUSHKIT_LOOPBACK_TESTS=1
t0=$SECONDS
# Each phase's start: wall seconds, and the CPU seconds (user + system) of
# everything run so far, which does not depend on the machine's other load.
times_file=$(mktemp)
stamp() {
  times > "$times_file"  # here, not in $(...): a subshell has no children yet
  local cpu
  cpu=$(awk 'NR == 2 { gsub(/[ms]/, " "); print int($1 * 60 + $2 + $3 * 60 + $4) }' "$times_file")
  echo "== [$((SECONDS - t0)) s, cpu $cpu s] $*"
}

stamp "format check (tools/dev/lint.sh)"
bash tools/dev/lint.sh

build_dir=${BUILD_DIR:-build}
case "${CRUSH_CI_FLOW:-sanitizers}" in
  release)
    stamp "Release -Werror build, tests included"
    bash tools/dev/build.sh -DCRUSH_WERROR=ON -DCRUSH_BUILD_TESTS=ON -DCRUSH_BUILD_BENCHMARKS=ON
    stamp "whole suite, Release"
    ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 900
    deb_build_dir=$build_dir
    if [[ "${CRUSH_SKIP_SANITIZERS:-0}" != 1 ]]; then
      stamp "ASan+UBSan: crush core, compiler, limits, fuzz replays"
      CRUSH_SANITIZE_EXCLUDE='benchmark|differential' \
      CRUSH_SANITIZE_TARGETS='crush_tests crush_edit_tests compiler_tests limits_tests decode_fuzzer_replay
        mapper_fuzzer_replay compile_fuzzer_replay osdmap_import_fuzzer_replay
        crushtool_args_fuzzer_replay crush_dump_json_fuzzer_replay input_sniff_fuzzer_replay
        report_import_fuzzer_replay' \
        BUILD_DIR="${ASAN_BUILD_DIR:-build-asan}" bash tools/dev/run-sanitized-tests.sh asan
    fi
    ;;
  sanitizers)
    # One build: the ASan+UBSan tree (-Werror) holds libraries, tools, tests
    # and benchmarks; each benchmark's smoke run is a ctest entry there. (A
    # separate Release build took a quarter of CI's time and only re-proved
    # the same code compiles; the release flow and bench/ scripts cover -O3.)
    stamp "Release crushkit (differential suites) and Python module"
    release_dir=${RELEASE_BUILD_DIR:-build-release}
    BUILD_DIR="$release_dir" BUILD_TARGETS="crushkit crushkit_python" bash tools/dev/build.sh \
      -DCRUSH_WERROR=ON -DCRUSH_BUILD_TESTS=OFF -DCRUSH_BUILD_BENCHMARKS=OFF -DCRUSH_BUILD_PYTHON=ON
    # The sanitizer builds leave the module out (a plain python3 cannot load
    # an ASan/TSan extension), so its tests run here, on the Release build.
    stamp "Python module tests (pytest), Release"
    bash tools/dev/check-python.sh "$release_dir"
    stamp "whole suite and benchmark smoke runs, ASan+UBSan (differential suites: Release crushkit)"
    CRUSH_SANITIZE_BENCHMARKS=ON CRUSH_TEST_SHARDS=2 BUILD_DIR="${ASAN_BUILD_DIR:-build-asan}" \
      CRUSH_DIFFERENTIAL_CRUSHKIT="$PWD/$release_dir/tools/crushkit" \
      bash tools/dev/run-sanitized-tests.sh asan
    stamp "threaded CLI paths: one thread vs four, byte-identical (Release crushkit)"
    bash tools/dev/check-threaded-cli.sh "$release_dir"
    stamp "multi-threaded paths, TSan"
    tsan_dir=${TSAN_BUILD_DIR:-build-tsan}
    BUILD_DIR="$tsan_dir" bash tools/dev/run-sanitized-tests.sh tsan
    # The embedding check installs from the trees built above instead of
    # compiling the libraries again: the Release one (crush, compiler,
    # osdmap; only libcrushkit.so is new) and the TSan one (crush_core).
    export CRUSH_EMBED_BUILD_DIR=$release_dir CRUSH_EMBED_TSAN_BUILD_DIR=$tsan_dir
    deb_build_dir=$release_dir
    ;;
  *)
    echo "CRUSH_CI_FLOW must be 'sanitizers' (default) or 'release'" >&2
    exit 2
    ;;
esac
stamp "embedding check (installed package, samples/embed, crush_map_daemon under TSan)"
bash tools/dev/check-embed.sh
stamp "Debian package in a clean Debian 12 root"
BUILD_DIR="$deb_build_dir" bash tools/dev/check-deb.sh
stamp "done"
