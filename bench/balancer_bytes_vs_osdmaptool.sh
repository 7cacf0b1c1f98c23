#!/usr/bin/env bash
# The balancer by bytes against Ceph's upmap balancer, both results read
# back by Ceph's own osdmaptool, in one run.
#
# The cluster (OM=MAP, else bench/make_3pool_osdmap.sh builds it with a real
# 16.2 monitor: 1,000 OSDs, 40 hosts x 25, 10 racks, CRUSH weights 1.0-3.0,
# pools rep3 8,192 PGs, rep2 4,096, EC 4+2 2,048) gets uneven PG sizes and
# the fill they give (bench/make_bytes_dumps.py: lognormal sizes, 1% hot PGs,
# capacity = CRUSH weight in TiB), taken from Ceph's own mapping of the map.
# With PGDUMP, OSDDF (and DF) given instead, those dumps are used as they are
# (samples/cluster: OM from bench/make_sample_osdmap.sh).
#
# Then, on copies of the map:
#   osdmaptool om_ceph --upmap ceph.txt --upmap-max CEPH_MAX --upmap-deviation D --save
#   crushkit balance state.pb --by bytes --max MAX --deviation D --spread S \
#       --osdmap om -o om_ck          (state.pb: `crushkit import` of the same map and dumps)
# and each saved map is measured from Ceph's `osdmaptool MAP
# --test-map-pgs-dump-all` by bench/measure_fill.py (per class fullest -
# emptiest %USE, per pool MAX AVAIL as `ceph df` computes it and max |PG
# deviation|) and checked with Ceph's `--upmap-cleanup` (commands Ceph would
# issue to cancel entries; 0 = every entry valid and kept). crushkit's own
# figures (its --json) are printed beside Ceph's for crushkit's map.
# Times are wall / user+sys seconds (bash's time).
#
# Usage: [OM=om3] [PGDUMP=.. OSDDF=.. [DF=..]] [MAX=4000] [CEPH_MAX=10000]
#        [DEVIATION=5] [SPREAD=1] bench/balancer_bytes_vs_osdmaptool.sh [path/to/crushkit]
set -euo pipefail
export CRUSHKIT_CEPH_RELEASE=pacific
HERE=$(cd "$(dirname "$0")" && pwd)
MAX=${MAX:-4000}
CEPH_MAX=${CEPH_MAX:-10000}
DEVIATION=${DEVIATION:-5}
SPREAD=${SPREAD:-1}
OM=${OM:+$(readlink -f "$OM")}
PGDUMP=${PGDUMP:+$(readlink -f "$PGDUMP")}
OSDDF=${OSDDF:+$(readlink -f "$OSDDF")}
DF=${DF:+$(readlink -f "$DF")}
source "$HERE/lib.sh"
bench_init "${1:-build/tools/crushkit}"
if [ -n "$OM" ]; then cp "$OM" om; else "$HERE/make_3pool_osdmap.sh" om >/dev/null; fi

osdmaptool om --test-map-pgs-dump-all > before.pgs 2>/dev/null
osdmaptool om --export-crush crush.bin --dump json 2>/dev/null | sed -n '/^{/,$p' > dump.json
crushtool -i crush.bin --dump > crush.json 2>/dev/null
if [ -n "$PGDUMP" ]; then
  cp "$PGDUMP" pg.json
  cp "$OSDDF" osd-df.json
else
  python3 "$HERE/make_bytes_dumps.py" dump.json pg.json osd-df.json < before.pgs
fi
"$CRUSHKIT" import --osdmap dump.json --crush crush.bin --pg-stats pg.json --osd-df osd-df.json \
  ${DF:+--df "$DF"} -o state.pb 2> import.log
grep -q 'mapping agrees' import.log || { cat import.log >&2; exit 1; }

# Wall and CPU (user+sys) seconds of one command.
timed() {
  local TIMEFORMAT="%3R %3U %3S"
  { time "$@" > /dev/null 2>&1; } 2> t.txt
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' t.txt
}
cp om om_ceph
read -r cw cc < <(timed osdmaptool om_ceph --upmap ceph.txt --upmap-max "$CEPH_MAX" \
  --upmap-deviation "$DEVIATION" --save)
