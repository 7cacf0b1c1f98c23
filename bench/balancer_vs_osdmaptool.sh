#!/usr/bin/env bash
# The upmap balancer against Ceph's: `osdmaptool --upmap` (OSDMap::
# calc_pg_upmaps, Pacific, aggressive by default) and `crushkit balance`
# with the same --max / --deviation on the same cluster: 1,000 OSDs
# (40 hosts x 25, 10 racks, straw2) with CRUSH weights 1.0 to 3.0 in five
# steps, one replicated size-3 pool of 1000 << PG_BITS PGs (32,000), all
# OSDs up and in. Ceph's map is saved with its upmaps and imported, so
# both results are measured by the same code (Ceph's definition of
# deviation: PGs - CRUSH-weight target, per pool).
#
# Only one pool (osdmaptool --createsimple makes one): the 3-pool case,
# with both saved binary maps measured by Ceph's osdmaptool, is
# balancer_3pools_vs_osdmaptool.sh.
#
# Usage: MAX=100 DEVIATION=1 bench/balancer_vs_osdmaptool.sh [path/to/crushkit]
set -euo pipefail
export CRUSHKIT_CEPH_RELEASE=pacific
source "$(dirname "$0")/lib.sh"
OSDS=${OSDS:-1000}
PG_BITS=${PG_BITS:-5}
MAX=${MAX:-100}
DEVIATION=${DEVIATION:-1}
bench_init "${1:-build/tools/crushkit}"

crushtool --build --num_osds "$OSDS" host straw2 25 rack straw2 4 root straw2 0 -o crush.bin >/dev/null
osdmaptool --createsimple "$OSDS" --with-default-pool --pg-bits "$PG_BITS" --pgp-bits "$PG_BITS" \
  --clobber --import-crush crush.bin om >/dev/null 2>&1
weights=$(awk -v n="$OSDS" 'BEGIN { for (i = 0; i < n; i++)
  printf "%s%d:%.2f", (i ? "," : ""), i, 1 + ((i * 7919) % 5) * 0.5 }')
osdmaptool om --mark-up-in --adjust-crush-weight "$weights" --save >/dev/null 2>&1
osdmaptool om --export-crush crush0.bin --dump json 2>/dev/null | sed -n '/^{/,$p' > dump.json
"$CRUSHKIT" import --osdmap dump.json --crush crush0.bin -o state.pb 2>/dev/null

# Wall and CPU (user+sys) seconds of one command; stdout to $1.
timed() {
  local out=$1; shift
  /usr/bin/time -f "%e %U %S" -o t.txt "$@" > "$out" 2>/dev/null
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' t.txt
}
cp om om_ceph
read -r ceph_wall ceph_cpu < <(timed ceph.out osdmaptool om_ceph --upmap ceph.txt \
  --upmap-max "$MAX" --upmap-deviation "$DEVIATION" --save)
read -r ck_wall ck_cpu < <(timed ck.out "$CRUSHKIT" balance state.pb --max "$MAX" \
  --deviation "$DEVIATION" --json -o ck.pb)
read -r ko_wall ko_cpu < <(timed ko.out "$CRUSHKIT" osdmaptool state.pb --upmap ko.txt \
  --upmap-max "$MAX" --upmap-deviation "$DEVIATION")

osdmaptool om_ceph --export-crush crush1.bin --dump json 2>/dev/null | sed -n '/^{/,$p' > dump1.json
"$CRUSHKIT" import --osdmap dump1.json --crush crush1.bin -o ceph.pb 2>/dev/null
"$CRUSHKIT" balance ceph.pb --max 0 --deviation "$DEVIATION" --json > ceph_measured.json

python3 - "$ceph_wall" "$ceph_cpu" "$ck_wall" "$ck_cpu" "$ko_wall" "$ko_cpu" "$MAX" "$DEVIATION" <<'PY'
import json, sys
cw, cc, kw, kc, ow, oc = map(float, sys.argv[1:7])
mx, dev = sys.argv[7], sys.argv[8]
ck = json.load(open("ck.out"))
ceph = json.load(open("ceph_measured.json"))["overall_before"]
ceph_entries = sum(1 for l in open("ceph.txt") if l.startswith("ceph osd pg-upmap-items"))
ko_entries = sum(1 for l in open("ko.txt") if l.startswith("ceph osd pg-upmap-items"))
b, a = ck["overall_before"], ck["overall_after"]
print(f"1 pool, {ck['pools'][0]['pool_name']}; max {mx}, deviation {dev}; wall s / cpu s")
print(f"before:                    max deviation {b['max_deviation']:6.1f}  stddev {b['stddev']:5.2f}")
print(f"osdmaptool --upmap:        max deviation {ceph['max_deviation']:6.1f}  stddev {ceph['stddev']:5.2f}"
      f"  entries {ceph_entries:5d}  {cw:8.2f} / {cc:8.2f}")
print(f"crushkit balance:          max deviation {a['max_deviation']:6.1f}  stddev {a['stddev']:5.2f}"
      f"  entries {len(ck['changes']):5d}  {kw:8.2f} / {kc:8.2f}  -> {cw / max(kw, 1e-3):.0f}x wall, "
      f"{cc / max(kc, 1e-3):.0f}x cpu")
print(f"crushkit osdmaptool --upmap:                                       entries {ko_entries:5d}"
      f"  {ow:8.2f} / {oc:8.2f}")
PY
