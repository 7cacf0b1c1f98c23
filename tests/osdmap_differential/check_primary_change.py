#!/usr/bin/env python3
"""`crushkit diff BEFORE AFTER --json --pgs` across a change on a state with
pg_upmap_primaries, as a release maps and cleans it, against recorded
osdmaptool numbers (and, when that release's osdmaptool is installed,
against its `--test-map-pgs-dump` of BEFORE and of AFTER after
`--upmap-cleanup`, as the read balancer differential checks): the PGs that
gain an OSD, the PGs whose acting primary changes and those where only the
primary does. Exit 0 when all agree, 1 otherwise."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import oracle  # noqa: E402

PG_DUMP = re.compile(r"^(\d+\.[0-9a-f]+)\t\[([0-9,]*)\]\t(-?\d+)$", re.M)


def pg_dump(text):
    return {m.group(1): ([int(x) for x in m.group(2).split(",") if x], int(m.group(3)))
            for m in PG_DUMP.finditer(text)}


def counts(before, after):
    moving = {pg for pg in after if pg in before and set(after[pg][0]) - set(before[pg][0])}
    changed = [pg for pg in after if pg in before and before[pg][1] != after[pg][1]]
    only = [pg for pg in changed if set(before[pg][0]) == set(after[pg][0])]
    return len(moving), len(changed), len(only)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--release", required=True, choices=("reef", "tentacle"))
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--expect", required=True,
                    help="MOVING,PRIMARY_CHANGED,PRIMARY_ONLY as osdmaptool maps them")
    a = ap.parse_args()
    expected = tuple(int(x) for x in a.expect.split(","))
    env = dict(os.environ, CRUSHKIT_CEPH_RELEASE=a.release)
    p = subprocess.run([a.crushkit, "diff", a.before, a.after, "--json", "--pgs", "--no-schedule"],
                       capture_output=True, text=True, env=env, timeout=120)
    if p.returncode != 0:
        print("FAIL: crushkit diff exit %d: %s" % (p.returncode, p.stderr))
        return 1
    j = json.loads(p.stdout)
    t = j["totals"]
    ours = (len(j.get("pgs", [])), t.get("pgs_primary_changed", 0), t.get("pgs_primary_only", 0))
    failures = []
    if ours != expected:
        failures.append("crushkit: %d PGs moving, %d changing primary (%d only that); "
                        "recorded osdmaptool %d, %d (%d)" % (ours + expected))
    oracle.use_release(a.release)
    if oracle.put_on_path("osdmaptool", a.release) is not None:
        with tempfile.TemporaryDirectory() as d:
            shutil.copyfile(a.before, os.path.join(d, "before.om"))
            shutil.copyfile(a.after, os.path.join(d, "after.om"))
            run = lambda args: subprocess.run(["osdmaptool"] + args, cwd=d, capture_output=True,
                                              text=True, timeout=60).stdout
            before = pg_dump(run(["before.om", "--test-map-pgs-dump"]))
            after = pg_dump(run(["after.om", "--upmap-cleanup", "c.txt", "--test-map-pgs-dump"]))
            live = counts(before, after)
            if live != expected:
                failures.append("osdmaptool now maps %d, %d (%d); recorded %d, %d (%d)"
                                % (live + expected))
            mine = {m["pg"]: m for m in j.get("pgs", [])}
            for pg, m in sorted(mine.items()):
                if m.get("before") != before[pg][0] or m.get("after") != after[pg][0]:
                    failures.append("pg %s: crushkit %s -> %s, osdmaptool %s -> %s" % (
                        pg, m.get("before"), m.get("after"), before[pg][0], after[pg][0]))
                    break
    elif os.environ.get("CRUSHKIT_REQUIRE_ORACLE") == "1":
        failures.append("osdmaptool of %s not installed" % a.release)
    for f in failures:
        print("FAIL:", f)
    print("%s: %d PGs moving, %d changing primary, %d only that (expected %d, %d, %d)"
          % (("FAILED" if failures else "OK",) + ours + expected))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
