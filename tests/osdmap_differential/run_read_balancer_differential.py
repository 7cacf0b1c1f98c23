#!/usr/bin/env python3
"""Differential test of the read balancer: `crushkit osdmaptool om --read FILE
--read-pool POOL` against osdmaptool 18.2 (Reef) or 20.2 (Tentacle).

Each base is a binary osdmap built by that release's own tools, as in
run_binary_osdmap_differential.py (`crushtool --build` or a random text map,
`osdmaptool --createsimple --with-default-pool --import-crush`, usually
persisted marks, a CRUSH weight edit and Ceph's `--upmap --save`, sometimes
a crushtool edit put back with `--import-crush`): one replicated pool
`rbd`. Each variation runs `osdmaptool om --read FILE --read-pool rbd` with
random extras: `--read -` (commands on stdout, where osdmaptool's stdio
buffering decides where they land), `--vstart`, `--mark-up-in`,
`--mark-out N`, `--upmap-cleanup` (which shares the file), `--upmap` after
it, `--test-map-pgs-dump` (the map must stay unchanged), `--print`, a pool
that does not exist; with --perturb, one more per base on a map
`osdmap_perturb` changed (OSDs down, pool sizes, existing
pg_upmap_primaries, flags). Compared: exit code, stdout and every file
written, byte for byte. Runs where Ceph crashes (it asserts when no PG of
the pool maps anywhere, on a score it never computed) are not compared, but
crushkit must fail there too.

With --determinism, each oracle run is repeated once: a different stdout
or file is reported (osdmaptool's --read has no randomness; only its crash
on an uninitialised score could vary).

Exit 77 without the oracle (1 with CRUSHKIT_REQUIRE_ORACLE=1).
"""
import argparse
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import oracle  # noqa: E402
from oracle import crashed  # noqa: E402
from run_binary_osdmap_differential import (  # noqa: E402
    build_base, compare_output, files_of, fresh_dirs)
from run_osdmap_differential import run  # noqa: E402

COUNTERS = ("states", "with_changes", "unable", "errors", "perturbed", "oracle_crashes",
            "crash_agreed", "bad_base", "nondeterministic", "determinism_checked")


def read_flags(rng, max_osd, pg_num):
    target = "-" if rng.random() < 0.3 else "out.txt"
    flags = []
    if rng.random() < 0.6:
        flags.append("--mark-up-in")
    if rng.random() < 0.3:
        flags += ["--mark-out", str(rng.randrange(max_osd))]
    if rng.random() < 0.15:
        flags += ["--upmap-cleanup", target]
    flags += ["--read", target, "--read-pool", "rbd" if rng.random() < 0.97 else "nopool"]
    if rng.random() < 0.3:
        flags.append("--vstart")
    if rng.random() < 0.05:
        flags += ["--upmap", target, "--upmap-max", "0"]
    if rng.random() < 0.1:
        flags.append("--test-map-pgs-dump")
    if rng.random() < 0.05:
        flags.append("--print")
    return flags


def compare_one(res, d, name, flags, crushkit, where, determinism):
    dirs = fresh_dirs(d, (name,))
    ceph = run(["osdmaptool", name] + flags, dirs["ceph"])
    ours = run([crushkit, "osdmaptool", name] + flags, dirs["crushkit"])
    if crashed(ceph[0]):
        res["oracle_crashes"] += 1
        res["notes"].append("%s: osdmaptool crashed (rc %s)" % (where, ceph[0]))
        if ours[0] == 0:
            res["diffs"].append("%s: osdmaptool crashed (rc %s), crushkit succeeded" % (
                where, ceph[0]))
        else:
            res["crash_agreed"] += 1
        return
    res["states"] += 1
    out = ceph[1]
    res["with_changes"] += 1 if b"num changes: " in out else 0
    res["unable"] += 1 if b"Unable to find further optimization" in out else 0
    res["errors"] += 1 if ceph[0] != 0 else 0
    compare_output(res, where, (ceph[0], out, b""), ours)
    cf, kf = files_of(dirs["ceph"]), files_of(dirs["crushkit"])
    for f in sorted(set(cf) | set(kf)):
        if cf.get(f) != kf.get(f):
            res["diffs"].append("%s: file %s differs (%s vs %s bytes)" % (
                where, f, len(cf[f]) if f in cf else "no", len(kf[f]) if f in kf else "no"))
    if determinism:
        again = fresh_dirs(d, (name,))["ceph"]
        second = run(["osdmaptool", name] + flags, again)
        res["determinism_checked"] += 1
        if second[:2] != ceph[:2] or files_of(again) != cf:
            res["nondeterministic"] += 1
            res["notes"].append("%s: osdmaptool gave another answer the second time (rc %s, "
                                "then %s)" % (where, ceph[0], second[0]))


