#!/usr/bin/env bash
# The upmap balancer against Ceph's on a 3-pool binary osdmap, both
# results read back by Ceph's own osdmaptool.
#
# The map (bench/make_3pool_osdmap.sh, a real 16.2 monitor): 1,000 OSDs
# (40 hosts x 25, 10 racks, straw2), CRUSH weights 1.0-3.0 in five steps,
# pools rep3 (replicated size 3, 8,192 PGs), rep2 (replicated size 2,
# 4,096 PGs), ec42 (EC 4+2, host failure domain, 2,048 PGs), all up/in.
# For each MAX in $MAXES and DEVIATION in $DEVIATIONS, on copies om1, om2:
#   osdmaptool om1 --upmap ceph.txt --upmap-max M --upmap-deviation D --save
#   crushkit osdmaptool om2 --upmap ck.txt --upmap-max M --upmap-deviation D --save
# then, on each saved map, Ceph's `osdmaptool omX --test-map-pgs-dump-all`
# (up sets -> per-pool PG counts per OSD), `--dump json` (pg_upmap_items
# entries and pairs) and `--upmap-cleanup` (commands Ceph would issue to
# cancel entries; 0 = every entry kept). Deviation (Ceph's, as
# calc_pg_upmaps): PGs in an OSD's up sets - its CRUSH-weight share of
# the pool's pg_num x size; per pool max |dev|, overall = max |sum over
# pools|. Times are wall / user+sys seconds of the --upmap command (bash's
# time, to the millisecond), the best of REPEAT runs of each tool (each on
# a fresh copy; the quality columns are the last run's).
#
# Usage: [MAXES="10 100 1000"] [DEVIATIONS="1 5"] [OM3=om3] [REPEAT=1]
#        bench/balancer_3pools_vs_osdmaptool.sh [path/to/crushkit]
# On a busy shared machine, `chrt -f 10 bench/...` (root: SCHED_FIFO) lets
# both tools' runs take a core as on an idle one.
# Without OM3, builds the map with make_3pool_osdmap.sh (needs root).
set -euo pipefail
export CRUSHKIT_CEPH_RELEASE=pacific
HERE=$(cd "$(dirname "$0")" && pwd)
MAXES=${MAXES:-"10 100 1000"}
DEVIATIONS=${DEVIATIONS:-"1 5"}
REPEAT=${REPEAT:-1}
OM3=${OM3:+$(readlink -f "$OM3")}
source "$HERE/lib.sh"
bench_init "${1:-build/tools/crushkit}"
if [ -n "$OM3" ]; then cp "$OM3" om; else "$HERE/make_3pool_osdmap.sh" om >/dev/null; fi

# Wall and CPU (user+sys) seconds of one command.
timed() {
  local TIMEFORMAT="%3R %3U %3S"
  { time "$@" >/dev/null 2>&1; } 2> t.txt
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' t.txt
}

# best_of MAP CMD...: runs CMD REPEAT times, each after copying om to MAP;
# prints the least wall and the least CPU seconds.
best_of() {
  local map=$1 w c bw="" bc=""
  shift
  for ((i = 0; i < REPEAT; ++i)); do
    cp om "$map"
    read -r w c < <(timed "$@")
    if [ -z "$bw" ] || awk "BEGIN { exit !($w < $bw) }"; then bw=$w; fi
    if [ -z "$bc" ] || awk "BEGIN { exit !($c < $bc) }"; then bc=$c; fi
  done
  echo "$bw $bc"
}

