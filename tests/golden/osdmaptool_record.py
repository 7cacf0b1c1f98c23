"""What the osdmaptool golden sets record of one run (imported by
osdmaptool_clobber/regenerate.py and osdmaptool_write_errors/regenerate.py):
`osdmaptool ARGS` in a scratch directory, then OUT/NAME.txt ("rc N\\nstdout
LEN\\n" bytes "stderr LEN\\n" bytes; tools/osdmaptool/golden_cases.h reads it)
and OUT/NAME.FILE for every regular file the run created or changed."""
import os
import subprocess
import sys


def files_of(d):
    """Name -> bytes of the regular files directly in d."""
    return {n: open(os.path.join(d, n), "rb").read()
            for n in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, n))}


def record(name, args, d, out_dir):
    """Runs osdmaptool ARGS in d (Ceph's crash dumps kept there, UTC) and
    writes what it printed and changed; exits if it crashed or hung."""
    before = files_of(d)
    env = dict(os.environ, CEPH_ARGS="--crash_dir=" + d, TZ="UTC")
    p = subprocess.run(["timeout", "20", "osdmaptool"] + args, cwd=d, env=env,
                       capture_output=True)
    if p.returncode > 128 or p.returncode == 124:
        sys.exit("%s: osdmaptool crashed or hung (rc %d)" % (name, p.returncode))
    with open(os.path.join(out_dir, name + ".txt"), "wb") as f:
        f.write(b"rc %d\nstdout %d\n" % (p.returncode, len(p.stdout)) + p.stdout +
                b"stderr %d\n" % len(p.stderr) + p.stderr)
    for f, data in files_of(d).items():
        if before.get(f) != data:
            with open(os.path.join(out_dir, name + "." + f), "wb") as o:
                o.write(data)