read -r kw kc < <(timed "$CRUSHKIT" balance state.pb --by bytes --max "$MAX" \
  --deviation "$DEVIATION" --spread "$SPREAD" --osdmap om -o om_ck)
"$CRUSHKIT" balance state.pb --by bytes --max "$MAX" --deviation "$DEVIATION" --spread "$SPREAD" \
  --json > ck.json

for m in om_ceph om_ck; do
  osdmaptool "$m" --test-map-pgs-dump-all > "$m.pgs" 2>/dev/null
  osdmaptool "$m" --dump json 2>/dev/null | sed -n '/^{/,$p' > "$m.json"
  rm -f "$m.cleanup"
  osdmaptool "$m" --upmap-cleanup "$m.cleanup" > /dev/null 2>&1
  python3 "$HERE/measure_fill.py" before.pgs "$m.pgs" "$m.json" crush.json pg.json osd-df.json \
    > "$m.measure"
done
python3 "$HERE/measure_fill.py" before.pgs before.pgs dump.json crush.json pg.json osd-df.json \
  > before.measure

python3 - "$cw" "$cc" "$kw" "$kc" "$MAX" "$CEPH_MAX" "$DEVIATION" "$SPREAD" <<'PY'
import json, sys
cw, cc, kw, kc = map(float, sys.argv[1:5])
mx, cmx, dev, spread = sys.argv[5:9]
runs = [("before", json.load(open("before.measure")), None, None, None),
        ("osdmaptool", json.load(open("om_ceph.measure")), cw, cc, "om_ceph.cleanup"),
        ("crushkit", json.load(open("om_ck.measure")), kw, kc, "om_ck.cleanup")]
ck = json.load(open("ck.json"))
pools = list(runs[0][1]["pools"])
classes = list(runs[0][1]["classes"])
print(f"--by bytes --max {mx} --deviation {dev} --spread {spread}; osdmaptool --upmap-max {cmx} "
      f"--upmap-deviation {dev}; figures from Ceph's osdmaptool mapping each saved map")
head = "%-11s" % "" + "".join("%-26s" % f"{c} spread (full/empty)" for c in classes)
head += "".join("%-22s" % f"{p} MAX AVAIL/PG dev" for p in pools)
print(head + "entries cancel   wall s    cpu s")
for name, m, w, c, cleanup in runs:
    row = "%-11s" % name
    for cl in classes:
        x = m["classes"][cl]
        row += "%-26s" % ("%5.2f (%5.1f/%5.1f)" % (x["spread"], x["fullest_pct"], x["emptiest_pct"]))
    for p in pools:
        x = m["pools"][p]
        row += "%-22s" % ("%7.1f TiB / %5.2f" % (x["max_avail"] / 2**40, x["pg_deviation"]))
    cancel = "-"
    if cleanup:
        try:
            cancel = str(sum(1 for l in open(cleanup) if l.startswith("ceph osd")))
        except FileNotFoundError:
            cancel = "0"
    row += "%7d %6s" % (m["entries"], cancel)
    row += "   %6.2f   %6.2f" % (w, c) if w is not None else "        -        -"
    print(row)
print("crushkit's own figures (its --json): " + "; ".join(
    "%s spread %.2f -> %.2f (%s)" % (c["device_class"] or "(none)", c["before"]["spread"],
                                     c["after"]["spread"], c["stop_reason"])
    for c in ck["bytes"]["classes"]) + "; " + "; ".join(
    "%s MAX AVAIL %.1f -> %.1f TiB, PG dev %.2f -> %.2f" % (
        p["pool_name"], int(p["max_avail_before"]) / 2**40, int(p["max_avail_after"]) / 2**40,
        p["pg_deviation_before"], p["pg_deviation_after"]) for p in ck["bytes"]["pools"]))
print("speed-up: %.1fx wall, %.1fx cpu; moves %d" % (cw / max(kw, 1e-3), cc / max(kc, 1e-3),
                                                   ck["moves"]))
PY
