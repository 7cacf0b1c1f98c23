#!/usr/bin/env python3
"""`osd crush swap-bucket` against a real Ceph 16.2 monitor's maps.

tests/data/mon-swap-bucket/ holds a crush map and what the monitor made of
two swaps (make.sh there regenerates them): `crushkit edit` must write the
same bytes, and refuse the swap the monitor refused, with its reason.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--data", required=True)
    args = ap.parse_args()
    failures = []
    before = os.path.join(args.data, "before.bin")
    cases = [
        ("osd crush swap-bucket spare h1", "orphan.bin"),
        ("osd crush swap-bucket h0 h3 --yes-i-really-mean-it", "forced.bin"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for op, expected in cases:
            out = os.path.join(tmp, expected)
            r = subprocess.run([args.crushkit, "edit", before, "--do", op, "-o", out,
                                "--ceph-release", "pacific"], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{op}: exit {r.returncode}: {r.stderr.strip()}")
                continue
            with open(out, "rb") as got, open(os.path.join(args.data, expected), "rb") as want:
                if got.read() != want.read():
                    failures.append(f"{op}: the map differs from the monitor's {expected}")
        # The monitor refuses to swap a linked source without the flag.
        r = subprocess.run([args.crushkit, "edit", before, "--do", "osd crush swap-bucket h0 h3",
                            "-o", os.path.join(tmp, "refused.bin"), "--ceph-release", "pacific"],
                           capture_output=True, text=True)
        with open(os.path.join(args.data, "refused.txt")) as f:
            monitor = f.read().strip()
        reason = "is not an orphan bucket; pass --yes-i-really-mean-it"
        if r.returncode == 0 or reason not in r.stderr or reason not in monitor:
            failures.append(f"refusal: exit {r.returncode}, stderr {r.stderr.strip()!r}, "
                            f"monitor {monitor!r}")
        if os.path.exists(os.path.join(tmp, "refused.bin")):
            failures.append("refusal: an output was written")
    for f in failures:
        print("FAIL:", f)
    print(f"swap-bucket: {len(cases) + 1 - len(failures)}/{len(cases) + 1} as the monitor")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
