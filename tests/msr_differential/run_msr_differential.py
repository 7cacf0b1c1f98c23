#!/usr/bin/env python3
"""Differential test of MSR rules: crushkit vs Ceph 20.2 (tentacle) crushtool.

For each random map (gen_msr_maps.py):
  1. compile it with Ceph: `crushtool-tentacle -c map.txt -o map.bin` (a map
     the oracle rejects is counted and skipped);
  2. mappings: `--test --show-mappings --min-x 0 --max-x X --min-rep 1
     --max-rep 12` on map.bin (every rule, num-rep 1..12, X+1 inputs) through
     Ceph's crushtool and `crushkit crushtool`: stdout, stderr and exit code
     must be identical;
  3. the same with random device reweights (--weight), a --pool-id (x is
     hashed with it; --test applies choose_args 0, else the compat set -1,
     which the generator writes) and --show-statistics --show-bad-mappings
     and sometimes --show-choose-tries;
  4. with --check-text: `crushkit compile --ceph-release tentacle map.txt`
     must give map.bin's bytes, and `crushkit decompile --ceph-release
     tentacle map.bin` Ceph's `crushtool -d` text.
crushkit runs as Ceph 20.2 throughout (CRUSHKIT_CEPH_RELEASE=tentacle).
A run where Ceph crashes or times out is not compared (counted); crushkit
must then still exit normally.

Exit status: 0 if there were no differences, 1 otherwise, 77 (ctest SKIP)
if the tentacle crushtool is missing and CRUSHKIT_REQUIRE_ORACLE is unset.
"""
import argparse
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import gen_msr_maps  # noqa: E402
import oracle  # noqa: E402

oracle.use_release("tentacle")

TIMEOUT = 120
ORACLE_TIMEOUT = 30
DEFAULT_ORACLE = "/opt/ceph-oracles/bin/crushtool-tentacle"

ARGS = None


def find_oracle(explicit):
    """--oracle if given (and nothing else), else $CRUSHKIT_TENTACLE_CRUSHTOOL,
    the shared installer's path, or crushtool-tentacle on PATH."""
    cands = [explicit] if explicit else [os.environ.get("CRUSHKIT_TENTACLE_CRUSHTOOL"),
                                         DEFAULT_ORACLE, shutil.which("crushtool-tentacle")]
    for cand in cands:
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def compare(name, cmd_args, cwd, counts, failures):
    theirs = oracle.run([ARGS.oracle] + cmd_args, cwd, ORACLE_TIMEOUT)
    ours = oracle.run([ARGS.crushkit, "crushtool"] + cmd_args, cwd, TIMEOUT)
    counts["runs"] += 1
    if oracle.crashed(ours[0]):
        failures.append("%s: crushkit crashed or hung (rc %s): %s" % (name, ours[0], " ".join(cmd_args)))
        return
    if oracle.crashed(theirs[0]):
        counts["oracle_crashes"] += 1
        return
    if theirs != ours:
        what = [k for k, a, b in zip(("rc", "stdout", "stderr"), theirs, ours) if a != b]
        failures.append("%s: %s differ: %s" % (name, "/".join(what), " ".join(cmd_args)))
        return
    counts["matched"] += 1
    counts["mapping_lines"] += theirs[1].count(b"\n")


def check(index):
    counts = {"maps": 1, "compiled": 0, "runs": 0, "matched": 0, "oracle_crashes": 0,
              "mapping_lines": 0, "text_checked": 0}
    failures = []
    text, num_devices, _ = gen_msr_maps.generate(ARGS.seed, index)
    rng = random.Random(ARGS.seed * 7919 + index)
    name = "seed %d map %d" % (ARGS.seed, index)
    work = tempfile.mkdtemp(prefix="msrdiff-")
    try:
        with open(os.path.join(work, "map.txt"), "w") as f:
            f.write(text)
        rc, _, err = oracle.run([ARGS.oracle, "-c", "map.txt", "-o", "map.bin"], work, ORACLE_TIMEOUT)
        if rc != 0:
            failures.append("%s: the oracle rejects the generated map: %s" % (name, err[:200]))
            return dict(counts, failures=failures)
        counts["compiled"] = 1
        base = ["-i", "map.bin", "--test", "--show-mappings", "--min-x", "0",
                "--max-x", str(ARGS.x_max), "--min-rep", "1", "--max-rep", "12"]
        compare(name, base, work, counts, failures)
        if ARGS.base_only:
            return dict(counts, failures=failures)
        flags = list(base)
        for _ in range(rng.randint(1, 4)):
            d = rng.randrange(num_devices)
            flags += ["--weight", str(d), rng.choice(["0", "0.5", "0.25", "0.9", "0"])]
        flags += ["--pool-id", str(rng.choice([0, 1, 2, 5]))]
        flags += ["--show-statistics", "--show-bad-mappings"]
        if rng.random() < 0.3:
            flags.append("--show-choose-tries")
        compare(name, flags, work, counts, failures)
        if ARGS.check_text:
            counts["text_checked"] = 1
            rc, _, err = oracle.run([ARGS.crushkit, "compile", "--ceph-release", "tentacle", "map.txt",
                                     "-o", "ck.bin"], work, TIMEOUT)
            with open(os.path.join(work, "map.bin"), "rb") as f:
                want = f.read()
            got = open(os.path.join(work, "ck.bin"), "rb").read() if rc == 0 else None
            if got != want:
                failures.append("%s: crushkit compile bytes differ (rc %s %s)" % (name, rc, err[:200]))
            _, want_text, _ = oracle.run([ARGS.oracle, "-d", "map.bin"], work, ORACLE_TIMEOUT)
            rc, _, err = oracle.run([ARGS.crushkit, "decompile", "--ceph-release", "tentacle", "map.bin",
                                     "-o", "ck.txt"], work, TIMEOUT)
            got_text = open(os.path.join(work, "ck.txt"), "rb").read() if rc == 0 else None
            if got_text != want_text:
                failures.append("%s: crushkit decompile --ceph-release tentacle text differs" % name)
    finally:
        if ARGS.keep and failures:
            print("kept %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return dict(counts, failures=failures)


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--x-max", type=int, default=1023)
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--oracle", default=None, help="Ceph 20.2 crushtool (default: %s)" % DEFAULT_ORACLE)
    ap.add_argument("--check-text", action="store_true",
                    help="also compare crushkit compile/decompile --ceph-release tentacle bytes and text")
    ap.add_argument("--base-only", action="store_true",
                    help="only step 2 (the large run's mapping sweep); no reweight run or text checks")
    ap.add_argument("--keep", action="store_true", help="keep the work directories of failing maps")
    ARGS = ap.parse_args()
    ARGS.oracle = find_oracle(ARGS.oracle)
    if ARGS.oracle is None:
        return oracle.skip_or_fail("Ceph 20.2 crushtool (crushtool-tentacle) not found")
    start = time.time()
    total, failures = oracle.map_tasks(check, list(range(ARGS.maps)), ARGS.jobs, 50)
    for f in failures[:50]:
        print("FAIL " + f)
    print("msr differential: seed %d, %d maps (%d compiled), %d runs: %d identical, "
          "%d oracle crashes, %d output lines compared, %d text checks; %.1f s"
          % (ARGS.seed, total.get("maps", 0), total.get("compiled", 0), total.get("runs", 0),
             total.get("matched", 0), total.get("oracle_crashes", 0),
             total.get("mapping_lines", 0), total.get("text_checked", 0), time.time() - start))
    print("%d passed, %d failed" % (total.get("matched", 0), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
