#!/usr/bin/env python3
"""Differential test of crushtool --reclassify, --set-subtree-class and
--compare: `crushkit crushtool` (crush/edit/reclassify.h, tools/crushtool/
compare.h) vs Ceph's crushtool on random maps.

For each map index:
  1. a map: a legacy per-class map from legacy_maps.py (parallel "node1" /
     "node1-ssd" trees, roots per class) compiled by Ceph, or, for every 5th
     index, a gen_maps.py map (any shape), or, for every 10th, one of Ceph's
     own legacy samples (the crush-classes maps of reclassify.t);
  2. --reclassify with --reclassify-root / --reclassify-bucket requests
     fitting the map (suffix, prefix and plain matches, a rack level, a
     third class), sometimes with --set-subtree-class, sometimes with wrong
     requests (unknown root or parent, a device as root or parent, a
     pattern that leaves a child bucket unmatched, "%");
  3. --compare of the original with the reclassified map (as Ceph wrote it),
     with --num-rep / --min-x / --max-x / --rule / --weight /
     --show-statistics variants, of two random maps, and of unreadable
     files;
  4. --set-subtree-class alone (buckets, devices, unknown names).
Every step runs both tools on the same files and compares exit code,
stdout, stderr and the written bytes (the edit differential's rules: Ceph's
debug log lines are dropped, Ceph crashes and crushkit's "undefined in
Ceph" answers are counted apart, never as matches).

Exit: 0 with no difference and at least --min-compared maps compared;
1 otherwise; 77 (ctest SKIP) only if Ceph's crushtool is missing and
CRUSHKIT_REQUIRE_ORACLE is not set.
"""
import argparse
import os
import random
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
sys.path.insert(0, os.path.join(HERE, "..", "edit_differential"))
import gen_maps  # noqa: E402
import legacy_maps  # noqa: E402
import oracle  # noqa: E402
from run_edit_differential import compare_step, parse_map, read, run  # noqa: E402

# Ceph's legacy samples and the conversions reclassify.t runs on them.
_ROOT = ["--reclassify", "--reclassify-root", "default", "hdd"]
_SSD = ["--reclassify-bucket", "%-ssd", "ssd", "default", "--reclassify-bucket", "ssd", "ssd",
        "default"]
SAMPLES = {
    "a": ["--set-subtree-class", "default", "hdd"] + _ROOT + _SSD,
    "d": ["--set-subtree-class", "default", "hdd"] + _ROOT + _SSD,
    "e": _ROOT + ["--reclassify-bucket", "ceph-osd-ssd-%", "ssd", "default",
                  "--reclassify-bucket", "ssd-root", "ssd", "default"],
    "c": _ROOT + ["--reclassify-bucket", "%-SSD", "ssd", "default", "--reclassify-bucket", "ssd",
                  "ssd", "default"],
    "beesly": ["--set-subtree-class", "0513-R-0060", "hdd", "--set-subtree-class", "0513-R-0050",
               "hdd", "--reclassify", "--reclassify-root", "0513-R-0050", "hdd",
               "--reclassify-root", "0513-R-0060", "hdd"],
    "flax": _ROOT, "gabe": _ROOT, "gabe2": _ROOT, "f": _ROOT,
    "b": ["--reclassify", "--reclassify-bucket", "%-hdd", "hdd", "default"] + _SSD +
         ["--reclassify-bucket", "hdd", "hdd", "default"],
    "g": ["--reclassify", "--reclassify-bucket", "sata-%", "hdd-sata", "default",
          "--reclassify-bucket", "sas-%", "hdd-sas", "default", "--reclassify-bucket", "sas",
          "hdd-sas", "default", "--reclassify-bucket", "sata", "hdd-sata", "default"],
}
COMPARE_FLAGS = [[], [], ["--num-rep", "2"], ["--min-x", "5", "--max-x", "99"],
                 ["--rule", "1"], ["--min-rule", "1", "--max-rule", "5"],
                 ["--weight", "0", "0.5"], ["--show-statistics"], ["--x", "7"],
                 ["--test", "--show-statistics", "--min-x", "0", "--max-x", "20"]]
