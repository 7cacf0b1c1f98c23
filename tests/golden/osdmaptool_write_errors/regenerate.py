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
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
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


def files_of(d):
    return {n: open(os.path.join(d, n), "rb").read()
            for n in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, n))}


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
            before = files_of(d)
            env = dict(os.environ, CEPH_ARGS="--crash_dir=" + d, TZ="UTC")
            p = subprocess.run(["timeout", "20", "osdmaptool"] + args,
                               cwd=d, env=env, capture_output=True)
            if p.returncode > 128 or p.returncode == 124:
                sys.exit("%s: osdmaptool crashed or hung (rc %d)" % (name, p.returncode))
            with open(os.path.join(out_dir, name + ".txt"), "wb") as f:
                f.write(b"rc %d\nstdout %d\n" % (p.returncode, len(p.stdout)) + p.stdout +
                        b"stderr %d\n" % len(p.stderr) + p.stderr)
            for f, data in files_of(d).items():
                if before.get(f) != data:
                    with open(os.path.join(out_dir, name + "." + f), "wb") as o:
                        o.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
