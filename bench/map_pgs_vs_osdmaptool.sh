#!/usr/bin/env bash
# Speed of `crushkit map-pgs` vs Ceph's `osdmaptool --test-map-pgs` on the
# same cluster: 10,000 OSDs (20 racks x 20 hosts x 25 OSDs, straw2), one
# replicated pool with 10000 << 7 = 1,280,000 PGs, all OSDs up and in.
# Also times `crushkit osdmaptool STATE --test-map-pgs` and checks that its
# output equals Ceph's. Prints the speed ratios.
#
# Usage: bench/map_pgs_vs_osdmaptool.sh [path/to/crushkit]   (needs ceph-base)
set -euo pipefail
# The oracle is Ceph 16.2: states map as that release (ClusterState.ceph_release).
export CRUSHKIT_CEPH_RELEASE=pacific
source "$(dirname "$0")/lib.sh"
bench_init "${1:-build-release/tools/crushkit}"

build_bench_cluster "$OSDS" "$PG_BITS"
osdmaptool om --export-crush exported.bin --dump json 2>/dev/null | sed -n '/^{/,$p' > dump.json
"$CRUSHKIT" import --osdmap dump.json --crush exported.bin -o state.pb

# Wall and CPU (user+sys) seconds of one command; stdout to $1.
timed() {
  local out=$1; shift
  /usr/bin/time -f "%e %U %S" -o t.txt "$@" > "$out" 2>/dev/null
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' t.txt
}
read -r ceph_wall ceph_cpu < <(timed ceph.txt osdmaptool om --test-map-pgs)
read -r mp_wall mp_cpu < <(timed /dev/null "$CRUSHKIT" map-pgs state.pb)
read -r ko_wall ko_cpu < <(timed crushkit.txt "$CRUSHKIT" osdmaptool state.pb --test-map-pgs)

if cmp -s ceph.txt crushkit.txt; then same=identical; else same=DIFFERENT; fi
pgs=$(sed -n 's/^pool 1 pg_num //p' ceph.txt)
awk -v cw="$ceph_wall" -v cc="$ceph_cpu" -v mw="$mp_wall" -v mc="$mp_cpu" \
    -v kw="$ko_wall" -v kc="$ko_cpu" -v pgs="$pgs" -v same="$same" -v osds="$OSDS" 'BEGIN {
  printf "PGs: %d, OSDs: %d (wall s / cpu s; ratio = osdmaptool time / crushkit time)\n", pgs, osds;
  printf "osdmaptool --test-map-pgs:          %8.2f / %8.2f\n", cw, cc;
  printf "crushkit map-pgs (per-PG output):   %8.2f / %8.2f  -> %.1fx wall, %.1fx cpu\n", mw, mc, cw / mw, cc / mc;
  printf "crushkit osdmaptool --test-map-pgs: %8.2f / %8.2f  -> %.1fx wall, %.1fx cpu (output %s)\n", kw, kc, cw / kw, cc / kc, same;
}'
