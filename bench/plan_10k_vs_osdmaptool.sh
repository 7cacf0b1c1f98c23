#!/usr/bin/env bash
# Issue 40's planner speed targets on the 10,000-OSD, 1,280,000-PG cluster of
# cluster_10k.sh (20 racks x 20 hosts x 25 OSDs, straw2, one replicated
# pool), side by side with osdmaptool in one run:
#   * `crushkit plan STATE add-rack.ops` (a 21st rack of 20 hosts x 25 OSDs at
#     the existing OSDs' CRUSH weight: movement, backfill simulation, report);
#   * the same with `--max-misplaced 1% --upmap-remapped` (the staged plan
#     and the upmap way);
#   * `osdmaptool --test-map-pgs-dump` run twice (the two mapping passes the
#     same answer costs at least with Ceph's tools: before and after).
# Each command runs REPS times (default 3); the minimum wall and CPU seconds
# and the largest peak RSS are printed, with the load average, since the
# machine may be shared. Ratio = osdmaptool time / crushkit time.
#
# Usage: [REPS=3] bench/plan_10k_vs_osdmaptool.sh [path/to/crushkit]   (needs ceph-base)
set -euo pipefail
# The oracle is Ceph 16.2: states map as that release (ClusterState.ceph_release).
export CRUSHKIT_CEPH_RELEASE=pacific
source "$(dirname "$0")/cluster_10k.sh"
bench_init "${1:-build/tools/crushkit}"
REPS=${REPS:-3}

build_bench_cluster "$OSDS" "$PG_BITS"
osdmaptool om --export-crush om.crush --dump json 2>/dev/null | sed -n '/^{/,$p' > om.json
"$CRUSHKIT" import --osdmap om.json --crush om.crush -o om.pb 2>/dev/null
hosts=$((OSDS / 25 / 20))
{
  echo "osd crush add-bucket rack20 rack root=root"
  for h in $(seq 0 $((hosts - 1))); do
    echo "add-host newhost$h osds=25 weight=1 rack=rack20 root=root"
  done
} > add-rack.ops

# best NAME CMD...: runs CMD (stdout to /dev/null) REPS times; prints
# "NAME min_wall min_cpu max_rss_kib".
best() {
  local name=$1; shift
  local w c m bw=1e9 bc=1e9 bm=0
  for _ in $(seq "$REPS"); do
    /usr/bin/time -f "%e %U %S %M" -o t.txt "$@" > /dev/null 2>/dev/null
    read -r w u s m < t.txt
    c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
    bw=$(awk -v a="$bw" -v b="$w" 'BEGIN { print (b < a) ? b : a }')
    bc=$(awk -v a="$bc" -v b="$c" 'BEGIN { print (b < a) ? b : a }')
    bm=$(( m > bm ? m : bm ))
  done
  echo "$name $bw $bc $bm"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -r _ ow oc _ < <(best osdmaptool bash -c \
  'osdmaptool om --test-map-pgs-dump > /dev/null && osdmaptool om --test-map-pgs-dump')
read -r _ pw pc pm < <(best plan "$CRUSHKIT" plan om.pb add-rack.ops --json)
read -r _ sw sc sm < <(best staged "$CRUSHKIT" plan om.pb add-rack.ops --max-misplaced 1% \
  --upmap-remapped --json)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
awk -v ow="$ow" -v oc="$oc" -v pw="$pw" -v pc="$pc" -v pm="$pm" -v sw="$sw" -v sc="$sc" \
    -v sm="$sm" -v reps="$REPS" -v cpus="$(nproc)" -v l0="$load_before" -v l1="$load_after" 'BEGIN {
  printf "best of %d; %d CPUs; load average %s before, %s after\n", reps, cpus, l0, l1;
  printf "wall s / cpu s; ratio = osdmaptool time / crushkit time\n";
  printf "osdmaptool --test-map-pgs-dump x2:        %7.2f / %7.2f\n", ow, oc;
  printf "crushkit plan (rack added):               %7.2f / %7.2f  -> %.1fx wall; peak RSS %.0f MiB\n",
         pw, pc, ow / pw, pm / 1024;
  printf "crushkit plan --max-misplaced 1%% --upmap-remapped: %7.2f / %7.2f  -> %.1fx wall; peak RSS %.0f MiB\n",
         sw, sc, ow / sw, sm / 1024;
}'
