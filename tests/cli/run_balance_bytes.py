#!/usr/bin/env python3
"""`crushkit balance --by bytes` on the sample cluster (samples/cluster,
imported with its PG stats, `osd df` and `df`): every device class's
fullest - emptiest %USE within --spread, every pool's PG deviation within
--deviation, MAX AVAIL not lower, the terminal summary agreeing with --json,
the same output on every run, and --osdmap refused without -o."""
import argparse
import json
import os
import sys
import tempfile

from cli_check import FAILURES, expect, run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--samples", required=True)
    a = ap.parse_args()
    k = a.crushkit
    c = os.path.join(a.samples, "cluster")
    with tempfile.TemporaryDirectory() as tmp:
        state = os.path.join(tmp, "state.pb")
        run([k, "import", "--osdmap", os.path.join(c, "osd-dump.json"), "--crush",
             os.path.join(c, "crush.txt"), "--pg-stats", os.path.join(c, "pg-dump.json"),
             "--osd-df", os.path.join(c, "osd-df.json"), "--df", os.path.join(c, "df.json"),
             "-o", state])
        args = [k, "balance", state, "--by", "bytes", "--max", "2000", "--deviation", "5",
                "--spread", "2"]
        r = json.loads(run(args + ["--json"]).stdout)
        b = r["bytes"]
        expect(r["by"] == "BYTES" and b["capacity_from_osd_df"], "by bytes, fill from osd df")
        expect({x["device_class"] for x in b["classes"]} == {"hdd", "ssd"}, "classes")
        for x in b["classes"]:
            expect(x["before"]["spread"] > 2, f"{x['device_class']}: needs an uneven start")
            expect(x["after"]["spread"] <= 2 and x["stop_reason"] == "balanced",
                   f"{x['device_class']}: spread {x['after']['spread']} ({x['stop_reason']})")
        for p in b["pools"]:
            expect(p["pg_deviation_after"] <= 5 + 1e-9,
                   f"{p['pool_name']}: PG deviation {p['pg_deviation_after']}")
            expect(int(p["max_avail_after"]) >= int(p["max_avail_before"]),
                   f"{p['pool_name']}: MAX AVAIL fell")
        text = run(args).stdout
        expect(text.startswith(f"balance by bytes: {r['moves']} moves (max 2000)"),
               f"summary head:\n{text[:200]}")
        expect("hdd" in text and "MAX AVAIL" in text, "summary tables")
        expect(run(args).stdout == text, "two runs differ")
        p = run(args + ["--osdmap", os.path.join(tmp, "om")], expect_rc=107)
        expect("requires --output" in p.stderr, f"--osdmap without -o: {p.stderr}")
    if FAILURES:
        print("\n".join(FAILURES))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
