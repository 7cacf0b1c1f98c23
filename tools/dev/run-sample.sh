#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds the crushkit CLI only (Release),
# and runs the main job on the bundled sample cluster (samples/cluster: 188
# OSDs in 3 racks, hdd and ssd, a replicated and an EC 4+2 pool, real PG
# sizes): import Ceph's JSON exports, then plan a change -- a fourth rack
# with three new hosts -- and report what moves, PG by PG and byte by byte,
# how long the backfill takes, and an HTML report.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/dev/setup.sh
# A fresh tree is configured for the CLI alone; one configured before (a
# developer's, tests on) keeps its options, so this does not take its tests away.
flags=()
[[ -f ${BUILD_DIR:-build}/CMakeCache.txt ]] || flags=(-DCRUSH_BUILD_TESTS=OFF -DCRUSH_BUILD_BENCHMARKS=OFF)
BUILD_TARGETS=crushkit bash tools/dev/build.sh "${flags[@]}"
ck=${BUILD_DIR:-build}/tools/crushkit
s=samples/cluster
out=${SAMPLE_OUT:-sample-out}
mkdir -p "$out"

echo "== crushkit import (ceph osd dump / crush map / pg dump / osd df / df) -> $out/state.pb"
"$ck" import --osdmap $s/osd-dump.json --crush $s/crush.txt --pg-stats $s/pg-dump.json \
  --osd-df $s/osd-df.json --df $s/df.json -o "$out/state.pb"
echo "== the change ($s/add-rack.ops)"
grep -v '^#' $s/add-rack.ops
echo "== crushkit plan $out/state.pb $s/add-rack.ops --max-misplaced 5% --upmap-remapped --html $out/add-rack.html --commands $out/add-rack-steps.sh"
"$ck" plan "$out/state.pb" $s/add-rack.ops --max-misplaced 5% --upmap-remapped --html "$out/add-rack.html" \
  --commands "$out/add-rack-steps.sh"
echo
echo "HTML report: $out/add-rack.html (open it in a browser); the steps' Ceph commands:"
echo "$out/add-rack-steps.sh; --json prints the same report for scripts."