# Ceph's view of saved map $1: "maxdev_pool1 maxdev_pool2 maxdev_pool3 worst overall entries
# pairs cancelled" (worst = the largest of the three).
measure() {
  osdmaptool "$1" --test-map-pgs-dump-all > "$1.pgs" 2>/dev/null
  osdmaptool "$1" --dump json 2>/dev/null | sed -n '/^{/,$p' > "$1.json"
  rm -f "$1.cleanup"
  osdmaptool "$1" --upmap-cleanup "$1.cleanup" >/dev/null 2>&1
  python3 - "$1" <<'PY'
import collections, json, re, sys
fn = sys.argv[1]
dump = json.load(open(fn + ".json"))
text = open(fn + ".pgs").read()
# "#osd count first primary c wt wt" table: CRUSH weight x reweight.
w = {int(m[0]): float(m[1]) * float(m[2])
     for m in re.findall(r"^osd\.(\d+)\t\d+\t\d+\t\d+\t(\S+)\t(\S+)$", text, re.M)}
counts = collections.defaultdict(collections.Counter)
for pool, up in re.findall(r"^(\d+)\.[0-9a-f]+ raw \(\[[^]]*\], p-?\d+\) up \(\[([^]]*)\]", text, re.M):
    for o in up.split(","):
        if o and int(o) != 2147483647:
            counts[int(pool)][int(o)] += 1
total_w = sum(w.values())
out, worst, overall = [], 0.0, collections.Counter()
for p in sorted(dump["pools"], key=lambda p: p["pool"]):
    replicas = p["pg_num"] * p["size"]
    devs = {o: counts[p["pool"]][o] - replicas * wo / total_w for o, wo in w.items() if wo > 0}
    overall.update(devs)
    worst = max(worst, max(abs(d) for d in devs.values()))
    out.append("%.2f" % max(abs(d) for d in devs.values()))
out.append("%.2f" % worst)
out.append("%.2f" % max(abs(d) for d in overall.values()))
items = dump.get("pg_upmap_items", [])
out += [str(len(items)), str(sum(len(e["mappings"]) for e in items))]
try:
    out.append(str(sum(1 for l in open(fn + ".cleanup") if l.startswith("ceph osd"))))
except FileNotFoundError:
    out.append("-1")
print(" ".join(out))
PY
}

read -r -a before < <(measure om)
row="%-6s %-4s %-10s %6s %6s %6s %6s %7s %7s %6s %6s %7s %7s\n"
# shellcheck disable=SC2059
printf "$row" max dev tool rep3 rep2 ec42 worst overall entries pairs cancel wall_s cpu_s
# shellcheck disable=SC2059
printf "$row" - - before "${before[@]}" - -
for m in $MAXES; do
  for d in $DEVIATIONS; do
    read -r cw cc < <(best_of om1 osdmaptool om1 --upmap ceph.txt --upmap-max "$m" \
      --upmap-deviation "$d" --save)
    read -r kw kc < <(best_of om2 "$CRUSHKIT" osdmaptool om2 --upmap ck.txt --upmap-max "$m" \
      --upmap-deviation "$d" --save)
    read -r -a c < <(measure om1)
    read -r -a k < <(measure om2)
    # shellcheck disable=SC2059
    printf "$row" "$m" "$d" osdmaptool "${c[@]}" "$cw" "$cc"
    # shellcheck disable=SC2059
    printf "$row" "$m" "$d" crushkit "${k[@]}" "$kw" "$kc"
    python3 -c 'import sys
c, k = [list(map(float, s.split())) for s in sys.argv[1:3]]
print("%-6s %-4s %-10s %6s %6s %6s %6s %7s %7s %6s %6s %6.1fx %6.1fx" % tuple(
    ["", "", "ratio"] + ["%.2f" % (b / a if a else float(b == 0)) for a, b in zip(c[:7], k[:7])] +
    ["", c[8] / max(k[8], 1e-3), c[9] / max(k[9], 1e-3)]))' \
      "${c[*]} $cw $cc" "${k[*]} $kw $kc"
  done
done
echo "ratio = crushkit / osdmaptool for deviations and entries/pairs (<= 1 is crushkit no worse);"
echo "osdmaptool / crushkit for times (speed-up). cancel = commands Ceph's --upmap-cleanup issues."
