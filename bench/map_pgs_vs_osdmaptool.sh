#!/usr/bin/env bash
# Speed of `crushkit map-pgs` vs Ceph's `osdmaptool --test-map-pgs` on the
# same cluster: 10,000 OSDs (20 racks x 20 hosts x 25 OSDs, straw2), one
# replicated pool with 10000 << 7 = 1,280,000 PGs, all OSDs up and in.
# Also times `crushkit osdmaptool STATE --test-map-pgs` and checks that its
# output equals Ceph's. Prints the speed ratios.
#
# Usage: bench/map_pgs_vs_osdmaptool.sh [path/to/crushkit]   (needs ceph-base)
set -euo pipefail
CRUSHKIT=$(readlink -f "${1:-build-release/tools/crushkit}")
OSDS=${OSDS:-10000}
PG_BITS=${PG_BITS:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export CEPH_ARGS="--crash_dir=$work"

crushtool --build --num_osds "$OSDS" host straw2 25 rack straw2 20 root straw2 0 -o crush.bin >/dev/null
osdmaptool --createsimple "$OSDS" --with-default-pool --pg-bits "$PG_BITS" --pgp-bits "$PG_BITS" \
  --clobber --import-crush crush.bin om >/dev/null 2>&1
# Persist "all up and in" (the marks are written because --save modifies the map).
osdmaptool om --mark-up-in --adjust-crush-weight 0:1 --save >/dev/null 2>&1
osdmaptool om --export-crush exported.bin --dump json 2>/dev/null | sed -n '/^{/,$p' > dump.json
"$CRUSHKIT" import --osdmap dump.json --crush exported.bin -o state.pb

now() { date +%s.%N; }
t0=$(now); osdmaptool om --test-map-pgs > ceph.txt 2>/dev/null; t1=$(now)
"$CRUSHKIT" map-pgs state.pb > /dev/null; t2=$(now)
"$CRUSHKIT" osdmaptool state.pb --test-map-pgs > crushkit.txt 2>/dev/null; t3=$(now)

if cmp -s ceph.txt crushkit.txt; then same=identical; else same=DIFFERENT; fi
pgs=$(sed -n 's/^pool 1 pg_num //p' ceph.txt)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v pgs="$pgs" -v same="$same" 'BEGIN {
  ceph = b - a; mp = c - b; ko = d - c;
  printf "PGs: %d, OSDs: '"$OSDS"'\n", pgs;
  printf "osdmaptool --test-map-pgs:           %8.3f s\n", ceph;
  printf "crushkit map-pgs (per-PG output):    %8.3f s  -> %.1fx faster\n", mp, ceph / mp;
  printf "crushkit osdmaptool --test-map-pgs:  %8.3f s  -> %.1fx faster (output %s)\n", ko, ceph / ko, same;
}'
