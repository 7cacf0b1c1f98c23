#!/usr/bin/env bash
# Issue 40's planner speed targets on the 10,000-OSD, 1,280,000-PG cluster of
# bench/lib.sh (20 racks x 20 hosts x 25 OSDs, straw2, one replicated
# pool), side by side with osdmaptool in one run:
#   * `crushkit plan STATE add-rack.ops` (a 21st rack of 20 hosts x 25 OSDs at
#     the existing OSDs' CRUSH weight: movement, backfill simulation, report),
#     as the terminal summary (the plan itself) and as --json (~50 MB: every
#     OSD's, domain's and step's figures through protobuf's printer);
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
source "$(dirname "$0")/lib.sh"
bench_init "${1:-build/tools/crushkit}"
REPS=${REPS:-3}

build_bench_state
write_add_rack_ops add-rack.ops

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -r _ ow oc _ < <(best osdmaptool bash -c \
  'osdmaptool om --test-map-pgs-dump > /dev/null && osdmaptool om --test-map-pgs-dump')
read -r _ qw qc qm < <(best summary "$CRUSHKIT" plan om.pb add-rack.ops)
read -r _ pw pc pm < <(best plan "$CRUSHKIT" plan om.pb add-rack.ops --json)
read -r _ sw sc sm < <(best staged "$CRUSHKIT" plan om.pb add-rack.ops --max-misplaced 1% \
  --upmap-remapped --json)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
awk -v ow="$ow" -v oc="$oc" -v qw="$qw" -v qc="$qc" -v qm="$qm" -v pw="$pw" -v pc="$pc" \
    -v pm="$pm" -v sw="$sw" -v sc="$sc" -v sm="$sm" -v reps="$REPS" -v cpus="$(nproc)" -v l0="$load_before" -v l1="$load_after" 'BEGIN {
  printf "best of %d; %d CPUs; load average %s before, %s after\n", reps, cpus, l0, l1;
  printf "wall s / cpu s; ratio = osdmaptool time / crushkit time\n";
  printf "osdmaptool --test-map-pgs-dump x2:        %7.2f / %7.2f\n", ow, oc;
  printf "crushkit plan (rack added), summary:      %7.2f / %7.2f  -> %.1fx wall; peak RSS %.0f MiB\n",
         qw, qc, ow / qw, qm / 1024;
  printf "crushkit plan (rack added), --json:       %7.2f / %7.2f  -> %.1fx wall; peak RSS %.0f MiB\n",
         pw, pc, ow / pw, pm / 1024;
  printf "crushkit plan --max-misplaced 1%% --upmap-remapped: %7.2f / %7.2f  -> %.1fx wall; peak RSS %.0f MiB\n",
         sw, sc, ow / sw, sm / 1024;
}'
