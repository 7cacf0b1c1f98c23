#!/usr/bin/env python3
"""`crushkit import --crush TEXT` gives the state `--crush BINARY` gives.

For each text map (the repo's samples/*.crush and the shared compat
examples' text maps): BINARY = `crushtool -c TEXT`; the osd dump JSON comes
from `osdmaptool --createsimple N --with-default-pool --import-crush BINARY`.
Both imports are written as protobuf JSON and must be identical (maps with
tree buckets are skipped: Ceph's compiler leaves bytes of those
uninitialised). Also checks that a file that is neither binary nor a valid
text map is refused with a message naming it.

Exit status: 0 if all equal, 1 otherwise, 77 (ctest SKIP) without Ceph.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "differential"))
import oracle  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def run(cmd, cwd):
    env = dict(os.environ, CEPH_ARGS="--crash_dir=" + cwd)
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crushkit", required=True)
    # Same place as crush_testing::CompatDir(): <source>/../shared/compat.
    ap.add_argument("--compat", default=os.path.join(ROOT, "..", "shared", "compat"))
    a = ap.parse_args()
    if not shutil.which("osdmaptool") or not shutil.which("crushtool"):
        return oracle.skip_or_fail("osdmaptool/crushtool not installed")
    crushkit = os.path.abspath(a.crushkit)
    maps = sorted(glob.glob(os.path.join(ROOT, "samples", "*.crush")))
    maps += sorted(glob.glob(os.path.join(a.compat, "examples", "*.crush.txt")))
    maps += sorted(glob.glob(os.path.join(a.compat, "examples", "*.decompiled.txt")))
    failures, compared = [], 0
    for path in maps:
        text = open(path).read()
        if re.search(r"^\s*alg\s+tree\b", text, re.M):
            continue
        d = tempfile.mkdtemp(prefix="importtext-")
        try:
            shutil.copyfile(path, os.path.join(d, "map.txt"))
            rc, _, err = run(["crushtool", "-c", "map.txt", "-o", "map.bin"], d)
            if rc != 0:
                continue  # not a map Ceph compiles; nothing to compare
            ids = [int(x) for x in re.findall(r"^device (\d+) ", text, re.M)]
            n = max(ids) + 1 if ids else 1
            rc, _, _ = run(["osdmaptool", "--createsimple", str(n), "--with-default-pool",
                            "--clobber", "--import-crush", "map.bin", "om"], d)
            rc2, out, _ = run(["osdmaptool", "om", "--dump", "json"], d)
            if rc != 0 or rc2 != 0:
                continue
            with open(os.path.join(d, "dump.json"), "wb") as f:
                f.write(out[out.index(b"{"):])
            r1 = run([crushkit, "import", "--osdmap", "dump.json", "--crush", "map.bin",
                      "-o", "bin.json"], d)
            r2 = run([crushkit, "import", "--osdmap", "dump.json", "--crush", "map.txt",
                      "-o", "txt.json"], d)
            compared += 1
            if r1[0] != 0 or r2[0] != 0:
                failures.append("%s: import failed: %s %s" % (path, r1[2].decode(), r2[2].decode()))
            elif open(os.path.join(d, "bin.json")).read() != open(os.path.join(d, "txt.json")).read():
                failures.append("%s: text and binary imports differ" % path)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    # Neither binary nor text: refused, naming the file.
    d = tempfile.mkdtemp(prefix="importtext-")
    try:
        with open(os.path.join(d, "bad.txt"), "w") as f:
            f.write("this is not a crush map {\n")
        with open(os.path.join(d, "dump.json"), "w") as f:
            f.write('{"epoch": 1, "max_osd": 0, "pools": [], "osds": []}')
        rc, _, err = run([crushkit, "import", "--osdmap", "dump.json", "--crush", "bad.txt",
                          "-o", "s.pb"], d)
        if rc == 0 or b"bad.txt" not in err or os.path.exists(os.path.join(d, "s.pb")):
            failures.append("a bad crush file was not refused clearly (rc %d): %s"
                            % (rc, err.decode()))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print("compared %d text maps with their crushtool -c binaries; %d failures"
          % (compared, len(failures)))
    if compared == 0:
        print("FAIL: no map compared")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
