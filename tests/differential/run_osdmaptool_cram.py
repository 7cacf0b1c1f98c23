#!/usr/bin/env python3
"""Runs Ceph's Pacific osdmaptool cram tests against `crushkit osdmaptool`.

A temporary directory holding `osdmaptool` and `crushtool` wrappers that
execute `crushkit osdmaptool "$@"` / `crushkit crushtool "$@"` is put first
on PATH (so no Ceph binary runs: the .t files hold the expected output), then
the shared minicram runner executes the .t files with TESTDIR = the cram
directory.

The run must match EXPECTED_PASS exactly: a listed file that fails is a
regression, an unlisted file that passes means the list (and
tools/osdmaptool/README.md, which says why the others fail) needs updating.

Exit: 0 as expected, 1 otherwise, 77 (ctest SKIP) if the shared corpus or
the minicram runner is missing.
"""
import argparse
import os
import re
import stat
import subprocess
import sys
import tempfile

# The 13 Pacific files; those not listed here are explained in
# tools/osdmaptool/README.md ("Ceph's cram tests"): upmap.t and upmap-out.t
# expect Ceph's calc_pg_upmaps commands, and crushkit's --upmap is its own
# deterministic balancer.
ALL_FILES = 13
EXPECTED_PASS = {
    "clobber.t",
    "create-print.t",
    "create-racks.t",
    "crush.t",
    "help.t",
    "missing-argument.t",
    "pool.t",
    "print-empty.t",
    "print-nonexistent.t",
    "test-map-pgs.t",
    "tree.t",
}


def write_wrapper(directory, name, crushkit, subcommand):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexec "%s" %s "$@"\n' % (os.path.abspath(crushkit), subcommand))
    os.chmod(path, stat.S_IRWXU)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--shared", required=True, help="the shared directory (../shared)")
    ap.add_argument("tests", nargs="*", help="run only these .t files (no pass-set check)")
    a = ap.parse_args()
    testdir = os.path.join(os.path.abspath(a.shared), "compat", "ceph-cli-tests", "pacific", "osdmaptool")
    minicram = os.path.join(os.path.abspath(a.shared), "tools", "minicram.py")
    if not os.path.isdir(testdir) or not os.path.isfile(minicram):
        print("SKIP: %s or %s not found" % (testdir, minicram))
        return 77
    tests = a.tests or sorted(t for t in os.listdir(testdir) if t.endswith(".t"))
    if not a.tests and len(tests) != ALL_FILES:
        print("FAIL: expected Ceph's %d Pacific osdmaptool cram files in %s, found %d" %
              (ALL_FILES, testdir, len(tests)))
        return 1
    with tempfile.TemporaryDirectory(prefix="crushkit-osdmaptool-cram.") as wrap:
        write_wrapper(wrap, "osdmaptool", a.crushkit, "osdmaptool")
        write_wrapper(wrap, "crushtool", a.crushkit, "crushtool")
        env = dict(os.environ, PATH=wrap + os.pathsep + os.environ.get("PATH", ""),
                   CRUSHKIT_CEPH_RELEASE="pacific", TZ=os.environ.get("TZ", "UTC"))
        p = subprocess.run([sys.executable, minicram, testdir] +
                           [os.path.join(testdir, t) for t in tests],
                           env=env, stdout=subprocess.PIPE, text=True)
    print(p.stdout, end="")
    if p.returncode != 0:
        print("FAIL: minicram exited with %d" % p.returncode)
        return 1
    passed = set()
    seen = set()
    for ln in p.stdout.splitlines():
        m = re.match(r"(\S+\.t)\s+cmds=\s*\d+ fail=(\d+)$", ln)
        if m:
            seen.add(m.group(1))
            if m.group(2) == "0":
                passed.add(m.group(1))
    if seen != set(tests):
        print("FAIL: minicram reported %d of %d files" % (len(seen), len(tests)))
        return 1
    if a.tests:
        return 0 if passed == seen else 1
    regressed = sorted(EXPECTED_PASS - passed)
    fixed = sorted(passed - EXPECTED_PASS)
    if regressed:
        print("FAIL: expected to pass but failed: %s" % " ".join(regressed))
    if fixed:
        print("FAIL: now passing, add to EXPECTED_PASS and the README: %s" % " ".join(fixed))
    print("%d/%d files pass" % (len(passed), len(tests)))
    return 1 if regressed or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
