#!/usr/bin/env python3
"""Where Ceph's answer is undefined (a tree bucket descent past its last
item: Ceph reads out of bounds), crushkit's commands that map PGs say so on
stderr, once, with the count, and still exit 0; a map without such a bucket
gets no warning. Data: tests/golden/undefined_tree/ (README.md there)."""
import argparse
import os
import subprocess
import sys
import tempfile

WARNING = ("crushkit: warning: 9 mapping(s) hit a tree bucket descent past its last item "
           "(Ceph reads out of bounds there)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--source", required=True, help="the project's source directory")
    a = ap.parse_args()
    state = os.path.join(a.source, "tests/golden/undefined_tree/state.json")
    failures = []
    for cmd in ([a.crushkit, "osdmaptool", state, "--test-map-pgs", "--pool", "1"],
                [a.crushkit, "map-pgs", state]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode != 0 or p.stderr.count(WARNING) != 1:
            failures.append("%s: exit %d, stderr:\n%s" % (" ".join(cmd[1:3]), p.returncode,
                                                          p.stderr))
    with tempfile.TemporaryDirectory() as d:
        sample = os.path.join(a.source, "samples/cluster")
        clean = os.path.join(d, "state.pb")
        subprocess.run([a.crushkit, "import", "--osdmap", os.path.join(sample, "osd-dump.json"),
                        "--crush", os.path.join(sample, "crush.txt"), "-o", clean],
                       check=True, capture_output=True, timeout=120)
        p = subprocess.run([a.crushkit, "map-pgs", clean], capture_output=True, text=True,
                           timeout=120)
        if p.returncode != 0 or "warning" in p.stderr:
            failures.append("sample map-pgs: exit %d, stderr:\n%s" % (p.returncode, p.stderr))
    for f in failures:
        print("FAIL", f)
    print("undefined mappings: %d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
