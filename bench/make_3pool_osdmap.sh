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
command -v ceph-mon >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ceph-mon >/dev/null
}
D=$(mktemp -d)
mon_pid=
cleanup() {
  if [ -n "$mon_pid" ]; then kill "$mon_pid" 2>/dev/null || true; fi
  rm -rf "$D"
}
trap cleanup EXIT
cd "$D"
export CEPH_ARGS="--crash_dir=$D/crash"

crushtool --build --num_osds "$OSDS" host straw2 25 rack straw2 4 root straw2 0 -o crush.bin >/dev/null
osdmaptool --createsimple "$OSDS" --clobber --import-crush crush.bin om0 >/dev/null 2>&1

fsid=$(cat /proc/sys/kernel/random/uuid)
cat > ceph.conf <<CONF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$PORT
auth cluster required = none
auth service required = none
auth client required = none
osd pool default pg autoscale mode = off
mon max pg per osd = 1000000
mon osd max initial pgs = 65536
run dir = $D
log file = $D/\$name.log
admin socket = $D/\$name.asok
crash dir = $D/crash
[mon.a]
mon data = $D/mon.a
CONF
monmaptool --create --addv a "[v1:127.0.0.1:$PORT]" --fsid "$fsid" monmap >/dev/null
ceph-mon --mkfs -i a --monmap monmap --osdmap om0 -c ceph.conf
ceph-mon -i a -c ceph.conf
for _ in $(seq 50); do timeout 5 ceph -c ceph.conf -s >/dev/null 2>&1 && break; sleep 0.2; done
mon_pid=$(cat "$D/mon.a.pid" 2>/dev/null || pgrep -f "ceph-mon -i a -c ceph.conf" | head -1)

# A monitor command; its output only if it fails.
# (A young monitor sometimes refuses the first command: retried.)
c() {
  for _ in 1 2 3; do timeout 60 ceph -c ceph.conf "$@" > cmd.log 2>&1 && return 0; sleep 1; done
  cat cmd.log >&2
  return 1
}
c osd pool create rep3 "$REP3_PGS" "$REP3_PGS" replicated
c osd pool set rep3 size 3
c osd pool create rep2 "$REP2_PGS" "$REP2_PGS" replicated
c osd pool set rep2 size 2
c osd erasure-code-profile set ec42 k=4 m=2 crush-failure-domain=host crush-root=root
c osd pool create ec42 "$EC_PGS" "$EC_PGS" erasure ec42
c osd getmap -o om

weights=$(awk -v n="$OSDS" 'BEGIN { for (i = 0; i < n; i++)
  printf "%s%d:%.2f", (i ? "," : ""), i, 1 + ((i * 7919) % 5) * 0.5 }')
osdmaptool om --mark-up-in --adjust-crush-weight "$weights" --save >/dev/null 2>&1
cp om "$OUT"
osdmaptool "$OUT" --dump json 2>/dev/null | sed -n '/^{/,$p' |
  python3 -c 'import json, sys
for p in json.load(sys.stdin)["pools"]:
    print("pool %d %s type %d size %d pg_num %d pgp_num %d rule %d" % (p["pool"], p["pool_name"],
          p["type"], p["size"], p["pg_num"], p["pg_placement_num"], p["crush_rule"]))'
