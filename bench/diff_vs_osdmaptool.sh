#!/usr/bin/env bash
# `crushkit diff` on the 10,000-OSD, 1,280,000-PG cluster of
# map_pgs_vs_osdmaptool.sh (20 racks x 20 hosts x 25 OSDs, straw2, one
# replicated pool), after reweighting one host's OSDs to half their CRUSH
# weight, next to what the same answer costs with Ceph's tools: two runs of
# `osdmaptool --test-map-pgs-dump` (before and after). Prints wall and CPU
# seconds, crushkit's peak memory, and the ratio; checks that crushkit's
# remapped-PG count equals the one derived from osdmaptool's dumps.
#
# Usage: bench/diff_vs_osdmaptool.sh [path/to/crushkit]   (needs ceph-base)
set -euo pipefail
# The oracle is Ceph 16.2: states map as that release (ClusterState.ceph_release).
export CRUSHKIT_CEPH_RELEASE=pacific
source "$(dirname "$0")/lib.sh"
bench_init "${1:-build/tools/crushkit}"

build_bench_cluster "$OSDS" "$PG_BITS"
cp om om2
# The change: host0's 25 OSDs to CRUSH weight 0.5.
osdmaptool om2 --adjust-crush-weight "$(seq -s, -f '%g:0.5' 0 24)" --save >/dev/null 2>&1
for m in om om2; do
  osdmaptool "$m" --export-crush "$m.crush" --dump json 2>/dev/null | sed -n '/^{/,$p' > "$m.json"
  "$CRUSHKIT" import --osdmap "$m.json" --crush "$m.crush" -o "$m.pb"
done

timed() {  # wall, cpu, peak RSS KiB of one command; stdout to $1
  local out=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o t.txt "$@" > "$out" 2>/dev/null
  awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' t.txt
}
read -r a_wall a_cpu _ < <(timed before.txt osdmaptool om --test-map-pgs-dump)
read -r b_wall b_cpu _ < <(timed after.txt osdmaptool om2 --test-map-pgs-dump)
read -r k_wall k_cpu k_rss < <(timed diff.json "$CRUSHKIT" diff om.pb om2.pb --json)

ceph_remapped=$(python3 - <<'PY'
import re
def load(f):
    d = {}
    for line in open(f):
        m = re.match(r"^(\d+\.[0-9a-f]+)\s+\[([\d,]*)\]", line)
        if m:
            d[m.group(1)] = sorted(int(x) for x in m.group(2).split(",") if x)
    return d
a, b = load("before.txt"), load("after.txt")
print(sum(1 for k in a if a[k] != b.get(k)))
PY
)
ck_remapped=$(python3 -c 'import json,sys; print(json.load(open("diff.json"))["totals"]["pgs_remapped"])')
if [[ "$ceph_remapped" == "$ck_remapped" ]]; then same=equal; else same=DIFFERENT; fi
awk -v aw="$a_wall" -v ac="$a_cpu" -v bw="$b_wall" -v bc="$b_cpu" -v kw="$k_wall" -v kc="$k_cpu" \
    -v rss="$k_rss" -v cr="$ceph_remapped" -v kr="$ck_remapped" -v same="$same" 'BEGIN {
  printf "wall s / cpu s; ratio = osdmaptool time / crushkit time\n";
  printf "osdmaptool --test-map-pgs-dump x2:   %8.2f / %8.2f\n", aw + bw, ac + bc;
  printf "crushkit diff --json:                %8.2f / %8.2f  -> %.1fx wall, %.1fx cpu; peak RSS %.0f MiB\n",
         kw, kc, (aw + bw) / kw, (ac + bc) / kc, rss / 1024;
  printf "PGs remapped: osdmaptool-derived %d, crushkit %d (%s)\n", cr, kr, same;
}'
