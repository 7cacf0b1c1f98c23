#!/usr/bin/env python3
"""Differential test: `crushkit crushtool` vs Ceph's crushtool on random maps.

For each generated text map (gen_maps.py):
  1. compile it with Ceph: `crushtool -c map.txt -o map.bin` (maps the oracle
     rejects are skipped and counted);
  2. round trip: `crushkit crushtool -i map.bin --set-choose-total-tries T
     -o rt.bin` with the map's own T must reproduce map.bin byte for byte
     (decode + encode identity), and a real edit must equal Ceph's bytes;
  3. the -c/-d paths of the front: `-c map.txt --test ...`, `-c map.txt -o
     c.bin` (bytes equal to Ceph's) and `-d map.bin` (text equal to Ceph's);
  4. one base run over every rule (`--show-mappings --show-statistics
     --show-bad-mappings`, x range 0..X) plus --runs-per-map runs with a
     random selection of --test flags (rules, --num-rep, x range, --weight,
     --pool-id, --batches, --show-*, tunable edits): stdout, stderr and the
     exit code must be identical.
Intentional differences (README.md): when Ceph's crushtool crashes (killed
by a signal, e.g. SIGABRT/SIGSEGV on rules that emit buckets) or times out,
the run is not compared; crushkit must then still exit normally (no signal,
no timeout).

Exit status: 0 if there were no differences, 1 otherwise, 77 (ctest SKIP) if
Ceph's crushtool is not installed.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_maps  # noqa: E402
import oracle  # noqa: E402
from oracle import crashed  # noqa: E402,F401

# crushkit's limit (generous: the sanitizer build runs this too) and Ceph's.
# Ceph's runs on these small maps take well under a second; a crushtool that
# aborts on heap corruption (rules emitting buckets) often deadlocks in its
# crash handler's malloc instead of dying, and would hold a worker until
# this timeout: it then counts as an oracle crash.
TIMEOUT = 60
ORACLE_TIMEOUT = 15


def run(cmd, cwd):
    if cmd[0] != "crushtool":
        rc, out, err = oracle.run(cmd, cwd, TIMEOUT)
        return rc, out, oracle.strip_quirk_warnings(err)
    rc, out, err = oracle.run(cmd, cwd, ORACLE_TIMEOUT)
    return rc, oracle.normalize_argv0(out), oracle.normalize_argv0(err)


def run_with_files(cmd, wd, subdir):
    """run() in a fresh wd/subdir; stdout gains the files written there."""
    d = os.path.join(wd, subdir)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    rc, out, err = run(cmd, d)
    # Only the CSV files: a crashing Ceph may leave a crash report directory.
    for name in sorted(n for n in os.listdir(d) if n.endswith(".csv")):
        with open(os.path.join(d, name), "rb") as f:
            out += b"\n== " + name.encode() + b" ==\n" + f.read()
    return rc, out, err


def release_text(text, release, rng):
    """The generator writes Pacific text; Reef and later also accept rules
    without min_size/max_size (and warn about them when present)."""
    if release == "pacific" or rng.random() < 0.5:
        return text
    return re.sub(r"^\t(min|max)_size \d+\n", "", text, flags=re.M)


def ceph_undefined(ours):
    """crushkit warned that Ceph reads or writes out of bounds on this run (a
    tree descent past its last item, bucket ids counted at negative device
    indexes), so Ceph's answer is undefined there: counted, never a match."""
    return b"reads out of bounds" in ours[2]


def map_info(text):
    rules = [int(m) for m in re.findall(r"^rule \S+ \{\n\tid (\d+)", text, re.M)]
    devices = len(re.findall(r"^device ", text, re.M))
    m = re.search(r"^tunable choose_total_tries (\d+)", text, re.M)
    return {"rules": rules, "devices": devices,
            "total_tries": int(m.group(1)) if m else 19}


