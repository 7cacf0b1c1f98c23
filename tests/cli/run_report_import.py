#!/usr/bin/env python3
"""`crushkit import --report` and the import's self-check (issue 36), on the
real captures in tests/data (no cluster needed):

* `import --report report.json` maps every PG as `import --osdmap
  osd-dump.json --crush crush-dump.json` and `import --osdmap osdmap.bin`
  (`map-pgs --json` byte for byte), and says the mapping agrees with the
  cluster (the report's per-OSD counts, the pg dump's up/acting);
* a report whose crush map was altered after the dump (host h1 halved) is
  imported with a loud warning naming the count and the first PGs, and
  `plan`, `diff` and `map-pgs` on that state repeat it;
* --report with --osdmap or --crush is refused;
* `--from-cluster` refuses cleanly: no `ceph` binary (at once), and a
  cluster that is not there (a wrong port) within its --timeout.
  The second part needs the `ceph` CLI: skipped without it unless
  CRUSHKIT_REQUIRE_ORACLE=1."""
import argparse
import json
import os
import shutil
import socket
import sys
import tempfile
import time

from cli_check import expect, report, run

CAPTURES = ["loopback-pacific", "loopback-pacific-backfill", "loopback-pacific-weightset",
            "loopback-tentacle"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    k = a.crushkit
    data = os.path.join(a.source, "tests", "data")
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="crushkit-report-") as tmp:
        def out(name):
            return os.path.join(tmp, name)

        for c in CAPTURES:
            d = os.path.join(data, c)
            p = run([k, "import", "--report", os.path.join(d, "report.json"),
                     "--pg-stats", os.path.join(d, "pg-dump.json"), "-o", out("r.pb")])
            expect("mapping agrees with the cluster" in p.stderr and "WARNING" not in p.stderr,
                   f"{c}: no agreement line:\n{p.stderr}")
            run([k, "import", "--osdmap", os.path.join(d, "osd-dump.json"),
                 "--crush", os.path.join(d, "crush-dump.json"), "-o", out("d.pb")])
            run([k, "import", "--osdmap", os.path.join(d, "osdmap.bin"), "-o", out("b.pb")])
            maps = [run([k, "map-pgs", out(s), "--json"]).stdout for s in ("r.pb", "d.pb", "b.pb")]
            expect(maps[0] and maps[0] == maps[1] == maps[2],
                   f"{c}: map-pgs differs between --report, the JSON dumps and the binary osdmap")

        # A crush map altered after the dump: the self-check catches it and
        # every command that plans from the state says so again.
        d = os.path.join(data, "loopback-pacific")
        with open(os.path.join(d, "report.json")) as f:
            planted = json.load(f)
        for b in planted["crushmap"]["buckets"]:
            for item in b["items"]:
                if item["id"] in (-3, -7):
                    item["weight"] = 0x8000
        with open(out("planted.json"), "w") as f:
            json.dump(planted, f)
        p = run([k, "import", "--report", out("planted.json"), "--pg-stats",
                 os.path.join(d, "pg-dump.json"), "-o", out("planted.pb")])
        expect(p.returncode == 0 and os.path.exists(out("planted.pb")),
               f"planted: the state is not written:\n{p.stderr}")
        expect("WARNING: crushkit maps this state DIFFERENTLY from the cluster" in p.stderr and
               " of 49 PGs differ from the pg dump" in p.stderr and "  pg 2." in p.stderr,
               f"planted: no warning with counts and PGs:\n{p.stderr}")
        with open(out("ops"), "w") as f:
            f.write("osd out 1\n")
        for cmd in ([k, "plan", out("planted.pb"), out("ops")],
                    [k, "diff", out("planted.pb"), out("planted.pb")],
                    [k, "map-pgs", out("planted.pb")]):
            p = run(cmd, expect_rc=None)
            expect("DIFFERENTLY from the cluster" in p.stderr,
                   f"{cmd[1]} does not repeat the warning:\n{p.stderr[:2000]}")

        p = run([k, "import", "--report", os.path.join(d, "report.json"), "--osdmap",
                 os.path.join(d, "osdmap.bin"), "-o", out("x.pb")], expect_rc=None)
        expect(p.returncode != 0 and "excludes" in p.stderr, f"--report with --osdmap:\n{p.stderr}")
        p = run([k, "import", "--osdmap", os.path.join(d, "report.json"), "-o", out("x.pb")], expect_rc=None)
        expect(p.returncode != 0 and "'crushkit import --report' reads" in p.stderr,
               f"--osdmap report.json:\n{p.stderr}")

        # --from-cluster without a ceph binary, then with a cluster that is not there.
        p = run([k, "import", "--from-cluster", "--ceph", "/nonexistent/ceph", "-o", out("x.pb")],
                expect_rc=None)
        expect(p.returncode != 0 and "give --ceph PATH" in p.stderr and not os.path.exists(out("x.pb")),
               f"--from-cluster without ceph:\n{p.stderr}")
        ceph = shutil.which("ceph")
        if ceph is None:
            if os.environ.get("CRUSHKIT_REQUIRE_ORACLE") == "1":
                expect(False, "no ceph CLI and CRUSHKIT_REQUIRE_ORACLE=1")
            else:
                print("SKIP the wrong-port run: no ceph CLI")
        else:
            # A port nothing listens on: one the kernel just handed out, closed.
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            s.close()
            with open(out("ceph.conf"), "w") as f:
                f.write(f"[global]\nmon host = 127.0.0.1:{port}\nauth cluster required = none\n"
                        "auth service required = none\nauth client required = none\n"
                        f"log file = {tmp}/client.log\nadmin socket =\n")
            t0 = time.time()
            p = run([k, "import", "--from-cluster", "--conf", out("ceph.conf"), "--timeout", "2",
                     "-o", out("x.pb")], expect_rc=None, timeout=60)
            took = time.time() - t0
            expect(p.returncode != 0 and "cannot connect to the cluster within 2 s" in p.stderr and
                   "'ceph report'" in p.stderr and not os.path.exists(out("x.pb")),
                   f"--from-cluster, wrong port:\n{p.stderr}")
            expect(took < 2 * 2 + 3, f"--from-cluster, wrong port: {took:.1f} s for a 2 s timeout")
            print(f"wrong port refused in {took:.1f} s: {p.stderr.strip()}")
    print(f"{time.time() - started:.1f} s")
    return report("report import")


if __name__ == "__main__":
    sys.exit(main())
