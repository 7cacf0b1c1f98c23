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
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import zlib
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import oracle  # noqa: E402
from oracle import crashed  # noqa: E402
from run_binary_osdmap_differential import (  # noqa: E402
    build_base, compare_output, files_of, fresh_dirs)
from run_osdmap_differential import ceph_undefined, edit_crush, run  # noqa: E402

COUNTERS = ("states", "with_changes", "unable", "errors", "perturbed", "oracle_crashes",
            "crash_agreed", "bad_base", "nondeterministic", "determinism_checked", "changes",
            "change_pgs", "change_moving", "change_primary_changed", "change_primary_only",
            "ceph_undefined")
PG_DUMP = re.compile(r"^(\d+\.[0-9a-f]+)\t\[([0-9,]*)\]\t(-?\d+)$", re.M)


def pg_dump(out):
    """`--test-map-pgs-dump` lines as {pg: (acting list, primary)}."""
    return {m.group(1): ([int(x) for x in m.group(2).split(",") if x], int(m.group(3)))
            for m in PG_DUMP.finditer(out.decode())}


def change_across_primaries(res, d, crushkit, set_primaries, where):
    """The base map with the pg_upmap_primaries `osdmaptool --read` proposes
    for it, then a random crushtool edit put back with `osdmaptool
    --import-crush`: `crushkit diff` of the two maps against osdmaptool's
    mappings of both (the after map cleaned first with --upmap-cleanup, as
    the monitor cleans it): the same PGs move, with the same up sets before
    and after (primary first), and as many PGs change primary."""
    w = os.path.join(d, "change")
    shutil.rmtree(w, ignore_errors=True)
    os.mkdir(w)
    shutil.copyfile(os.path.join(d, "om"), os.path.join(w, "base.om"))
    rc, out, _ = run(["osdmaptool", "base.om", "--read", "prim.txt", "--read-pool", "rbd"], w)
    if rc != 0 or b"num changes: " not in out:
        return
    if subprocess.run([set_primaries, "base.om", "om", "prim.txt"], cwd=w,
                      capture_output=True).returncode != 0:
        res["diffs"].append("%s: osdmap_set_primaries failed" % where)
        return
    shutil.copyfile(os.path.join(w, "om"), os.path.join(w, "before.om"))
    if edit_crush(random.Random(zlib.crc32(where.encode())), w) is None:
        return
    rc, before, _ = run(["osdmaptool", "before.om", "--test-map-pgs-dump"], w)
    rc2, after, _ = run(["osdmaptool", "om", "--upmap-cleanup", "cleanup.txt",
                         "--test-map-pgs-dump"], w)
    if rc != 0 or rc2 != 0:
        return
    before, after = pg_dump(before), pg_dump(after)
    krc, kout, kerr = run([crushkit, "diff", "before.om", "om", "--json", "--pgs",
                           "--no-schedule"], w)
    if ceph_undefined(kerr):
        res["ceph_undefined"] += 1
        return
    if krc != 0:
        res["diffs"].append("%s: crushkit diff failed: %s" % (where, kerr.decode()[:300]))
        return
    j = json.loads(kout.decode())
    res["changes"] += 1
    res["change_pgs"] += len(after)
    moving = {pg for pg in after if pg in before and set(after[pg][0]) - set(before[pg][0])}
    ours = {m["pg"]: m for m in j.get("pgs", [])}
    if set(ours) != moving:
        res["diffs"].append("%s: crushkit moves %d PGs, osdmaptool's mappings %d (first "
                            "different: %s)" % (where, len(ours), len(moving),
                                                sorted(set(ours) ^ moving)[:3]))
    for pg in sorted(moving & set(ours)):
        m = ours[pg]
        if m.get("before", []) != before[pg][0] or m.get("after", []) != after[pg][0]:
            res["diffs"].append("%s: pg %s: crushkit %s -> %s, osdmaptool %s -> %s" % (
                where, pg, m.get("before"), m.get("after"), before[pg][0], after[pg][0]))
            break
    changed = [pg for pg in after if pg in before and before[pg][1] != after[pg][1]]
    only = [pg for pg in changed if set(before[pg][0]) == set(after[pg][0])]
    t = j["totals"]
    res["change_moving"] += len(moving)
    res["change_primary_changed"] += len(changed)
    res["change_primary_only"] += len(only)
    if (t.get("pgs_primary_changed", 0), t.get("pgs_primary_only", 0)) != (len(changed), len(only)):
        res["diffs"].append("%s: crushkit: %s PGs change primary (%s only that), osdmaptool's "
                            "mappings %d (%d)" % (where, t.get("pgs_primary_changed", 0),
                                                  t.get("pgs_primary_only", 0), len(changed),
                                                  len(only)))


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
    if ceph_undefined(ours[2]):
        # A mapping went where Ceph reads out of bounds: no answer to compare.
        res["ceph_undefined"] += 1
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
    seed, index, variations, crushkit, perturb, determinism, set_primaries, keep_dir = job
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
        if set_primaries:
            change_across_primaries(res, d, crushkit, set_primaries,
                                    "base %d (seed %d) change across primaries" % (index, seed))
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
        if res["diffs"] and keep_dir:
            shutil.copytree(d, os.path.join(keep_dir, "base%d" % index), dirs_exist_ok=True)
        return res
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--release", choices=("reef", "tentacle"), default="tentacle")
    ap.add_argument("--perturb", default="", help="the osdmap_perturb binary (optional)")
    ap.add_argument("--set-primaries", default="",
                    help="the osdmap_set_primaries binary: also diff a CRUSH change across the "
                         "primaries --read proposes (optional)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bases", type=int, default=20)
    ap.add_argument("--variations", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--determinism", action="store_true",
                    help="run every oracle command twice and report a different answer")
    ap.add_argument("--min-states", type=int, default=0,
                    help="fail unless at least this many runs were compared")
    ap.add_argument("--show-diffs", type=int, default=20)
    ap.add_argument("--keep-failures", default="",
                    help="copy the work directory of every base with a difference here")
    a = ap.parse_args()
    oracle.use_release(a.release)
    if (oracle.put_on_path("osdmaptool", a.release) is None or
            oracle.put_on_path("crushtool", a.release) is None):
        return oracle.skip_or_fail("osdmaptool/crushtool of %s not installed" % a.release)
    crushkit = os.path.abspath(a.crushkit)
    perturb = os.path.abspath(a.perturb) if a.perturb else ""
    set_primaries = os.path.abspath(a.set_primaries) if a.set_primaries else ""
    keep = os.path.abspath(a.keep_failures) if a.keep_failures else ""
    jobs = [(a.seed, i, a.variations, crushkit, perturb, a.determinism, set_primaries, keep)
            for i in range(a.bases)]
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
          "osdmaptool crashes (crushkit failed too on %d); %d bases rejected by Ceph; %d runs "
          "where Ceph's answer is undefined (crushkit warned: a mapping read out of bounds in "
          "Ceph)" % (
              a.release, total["states"], total["perturbed"], total["with_changes"],
              total["unable"], total["errors"], len(total["diffs"]), total["oracle_crashes"],
              total["crash_agreed"], total["bad_base"], total["ceph_undefined"]))
    if set_primaries:
        print("changes across pg_upmap_primaries: %d (%d PGs mapped, %d moving data, %d changing "
              "primary, %d of them only the primary)" % (
                  total["changes"], total["change_pgs"], total["change_moving"],
                  total["change_primary_changed"], total["change_primary_only"]))
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
