#!/usr/bin/env python3
"""`crushkit osdmaptool MAP --print / --dump FORMAT` on the osdmaps of
tests/data/osdmap-snaps-hitsets (written by real 16.2 and 20.2 monitors: pool
and self-managed snapshots, snap queues, HitSets, msgr1-only addresses,
blocklists), as each release: stdout and exit code against the goldens
recorded from that release's osdmaptool (expected/MAP.RELEASE.FORMAT.gz and
expected/MANIFEST), and against the live osdmaptool when it is installed.

Exit 0 when everything matches, 1 on a difference. A missing oracle only
skips the live comparison (it fails under CRUSHKIT_REQUIRE_ORACLE=1).

    snapshot_maps_golden.py --crushkit build/tools/crushkit
    snapshot_maps_golden.py --regenerate     # the goldens, from the oracles
"""
import argparse
import gzip
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "differential"))
import oracle  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "osdmap-snaps-hitsets")
ACTIONS = {
    "print": ["--print"],
    "json": ["--dump", "json"],
    "json-pretty": ["--dump", "json-pretty"],
    "xml": ["--dump", "xml"],
    "plain": ["--dump", "plain"],
}


def maps():
    return sorted(f[: -len(".osdmap")] for f in os.listdir(DATA) if f.endswith(".osdmap"))


def run(cmd, release):
    """(exit code, stdout) of `cmd` run in DATA on NAME.osdmap, as `release`."""
    env = dict(os.environ, TZ="UTC", CRUSHKIT_CEPH_RELEASE=release)
    crash = os.path.join(os.environ.get("TMPDIR", "/tmp"), "crushkit-snapshot-maps-crash")
    env["CEPH_ARGS"] = "--crash_dir=" + crash
    p = subprocess.run(cmd, cwd=DATA, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       timeout=120)
    return p.returncode, p.stdout


def read_manifest():
    want = {}
    with open(os.path.join(DATA, "expected", "MANIFEST")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, release, fmt, rc = line.split()
            want[(name, release, fmt)] = int(rc)
    return want


def golden_path(name, release, fmt):
    return os.path.join(DATA, "expected", "%s.%s.%s.gz" % (name, release, fmt))


def regenerate():
    lines = ["# MAP RELEASE FORMAT EXIT_CODE of osdmaptool MAP.osdmap --print / --dump FORMAT"]
    for release in oracle.RELEASES:
        tool = shutil.which(oracle.tool("osdmaptool", release))
        if tool is None:
            print("FAIL: no osdmaptool for %s" % release)
            return 1
        for name in maps():
            for fmt, args in ACTIONS.items():
                rc, out = run([tool, name + ".osdmap"] + args, release)
                with open(golden_path(name, release, fmt), "wb") as f:
                    f.write(gzip.compress(out, mtime=0))
                lines.append("%s %s %s %d" % (name, release, fmt, rc))
    with open(os.path.join(DATA, "expected", "MANIFEST"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d goldens" % (len(lines) - 1))
    return 0


def check(crushkit):
    want = read_manifest()
    diffs = []
    live = 0
    missing = []
    for release in oracle.RELEASES:
        tool = shutil.which(oracle.tool("osdmaptool", release))
        if tool is None:
            missing.append(release)
        for name in maps():
            for fmt, args in ACTIONS.items():
                key = (name, release, fmt)
                got = run([crushkit, "osdmaptool", name + ".osdmap"] + args, release)
                if key not in want:
                    diffs.append("%s %s %s: no golden (run --regenerate)" % key)
                    continue
                with gzip.open(golden_path(*key), "rb") as f:
                    golden = (want[key], f.read())
                if got != golden:
                    diffs.append("%s %s %s: crushkit (exit %d, %d bytes) differs from the golden "
                                 "(exit %d, %d bytes)" % (*key, got[0], len(got[1]), golden[0],
                                                          len(golden[1])))
                if tool is not None:
                    live += 1
                    ceph = run([tool, name + ".osdmap"] + args, release)
                    if ceph != got:
                        diffs.append("%s %s %s: crushkit (exit %d) differs from the live "
                                     "osdmaptool (exit %d)" % (*key, got[0], ceph[0]))
    for d in diffs[:30]:
        print("DIFF " + d)
    print("%d maps x %d releases x %d formats against the goldens; %d against the live "
          "osdmaptool%s; %d differences" % (len(maps()), len(oracle.RELEASES), len(ACTIONS), live,
                                            " (missing: %s)" % ", ".join(missing) if missing else "",
                                            len(diffs)))
    if diffs:
        return 1
    if missing and os.environ.get("CRUSHKIT_REQUIRE_ORACLE"):
        print("FAIL: no osdmaptool for %s (CRUSHKIT_REQUIRE_ORACLE is set)" % ", ".join(missing))
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--crushkit")
    ap.add_argument("--regenerate", action="store_true",
                    help="record the goldens from each release's osdmaptool")
    a = ap.parse_args()
    if a.regenerate:
        return regenerate()
    if not a.crushkit:
        ap.error("--crushkit is required")
    return check(os.path.abspath(a.crushkit))


if __name__ == "__main__":
    sys.exit(main())
