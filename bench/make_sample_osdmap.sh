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
source "$(dirname "$0")/lib.sh"
bench_workdir

crushtool -c "$SAMPLE/crush.txt" -o crush.bin
osdmaptool --createsimple 188 --clobber --import-crush crush.bin om0 > /dev/null 2>&1
mon_start "$PORT" om0
mon_cmd osd pool create rbd 2048 2048 replicated replicated_hdd
mon_cmd osd pool set rbd size 3
mon_cmd osd erasure-code-profile set ec-4-2-hdd k=4 m=2 crush-failure-domain=host \
  crush-device-class=hdd crush-root=default
mon_cmd osd pool create default.rgw.buckets.data 2048 2048 erasure ec-4-2-hdd ec42_hdd
mon_cmd osd pool create default.rgw.buckets.index 256 256 replicated replicated_ssd
mon_cmd osd pool set default.rgw.buckets.index size 3
mon_cmd osd pool create device_health_metrics 1 1 replicated replicated_hdd
mon_cmd osd pool set device_health_metrics size 3
mon_cmd osd getmap -o om
cp om "$OUT"
