#!/usr/bin/env python3
"""`crushkit diff A B`, `crushkit diff A B'`, `crushkit diff A --crush-after`,
`crushkit plan A --do CHANGE` and `crushkit osdmaptool B' --upmap-cleanup`
against a real Ceph 16.2 monitor's upmap cleanup (issue 34).

data/mon_upmap_cleanup/ (made by make_mon_upmap_case.sh, see the README):
A is a monitor's map with three pg_upmap_items entries; B is the monitor's
map after `ceph osd crush reweight osd.22 1.0`, where the monitor cancelled
one entry (two OSDs of one host) and rewrote another (a pair whose source
left the raw set); Bhand is A with only B's crush map imported (the monitor
never saw it). Every OSD is marked up, and truth.json holds osdmaptool's up
sets of the three maps. No Ceph tool runs here.

Every entry point, with the monitor's cleanup (the default), must map every
PG as the monitor's B does and count the entries the monitor dropped and
rewrote (none for B, which the monitor already cleaned); with --keep-upmaps
as osdmaptool does without a cleanup (Bhand's up sets as they are).

Usage: mon_upmap_cleanup_test.py --crushkit build/tools/crushkit
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mon_upmap_cleanup")


def expected_counts(up_before, up_after):
    """Per pool and per OSD counters of movement.proto for replicated PGs."""
    pools, osds = {}, {}
    for pg in up_before:
        old, new = set(up_before[pg]), set(up_after[pg])
        pool = pools.setdefault(int(pg.split(".")[0]), {"pgs_remapped": 0, "shards_moved": 0})
        if old != new:
            pool["pgs_remapped"] += 1
            pool["shards_moved"] += len(new - old)
        for o in old | new:
            osds.setdefault(o, {"pgs_before": 0, "pgs_after": 0, "pgs_in": 0, "pgs_out": 0})
        for o in old:
            osds[o]["pgs_before"] += 1
        for o in new:
            osds[o]["pgs_after"] += 1
        for o in new - old:
            osds[o]["pgs_in"] += 1
        for o in old - new:
            osds[o]["pgs_out"] += 1
    return pools, osds


def report_diffs(report, want_pools, want_osds, want_upmaps):
    diffs = []
    got_pools = {int(p["pool_id"]): p for p in report["pools"]}
    for pid, want in want_pools.items():
        for f, v in want.items():
            if int(got_pools.get(pid, {}).get(f, -1)) != v:
                diffs.append("pool %d %s: got %s, expected %d"
                             % (pid, f, got_pools.get(pid, {}).get(f), v))
    got_osds = {int(o["osd"]): o for o in report["osds"]}
    for o, want in sorted(want_osds.items()):
        for f, v in want.items():
            if int(got_osds.get(o, {}).get(f, 0)) != v:
                diffs.append("osd.%d %s: got %s, expected %d" % (o, f, got_osds.get(o, {}).get(f), v))
    risks = report.get("risks", {})
    got = (int(risks.get("upmaps_dropped", 0)), int(risks.get("upmap_items_rewritten", 0)))
    if got != want_upmaps:
        diffs.append("risks (upmaps_dropped, upmap_items_rewritten): got %s, expected %s"
                     % (got, want_upmaps))
    return diffs


def run(crushkit, args, cwd):
    p = subprocess.run([crushkit] + args, cwd=cwd, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def apply_commands(items, text):
    """A's pg_upmap_items after osdmaptool-style cleanup commands."""
    items = {pg: [list(p) for p in pairs] for pg, pairs in items.items()}
    for line in text.splitlines():
        m = re.match(r"ceph osd rm-pg-upmap-items (\S+)$", line)
        if m:
            items.pop(m.group(1), None)
            continue
        m = re.match(r"ceph osd pg-upmap-items (\S+) ([\d ]+)$", line)
        if m:
            nums = [int(x) for x in m.group(2).split()]
            items[m.group(1)] = [nums[i:i + 2] for i in range(0, len(nums), 2)]
            continue
        if line.startswith("ceph osd"):
            items.setdefault("unexpected", []).append(line)
    return items


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--crushkit", required=True)
    a = ap.parse_args()
    crushkit = os.path.abspath(a.crushkit)
    with open(os.path.join(DATA, "truth.json")) as f:
        truth = json.load(f)
    up = truth["up"]
    before_items = truth["monitor_before"]["pg_upmap_items"]
    after_items = truth["monitor_after"]["pg_upmap_items"]
    # What the monitor did on A -> B: entries removed, entries rewritten.
    monitor = (sum(1 for pg in before_items if pg not in after_items),
               sum(1 for pg in before_items if pg in after_items
                   and after_items[pg] != before_items[pg]))
    failures = []
    if monitor == (0, 0) or up["B"] == up["Bhand"]:
        failures.append("data: the monitor changed no upmap, or its cleanup moved no PG; "
                        "regenerate with make_mon_upmap_case.sh")
    clean = expected_counts(up["A"], up["B"])
    kept = expected_counts(up["A"], up["Bhand"])
    change = truth["change"]
    runs = [
        ("diff A B' (hand-made after)", ["diff", "A.osdmap", "Bhand.osdmap"], clean, monitor),
        ("diff A B (the monitor's after)", ["diff", "A.osdmap", "B.osdmap"], clean, (0, 0)),
        ("diff A --crush-after B.crush", ["diff", "A.osdmap", "--crush-after", "B.crush"],
         clean, monitor),
        ("plan A --do '%s'" % change, ["plan", "A.osdmap", "--do", change], clean, monitor),
        ("diff A B' --keep-upmaps", ["diff", "A.osdmap", "Bhand.osdmap", "--keep-upmaps"],
         kept, (0, 0)),
        ("diff A --crush-after B.crush --keep-upmaps",
         ["diff", "A.osdmap", "--crush-after", "B.crush", "--keep-upmaps"], kept, (0, 0)),
        ("plan A --do '%s' --keep-upmaps" % change,
         ["plan", "A.osdmap", "--do", change, "--keep-upmaps"], kept, (0, 0)),
    ]
    for what, args, (want_pools, want_osds), want_upmaps in runs:
        rc, out, err = run(crushkit, args + ["--json", "--no-schedule", "--threads", "1"], DATA)
        if rc != 0:
            failures.append("%s: exit %d: %s" % (what, rc, err.strip()))
            continue
        for d in report_diffs(json.loads(out), want_pools, want_osds, want_upmaps):
            failures.append("%s: %s" % (what, d))
    # osdmaptool's --upmap-cleanup: the monitor's commands on B', none on B.
    with tempfile.TemporaryDirectory() as tmp:
        for name, want in (("Bhand", after_items), ("B", after_items)):
            cmds = os.path.join(tmp, name + ".txt")
            rc, out, err = run(crushkit, ["osdmaptool", os.path.join(DATA, name + ".osdmap"),
                                          "--upmap-cleanup", cmds], tmp)
            if rc != 0:
                failures.append("osdmaptool %s --upmap-cleanup: exit %d: %s" % (name, rc, err))
                continue
            with open(cmds) as f:
                text = f.read()
            start = before_items if name == "Bhand" else after_items
            got = apply_commands(start, text)
            if got != want:
                failures.append("osdmaptool %s --upmap-cleanup: upmaps %s, the monitor left %s"
                                % (name, got, want))
    for f in failures:
        print("FAIL " + f)
    print("%d runs and 2 osdmaptool cleanups against the monitor's decision (%d dropped, %d "
          "rewritten): %d failures" % (len(runs), monitor[0], monitor[1], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
