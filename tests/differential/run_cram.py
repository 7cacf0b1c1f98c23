#!/usr/bin/env python3
"""Runs Ceph's Pacific crushtool cram tests against `crushkit crushtool`.

A temporary directory holding a `crushtool` wrapper that executes
`crushkit crushtool "$@"` is put first on PATH, then the shared minicram
runner executes the .t files (TESTDIR = the cram directory). Only the files
that exercise stages crushkit implements are run by default (--test mapping
dumps on binary maps, on text maps compiled with -c, and item/bucket edits);
more can be named on the command line.

Exit: 0 all pass, 1 a failure, 77 (ctest SKIP) if the shared corpus or the
minicram runner is missing.
"""
import argparse
import os
import stat
import subprocess
import sys
import tempfile

DEFAULT_TESTS = [
    "test-map-legacy-tunables.t", "test-map-bobtail-tunables.t",
    "test-map-firefly-tunables.t", "test-map-hammer-tunables.t",
    "test-map-jewel-tunables.t", "test-map-indep.t", "test-map-tries-vs-retries.t",
    "test-map-vary-r-0.t", "test-map-vary-r-1.t", "test-map-vary-r-2.t",
    "test-map-vary-r-3.t", "test-map-vary-r-4.t",
    # these compile their text map with -c first
    "bad-mappings.t", "show-choose-tries.t", "set-choose.t", "test-map-firstn-indep.t",
    # item and bucket edits (crush/edit.h)
    "add-bucket.t", "add-item-in-tree.t", "adjust-item-weight.t", "reweight.t",
    "reweight_multiple.t",
    # --build, rule edits, Ceph's compile error texts
    "build.t", "rules.t", "compile-decompile-recompile.t",
    # the display stage (--show-location, --tree, --dump, --check) with
    # --build and the rule edits
    "location.t", "check-names.empty.t", "check-names.max-id.t", "choose-args.t",
    "arg-order-checks.t", "add-item.t", "check-overlapped-rules.t",
    # --reclassify, --set-subtree-class and --compare (crush/reclassify.h)
    "reclassify.t",
]


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
    tests = a.tests or DEFAULT_TESTS
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
