#!/usr/bin/env bash
# Builds a Ceph 16.2 binary osdmap with three pools, made by a real monitor:
#   OSDS OSDs (40 hosts x 25, 10 racks, straw2; crushtool --build), CRUSH
#   weights 1.0-3.0 in five steps (osdmaptool --adjust-crush-weight),
#   pool 1 "rep3": replicated size 3, REP3_PGS PGs (default 8192)
#   pool 2 "rep2": replicated size 2, REP2_PGS PGs (default 4096)
#   pool 3 "ec42": erasure k=4 m=2, failure domain host, EC_PGS PGs (2048)
#   every OSD up and in.
# How: `osdmaptool --createsimple OSDS --import-crush` (so all OSDs exist;
# creating 1,000 with `ceph osd create` takes minutes) seeds a monitor
# (`ceph-mon --mkfs --osdmap`), `ceph osd pool create` adds the pools (the
# monitor writes the EC profile and rule), `ceph osd getmap` fetches the
# map, and osdmaptool persists the marks and weights (`--save`). The
# monitor runs on loopback in a temporary directory and is stopped on exit.
# Needs root and ceph-mon (installed with apt if missing, as
# /work/shared/tools/ceph-mon-sandbox.sh does).
#
# Usage: bench/make_3pool_osdmap.sh OUT [PORT]
set -euo pipefail
OUT=$(readlink -f "$1")
PORT=${2:-46791}
OSDS=${OSDS:-1000}
REP3_PGS=${REP3_PGS:-8192}
REP2_PGS=${REP2_PGS:-4096}
EC_PGS=${EC_PGS:-2048}
source "$(dirname "$0")/lib.sh"
bench_workdir

crushtool --build --num_osds "$OSDS" host straw2 25 rack straw2 4 root straw2 0 -o crush.bin >/dev/null
osdmaptool --createsimple "$OSDS" --clobber --import-crush crush.bin om0 >/dev/null 2>&1
mon_start "$PORT" om0
mon_cmd osd pool create rep3 "$REP3_PGS" "$REP3_PGS" replicated
mon_cmd osd pool set rep3 size 3
mon_cmd osd pool create rep2 "$REP2_PGS" "$REP2_PGS" replicated
mon_cmd osd pool set rep2 size 2
mon_cmd osd erasure-code-profile set ec42 k=4 m=2 crush-failure-domain=host crush-root=root
mon_cmd osd pool create ec42 "$EC_PGS" "$EC_PGS" erasure ec42
mon_cmd osd getmap -o om

weights=$(awk -v n="$OSDS" 'BEGIN { for (i = 0; i < n; i++)
  printf "%s%d:%.2f", (i ? "," : ""), i, 1 + ((i * 7919) % 5) * 0.5 }')
osdmaptool om --mark-up-in --adjust-crush-weight "$weights" --save >/dev/null 2>&1
cp om "$OUT"
osdmaptool "$OUT" --dump json 2>/dev/null | sed -n '/^{/,$p' |
  python3 -c 'import json, sys
for p in json.load(sys.stdin)["pools"]:
    print("pool %d %s type %d size %d pg_num %d pgp_num %d rule %d" % (p["pool"], p["pool_name"],
          p["type"], p["size"], p["pg_num"], p["pg_placement_num"], p["crush_rule"]))'