# Most compares map 0..127 only: rules with max_size 10 on small maps spend
# their choose_total_tries on every input, in both tools.
SHORT = ["--min-x", "0", "--max-x", "127"]
# crushkit's note that some results are its documented answers where Ceph
# reads out of bounds (tree buckets): such a difference is Ceph's undefined.
DIVERGED = b"hit a tree bucket descent past its last item"


def compare_flags(rng, full=False):
    flags = list(rng.choice(COMPARE_FLAGS))
    if not full and "--min-x" not in flags and "--x" not in flags:
        flags += SHORT
    return flags


def legacy_requests(rng, info):
    """--reclassify flags fitting a legacy_maps.py map."""
    flags = ["--reclassify"]
    fast, roots = info["fast"], info["roots"]
    parent = "default" if "default" in roots else (roots[0] if roots else "default")
    if "default" in roots and rng.random() < 0.85:
        flags += ["--reclassify-root", "default", "hdd"]
        if rng.random() < 0.4:
            flags = ["--set-subtree-class", "default", "hdd"] + flags
    if fast in roots and rng.random() < 0.85:
        pattern = {"suffix": "%-" + fast, "upper": "%-" + fast.upper(),
                   "prefix": fast + "-%"}[info["style"]]
        flags += ["--reclassify-bucket", pattern, fast, parent]
        if rng.random() < 0.85:
            flags += ["--reclassify-bucket", fast, fast, parent]
    if info["has_third"] and rng.random() < 0.7:
        flags += ["--reclassify-bucket", "%-hdd2", "hdd2", parent,
                  "--reclassify-bucket", "hdd2", "hdd2", parent]
    r = rng.random()
    if r < 0.04:
        flags += ["--reclassify-root", "nosuchroot", "hdd"]
    elif r < 0.08:
        flags += ["--reclassify-bucket", "%-" + fast, fast, "nosuchparent"]
    elif r < 0.10:
        flags += ["--reclassify-root", "osd.0", "hdd"]
    elif r < 0.12:
        flags += ["--reclassify-bucket", "%", fast, parent]
    elif r < 0.14:
        flags += ["--reclassify-bucket", "node%", "hdd", parent]
    elif r < 0.16 and info["hosts"]:
        flags += ["--reclassify-root", info["hosts"][0], "hdd"]
    return flags


def generic_requests(rng, info, patterns=True):
    """--reclassify flags for any map: roots and patterns from its names
    (whole names only unless `patterns`)."""
    buckets = list(info["buckets"])
    flags = ["--reclassify"]
    if not buckets:
        return flags + ["--reclassify-root", "default", "hdd"]
    for _ in range(rng.randint(0, 2)):
        flags += ["--reclassify-root", rng.choice(buckets), rng.choice(["hdd", "ssd", "x"])]
    for _ in range(rng.randint(0, 2)):
        name = rng.choice(buckets)
        cut = rng.randint(1, max(1, len(name) - 1))
        pattern = rng.choice([name[:cut] + "%", "%" + name[cut:], name]) if patterns else name
        flags += ["--reclassify-bucket", pattern, rng.choice(["hdd", "ssd"]), rng.choice(buckets)]
    if rng.random() < 0.3:
        flags = ["--set-subtree-class", rng.choice(buckets), "hdd"] + flags
    return flags


def subtree_requests(rng, info):
    names = list(info["buckets"]) + list(info["devices"])[:2] + ["nosuchbucket"]
    flags = []
    for _ in range(rng.randint(1, 2)):
        flags += ["--set-subtree-class", rng.choice(names), rng.choice(["hdd", "ssd", "nvme"])]
    return flags


