#!/usr/bin/env python3
"""Runs Ceph's Pacific crushtool cram tests against `crushkit crushtool`.

A temporary directory holding a `crushtool` wrapper that executes
`crushkit crushtool "$@"` is put first on PATH, then the shared minicram
runner executes the .t files (TESTDIR = the cram directory): all of them by
default, or those named on the command line.

Exit: 0 all pass, 1 a failure, 77 (ctest SKIP) if the shared corpus or the
minicram runner is missing.
"""
import argparse
import os
import stat
import subprocess
import sys
import tempfile

# Every .t file of the directory runs by default (all 38 pass); name some
# on the command line to run only those.


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--shared", required=True, help="the shared directory (../shared)")
    ap.add_argument("tests", nargs="*")
    a = ap.parse_args()
    testdir = os.path.join(a.shared, "compat", "ceph-cli-tests", "pacific", "crushtool")
    minicram = os.path.join(a.shared, "tools", "minicram.py")
    if not os.path.isdir(testdir) or not os.path.isfile(minicram):
        print("SKIP: %s or %s not found" % (testdir, minicram))
        return 77
    tests = a.tests or sorted(t for t in os.listdir(testdir) if t.endswith(".t"))
    if not a.tests and len(tests) < 38:
        print("FAIL: expected Ceph's 38 Pacific crushtool cram files in %s, found %d" %
              (testdir, len(tests)))
        return 1
    with tempfile.TemporaryDirectory(prefix="crushkit-cram.") as wrap:
        script = os.path.join(wrap, "crushtool")
        with open(script, "w") as f:
            f.write('#!/bin/sh\nexec "%s" crushtool "$@"\n' % os.path.abspath(a.crushkit))
        os.chmod(script, stat.S_IRWXU)
        # Ceph's Pacific cram tests: crushkit behaves as Pacific's crushtool.
        env = dict(os.environ, PATH=wrap + os.pathsep + os.environ.get("PATH", ""),
                   CRUSHKIT_CEPH_RELEASE="pacific")
        p = subprocess.run([sys.executable, minicram, testdir] +
                           [os.path.join(testdir, t) for t in tests],
                           env=env, stdout=subprocess.PIPE, text=True)
    print(p.stdout, end="")
    failed = [ln for ln in p.stdout.splitlines() if "fail=" in ln and not ln.endswith("fail=0")]
    if p.returncode != 0 or failed or len(p.stdout.splitlines()) < len(tests):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
