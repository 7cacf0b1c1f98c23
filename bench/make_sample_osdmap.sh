#!/usr/bin/env bash
# Builds a binary osdmap for samples/cluster with a real Ceph 16.2 monitor,
# so that Ceph's own osdmaptool can map a balancer's result saved onto it:
# 188 OSDs with samples/cluster/crush.txt and its four pools created in its
# order with its rules, sizes and pg_num (the EC pool from the ec-4-2-hdd
# profile and rule ec42_hdd). The OSDs are down as the monitor leaves them
# (a monitor asserts on up OSDs without features): the OSD states, weights
# and pg_upmap_items come from the state when crushkit saves onto this map
# (`crushkit balance STATE --osdmap OUT -o MAP`, ApplyClusterState), and
# `crushkit import --osdmap MAP --pg-stats samples/cluster/pg-dump.json`
# says whether MAP places every PG where the sample's pg dump has it.
# How: `osdmaptool --createsimple 188 --import-crush` seeds `ceph-mon --mkfs
# --osdmap`; `ceph osd pool create` adds the pools; `ceph osd getmap`
# fetches the map. The monitor runs on loopback in a temporary directory
# and is stopped on exit. Needs root and ceph-mon.
#
# Usage: bench/make_sample_osdmap.sh OUT [PORT]
set -euo pipefail
OUT=$(readlink -f "$1")
PORT=${2:-47391}
SAMPLE=$(cd "$(dirname "$0")/../samples/cluster" && pwd)
D=$(mktemp -d)
mon_pid=
cleanup() {
  if [ -n "$mon_pid" ]; then kill "$mon_pid" 2>/dev/null || true; fi
  rm -rf "$D"
}
trap cleanup EXIT
cd "$D"
export CEPH_ARGS="--crash_dir=$D/crash"

crushtool -c "$SAMPLE/crush.txt" -o crush.bin
osdmaptool --createsimple 188 --clobber --import-crush crush.bin om0 > /dev/null 2>&1

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
monmaptool --create --addv a "[v1:127.0.0.1:$PORT]" --fsid "$fsid" monmap > /dev/null
ceph-mon --mkfs -i a --monmap monmap --osdmap om0 -c ceph.conf
ceph-mon -i a -c ceph.conf
for _ in $(seq 50); do timeout 5 ceph -c ceph.conf -s > /dev/null 2>&1 && break; sleep 0.2; done
mon_pid=$(cat "$D/mon.a.pid" 2> /dev/null || true)

# A monitor command; its output only if it fails (a young monitor sometimes
# refuses the first command: retried).
c() {
  for _ in 1 2 3; do timeout 60 ceph -c ceph.conf "$@" > cmd.log 2>&1 && return 0; sleep 1; done
  cat cmd.log >&2
  return 1
}
c osd pool create rbd 2048 2048 replicated replicated_hdd
c osd pool set rbd size 3
c osd erasure-code-profile set ec-4-2-hdd k=4 m=2 crush-failure-domain=host \
  crush-device-class=hdd crush-root=default
c osd pool create default.rgw.buckets.data 2048 2048 erasure ec-4-2-hdd ec42_hdd
c osd pool create default.rgw.buckets.index 256 256 replicated replicated_ssd
c osd pool set default.rgw.buckets.index size 3
c osd pool create device_health_metrics 1 1 replicated replicated_hdd
c osd pool set device_health_metrics size 3
c osd getmap -o om
cp om "$OUT"