def random_flags(rng, info, x_max, release):
    f = ["--test"]
    shows = ["--show-mappings", "--show-bad-mappings", "--show-statistics",
             "--show-utilization", "--show-utilization-all", "--show-choose-tries"]
    chosen = [s for s in shows if rng.random() < 0.35]
    if rng.random() < 0.05:
        chosen = []  # "WARNING: no output selected"
    f += chosen
    r = rng.random()
    if r < 0.5 and info["rules"]:
        f += ["--rule", str(rng.choice(info["rules"] + [max(info["rules"]) + 1]))]
    elif r < 0.65:
        lo = rng.randint(0, 3)
        f += ["--min-rule", str(lo), "--max-rule", str(lo + rng.randint(0, 3))]
    elif r < (0.7 if release == "pacific" else 0.67):
        f += ["--ruleset", str(rng.randint(0, 3))]
    r = rng.random()
    if r < 0.7:
        f += ["--num-rep", str(rng.choice([1, 2, 3, 3, 4, 5, 6, 8, 0]))]
    elif release != "pacific" and r < 0.97:
        # Quincy+: --num-rep or both --min-rep and --max-rep (one alone, or
        # negative values, are accepted too)
        lo = rng.choice([0, 1, 1, 2, 3])
        if rng.random() < 0.9:
            f += ["--min-rep", str(lo)]
        if rng.random() < 0.9:
            f += ["--max-rep", str(lo + rng.randint(0, 5))]
    r = rng.random()
    if r < 0.6:
        lo = rng.randint(0, 1000)
        f += ["--min-x", str(lo), "--max-x", str(lo + rng.randint(0, x_max))]
    elif r < 0.75:
        f += ["--x", str(rng.randint(0, 100000))]
    elif r < 0.8:
        f += ["--max-x", str(rng.randint(0, 50))]  # alone: ignored by Ceph
    for _ in range(rng.choice([0, 0, 1, 2, 4])):
        dev = rng.randint(0, max(0, info["devices"]))
        w = rng.choice(["0", "0.5", "1", "0.25", "0.9", "2", "-1", "%.3f" % rng.random()])
        f += ["--weight", str(dev), w]
    if rng.random() < 0.2:
        f += ["--pool-id", str(rng.choice([0, 1, 2, 7, 42, -5, 4294967297]))]
    if rng.random() < 0.1:
        f += ["--batches", str(rng.randint(1, 5))]
    if rng.random() < 0.05:
        f += [rng.choice(["--simulate", "-s"])]
    if rng.random() < 0.06:
        f += ["--output-csv"] + (["--output-name", "run"] if rng.random() < 0.5 else [])
    if rng.random() < 0.06:
        f += ["--mark-down-ratio", rng.choice(["0.1", "0.3", "0.5", "0.9", "1"])]
        if rng.random() < 0.5:
            f += ["--mark-down-bucket-ratio", rng.choice(["0", "0.25", "0.5", "1"])]
    if rng.random() < 0.15:
        name, hi = rng.choice([("--set-choose-total-tries", 60),
                               ("--set-chooseleaf-vary-r", 4),
                               ("--set-chooseleaf-descend-once", 1),
                               ("--set-chooseleaf-stable", 1),
                               ("--set-choose-local-tries", 3),
                               ("--set-choose-local-fallback-tries", 5)])
        f += [name, str(rng.randint(0, hi))]
    if rng.random() < 0.2:
        # Ceph spellings: --foo_bar for --foo-bar, and --opt=value
        f = ["--" + a[2:].replace("-", "_") if a.startswith("--") and rng.random() < 0.5 else a
             for a in f]
        merged = []
        i = 0
        while i < len(f):
            a = f[i]
            if (a in ("--rule", "--num-rep", "--num_rep", "--x", "--pool-id", "--pool_id")
                    and i + 1 < len(f) and rng.random() < 0.5):
                merged.append(a + "=" + f[i + 1])
                i += 2
                continue
            merged.append(a)
            i += 1
        f = merged
    return f


