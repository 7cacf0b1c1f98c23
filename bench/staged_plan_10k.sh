#!/usr/bin/env bash
# `crushkit plan --max-misplaced 5%` on the 10,000-OSD, 1,280,000-PG cluster
# of map_pgs_vs_osdmaptool.sh (20 racks x 20 hosts x 25 OSDs, straw2, one
# replicated pool): adding a 21st rack of 20 hosts x 25 OSDs at the existing
# OSDs' CRUSH weight. Times the whole command (the change at once, its
# backfill simulation, the staged plan's step search and every step's
# simulation) and prints each step's misplaced ratio, measured by
# re-mapping every PG with that step's weights.
#
# UPMAP=1 adds --upmap-remapped (the upmap way too).
#
# Usage: [LIMIT=2%] [UPMAP=1] bench/staged_plan_10k.sh [path/to/crushkit]   (needs ceph-base)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init "${1:-build/tools/crushkit}"

build_bench_state
write_add_rack_ops add-rack.ops

/usr/bin/time -f "%e %U %S %M" -o t.txt \
  "$CRUSHKIT" plan om.pb add-rack.ops --max-misplaced "${LIMIT:-5%}" \
  ${UPMAP:+--upmap-remapped} --json > plan.json 2>/dev/null
read -r wall user sys rss < t.txt
python3 - "$wall" "$user" "$sys" "$rss" <<'PY'
import json, sys
wall, user, sys_, rss = sys.argv[1:]
r = json.load(open("plan.json"))
st_limit = 100 * r["staging"]["max_misplaced"]
t = r["totals"]
print(f"crushkit plan --max-misplaced {st_limit:.3g}% (rack of {len(r['staging']['staged_osds'])} OSDs added to "
      f"{t['pgs']} PGs): {float(wall):.2f} s wall, {float(user) + float(sys_):.2f} s CPU, "
      f"peak RSS {int(rss) / 1024:.0f} MiB")
print(f"at once: {t['pgs_remapped']} PGs remapped, {t['shards_moved']} shards, "
      f"misplaced {t['shards_moved'] / t['shards_total']:.2%}; "
      f"backfill {r['schedule']['makespan_seconds'] / 3600:.1f} h simulated")
st = r["staging"]
print(f"staged: {st['steps']} steps, overhead {st['overhead']:.3f}x, "
      f"{st['total_seconds'] / 3600:.1f} h simulated")
limit = r["staging"]["max_misplaced"]
worst = 0
for s in r["steps"]:
    worst = max(worst, s["misplaced_ratio"]) if s["index"] > 0 else worst
    print(f"  step {s['index']}: {s['fraction']:.0%} of the weights, {s['totals']['pgs_remapped']} PGs, "
          f"misplaced {s['misplaced_ratio']:.3%}{' OVER' if s['over_limit'] else ''}, "
          f"{len(s['commands'])} commands")
print(f"every weight step <= {st_limit:.3g}%:", "yes" if worst <= limit else "NO")
PY
