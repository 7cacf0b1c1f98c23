#!/usr/bin/env python3
"""`crushkit import --from-cluster` against a real (loopback) Ceph cluster
(issue 36). Starts a small cluster with tools/dev/loopback-cluster.sh (1 mon,
1 mgr, 3 memstore OSDs on 3 hosts, 127.0.0.1 only), fills it with
tools/dev/loopback-populate.sh (a 3x and an EC 2+1 pool, a few MiB; three hosts
leave no room for a pg-upmap-items pin), then:

* `import --from-cluster --save-dumps D` succeeds and says the mapping agrees
  with the cluster (the report's per-OSD PG counts and the pg dump's up/acting);
* `import --report D/report.json` (+ the same --pg-stats/--osd-df/--df)
  gives the same state: identical `map-pgs --json`, and the same pools, OSDs,
  upmaps, temps and usage in the state JSON;
* a wrong port is refused with a clear error within the timeout.

The cluster is stopped by the PIDs it recorded (loopback-cluster.sh stop) on
every exit, failures and signals included.

Slow (a real cluster: about 1.5-2.5 minutes here) and needs Ceph's daemons:
it runs only with CRUSHKIT_LOOPBACK_TESTS=1 (exit 77, skipped, otherwise);
ctest label `loopback`.
  --release tentacle  runs it on the Tentacle cluster (through DIR/ceph, the
                      chrooted CLI wrapper, as --ceph)."""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from cli_check import FAILURES, expect, report, run


def comparable(path):
    with open(path) as f:
        s = json.load(f)
    # What must be the same whichever way the cluster was read. The crush map
    # bytes differ by construction (a crush dump carries no class ids: they
    # are renumbered, see osdmap/formats/crush_dump_json.h); the mapping is compared
    # through map-pgs instead.
    keys = ["epoch", "max_osd", "osds", "pools", "pg_upmap", "pg_upmap_items", "pg_upmap_primaries",
            "pg_temp", "primary_temp", "pg_stats", "osd_usage", "pool_usage", "fsid", "ceph_release",
            "nearfull_ratio", "backfillfull_ratio", "full_ratio"]
    return {k: s.get(k) for k in keys}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--dir", help="cluster directory (default: a new one under /tmp)")
    ap.add_argument("--port", type=int, default=int(os.environ.get("CRUSHKIT_LOOPBACK_PORT", "47000")),
                    help="the monitor's port (BASE; default $CRUSHKIT_LOOPBACK_PORT, else 47000)")
    ap.add_argument("--release", default="pacific", choices=["pacific", "tentacle"])
    ap.add_argument("--existing", action="store_true",
                    help="check the running, populated cluster in --dir instead of starting one "
                         "(tools/dev/loopback-scenario.sh does); it is left running")
    a = ap.parse_args()
    if a.existing and not a.dir:
        ap.error("--existing needs --dir")
    if os.environ.get("CRUSHKIT_LOOPBACK_TESTS") != "1":
        print("SKIP: set CRUSHKIT_LOOPBACK_TESTS=1 to start a loopback Ceph cluster")
        return 77
    k = os.path.abspath(a.crushkit)
    dev = os.path.join(a.source, "tools", "dev")
    tmp = tempfile.mkdtemp(prefix="crushkit-from-cluster-")
    d = a.dir or os.path.join(tmp, "cluster")
    started = time.time()
    timings = {}

    def stop(*_):
        if a.existing:
            return
        if os.path.exists(os.path.join(d, "ceph.conf")):
            subprocess.run(["bash", os.path.join(dev, "loopback-cluster.sh"), "stop", d],
                           capture_output=True, timeout=120)

    def on_signal(signum, _frame):
        stop()
        sys.exit(128 + signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        if not a.existing:
            t = time.time()
            run(["bash", os.path.join(dev, "loopback-cluster.sh"), "start", d, "--osds", "3",
                 "--hosts", "3", "--port", str(a.port), "--osd-mib", "128", "--release", a.release],
                timeout=600, check=True)
            timings["start"] = time.time() - t
            t = time.time()
            run(["bash", os.path.join(dev, "loopback-populate.sh"), d, "--rep-pgs", "16", "--ec-pgs", "8",
                 "--objects", "20", "--omap", "4", "--no-upmap"], timeout=600, check=True)
            timings["populate"] = time.time() - t

        cli = ["--conf", os.path.join(d, "ceph.conf")]
        if a.release == "tentacle":
            cli = ["--ceph", os.path.join(d, "ceph")]  # the wrapper brings its own conf
        dumps = os.path.join(tmp, "dumps")
        t = time.time()
        p = run([k, "import", "--from-cluster", *cli, "--timeout", "20", "--save-dumps", dumps,
                 "-o", os.path.join(tmp, "live.json")])
        timings["import --from-cluster"] = time.time() - t
        print(p.stderr, end="")
        expect(p.returncode == 0, f"import --from-cluster failed:\n{p.stderr}")
        expect("mapping agrees with the cluster" in p.stderr and "WARNING" not in p.stderr,
               f"--from-cluster: no agreement:\n{p.stderr}")
        for name in ["report.json", "osdmap.bin", "pg-dump.json", "osd-df.json", "df.json"]:
            expect(os.path.getsize(os.path.join(dumps, name)) > 0, f"--save-dumps: {name} missing")

        p = run([k, "import", "--report", os.path.join(dumps, "report.json"),
                 "--pg-stats", os.path.join(dumps, "pg-dump.json"),
                 "--osd-df", os.path.join(dumps, "osd-df.json"), "--df", os.path.join(dumps, "df.json"),
                 "-o", os.path.join(tmp, "report.json")])
        print(p.stderr, end="")
        expect(p.returncode == 0 and "mapping agrees with the cluster" in p.stderr,
               f"import --report of the saved report:\n{p.stderr}")
        live = run([k, "map-pgs", os.path.join(tmp, "live.json"), "--json"]).stdout
        rep = run([k, "map-pgs", os.path.join(tmp, "report.json"), "--json"]).stdout
        expect(live and live == rep, "map-pgs --json differs between --from-cluster and --report")
        a_state = comparable(os.path.join(tmp, "live.json"))
        b_state = comparable(os.path.join(tmp, "report.json"))
        for key in a_state:
            expect(a_state[key] == b_state[key], f"state field {key} differs between the routes")

        # A wrong port: a port the kernel just handed out and that nobody holds.
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        conf = os.path.join(tmp, "wrong.conf")
        with open(conf, "w") as f:
            f.write(f"[global]\nmon host = 127.0.0.1:{port}\nauth cluster required = none\n"
                    "auth service required = none\nauth client required = none\n"
                    f"log file = {tmp}/client.log\nadmin socket =\n")
        t = time.time()
        p = run([k, "import", "--from-cluster", "--conf", conf, "--timeout", "3", "-o",
                 os.path.join(tmp, "wrong.pb")], expect_rc=None)
        took = time.time() - t
        expect(p.returncode != 0 and "cannot connect to the cluster within 3 s" in p.stderr and
               took < 3 * 2 + 3, f"wrong port: {took:.1f} s:\n{p.stderr}")
        print(f"wrong port refused in {took:.1f} s")
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        expect(False, str(e))
    finally:
        t = time.time()
        stop()
        timings["stop"] = time.time() - t
    print("timings: " + ", ".join(f"{n} {s:.0f} s" for n, s in timings.items()) +
          f"; {time.time() - started:.0f} s in all")
    if not FAILURES:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"kept {tmp}")
    return report("from cluster")


if __name__ == "__main__":
    sys.exit(main())