def check_map(task):
    seed, index, crushkit, crushtool, runs, x_max, keep, cd_every, release = task
    oracle.use_release(release)
    rng = random.Random(seed * 7919 + index)
    text = release_text(gen_maps.generate(seed, index, oddities=True), release, rng)
    info = map_info(text)
    res = {"compiled": 0, "invalid": 0, "runs": 0, "diffs": 0, "oracle_crash": 0,
           "roundtrip_fail": 0, "ours_crash": 0, "ceph_undefined": 0, "ceph_nondeterministic": 0,
           "failures": []}
    wd = tempfile.mkdtemp(prefix="crushdiff.")
    try:
        with open(os.path.join(wd, "map.txt"), "w") as f:
            f.write(text)
        rc, _, _ = run([crushtool, "-c", "map.txt", "-o", "map.bin"], wd)
        if rc != 0:
            res["invalid"] = 1
            return res
        res["compiled"] = 1
        orig = open(os.path.join(wd, "map.bin"), "rb").read()

        # decode + encode identity, and a real edit equal to Ceph's bytes
        t = info["total_tries"]
        rc, out, err = run(crushkit + ["-i", "map.bin", "--set-choose-total-tries", str(t),
                                       "-o", "rt.bin"], wd)
        rt = open(os.path.join(wd, "rt.bin"), "rb").read() if rc == 0 else b""
        if rc != 0 or rt != orig:
            res["roundtrip_fail"] += 1
            res["failures"].append("map %d: round trip differs (rc=%s, %s)" % (index, rc, err[:200]))
        edit = ["--set-choose-total-tries", str(t + 1), "--set-chooseleaf-vary-r", "1"]
        a = run(crushkit + ["-i", "map.bin", "-o", "ours.bin"] + edit, wd)
        b = run([crushtool, "-i", "map.bin", "-o", "theirs.bin"] + edit, wd)
        ours = open(os.path.join(wd, "ours.bin"), "rb").read() if a[0] == 0 else b""
        theirs = open(os.path.join(wd, "theirs.bin"), "rb").read() if b[0] == 0 else b""
        if a != b or ours != theirs:
            res["roundtrip_fail"] += 1
            res["failures"].append("map %d: tunable edit output differs" % index)

        # the front's -c and -d paths (crush_compiler behind crushtool's CLI)
        cd_flags = (["-c", "map.txt", "--test", "--show-mappings", "--num-rep", "3",
                     "--min-x", "0", "--max-x", "31"],
                    ["-c", "map.txt", "-o", "c.bin"],
                    ["-d", "map.bin"])
        check_cd = index % cd_every == 0
        if check_cd:
            # Ceph's compiler leaves some tree node weights uninitialised, so its
            # -c output (and mappings through it) can change from run to run.
            # compile_diff.py compares compiles with exact masking; here a map
            # Ceph compiles nondeterministically only counts as such.
            run([crushtool, "-c", "map.txt", "-o", "c1.bin"], wd)
            run([crushtool, "-c", "map.txt", "-o", "c2.bin"], wd)
            if (open(os.path.join(wd, "c1.bin"), "rb").read() !=
                    open(os.path.join(wd, "c2.bin"), "rb").read()):
                res["ceph_nondeterministic"] += 1
                check_cd = False
        for flags in cd_flags if check_cd else ():
            writes = "c.bin" in flags
            theirs = run([crushtool] + flags, wd)
            theirs_bin = open(os.path.join(wd, "c.bin"), "rb").read() if writes else b""
            unstable = set()
            if writes:
                # Ceph's compiler writes a few uninitialised bytes (they change
                # from run to run): compile twice and ignore bytes that moved.
                run([crushtool] + flags, wd)
                again = open(os.path.join(wd, "c.bin"), "rb").read()
                for i in range(min(len(again), len(theirs_bin))):
                    if again[i] != theirs_bin[i]:
                        unstable.update(range(i - 3, i + 4))
            ours = run(crushkit + flags, wd)
            ours_bin = open(os.path.join(wd, "c.bin"), "rb").read() if writes else b""
            same_bin = len(ours_bin) == len(theirs_bin) and all(
                ours_bin[i] == theirs_bin[i] for i in range(len(ours_bin)) if i not in unstable)
            res["runs"] += 1
            if crashed(theirs[0]):
                res["oracle_crash"] += 1
            elif ours != theirs and ceph_undefined(ours):
                res["ceph_undefined"] += 1
            elif ours != theirs or not same_bin:
                res["diffs"] += 1
                res["failures"].append("map %d: differ on: %s" % (index, " ".join(flags)))

        flag_sets = [["--test", "--show-mappings", "--show-statistics", "--show-bad-mappings"] +
                     ([] if x_max >= 1023 else ["--min-x", "0", "--max-x", str(x_max)]) +
                     ([] if release == "pacific" else ["--min-rep", "1", "--max-rep", "6"])]
        flag_sets += [random_flags(rng, info, x_max, release) for _ in range(runs)]
        for flags in flag_sets:
            if "--output-csv" in flags:
                # Each tool writes its CSV files into its own directory; the
                # files join the compared output.
                theirs = run_with_files([crushtool, "-i", "../map.bin"] + flags, wd, "theirs")
                ours = run_with_files(crushkit + ["-i", "../map.bin"] + flags, wd, "ours")
            else:
                theirs = run([crushtool, "-i", "map.bin"] + flags, wd)
                ours = run(crushkit + ["-i", "map.bin"] + flags, wd)
            res["runs"] += 1
            if crashed(ours[0]):
                res["ours_crash"] += 1
                res["failures"].append("map %d: crushkit crashed (rc=%s) on %s" %
                                       (index, ours[0], " ".join(flags)))
                continue
            if crashed(theirs[0]):
                res["oracle_crash"] += 1
                continue
            if ours != theirs and ceph_undefined(ours):
                res["ceph_undefined"] += 1
                continue
            if ours != theirs:
                res["diffs"] += 1
                what = [n for n, i in (("rc", 0), ("stdout", 1), ("stderr", 2))
                        if ours[i] != theirs[i]]
                res["failures"].append("map %d: %s differ on: %s" %
                                       (index, "/".join(what), " ".join(flags)))
                if keep:
                    d = os.path.join(keep, "map-%d" % index)
                    os.makedirs(d, exist_ok=True)
                    shutil.copy(os.path.join(wd, "map.txt"), d)
                    shutil.copy(os.path.join(wd, "map.bin"), d)
                    n = len(os.listdir(d))
                    for tag, r in (("ours", ours), ("theirs", theirs)):
                        with open(os.path.join(d, "%d.%s" % (n, tag)), "wb") as f:
                            f.write(("flags: %s\nrc: %s\n--stdout--\n" % (" ".join(flags), r[0])).encode())
                            f.write(r[1] + b"--stderr--\n" + r[2])
        return res
    finally:
        shutil.rmtree(wd, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="crushkit crushtool vs Ceph crushtool")
    ap.add_argument("--maps", type=int, default=50)
    ap.add_argument("--first-map", type=int, default=0,
                    help="index of the first map (a big run can be split: --first-map 1000 --maps 1000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs-per-map", type=int, default=3)
    ap.add_argument("--x-max", type=int, default=255,
                    help="largest x span per run; >= 1023 runs the base test on Ceph's default 0..1023")
    ap.add_argument("--cd-every", type=int, default=1,
                    help="run the -c/-d checks on every Nth map only")
    ap.add_argument("--crushkit", required=True, help="path of the crushkit binary")
    ap.add_argument("--release", choices=oracle.RELEASES, default="pacific",
                    help="Ceph release to compare with (its crushtool; crushkit runs as it)")
    ap.add_argument("--crushtool", default="",
                    help="the oracle (default: that release's crushtool)")
    ap.add_argument("--keep-failures", default="", help="directory for failing cases")
    a = ap.parse_args()
    if oracle.put_on_path("crushtool", a.release, a.crushtool) is None:
        return oracle.skip_or_fail("Ceph %s crushtool not found (%s)" %
                                   (a.release, a.crushtool or oracle.tool("crushtool", a.release)))
    crushkit = [os.path.abspath(a.crushkit), "crushtool"]
    tasks = [(a.seed, i, crushkit, "crushtool", a.runs_per_map, a.x_max, a.keep_failures,
              max(1, a.cd_every), a.release)
             for i in range(a.first_map, a.first_map + a.maps)]
    total, failures = oracle.map_tasks(check_map, tasks, a.jobs, progress_every=100)
    for f in sorted(failures):
        print("FAIL", f)
    print("release=%s maps=%d compiled=%d rejected_by_oracle=%d runs=%d diffs=%d oracle_crashes=%d "
          "crushkit_crashes=%d roundtrip_failures=%d ceph_undefined=%d ceph_nondeterministic_compiles=%d" %
          (a.release, a.maps, total.get("compiled", 0), total.get("invalid", 0), total.get("runs", 0),
           total.get("diffs", 0), total.get("oracle_crash", 0), total.get("ours_crash", 0),
           total.get("roundtrip_fail", 0), total.get("ceph_undefined", 0),
           total.get("ceph_nondeterministic", 0)))
    bad = total.get("diffs", 0) + total.get("ours_crash", 0) + total.get("roundtrip_fail", 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