def one_base(job):
    seed, index, variations, crushkit, perturb, determinism = job
    rng = random.Random(seed * 1000003 + index + 4242)
    d = tempfile.mkdtemp(prefix="readbaldiff-")
    res = {k: 0 for k in COUNTERS}
    res["diffs"], res["notes"] = [], []
    try:
        base = build_base(rng, d, False, lambda name: None)
        if base is None:
            res["bad_base"] = 1
            return res
        max_osd, pg_num, _ = base
        for v in range(variations):
            flags = read_flags(rng, max_osd, pg_num)
            compare_one(res, d, "om", flags, crushkit,
                        "base %d (seed %d) flags %s" % (index, seed, " ".join(flags)), determinism)
        if perturb:
            pseed = rng.randrange(1 << 30)
            if subprocess.run([perturb, str(pseed), os.path.join(d, "om"),
                                      os.path.join(d, "pert.om")],
                                     capture_output=True).returncode == 0:
                flags = read_flags(rng, max_osd, pg_num)
                res["perturbed"] += 1
                compare_one(res, d, "pert.om", flags, crushkit,
                            "base %d (seed %d) perturbed map (osdmap_perturb %d) flags %s" % (
                                index, seed, pseed, " ".join(flags)), determinism)
        return res
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--release", choices=("reef", "tentacle"), default="tentacle")
    ap.add_argument("--perturb", default="", help="the osdmap_perturb binary (optional)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bases", type=int, default=20)
    ap.add_argument("--variations", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--determinism", action="store_true",
                    help="run every oracle command twice and report a different answer")
    ap.add_argument("--min-states", type=int, default=0,
                    help="fail unless at least this many runs were compared")
    ap.add_argument("--show-diffs", type=int, default=20)
    a = ap.parse_args()
    oracle.use_release(a.release)
    if (oracle.put_on_path("osdmaptool", a.release) is None or
            oracle.put_on_path("crushtool", a.release) is None):
        return oracle.skip_or_fail("osdmaptool/crushtool of %s not installed" % a.release)
    crushkit = os.path.abspath(a.crushkit)
    perturb = os.path.abspath(a.perturb) if a.perturb else ""
    jobs = [(a.seed, i, a.variations, crushkit, perturb, a.determinism) for i in range(a.bases)]
    total = {k: 0 for k in COUNTERS}
    total["diffs"], total["notes"] = [], []
    with multiprocessing.Pool(a.jobs) as pool:
        for r in pool.imap_unordered(one_base, jobs):
            for k in total:
                total[k] += r[k]
    for line in total["diffs"][:a.show_diffs]:
        print("DIFF", line)
    for line in total["notes"][:a.show_diffs]:
        print("NOTE", line)
    print("release %s: compared %d --read runs (%d of them on perturbed maps; %d proposing "
          "changes, %d finding none, %d failing as osdmaptool fails); %d differences; %d "
          "osdmaptool crashes (crushkit failed too on %d); %d bases rejected by Ceph" % (
              a.release, total["states"], total["perturbed"], total["with_changes"],
              total["unable"], total["errors"], len(total["diffs"]), total["oracle_crashes"],
              total["crash_agreed"], total["bad_base"]))
    if a.determinism:
        print("determinism: %d oracle runs repeated, %d gave another answer" % (
            total["determinism_checked"], total["nondeterministic"]))
    if total["states"] < a.min_states:
        print("FAIL: only %d runs compared, fewer than --min-states %d" % (
            total["states"], a.min_states))
        return 1
    return 1 if total["diffs"] else 0


if __name__ == "__main__":
    sys.exit(main())
