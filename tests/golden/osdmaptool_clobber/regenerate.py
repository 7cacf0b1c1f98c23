#!/usr/bin/env python3
"""Regenerates expected/ from Ceph 16.2's osdmaptool (on PATH).

For every line of cases.txt, runs `osdmaptool ARGS` in a fresh directory
holding empty.crush, three.crush and, for `exists` cases, x.om (a copy of
../osdmap_binary/pacific-nopool.osdmap), then writes expected/NAME.txt
(exit code, stdout, stderr; see README.md) and expected/NAME.FILE for every
file the run created or changed.
"""
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import osdmaptool_record  # noqa: E402

INPUTS = ("empty.crush", "three.crush")
EXISTING = os.path.join(HERE, "..", "osdmap_binary", "pacific-nopool.osdmap")


def read_cases():
    with open(os.path.join(HERE, "cases.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                fields = line.rstrip("\n").split("\t")
                yield fields[0], fields[1].split(), len(fields) > 2 and fields[2] == "exists"


def main():
    out_dir = os.path.join(HERE, "expected")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.mkdir(out_dir)
    for name, args, exists in read_cases():
        with tempfile.TemporaryDirectory() as d:
            for f in INPUTS:
                shutil.copyfile(os.path.join(HERE, f), os.path.join(d, f))
            if exists:
                shutil.copyfile(EXISTING, os.path.join(d, "x.om"))
            osdmaptool_record.record(name, ["x.om" if a == "MAP" else a for a in args], d,
                                     out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
