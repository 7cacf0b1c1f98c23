#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined)
# and runs one of them.
#
#   tools/dev/fuzz.sh TARGET [SECONDS] [extra libFuzzer flags...]
#   tools/dev/fuzz.sh list
#
# TARGET is one of tests/fuzz/TARGET_fuzzer.cc (`tools/dev/fuzz.sh list` names them).
# SECONDS defaults to 600 (the documented long run: 10 minutes on one core).
# The committed seeds (tests/fuzz/corpus/TARGET) are read-only; new corpus
# entries go to ${FUZZ_WORK:-/tmp/crushkit-fuzz}/TARGET/corpus and crashes to
# .../TARGET/crashes. Minimise a crash and keep it as a regression:
#   build-fuzz/tests/fuzz/TARGET_fuzzer -minimize_crash=1 -runs=20000 CRASH
#   cp minimized-from-* tests/fuzz/regressions/TARGET/<short-name>
# (ctest then replays it with every build: TARGET_fuzzer_replay).
set -euo pipefail
cd "$(dirname "$0")/../.."
# Every fuzz target of the tree, so a new one needs no edit here.
targets=()
for f in tests/fuzz/*_fuzzer.cc; do
  f=${f##*/}
  targets+=("${f%_fuzzer.cc}")
done
if [[ ${1:-} == list || $# -lt 1 ]]; then
  echo "usage: $0 TARGET [SECONDS] [libFuzzer flags...]; targets: ${targets[*]}" >&2
  [[ ${1:-} == list ]] && exit 0 || exit 2
fi
target=$1
[[ " ${targets[*]} " == *" $target "* ]] || { echo "$0: no fuzz target '$target'; targets: ${targets[*]}" >&2; exit 2; }
seconds=${2:-600}
shift $(($# >= 2 ? 2 : 1))

bash tools/dev/setup.sh
# clang-14 and its runtime (libFuzzer, ASan/UBSan) from Debian 12.
need=()
for p in clang-14 libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

build_dir=${BUILD_DIR:-build-fuzz}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" \
  -DCRUSH_SANITIZE=address,undefined -DCRUSH_FUZZ=ON \
  -DCRUSH_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target "${target}_fuzzer"

work=${FUZZ_WORK:-/tmp/crushkit-fuzz}/$target
mkdir -p "$work/corpus" "$work/crashes"
dict=()
[[ -f tests/fuzz/$target.dict ]] && dict=("-dict=tests/fuzz/$target.dict")
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# -rss_limit_mb: the decoders promise memory linear in the input; 2 GB
# catches runaway allocations. -timeout: any input slower than 10 s is a hang.
exec "$build_dir/tests/fuzz/${target}_fuzzer" "$work/corpus" tests/fuzz/corpus/"$target" \
  tests/fuzz/regressions/"$target" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="${MAX_LEN:-65536}" \
  -artifact_prefix="$work/crashes/" -print_final_stats=1 "${dict[@]}" "$@"
