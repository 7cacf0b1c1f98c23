#!/usr/bin/env bash
# Snapshot a running loopback cluster (tools/dev/loopback-cluster.sh) into OUTDIR, then check crushkit against it:
#   loopback-capture.sh DIR OUTDIR [--no-check]
# Files: report.json (ceph report), osd-dump.json, osdmap.bin (osd getmap), crushmap.bin (osd getcrushmap),
# crush-dump.json (osd crush dump), pg-dump.json (pg dump), osd-df.json, df.json, osd-tree.json.
# Check (unless --no-check): `crushkit import` of the dumps into OUTDIR/state.pb and `crushkit map-pgs --json` must
# give every PG the up/acting sets and primaries of the pg dump (loopback-check-mapping.py); exit 1 on any mismatch.
# CRUSHKIT (default: the build tree's tools/crushkit) picks the binary.
set -euo pipefail
die() { echo "loopback-capture.sh: $*" >&2; exit 1; }
[[ $# -ge 2 ]] || { sed -n '2,3p' "$0" | sed 's/^# //' >&2; exit 2; }
D=${1%/}; out=${2%/}; check=1
[[ ${3:-} == --no-check ]] && check=0
[[ -x $D/ceph ]] || die "$D: not a loopback cluster"
here=$(cd "$(dirname "$0")" && pwd)
C=$D/ceph
mkdir -p "$out"

# The maps, then the mgr's stats; the osdmap epoch must not change meanwhile (checked after). The pg dump itself has
# no usable epoch (`last_osdmap_epoch` is 0 in Pacific, each PG's `reported_epoch` is its last report's), so capture a
# settled cluster (loopback-wait-clean.sh) when the dump's up/acting must match the maps.
# A cluster that just went clean may still publish an epoch or two (the last pg_temp dropped): up to 5 tries.
epoch() { /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["epoch"])'; }
for try in 1 2 3 4 5; do
  $C osd getmap >"$out/osdmap.bin" 2>/dev/null  # stdout: a chrooted CLI (Tentacle) sees no host paths
  $C osd dump -f json >"$out/osd-dump.json"
  $C osd getcrushmap >"$out/crushmap.bin" 2>/dev/null
  $C osd crush dump -f json >"$out/crush-dump.json"
  $C osd tree -f json >"$out/osd-tree.json"
  $C report >"$out/report.json" 2>/dev/null
  $C pg dump -f json >"$out/pg-dump.json" 2>/dev/null
  before=$(epoch <"$out/osd-dump.json")
  after=$($C osd dump -f json | epoch)
  [[ $before == "$after" ]] && break
  ((try < 5)) || die "the osdmap kept changing during the capture (last: epoch $before -> $after)"
  echo "loopback-capture.sh: the osdmap changed during the capture (epoch $before -> $after); again" >&2
  sleep 2
done
$C osd df -f json >"$out/osd-df.json"
$C df -f json >"$out/df.json"

((check)) || exit 0
crushkit=${CRUSHKIT:-$here/../../build/tools/crushkit}
[[ -x $crushkit ]] || die "no crushkit binary at $crushkit (build it, or set CRUSHKIT)"
"$crushkit" import --osdmap "$out/osdmap.bin" --pg-stats "$out/pg-dump.json" --osd-df "$out/osd-df.json" \
  --df "$out/df.json" -o "$out/state.pb"
"$crushkit" map-pgs "$out/state.pb" --json >"$out/map-pgs.json"
/usr/bin/python3 "$here/loopback-check-mapping.py" "$out/pg-dump.json" "$out/map-pgs.json"