def make_map(rng, seed, index, wd, name):
    """Writes a map to wd/name; returns its kind ("legacy", "generic",
    "sample") and the legacy info (a sample's name), or (None, None)."""
    path = os.path.join(wd, name)
    if index % 10 == 9:
        sample = rng.choice(sorted(SAMPLES))
        src = os.path.join(oracle_samples(), sample)
        if os.path.exists(src):
            shutil.copy(src, path)
            return "sample", sample
    if index % 5 == 4:
        text, info = gen_maps.generate(seed, index), None
    else:
        text, info = legacy_maps.generate(seed, index)
    with open(os.path.join(wd, "map.txt"), "w") as f:
        f.write(text)
    rc, _, _ = run(["crushtool", "-c", "map.txt", "-o", name], wd)
    if rc != 0:
        return None, None
    return ("legacy" if info else "generic"), info


def oracle_samples():
    shared = os.environ.get("CRUSHKIT_SHARED", os.path.join(HERE, "..", "..", "..", "shared"))
    return os.path.join(shared, "compat", "ceph-cli-tests", "pacific", "crushtool",
                        "crush-classes")


def step(res, wd, index, n, flags, crushkit, keep, out=True):
    """Runs `flags` on cur.bin with both tools; True if they agree."""
    for name in ("theirs.bin", "ours.bin"):
        if os.path.exists(os.path.join(wd, name)):
            os.remove(os.path.join(wd, name))
    tail_t = ["-o", "theirs.bin"] if out else []
    tail_o = ["-o", "ours.bin"] if out else []
    theirs = run(["crushtool", "-i", "cur.bin"] + flags + tail_t, wd)
    ours = run(crushkit + ["-i", "cur.bin"] + flags + tail_o, wd)
    tbin, obin = read(os.path.join(wd, "theirs.bin")), read(os.path.join(wd, "ours.bin"))
    if ours != theirs and DIVERGED in ours[2] and not oracle.crashed(theirs[0]):
        res["steps"] += 1
        res["ceph_undefined"] += 1
        return False
    ok = compare_step(res, index, n, flags, theirs, ours, tbin, obin, wd)
    if ok:
        res["matches"] += 1
    elif keep and res["failures"]:
        d = os.path.join(keep, "map-%d-step-%d" % (index, n))
        os.makedirs(d, exist_ok=True)
        for name in ("cur.bin", "theirs.bin", "ours.bin", "map.txt", "other.bin", "orig.bin", "new.bin"):
            if os.path.exists(os.path.join(wd, name)):
                shutil.copy(os.path.join(wd, name), d)
        with open(os.path.join(d, "cmd"), "w") as f:
            f.write(" ".join(flags) + "\n")
            f.write("theirs rc=%s\n%s\n%s\n" % (theirs[0], theirs[1], theirs[2]))
            f.write("ours rc=%s\n%s\n%s\n" % (ours[0], ours[1], ours[2]))
    return ok


