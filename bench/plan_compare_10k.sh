#!/usr/bin/env bash
# Issue 40's comparison target on the 10,000-OSD, 1,280,000-PG cluster of
# bench/lib.sh (20 racks x 20 hosts x 25 OSDs, straw2, one replicated
# pool): `crushkit plan STATE A.ops B.ops ...` with 20 alternatives, each
# adding one host of 25 OSDs to another rack (rack0..rack19), and the same
# question asked with --place-hosts (those 20 racks and a new one: 21).
# Target: the 20-alternative comparison < 10 s wall on 2 cores.
# Each command runs REPS times (default 2); the minimum wall and CPU seconds
# and the largest peak RSS are printed, with the load average, since the
# machine may be shared.
#
# Usage: [REPS=2] [THREADS=2] bench/plan_compare_10k.sh [path/to/crushkit]
set -euo pipefail
export CRUSHKIT_CEPH_RELEASE=pacific
source "$(dirname "$0")/lib.sh"
bench_init "${1:-build/tools/crushkit}"
REPS=${REPS:-2}
THREADS=${THREADS:-2}

build_bench_state
racks=$((OSDS / 25 / 20))
alts=()
for r in $(seq 0 $((racks - 1))); do
  echo "add-host newhost osds=25 weight=1 rack=rack$r" > "in-rack$r.ops"
  alts+=("in-rack$r.ops")
done
echo "add-host newhost osds=25 weight=1" > host.ops

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -r _ ow oc om < <(best one "$CRUSHKIT" plan om.pb in-rack0.ops --json --threads "$THREADS")
read -r _ fw fc fm < <(best files "$CRUSHKIT" plan om.pb "${alts[@]}" --json --threads "$THREADS")
read -r _ pw pc pm < <(best place "$CRUSHKIT" plan om.pb --place-hosts host.ops --json \
  --threads "$THREADS")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
awk -v ow="$ow" -v oc="$oc" -v om="$om" -v fw="$fw" -v fc="$fc" -v fm="$fm" -v pw="$pw" \
    -v pc="$pc" -v pm="$pm" -v n="${#alts[@]}" -v reps="$REPS" -v threads="$THREADS" \
    -v cpus="$(nproc)" -v l0="$load_before" -v l1="$load_after" 'BEGIN {
  printf "best of %d; --threads %d on %d CPUs; load average %s before, %s after\n", reps, threads,
         cpus, l0, l1;
  printf "wall s / cpu s / peak RSS\n";
  printf "plan, one alternative:                     %7.2f / %7.2f / %5.0f MiB\n", ow, oc, om / 1024;
  printf "plan, %d alternatives (files):             %7.2f / %7.2f / %5.0f MiB  (target < 10 s wall)\n",
         n, fw, fc, fm / 1024;
  printf "plan --place-hosts (%d alternatives):      %7.2f / %7.2f / %5.0f MiB\n", n + 1, pw, pc,
         pm / 1024;
}'
