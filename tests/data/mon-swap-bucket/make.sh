#!/usr/bin/env bash
# Regenerates this folder: what a real Ceph 16.2 monitor makes of
# `osd crush swap-bucket`, for ctest crushkit_swap_bucket_monitor.
#   before.bin   3 racks x 2 hosts x 2 OSDs (straw2), classes hdd/ssd (shadow
#                trees), host h1 weighted unevenly, and an orphan host `spare`
#                (osd.12, osd.13, not linked) as a replacement host is staged
#   orphan.bin   after `osd crush swap-bucket spare h1` (spare takes h1's place)
#   forced.bin   before.bin, then `osd crush swap-bucket h0 h3 --yes-i-really-mean-it`
#                (two linked hosts in different racks)
#   refused.txt  the monitor's answer to `osd crush swap-bucket h0 h3` without the flag
# Needs root, ceph-mon (the sandbox installs it) and crushtool 16.2. The
# monitor (/work/shared/tools/ceph-mon-sandbox.sh) is stopped by its pid.
# Usage: tests/data/mon-swap-bucket/make.sh [PORT]
set -euo pipefail
OUT=$(cd "$(dirname "$0")" && pwd)
PORT=${1:-46851}
SANDBOX=${SANDBOX:-/work/shared/tools/ceph-mon-sandbox.sh}
D=$(mktemp -d)
mon_pid=
cleanup() {
  if [ -n "$mon_pid" ]; then kill "$mon_pid" 2>/dev/null || true; fi
  rm -rf "$D"
}
trap cleanup EXIT
export CEPH_ARGS="--crash_dir=$D/crash"
mon_pid=$(bash "$SANDBOX" "$D/mon" "$PORT" | tail -1)
ceph() { timeout 60 /usr/bin/ceph -c "$D/mon/ceph.conf" "$@"; }
for _ in $(seq 60); do ceph osd ls >/dev/null 2>&1 && break; sleep 0.5; done

for _ in $(seq 14); do ceph osd create >/dev/null; done
ceph osd crush rule create-replicated byhost default host >/dev/null 2>&1 || true
for r in 0 1 2; do ceph osd crush add-bucket r$r rack root=default >/dev/null 2>&1; done
for h in 0 1 2 3 4 5; do ceph osd crush add-bucket h$h host rack=r$((h / 2)) root=default >/dev/null 2>&1; done
for i in $(seq 0 11); do
  w=1.0; [ "$i" = 2 ] && w=2.5; [ "$i" = 3 ] && w=0.5
  ceph osd crush add osd.$i $w host=h$((i / 2)) rack=r$((i / 4)) root=default >/dev/null 2>&1
done
ceph osd crush add-bucket spare host >/dev/null 2>&1
ceph osd crush add osd.12 1.25 host=spare >/dev/null 2>&1
ceph osd crush add osd.13 1.5 host=spare >/dev/null 2>&1
for i in $(seq 0 13); do
  ceph osd crush rm-device-class osd.$i >/dev/null 2>&1 || true
  ceph osd crush set-device-class $([ $((i % 3)) = 0 ] && echo ssd || echo hdd) osd.$i >/dev/null 2>&1
done
ceph osd crush rule create-replicated ssdrule default host ssd >/dev/null 2>&1
ceph osd getcrushmap -o "$OUT/before.bin" 2>/dev/null

ceph osd crush swap-bucket spare h1 2>&1 | tee "$D/orphan.out"
ceph osd getcrushmap -o "$OUT/orphan.bin" 2>/dev/null

ceph osd setcrushmap -i "$OUT/before.bin" >/dev/null 2>&1
{ ceph osd crush swap-bucket h0 h3 2>&1 || true; } > "$OUT/refused.txt"
ceph osd crush swap-bucket h0 h3 --yes-i-really-mean-it 2>&1
ceph osd getcrushmap -o "$OUT/forced.bin" 2>/dev/null
ls -l "$OUT"
