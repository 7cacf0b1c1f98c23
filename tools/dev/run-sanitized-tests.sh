#!/usr/bin/env bash
# Builds the whole suite with sanitizers and runs it under ctest.
#
#   tools/dev/run-sanitized-tests.sh [asan|tsan] [extra ctest args...]
#
# asan (default): gcc, -fsanitize=address,undefined -fno-sanitize-recover=all
#   (any UBSan report is fatal), at -O1 -g1 (compiles ~2x faster than -O2 -g
#   and keeps file:line in reports; test and benchmark sources at -O0 and
#   without UBSan's checks via CRUSH_TEST_COPTS, less than half the compile
#   time: the code under test keeps -O1 and both sanitizers, the tests'
#   own code keeps ASan),
#   the whole suite: unit, golden, limits,
#   fuzz replays, and the differential and cram suites (their crushkit runs
#   are the ASan binary; Ceph is the oracle as usual). Benchmarks are built
#   only with CRUSH_SANITIZE_BENCHMARKS=ON (CI: their smoke runs then check
#   they run cleanly; they measure nothing under ASan). Labels in
#   $CRUSH_SANITIZE_EXCLUDE (a ctest -LE regex) are skipped. -Werror is on
#   (CI builds the tests only here); CRUSH_WERROR=OFF turns it off.
#   Build dir: ${BUILD_DIR:-build-asan}. CRUSH_DIFFERENTIAL_CRUSHKIT=PATH makes
#   the differential suites run that crushkit instead (CI: a Release one).
#   CRUSH_TEST_SHARDS=N runs each gtest binary as N ctest entries instead of
#   one per case (CI: 2; each ASan process start costs ~0.3 CPU-s). No
#   libcrushkit.so here (-DCRUSH_BUILD_SHARED=OFF: the same sources compiled
#   again, ~90 CPU-s, and no test uses it; check-embed.sh installs the
#   Release one).
# tsan: gcc, -fsanitize=thread, builds crush_core's thread tests
#   (crush_thread_tests) and the crushtool front's tests, and runs the
#   multi-threaded paths: the concurrent-mapping tests (many threads sharing
#   one CrushMap, each with its own Workspace), the chunk pipeline's tests
#   (the one thread pipeline under crushtool --test, map-pgs and the
#   balancer) and the threaded `crushtool --test` tests. CRUSH_TSAN_CLI=1
#   also builds the crushkit binary and runs tools/dev/check-threaded-cli.sh
#   on it (`crushtool --test`, `map-pgs` and `balance`, one thread vs four,
#   byte-identical); CI runs that script on its Release binary instead. Build dir: ${BUILD_DIR:-build-tsan}.
#   No libcrushkit.so (-DCRUSH_BUILD_SHARED=OFF): tools/dev/check-embed.sh
#   installs this tree's crush_core to build its TSan daemon sample.
#
# Installs missing Debian packages first (tools/dev/setup.sh; needs root on a
# fresh machine). Extra arguments go to ctest, e.g. `-R crush_tests` or
# `-LE 'benchmark|differential'` via CRUSH_SANITIZE_EXCLUDE.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-asan}
[[ $# -gt 0 ]] && shift
bash tools/dev/setup.sh
jobs=${JOBS:-$(nproc)}
export CEPH_ARGS="--crash_dir=$(mktemp -d)"

case "$mode" in
  asan)
    build_dir=${BUILD_DIR:-build-asan}
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_COMPILER=g++ \
      -DCRUSH_WERROR="${CRUSH_WERROR:-ON}" \
      -DCRUSH_SANITIZE=address,undefined -DCRUSH_BUILD_BENCHMARKS="${CRUSH_SANITIZE_BENCHMARKS:-OFF}" \
      -DCRUSH_TEST_COPTS="${CRUSH_TEST_COPTS--O0;-fno-sanitize=undefined}" \
      -DCRUSH_TEST_SHARDS="${CRUSH_TEST_SHARDS:-0}" -DCRUSH_BUILD_SHARED=OFF \
      -DCRUSH_DIFFERENTIAL_CRUSHKIT="${CRUSH_DIFFERENTIAL_CRUSHKIT:-}" >/dev/null
    # CRUSH_SANITIZE_TARGETS (space-separated) limits the build, e.g. for CI;
    # tests of targets not built are simply not discovered.
    if [[ -n "${CRUSH_SANITIZE_TARGETS:-}" ]]; then
      # shellcheck disable=SC2086
      cmake --build "$build_dir" -j "$jobs" --target $CRUSH_SANITIZE_TARGETS
    else
      cmake --build "$build_dir" -j "$jobs"
    fi
    # detect_leaks: LeakSanitizer needs ptrace-free /proc access; it is on by
    # default and reports leaks at exit. halt_on_error + abort_on_error make
    # every report a test failure.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    exclude=()
    [[ -n "${CRUSH_SANITIZE_EXCLUDE:-}" ]] && exclude=(-LE "$CRUSH_SANITIZE_EXCLUDE")
    # Tests of binaries a CRUSH_SANITIZE_TARGETS build skipped are
    # gtest_discover_tests' *_NOT_BUILT placeholders: not run.
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --timeout 900 \
      -E '_NOT_BUILT$' "${exclude[@]}" "$@"
    ;;
  tsan)
    build_dir=${BUILD_DIR:-build-tsan}
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_COMPILER=g++ \
      -DCRUSH_SANITIZE=thread -DCRUSH_BUILD_BENCHMARKS=OFF -DCRUSH_BUILD_SHARED=OFF \
      -DCRUSH_TEST_COPTS="${CRUSH_TEST_COPTS--O0}" \
      -DCRUSH_BUILD_COMPILER=ON -DCRUSH_BUILD_OSDMAP=ON -DCRUSH_BUILD_TOOLS=ON >/dev/null
    # CRUSH_TSAN_CLI=1 adds the crushkit binary (the whole osdmap library under
    # TSan, ~10 minutes of CI's 2 cores) and check-threaded-cli.sh on it.
    targets=(crush_thread_tests crushtool_tests)
    [[ "${CRUSH_TSAN_CLI:-0}" == 1 ]] && targets+=(crushkit)
    cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
    # ctest -R regex of the tests that run threads.
    ctest --test-dir "$build_dir" --output-on-failure -j 1 --timeout 900 \
      -R "${CRUSH_TSAN_TESTS:-Concurren|ChunkPipeline|RunCrushTestThreads}" -E '_NOT_BUILT$' "$@"
    if [[ "${CRUSH_TSAN_CLI:-0}" == 1 ]]; then bash tools/dev/check-threaded-cli.sh "$build_dir"; fi
    ;;
  *)
    echo "usage: $0 [asan|tsan] [ctest args...]" >&2
    exit 2
    ;;
esac
