#!/usr/bin/env python3
"""`crushkit balance` and `crushkit osdmaptool --upmap` on the sample cluster
(samples/cluster, imported with its PG stats): exit codes, the terminal
summary and its `ceph osd pg-upmap-items` lines, --json (proto/balance.proto)
agreeing with the text, -o writing a state whose deviation is the one
reported, the same output on every run, --by bytes, and errors; the read
balancer (--mode read, --read, upmap-read) on the cluster imported as Reef:
pg-upmap-primary commands, per-pool scores falling, -o keeping them."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from cli_check import FAILURES, expect, run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--samples", required=True)
    a = ap.parse_args()
    k = a.crushkit
    cluster = os.path.join(a.samples, "cluster")
    with tempfile.TemporaryDirectory() as tmp:
        state = os.path.join(tmp, "state.pb")
        run([k, "import", "--osdmap", os.path.join(cluster, "osd-dump.json"),
             "--crush", os.path.join(cluster, "crush.txt"),
             "--pg-stats", os.path.join(cluster, "pg-dump.json"), "-o", state])

        text = run([k, "balance", state, "--max", "40", "--deviation", "1"]).stdout
        lines = text.splitlines()
        expect(lines and lines[0].startswith("balance by pgs: 40 moves (max 40, deviation 1)"),
               f"summary head:\n{text}")
        expect(any(l.startswith("overall ") for l in lines), f"no overall line:\n{text}")
        commands = [l for l in lines if l.startswith("ceph osd ")]
        expect(commands and all(l.startswith("ceph osd pg-upmap-items ") for l in commands),
               f"commands:\n{text}")
        expect(len(lines) - len(commands) <= 30, "the summary does not fit a screen")
        again = run([k, "balance", state, "--max", "40", "--deviation", "1"]).stdout
        expect(again == text, "two runs differ")

        out = os.path.join(tmp, "balanced.pb")
        r = json.loads(run([k, "balance", state, "--max", "40", "--deviation", "1", "--json",
                            "-o", out]).stdout)
        expect(r["by"] == "PGS" and r["moves"] == 40, f"json head: {r['by']} {r['moves']}")
        expect(r["commands"] == commands, "json commands differ from the text ones")
        expect(len(r["changes"]) == len(commands), "one change per command")
        before, after = r["overall_before"], r["overall_after"]
        expect(after["stddev"] < before["stddev"], f"stddev {before['stddev']} -> {after['stddev']}")
        expect(after["max_deviation"] <= before["max_deviation"], "max deviation grew")
        expect({p["stop_reason"] for p in r["pools"]} <= {"balanced", "max changes", "no improving move",
                                                          "not balanceable", "no PGs"}, "stop reasons")
        # The written state holds the changes: balancing it again starts
        # where the first run ended.
        r2 = json.loads(run([k, "balance", out, "--max", "0", "--deviation", "1", "--json"]).stdout)
        expect(abs(r2["overall_before"]["stddev"] - after["stddev"]) < 1e-9,
               f"state -o: {r2['overall_before']['stddev']} vs {after['stddev']}")
        run([k, "map-pgs", out, "--pool", "1"])

        b = json.loads(run([k, "balance", state, "--by", "bytes", "--max", "20", "--json"]).stdout)
        expect(b["by"] == "BYTES" and b["moves"] > 0, f"by bytes: {b['by']} {b['moves']}")
        expect(b["overall_after"]["stddev"] < b["overall_before"]["stddev"], "by bytes: stddev")

        p = run([k, "balance", state, "--pool", "nope"], expect_rc=1)
        expect("no pool 'nope'" in p.stderr, f"unknown pool: {p.stderr}")
        p = run([k, "balance", state, "--by", "objects"], expect_rc=105)
        bare = os.path.join(tmp, "bare.pb")
        run([k, "import", "--osdmap", os.path.join(cluster, "osd-dump.json"),
             "--crush", os.path.join(cluster, "crush.txt"), "-o", bare])
        p = run([k, "balance", bare, "--by", "bytes"], expect_rc=1)
        expect("needs PG sizes" in p.stderr, f"bytes without stats: {p.stderr}")

        # The osdmaptool front runs the same balancer.
        upmap = os.path.join(tmp, "upmap.txt")
        p = run([k, "osdmaptool", state, "--upmap", upmap, "--upmap-max", "40", "--upmap-deviation", "1",
                 "--upmap-pool", "rbd"])
        expect(p.stdout.startswith(f"writing upmap command output to: {upmap}\nchecking for upmap cleanups\n"
                                   "upmap, max-count 40, max deviation 1\n limiting to pools rbd ([1])\n"
                                   "pools rbd \nprepared "), f"osdmaptool --upmap stdout:\n{p.stdout}")
        with open(upmap) as f:
            ups = f.read().splitlines()
        expect(ups and all(l.startswith("ceph osd pg-upmap-items 1.") for l in ups), f"upmap file: {ups}")

        # The read balancer (--mode read / --read, and upmap-read): Reef and
        # later map pg_upmap_primaries, so the state is imported as Reef.
        p = run([k, "balance", state, "--mode", "read"], expect_rc=1)
        expect("which Reef (18.2) and later map; this state maps as pacific" in p.stderr,
               f"read on pacific: {p.stderr}")
        reef = os.path.join(tmp, "reef.pb")
        subprocess.run([k, "import", "--osdmap", os.path.join(cluster, "osd-dump.json"),
                        "--crush", os.path.join(cluster, "crush.txt"), "-o", reef],
                       capture_output=True, env=dict(os.environ, CRUSHKIT_CEPH_RELEASE="reef"),
                       check=True)
        text = run([k, "balance", reef, "--read"]).stdout
        lines = text.splitlines()
        expect(lines and lines[0].startswith("read balance: ") and "pools (pg-upmap-primary" in lines[0],
               f"read summary head:\n{text}")
        prim = [l for l in lines if l.startswith("ceph osd ")]
        expect(prim and all(l.startswith("ceph osd pg-upmap-primary ") for l in prim),
               f"read commands:\n{text}")
        out = os.path.join(tmp, "read.pb")
        r = json.loads(run([k, "balance", reef, "--mode", "read", "--json", "-o", out]).stdout)
        expect(r["mode"] == "read" and r["commands"] == prim, "read json commands differ from the text")
        expect(len(r["primary_changes"]) == len(prim), "one primary change per command")
        pools = {p["pool_name"]: p for p in r["read_pools"]}
        expect("default.rgw.buckets.data" not in pools, "an EC pool was read-balanced")
        changed = [p for p in r["read_pools"] if p["changes"] > 0]
        expect(changed and all(p["score_after"] < p["score_before"] for p in changed),
               f"scores did not drop: {r['read_pools']}")
        for p in r["read_pools"]:
            row = [l for l in lines if l.startswith(f"{p['pool_id']} ")]
            expect(row and f"{p['score_before']:.2f} -> {p['score_after']:.2f}" in row[0],
                   f"text and json scores differ for pool {p['pool_name']}: {row}")
        # The written state has the primaries: its scores are the after ones,
        # and nothing is left to change.
        r2 = json.loads(run([k, "balance", out, "--mode", "read", "--json"]).stdout)
        for a, b in zip(r["read_pools"], r2["read_pools"]):
            expect(abs(a["score_after"] - b["score_before"]) < 1e-9,
                   f"-o state: pool {a['pool_name']} {b['score_before']} vs {a['score_after']}")
        expect(not r2["primary_changes"], "a second read balance changed primaries again")
        both = json.loads(run([k, "balance", reef, "--mode", "upmap-read", "--max", "20",
                               "--json"]).stdout)
        expect(both["mode"] == "upmap-read" and both["moves"] == 20 and both["read_pools"],
               f"upmap-read: {both['mode']} {both['moves']}")
        expect([c for c in both["commands"] if "pg-upmap-items" in c] ==
               both["commands"][:len(both["changes"])], "upmap commands come first")
        p = run([k, "balance", reef, "--mode", "read", "--pool", "default.rgw.buckets.data"],
                expect_rc=1)
        expect("erasure-coded; the read balancer takes only replicated pools" in p.stderr,
               f"read on an EC pool: {p.stderr}")

        out = run([k, "balance", "--help"]).stdout
        expect("xample" in out, "`crushkit balance --help` has no example")

    for f in FAILURES:
        print("FAIL:", f)
    print(f"{'FAILED' if FAILURES else 'OK'}: balance ({len(FAILURES)} failure(s))")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
