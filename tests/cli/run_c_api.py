#!/usr/bin/env python3
"""The C API (crush/crushkit.h) through its C sample (samples/embed_c/
map_rule.c): crushkit.h and osdmap/crushkit_osdmap.h compile as strict C99 on
their own, and the sample's
mappings equal `crushkit crushtool --test --show-mappings` for every rule of
the bundled maps at several replica counts."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

FAILURES = []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--sample", required=True, help="the built map_rule C program")
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--binary-dir", required=True)
    ap.add_argument("--cc", default="cc")
    a = ap.parse_args()
    for header in (os.path.join(a.source_dir, "crush", "crushkit.h"),
                   os.path.join(a.source_dir, "osdmap", "crushkit_osdmap.h")):
        p = subprocess.run([a.cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-x",
                            "c", "-fsyntax-only", "-I" + a.source_dir, "-I" + a.binary_dir,
                            header], capture_output=True, text=True)
        if p.returncode != 0:
            FAILURES.append(f"{header} is not clean C99:\n" + p.stderr)
    samples = os.path.join(a.source_dir, "samples")
    with tempfile.TemporaryDirectory() as tmp:
        maps = [os.path.join(samples, "embed", "6host-classes-ec.crushmap")]
        for name in ("3rack-weighted.crush", "6host-classes-ec.crush", "legacy-rooms.crush"):
            out = os.path.join(tmp, name + ".bin")
            subprocess.run([a.crushkit, "crushtool", "-c", os.path.join(samples, name), "-o", out],
                           check=True, capture_output=True)
            maps.append(out)
        checked = 0
        for i, m in enumerate(maps):
            text_path = os.path.join(tmp, f"map{i}.txt")
            subprocess.run([a.crushkit, "crushtool", "-d", m, "-o", text_path],
                           capture_output=True, check=True)
            with open(text_path) as f:
                text = f.read()
            rules = [int(r) for r in re.findall(r"^\s*id (\d+)$", text, re.M)]
            for rule in rules:
                for num_rep in (1, 3, 6):
                    want = subprocess.run(
                        [a.crushkit, "crushtool", "-i", m, "--test", "--show-mappings", "--rule",
                         str(rule), "--num-rep", str(num_rep), "--min-x", "0", "--max-x", "511"],
                        capture_output=True, text=True).stdout
                    want = "".join(l + "\n" for l in want.splitlines() if l.startswith("CRUSH rule"))
                    got = subprocess.run([a.sample, m, str(rule), str(num_rep), "0", "511"],
                                         capture_output=True, text=True)
                    checked += 1
                    if got.returncode != 0 or got.stdout != want:
                        FAILURES.append(f"{m} rule {rule} num_rep {num_rep}: C API differs "
                                        f"(rc {got.returncode}) {got.stderr}")
        bad = os.path.join(tmp, "bad.bin")
        with open(bad, "wb") as f:
            f.write(open(maps[0], "rb").read()[:100])
        p = subprocess.run([a.sample, bad, "0", "3", "0", "1"], capture_output=True, text=True)
        if p.returncode != 1 or not p.stderr.startswith(bad + ": "):
            FAILURES.append(f"truncated map: rc {p.returncode}, stderr {p.stderr!r}")
    for f in FAILURES:
        print("FAIL", f, file=sys.stderr)
    print(f"{'FAILED' if FAILURES else 'OK'}: C API, {checked} rule/num_rep runs compared")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
