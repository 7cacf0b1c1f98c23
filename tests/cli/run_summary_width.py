#!/usr/bin/env python3
"""The terminal summary of every sample change fits 100 columns, aligned (issue 38).

Copies samples/cluster with the pool default.rgw.buckets.index renamed to a
40-character name (in osd-dump.json and df.json, the files that name pools),
imports it, and runs `crushkit plan` on every samples/cluster/*.ops, at once
and staged (--max-misplaced 5% --upmap-remapped). Checks: no line of the
summary is longer than 100 columns; the long name is printed whole; the pool
table's rows end every column where its `total` row does (a name too long
for its column goes on a line of its own, the figures on the next).

Exit: 0 ok, 1 failure.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

LONG = "default.rgw.buckets.index.forty-chars-xy"
assert len(LONG) == 40


UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def column_ends(line, skip_name):
    """End columns of the whitespace-separated tokens, without the pool name;
    a byte figure and its unit ("0 B", "147 TiB") is one right-aligned token."""
    ends, i = [], 0
    while i < len(line):
        if line[i] == " ":
            i += 1
            continue
        j = line.find(" ", i)
        j = len(line) if j < 0 else j
        if line[i:j] in UNITS and ends:
            ends.pop()
        ends.append(j)
        i = j
    return ends[1:] if skip_name else ends


def table_failures(name, text):
    lines = text.splitlines()
    failures = ["%s: line %d is %d columns: %r" % (name, n + 1, len(l), l)
                for n, l in enumerate(lines) if len(l) > 100]
    try:
        top = next(n for n, l in enumerate(lines) if l.startswith("pool "))
        bottom = next(n for n, l in enumerate(lines) if n > top and l.startswith("total "))
    except StopIteration:
        return failures + ["%s: no pool table ('pool ... total')" % name]
    want = column_ends(lines[bottom], True)
    if LONG not in text:
        failures.append("%s: the 40-character pool name is not printed whole" % name)
    for l in lines[top + 1:bottom]:
        if l == LONG:
            continue  # the name on its own line; its figures follow
        got = column_ends(l, not l.startswith(" "))
        if got != want:
            failures.append("%s: pool row %r ends its columns at %s, the total row at %s" %
                            (name, l, got, want))
    # The safety table (MAX AVAIL per pool) names every pool whole too.
    if "\nsafety:\n" in text:
        safety = text.split("\nsafety:\n", 1)[1].split("\n\n", 1)[0]
        if "MAX AVAIL" in safety and not any(
                l.split()[:1] == [LONG] for l in safety.splitlines()):
            failures.append("%s: the safety table cuts the 40-character pool name" % name)
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--samples", required=True, help="samples/cluster")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="crushkit-width-")
    try:
        for f in glob.glob(os.path.join(a.samples, "*")):
            if os.path.isfile(f):
                shutil.copy(f, d)
        for f in ("osd-dump.json", "df.json"):
            p = os.path.join(d, f)
            text = open(p).read()
            if "default.rgw.buckets.index" not in text:
                print("FAIL: %s names no default.rgw.buckets.index to rename" % f)
                return 1
            with open(p, "w") as out:
                out.write(text.replace("default.rgw.buckets.index", LONG))
        ck = os.path.abspath(a.crushkit)
        p = subprocess.run([ck, "import", "--osdmap", "osd-dump.json", "--crush", "crush.txt", "--pg-stats",
                            "pg-dump.json", "--osd-df", "osd-df.json", "--df", "df.json", "-o", "state.pb"],
                           cwd=d, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            print("FAIL: import: " + p.stderr)
            return 1
        failures, runs = [], 0
        for ops in sorted(glob.glob(os.path.join(d, "*.ops"))):
            for extra in ([], ["--max-misplaced", "5%", "--upmap-remapped"]):
                name = " ".join([os.path.basename(ops)] + extra)
                p = subprocess.run([ck, "plan", "state.pb", ops] + extra, cwd=d, capture_output=True,
                                   text=True, timeout=300)
                if p.returncode != 0:
                    failures.append("%s: exit %d: %s" % (name, p.returncode, p.stderr[-500:]))
                    continue
                failures += table_failures(name, p.stdout)
                runs += 1
        if runs == 0:
            failures.append("no samples/cluster/*.ops")
        if failures:
            print("FAIL: " + "\n  ".join(failures))
            return 1
        print("OK: %d summaries of the sample changes with a 40-character pool name fit 100 columns, "
              "pool table aligned" % runs)
        return 0
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
