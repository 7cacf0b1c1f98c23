#!/usr/bin/env python3
"""`crushkit plan STATE A.ops B.ops ...`: alternatives side by side (issue 40).

On the imported samples/cluster:
  * four change files compared (--json): one alternative each, ranked 1..4 by data moved
    (the default, said so), and each alternative's figures equal `crushkit plan STATE X.ops
    --json` of that file alone (bytes, PGs, floor, duration, peak fill, MAX AVAIL per pool);
  * the terminal table fits 100 columns and names the criterion; --rank-by peak-fill reorders;
  * --place-hosts new-hosts.ops: each rack and a new one, ranked by the fullest OSD after;
  * --drain-order: every order of two hosts, two stages each, ranked by peak fill;
  * --steps 3: the change at once and staged into about 2 and 3 steps;
  * an alternative that does not apply is listed with its located error (exit 0 while another
    plans; exit 1 when none does); --rank-by and staging flags are refused with a reason;
  * --html writes the comparison table above the best alternative's report.

Exit: 0 ok, 1 failure.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

FILES = ["add-rack.ops", "add-hosts-spread.ops", "drain-host.ops", "reweight.ops"]


def run(ck, d, args):
    return subprocess.run([ck] + args, cwd=d, capture_output=True, text=True, timeout=300)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--samples", required=True, help="samples/cluster")
    a = ap.parse_args()
    ck = os.path.abspath(a.crushkit)
    s = os.path.abspath(a.samples)
    d = tempfile.mkdtemp(prefix="crushkit-compare-")
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)
        return cond

    try:
        p = run(ck, d, ["import", "--osdmap", os.path.join(s, "osd-dump.json"), "--crush",
                        os.path.join(s, "crush.txt"), "--pg-stats", os.path.join(s, "pg-dump.json"),
                        "--osd-df", os.path.join(s, "osd-df.json"), "--df", os.path.join(s, "df.json"),
                        "-o", "state.pb"])
        if p.returncode != 0:
            print("FAIL: import: " + p.stderr)
            return 1
        files = [os.path.join(s, f) for f in FILES]

        # Four files, JSON: each alternative is the planner's figure for that file alone.
        p = run(ck, d, ["plan", "state.pb"] + files + ["--json"])
        if not expect(p.returncode == 0, "compare --json: exit %d: %s" % (p.returncode, p.stderr[-800:])):
            raise SystemExit
        c = json.loads(p.stdout)
        alts = c["alternatives"]
        expect(c["rank_by"] == "moved" and c["rank_by_default"], "default criterion: %r" % c["rank_by"])
        expect([x["rank"] for x in alts] == [1, 2, 3, 4], "ranks %r" % [x["rank"] for x in alts])
        moved = [int(x["bytes_to_move"]) for x in alts]
        expect(moved == sorted(moved), "not least data moved first: %r" % moved)
        for x in alts:
            single = json.loads(run(ck, d, ["plan", "state.pb", os.path.join(s, x["name"]), "--json"]).stdout)
            t = single["totals"]
            for key in ("bytes_to_move", "pgs_remapped", "shards_moved"):
                expect(str(x[key]) == str(t[key]), "%s: %s %s vs plan alone %s" % (x["name"], key, x[key], t[key]))
            expect(abs(x["minimum_to_move"] - t["minimum_to_move"]) < 1e-6 * max(1, t["minimum_to_move"]),
                   "%s: floor %s vs %s" % (x["name"], x["minimum_to_move"], t["minimum_to_move"]))
            expect(abs(x["duration_seconds"] - single["schedule"]["makespan_seconds"]) < 1e-6,
                   "%s: duration %s vs makespan %s" % (x["name"], x["duration_seconds"],
                                                      single["schedule"]["makespan_seconds"]))
            expect(x["peak_osd"] == single["safety"]["riskiest_osd"] and
                   abs(x["peak_fill"] - single["safety"]["riskiest_fill"]) < 1e-9,
                   "%s: peak %s osd.%s vs %s osd.%s" % (x["name"], x["peak_fill"], x["peak_osd"],
                                                       single["safety"]["riskiest_fill"],
                                                       single["safety"]["riskiest_osd"]))
            want = {q["pool"]: (q["max_avail_before"], q["max_avail_after"]) for q in single["safety"]["pools"]}
            got = {q["pool"]: (q["max_avail_before"], q["max_avail_after"]) for q in x["pools"]}
            expect(got == want and len(got) == 4, "%s: MAX AVAIL %r vs %r" % (x["name"], got, want))
            expect(0 < x["fullest_fill_after"] < 1 and x["max_pg_deviation"] > 0,
                   "%s: balance after %s / %s" % (x["name"], x["fullest_fill_after"], x["max_pg_deviation"]))

        # The terminal: within 100 columns, the criterion named; --rank-by reorders.
        p = run(ck, d, ["plan", "state.pb"] + files)
        expect(p.returncode == 0, "compare: exit %d" % p.returncode)
        long = [l for l in p.stdout.splitlines() if len(l) > 100]
        expect(not long, "lines over 100 columns: %r" % long[:2])
        expect("ranked by moved (data moved, least first; the default" in p.stdout, "criterion not stated")
        for f in FILES:
            expect(f in p.stdout, "%s not in the table" % f)
        p = run(ck, d, ["plan", "state.pb"] + files + ["--json", "--rank-by", "peak-fill"])
        peaks = [x["peak_fill"] for x in json.loads(p.stdout)["alternatives"]]
        expect(peaks == sorted(peaks), "--rank-by peak-fill: %r" % peaks)

        # --place-hosts: every rack and a new one.
        p = run(ck, d, ["plan", "state.pb", "--place-hosts", os.path.join(s, "new-hosts.ops"), "--json"])
        if expect(p.returncode == 0, "--place-hosts: %s" % p.stderr[-800:]):
            c = json.loads(p.stdout)
            names = sorted(x["name"] for x in c["alternatives"])
            expect(names == ["new rack rack3", "rack0", "rack1", "rack2"], "--place-hosts: %r" % names)
            expect(c["rank_by"] == "fullest", "--place-hosts ranks by %r" % c["rank_by"])
            expect(all(not x["error"] for x in c["alternatives"]), "--place-hosts: an error")

        # --drain-order: both orders of two hosts, two stages each.
        p = run(ck, d, ["plan", "state.pb", "--drain-order", "node-r0-2,node-r1-3", "--json"])
        if expect(p.returncode == 0, "--drain-order: %s" % p.stderr[-800:]):
            c = json.loads(p.stdout)
            names = sorted(x["name"] for x in c["alternatives"])
            expect(names == ["node-r0-2, node-r1-3", "node-r1-3, node-r0-2"], "--drain-order: %r" % names)
            expect(all(x["stages"] == 2 for x in c["alternatives"]), "--drain-order: stages")
            expect(c["rank_by"] == "peak-fill", "--drain-order ranks by %r" % c["rank_by"])
        p = run(ck, d, ["plan", "state.pb", "--drain-order", "node-r0-2,node-r9-9"])
        expect(p.returncode != 0 and "'node-r9-9' is not a bucket" in p.stderr,
               "--drain-order with an unknown host: %d %r" % (p.returncode, p.stderr))

        # --steps 3: at once, ~2 and ~3 steps.
        p = run(ck, d, ["plan", "state.pb", os.path.join(s, "reweight.ops"), "--steps", "3", "--json"])
        if expect(p.returncode == 0, "--steps: %s" % p.stderr[-800:]):
            steps = sorted(x["steps"] for x in json.loads(p.stdout)["alternatives"])
            expect(len(steps) == 3 and steps[0] == 0 and steps[1] >= 2, "--steps 3: steps %r" % steps)

        # Errors.
        with open(os.path.join(d, "typo.ops"), "w") as f:
            f.write("osd crush reweight osd.9999 1\n")
        p = run(ck, d, ["plan", "state.pb", "typo.ops", os.path.join(s, "reweight.ops")])
        expect(p.returncode == 0 and "typo.ops: could not be planned" in p.stdout and "typo.ops:1:" in p.stdout,
               "a failing alternative: %d %r" % (p.returncode, p.stdout[-600:]))
        p = run(ck, d, ["plan", "state.pb", "typo.ops", "--compare"])
        expect(p.returncode == 1, "no alternative planned: exit %d" % p.returncode)
        p = run(ck, d, ["plan", "state.pb"] + files[:2] + ["--rank-by", "speed"])
        expect(p.returncode != 0 and "expected one of moved" in p.stderr, "--rank-by speed: %r" % p.stderr)
        p = run(ck, d, ["plan", "state.pb"] + files[:2] + ["--max-misplaced", "5%"])
        expect(p.returncode != 0 and "--steps" in p.stderr, "--max-misplaced with two files: %r" % p.stderr)

        # HTML: the comparison above the best's report.
        p = run(ck, d, ["plan", "state.pb"] + files + ["--html", "cmp.html"])
        if expect(p.returncode == 0, "--html: %s" % p.stderr[-500:]):
            page = open(os.path.join(d, "cmp.html")).read()
            top, moves = page.find("Alternatives compared (4)"), page.find("What moves")
            expect(0 <= top < moves, "the comparison is not above 'What moves'")
    except SystemExit:
        pass
    finally:
        if not failures:
            shutil.rmtree(d, ignore_errors=True)
    if failures:
        print("FAIL: " + "\n  ".join(failures) + "\n(work directory kept: %s)" % d)
        return 1
    print("OK: 4 sample changes compared (figures equal each plan alone), --place-hosts, --drain-order, "
          "--steps, errors, HTML; terminal within 100 columns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
