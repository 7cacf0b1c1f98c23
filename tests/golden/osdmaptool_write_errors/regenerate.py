#!/usr/bin/env python3
"""Regenerates expected/ from Ceph 16.2's osdmaptool (on PATH).

For every line of cases.txt, runs `osdmaptool ARGS` in a fresh directory
holding om (../osdmap_binary/pacific-upmap.osdmap), empty.crush
(../osdmaptool_clobber/empty.crush) and an empty directory adir, then writes
expected/NAME.txt (exit code, stdout, stderr; see README.md) and
expected/NAME.FILE for every regular file the run created or changed.
Refuses to run where /sys/x is not a permission error or /dev/full is
missing, since the cases rely on both.
"""
import errno
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import osdmaptool_record  # noqa: E402

INPUTS = {
    "om": os.path.join(HERE, "..", "osdmap_binary", "pacific-upmap.osdmap"),
    "empty.crush": os.path.join(HERE, "..", "osdmaptool_clobber", "empty.crush"),
}


def read_cases():
    with open(os.path.join(HERE, "cases.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                fields = line.rstrip("\n").split("\t")
                yield fields[0], fields[1].split()




def check_environment():
    try:
        os.close(os.open("/sys/x", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.unlink("/sys/x")
        sys.exit("/sys/x can be created here; the eacces cases need it to fail")
    except OSError as e:
        if e.errno != errno.EACCES:
            sys.exit("/sys/x fails with %s, not EACCES" % errno.errorcode[e.errno])
    if not os.path.exists("/dev/full"):
        sys.exit("no /dev/full")


def main():
    check_environment()
    out_dir = os.path.join(HERE, "expected")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.mkdir(out_dir)
    for name, args in read_cases():
        with tempfile.TemporaryDirectory() as d:
            for f, src in INPUTS.items():
                shutil.copyfile(src, os.path.join(d, f))
            os.mkdir(os.path.join(d, "adir"))
            osdmaptool_record.record(name, args, d, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