def check_map(task):
    seed, index, crushkit, keep = task
    rng = random.Random(seed * 15485863 + index)
    res = {"maps": 0, "legacy": 0, "generic": 0, "sample": 0, "rejected": 0, "steps": 0,
           "matches": 0, "diffs": 0, "oracle_crash": 0, "ours_crash": 0, "ceph_undefined": 0,
           "ceph_nondeterministic": 0, "ceph_uninitialised": 0, "reclassified": 0,
           "failures": []}
    wd = tempfile.mkdtemp(prefix="crushreclass.")
    try:
        kind, info = make_map(rng, seed, index, wd, "cur.bin")
        if kind is None:
            res["rejected"] += 1
            return res
        res["maps"] += 1
        res[kind] += 1
        _, text, _ = run(crushkit + ["-d", "cur.bin"], wd)
        names = parse_map(text.decode("latin1"))
        shutil.copy(os.path.join(wd, "cur.bin"), os.path.join(wd, "orig.bin"))
        n = 0

        # 1. reclassify (and the original vs the reclassified map).
        if kind == "sample":
            # reclassify.t's conversion; sometimes other requests (cheap
            # ones: a pattern matching hundreds of buckets inserts each,
            # with a shadow-tree rebuild per insert, for seconds).
            flags = SAMPLES[info]
            if rng.random() < 0.3:
                flags = generic_requests(rng, names, patterns=False)
        elif kind == "legacy":
            flags = legacy_requests(rng, info)
        else:
            flags = generic_requests(rng, names)
        ok = step(res, wd, index, n, flags, crushkit, keep, out=rng.random() < 0.95)
        n += 1
        if ok and os.path.exists(os.path.join(wd, "theirs.bin")):
            res["reclassified"] += 1
            shutil.copy(os.path.join(wd, "theirs.bin"), os.path.join(wd, "new.bin"))
            # Once as the docs do it (all defaults), once with options.
            for cflags in ([] if index % 6 == 0 else SHORT), compare_flags(rng):
                step(res, wd, index, n, cflags + ["--compare", "new.bin"], crushkit, keep,
                     out=False)
                n += 1

        # 2. --compare of two random maps (for odd indexes the reclassified
        # map against its original: the weights then come from the new map),
        # and of files that do not decode.
        if index % 2 == 1 and os.path.exists(os.path.join(wd, "new.bin")):
            shutil.copy(os.path.join(wd, "new.bin"), os.path.join(wd, "cur.bin"))
            step(res, wd, index, n, compare_flags(rng) + ["--compare", "orig.bin"],
                 crushkit, keep, out=False)
            n += 1
            shutil.copy(os.path.join(wd, "orig.bin"), os.path.join(wd, "cur.bin"))
        elif make_map(rng, seed, index + 1000003, wd, "other.bin")[0] is not None:
            step(res, wd, index, n, compare_flags(rng) + ["--compare", "other.bin"],
                 crushkit, keep, out=False)
            n += 1
        if rng.random() < 0.1:
            with open(os.path.join(wd, "garbage.bin"), "wb") as f:
                f.write(b"not a crush map")
            bad = rng.choice(["garbage.bin", "nosuchfile.bin", "."])
            step(res, wd, index, n, ["--compare", bad], crushkit, keep, out=False)
            n += 1

        # 3. --set-subtree-class alone.
        step(res, wd, index, n, subtree_requests(rng, names), crushkit, keep)
        return res
    finally:
        shutil.rmtree(wd, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="crushkit crushtool --reclassify/--compare vs Ceph")
    ap.add_argument("--maps", type=int, default=100)
    ap.add_argument("--first-map", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--min-compared", type=int, default=0,
                    help="fail unless at least this many maps were compared")
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--crushtool", default="", help="the oracle (default: Pacific's crushtool)")
    ap.add_argument("--keep-failures", default="")
    a = ap.parse_args()
    if oracle.put_on_path("crushtool", "pacific", a.crushtool) is None:
        return oracle.skip_or_fail("crushtool (the oracle) not found: %s" %
                                   (a.crushtool or "crushtool"))
    crushkit = [os.path.abspath(a.crushkit), "crushtool"]
    tasks = [(a.seed, i, crushkit, a.keep_failures)
             for i in range(a.first_map, a.first_map + a.maps)]
    total, failures = oracle.map_tasks(check_map, tasks, a.jobs, progress_every=250)
    for f in sorted(failures):
        print("FAIL", f)
    keys = ["maps", "legacy", "generic", "sample", "rejected", "reclassified", "steps", "matches",
            "diffs", "oracle_crash", "ours_crash", "ceph_undefined", "ceph_nondeterministic",
            "ceph_uninitialised"]
    print(" ".join("%s=%d" % (k, total.get(k, 0)) for k in keys))
    if total.get("maps", 0) < a.min_compared:
        print("FAIL: only %d maps compared, need %d" % (total.get("maps", 0), a.min_compared))
        return 1
    return 1 if total.get("diffs", 0) + total.get("ours_crash", 0) else 0


if __name__ == "__main__":
    sys.exit(main())
