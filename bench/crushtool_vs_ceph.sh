#!/usr/bin/env bash
# Side-by-side timing of `crushtool --test` (Ceph 16.2) and
# `crushkit crushtool --test` on a 10,000-OSD straw2 map, checking that both
# print identical output.
#
# Usage: bench/crushtool_vs_ceph.sh [CRUSHKIT_BINARY] [NUM_X]
#   CRUSHKIT_BINARY  default: build/tools/crushkit (the `release` preset; build it with
#                    cmake --preset release && cmake --build build --target crushkit)
#   NUM_X            inputs to map (default 1000000: --min-x 0 --max-x 999999)
# Prints both wall times (seconds) and the speed-up ratio. Exit 1 if the
# outputs differ.
set -euo pipefail

crushkit=${1:-build/tools/crushkit}
num_x=${2:-1000000}
crushtool=${CRUSHTOOL:-crushtool}
if ! command -v "$crushtool" >/dev/null; then
  echo "crushtool (Ceph) not found; install ceph-base" >&2
  exit 1
fi
crushkit=$(readlink -f "$crushkit")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export CEPH_ARGS="--crash_dir=$work"

"$crushtool" --build --num_osds 10000 host straw2 10 rack straw2 20 root straw2 0 \
  -o big.bin >/dev/null
args=(-i big.bin --test --show-statistics --num-rep 3 --min-x 0 --max-x $((num_x - 1)))

now() { date +%s.%N; }
t0=$(now)
"$crushtool" "${args[@]}" >ceph.out 2>ceph.err
t1=$(now)
"$crushkit" crushtool "${args[@]}" >crushkit.out 2>crushkit.err
t2=$(now)

if ! cmp -s ceph.out crushkit.out || ! cmp -s ceph.err crushkit.err; then
  echo "OUTPUTS DIFFER" >&2
  diff ceph.out crushkit.out | head -20 >&2 || true
  exit 1
fi
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$num_x" 'BEGIN {
  ceph = b - a; ours = c - b;
  printf "map: 10000 OSDs (host straw2 10, rack straw2 20, root straw2), %d inputs x 3 replicas\n", n;
  printf "ceph crushtool:    %8.3f s\n", ceph;
  printf "crushkit crushtool:%8.3f s\n", ours;
  printf "outputs identical; speed-up: %.2fx\n", ceph / ours;
}'
cat ceph.out
