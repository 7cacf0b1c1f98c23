#!/usr/bin/env bash
# A/B of the Google Benchmark binaries between two revisions, in one run:
#
#   bench/ab_benchmarks.sh REV_A REV_B [TARGET ...]
#
# builds each revision's benchmark TARGETs (default: every crush_cc_benchmark
# binary both revisions have) in its own Release tree under $AB_DIR (default
# /tmp/crushkit-ab; trees are reused, so a second run only rebuilds what
# changed), then runs A, B, A, B, ... ROUNDS times (default 3), alternating so
# that the machine's load drifts over both alike, and prints per benchmark
# case the median real time of A and of B, B/A, and B/A of each side's
# fastest round (the least disturbed by load). A refactor should show
# ratios within noise (about +-5% on an idle machine, more on a loaded one:
# the load average is printed with the table). Env: AB_DIR, ROUNDS, JOBS,
# FILTER (a --benchmark_filter regex), MIN_TIME (--benchmark_min_time,
# default 0.2).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 2 ]] || { sed -n 2,16p "$0" >&2; exit 2; }
rev_a=$1 rev_b=$2
shift 2
ab_dir=${AB_DIR:-/tmp/crushkit-ab}
rounds=${ROUNDS:-3}
jobs=${JOBS:-2}
min_time=${MIN_TIME:-0.2}
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(crush_mapper_benchmark pg_mapping_benchmark backfill_schedule_benchmark
           upmap_balancer_benchmark compile_benchmark)
fi
mkdir -p "$ab_dir"

# prepare SIDE REV: a detached worktree and a benchmark build of TARGETs.
prepare() {
  local side=$1 rev=$2 src="$ab_dir/$1-src" bld="$ab_dir/$1-build"
  local sha
  sha=$(git -C "$repo" rev-parse --verify "$rev^{commit}")
  if [[ -d "$src" ]]; then
    git -C "$src" checkout -q --detach "$sha"
  else
    git -C "$repo" worktree add -q --detach "$src" "$sha"
  fi
  cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCRUSH_BUILD_TESTS=OFF \
    -DCRUSH_BUILD_BENCHMARKS=ON -DCRUSH_BUILD_PYTHON=OFF > "$ab_dir/$side-configure.log"
  local t present=()
  for t in "${targets[@]}"; do
    if ninja -C "$bld" -t targets all 2> /dev/null | grep -q "^$t:"; then present+=("$t"); fi
  done
  echo "ab: $side = ${sha:0:12}, building ${present[*]}" >&2
  cmake --build "$bld" -j "$jobs" --target "${present[@]}" > "$ab_dir/$side-build.log"
}
prepare a "$rev_a"
prepare b "$rev_b"

out="$ab_dir/results"
rm -rf "$out"
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  # A and B of one target back to back: this VM's speed drifts by up to 1.5x
  # over minutes, which A's whole set then B's whole set turned into ratios.
  for t in "${targets[@]}"; do
    for side in a b; do
      bin=$(find "$ab_dir/$side-build" -type f -name "$t" -perm -u+x | head -n 1)
      [[ -n "$bin" ]] || continue
      "$bin" --benchmark_min_time="$min_time" ${FILTER:+--benchmark_filter="$FILTER"} \
        --benchmark_format=json > "$out/$side-$t-$round.json" 2> /dev/null
    done
  done
  echo "ab: round $round of $rounds done (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
done

python3 - "$out" "$rev_a" "$rev_b" <<'EOF'
import glob, json, statistics, sys
out, rev_a, rev_b = sys.argv[1:4]
times = {}
for path in glob.glob(f'{out}/*.json'):
    side = path.rsplit('/', 1)[1][0]
    try:
        data = json.load(open(path))
    except ValueError:
        continue
    for b in data.get('benchmarks', []):
        if b.get('run_type', 'iteration') != 'iteration':
            continue
        times.setdefault(b['name'], {}).setdefault(side, []).append(b['real_time'])
rows = [(name, statistics.median(t['a']), statistics.median(t['b']), min(t['a']), min(t['b']))
        for name, t in sorted(times.items()) if 'a' in t and 'b' in t]
width = max([len(r[0]) for r in rows] + [9])
print(f'{"benchmark":<{width}}  {"A " + rev_a[:10]:>14}  {"B " + rev_b[:10]:>14}  {"B/A":>6}'
      f'  {"fastest B/A":>11}')
for name, a, b, a_min, b_min in rows:
    print(f'{name:<{width}}  {a:>14.4g}  {b:>14.4g}  {b / a:>6.3f}  {b_min / a_min:>11.3f}')
if rows:
    for label, ia, ib in (('median of the rounds', 1, 2), ('fastest round', 3, 4)):
        ratios = [r[ib] / r[ia] for r in rows]
        print(f'{len(rows)} cases; B/A median {statistics.median(ratios):.3f}, '
              f'min {min(ratios):.3f}, max {max(ratios):.3f} (real time, {label})')
EOF
