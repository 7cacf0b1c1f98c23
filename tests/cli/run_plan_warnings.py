#!/usr/bin/env python3
"""`crushkit plan` on the bundled sample cluster (issue 34): a location typo
(`osd crush move node-r1-3 rack=rakc1`) is warned about with the rack it
probably meant and the capacity that leaves the rules' trees, in the
terminal, --json, --html and the --commands script; a real move between racks
warns nothing and has a floor at the rack level and a sane amplification;
a change with no floor says n/a, never a ratio."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--samples", required=True)
    a = ap.parse_args()
    ck = a.crushkit
    s = os.path.join(a.samples, "cluster")
    with tempfile.TemporaryDirectory() as d:
        state = os.path.join(d, "state.pb")
        p = run([ck, "import", "--osdmap", os.path.join(s, "osd-dump.json"),
                 "--crush", os.path.join(s, "crush.txt"),
                 "--pg-stats", os.path.join(s, "pg-dump.json"),
                 "--osd-df", os.path.join(s, "osd-df.json"), "--df", os.path.join(s, "df.json"),
                 "-o", state])
        check(p.returncode == 0, "import failed: " + p.stderr)

        # The typo: Ceph would create rack 'rakc1' and hang the host from it.
        typo = ["--do", "osd crush move node-r1-3 rack=rakc1"]
        html = os.path.join(d, "r.html")
        cmds = os.path.join(d, "steps.sh")
        p = run([ck, "plan", state] + typo + ["--html", html, "--max-misplaced", "5%",
                                               "--commands", cmds, "--no-schedule"])
        check(p.returncode == 0, "plan of the typo failed: " + p.stderr)
        # The summary wraps lines at 100 columns: compare with single spaces.
        out = " ".join(p.stdout.split())
        check("warning: --do:1:31: rack 'rakc1' does not exist: Ceph creates it, attached to no "
              "root; did you mean 'rack1'?" in out, "no did-you-mean warning:\n" + out)
        check("warning: host 'node-r1-3' (12 OSDs, crush weight 130.968, 131 TiB capacity" in out
              and "is outside every tree a pool's rule takes" in out,
              "no detached-capacity warning:\n" + out)
        with open(html) as f:
            page = f.read()
        check("<h2>Warnings</h2>" in page and "did you mean &#39;rack1&#39;?" in page,
              "the HTML report has no warnings")
        with open(cmds) as f:
            script = f.read()
        check("#   warning: --do:1:31: rack 'rakc1' does not exist" in script,
              "the commands script has no warning comment:\n" + script[:800])

        p = run([ck, "plan", state] + typo + ["--json", "--no-schedule"])
        check(p.returncode == 0, "plan --json failed: " + p.stderr)
        report = json.loads(p.stdout)
        kinds = [w["kind"] for w in report["warnings"]]
        check(kinds == ["new_bucket", "detached"], "warning kinds: %r" % kinds)
        nb, det = report["warnings"]
        check(nb["suggestion"] == "rack1" and nb["bucket"] == "rakc1", "new_bucket: %r" % nb)
        check(det["osds"] == list(range(106, 118)), "detached OSDs: %r" % det["osds"])
        check(abs(det["crush_weight"] - 130.968) < 0.01 and int(det["capacity_bytes"]) > 0
              and det["capacity_from_osd_df"], "detached capacity: %r" % det)

        # The move the typo meant: no warning, a rack-level floor, sane ratios.
        p = run([ck, "plan", state, "--do", "osd crush move node-r1-3 rack=rack2", "--json",
                 "--no-schedule"])
        check(p.returncode == 0, "plan of the move failed: " + p.stderr)
        report = json.loads(p.stdout)
        check(report["warnings"] == [], "warnings for an existing rack: %r" % report["warnings"])
        t = report["totals"]
        check(t["minimum_level"] == "rack", "floor level: %r" % t["minimum_level"])
        for c in report["pools"] + [t]:
            if int(c["bytes_to_move"]) == 0:
                continue
            check(0 < c["amplification"] < 10 and c["amplification_note"] == "",
                  "pool %s: amplification %r (%s)" % (c["pool_name"], c["amplification"],
                                                      c["amplification_note"]))

        # Nothing in the shares changes: n/a with the reason, never a ratio.
        p = run([ck, "plan", state, "--do", "osd crush tunables hammer", "--no-schedule"])
        check(p.returncode == 0, "plan of tunables failed: " + p.stderr)
        check("     n/a\n" in p.stdout and "the tunables changed" in p.stdout,
              "no n/a for a tunables change:\n" + p.stdout)
        check("x\n" not in p.stdout.split("receiving most")[0].split("ampl\n", 1)[1],
              "a ratio printed for a change without a floor:\n" + p.stdout)
    print("ok")


if __name__ == "__main__":
    main()
