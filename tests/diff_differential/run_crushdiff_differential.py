#!/usr/bin/env python3
"""Differential test: `crushkit diff --format crushdiff` vs Ceph 20.2's `crushdiff compare`.

Each case (deterministic in --seed and its index) is what crushdiff can
express: an osdmap, a pg dump and a new crush map.
  1. BEFORE: run_diff_differential.build_before() (crush map from
     `crushtool --build` or gen_maps.py, Pacific's osdmaptool --createsimple,
     marks, a second pool that may be erasure-coded, OSDs down / reweighted /
     out, upmap balancer runs and random pg_upmap / pg_upmap_items), then
     two binary edits crushdiff reads from the osdmap itself: the erasure
     pool's profile (`erasure_code_profiles` and the pool's
     `erasure_code_profile`, with its k and m) and, in 35% of the cases,
     random `pg_temp` entries (crushdiff compares acting sets).
  2. NEW: BEFORE's crush map changed by a crushtool edit (reweight, add,
     remove, move; run_diff_differential.crushtool_edit), by `osdmaptool
     --adjust-crush-weight`, or not at all; given binary (`--compiled`) or
     as `crushtool -d` text (30%).
  3. A random `ceph pg dump -f json` of BEFORE (run_diff_differential.pg_dump).
  4. Ceph: `crushdiff-tentacle --osdmap BEFORE --pg-dump pgdump.json compare
     [--compiled] NEW`; crushkit: `crushkit import` of BEFORE's `--dump
     json` and crush map with `--pg-stats`, then `crushkit diff before.pb
     --crush-after NEW --format crushdiff` and, in --two-state-share of the
     cases, `crushkit diff before.pb after.pb --format crushdiff` with AFTER
     = BEFORE with NEW imported by Pacific's osdmaptool. stdout must be
     byte-identical, and crushkit's stderr must be crushdiff's `WARNING: ...
     will be undersized (...)` lines.

Cases where crushdiff itself fails (a Python exception: e.g. a PG that maps
to nothing after the change) are counted, not compared.

Exit status: 0 if no differences, 1 otherwise (or fewer than --min-cases
compared), 77 (ctest SKIP) if crushdiff-tentacle or Pacific's tools are
missing and neither CRUSHKIT_REQUIRE_ORACLE nor CI is set.
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
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_diff_differential as rdd  # noqa: E402
import osdmap_bin as ob  # noqa: E402

CRUSHDIFF = os.environ.get("CRUSHDIFF", "/opt/ceph-oracles/bin/crushdiff-tentacle")
# Ceph 16.2 and 20.2 map some maps differently (Pacific's find_rule() skips a
# rule whose type or size range does not fit the pool; Quincy+ takes the rule
# id as it is). crushkit imports the states and runs as 20.2 here
# (CRUSHKIT_CEPH_RELEASE=tentacle), so it must equal crushdiff 20.2 exactly;
# the bases themselves are still built by Pacific's tools.
RELEASE = "tentacle"


UNDERSIZED = re.compile(r"^WARNING: \S+ will be undersized \(.*\)$")


def edit_binary(rng, d, info):
    """Writes the EC profile and random pg_temp entries into BEFORE."""
    m = ob.load(os.path.join(d, "before"))
    if info["ec"]:
        profiles = dict(m.ec_profiles)
        for pid, (k, mm) in sorted(info["ec"].items()):
            name = "dd_k%dm%d" % (k, mm)
            profiles[name] = {"k": str(k), "m": str(mm), "plugin": "jerasure",
                              "technique": "reed_sol_van"}
            m.set_ec_profiles(profiles)
            m.set_pool_ec_profile(pid, name)
    if rng.random() < 0.35:
        temp = {}
        for pid in sorted(m.pools):
            size = m.pool_u8(pid, ob.POOL_SIZE) or 1
            for _ in range(rng.randint(1, 4)):
                ps = rng.randrange(max(1, m.pool_u32(pid, ob.POOL_PG_NUM)))
                temp[(pid, ps)] = rng.sample(range(m.max_osd), min(m.max_osd, rng.randint(1, size)))
        m.set_pg_temp(temp)
        info["notes"].append("base: %d pg_temp" % len(temp))
        info["pg_temp"] = True
    ob.save(m, os.path.join(d, "before"))


def new_crush(rng, d, info):
    """Writes `after` (BEFORE with a crush change) and returns the NEW crush
    file and whether it is compiled."""
    shutil.copyfile(os.path.join(d, "before"), os.path.join(d, "after"))
    r = rng.random()
    if r < 0.6:
        rdd.crushtool_edit(rng, d, info)
    elif r < 0.9:
        text = rdd.crush_text(d, "before.crush")
        devices = [int(x) for x in re.findall(r"^device (\d+) osd\.\d+", text, re.M)]
        dev = rng.choice(devices or [0])
        w = rng.choice(["0", "0.5", "1", "2", "3.25", "0.125"])
        rdd.osdmaptool_checked(d, "after", ["--adjust-crush-weight", "%d:%s" % (dev, w), "--save"],
                               "adjust-crush-weight", info["risky"])
        info["notes"].append("change: osdmaptool --adjust-crush-weight %d:%s" % (dev, w))
    else:
        info["notes"].append("change: none")
    rdd.ceph(["osdmaptool", "after", "--export-crush", "new.crush"], d, "export-crush")
    if rng.random() < 0.3:
        with open(os.path.join(d, "new.txt"), "w") as f:
            f.write(rdd.crush_text(d, "new.crush"))
        rc, _, _ = rdd.run(["crushtool", "-c", "new.txt", "-o", "new.recompiled"], d)
        if rc == 0:
            return "new.txt", False
    return "new.crush", True


def undersized_lines(err):
    return [line for line in err.decode(errors="replace").splitlines() if UNDERSIZED.match(line)]


def import_state(crushkit, d, name, dump):
    with open(os.path.join(d, name + ".json"), "w") as f:
        json.dump(dump, f)
    rc, _, err = rdd.run([crushkit, "import", "--ceph-release", RELEASE, "--osdmap", name + ".json", "--crush", name + ".crush",
                          "--pg-stats", "pgdump.json", "-o", name + ".pb"], d)
    if rc != 0:
        return "crushkit import %s failed (rc %s): %s" % (name, rc, err.decode()[:300])
    return None


def compare_run(crushkit, d, args, want_out, want_warn):
    # --crush-after text is compiled as 20.2's crushtool -c would.
    env_release = os.environ.get("CRUSHKIT_CEPH_RELEASE")
    os.environ["CRUSHKIT_CEPH_RELEASE"] = RELEASE
    try:
        rc, out, err = rdd.run([crushkit] + args, d)
    finally:
        os.environ["CRUSHKIT_CEPH_RELEASE"] = env_release or "pacific"
    if rc != 0:
        return ["rc %s: %s" % (rc, err.decode(errors="replace")[:300])]
    return compare_output(out, err, want_out, want_warn)


def compare_output(out, err, want_out, want_warn):
    diffs = []
    if out != want_out:
        diffs.append("stdout:\n      crushkit:  %s\n      crushdiff: %s" % (
            out.decode().replace("\n", "\n                 "),
            want_out.decode().replace("\n", "\n                 ")))
    # crushkit's own diagnostics (e.g. compiling a text map) are not compared.
    got_warn = undersized_lines(err)
    if got_warn != want_warn:
        diffs.append("stderr warnings: crushkit %d lines, crushdiff %d; first differing: %s / %s" % (
            len(got_warn), len(want_warn),
            next((g for g, w in zip(got_warn + [""] * len(want_warn), want_warn) if g != w), ""),
            next((w for g, w in zip(got_warn, want_warn + [""] * len(got_warn)) if g != w), "")))
    return diffs


def one_case(job):
    seed, index, crushkit, keep, two_state_share = job
    rng = random.Random(seed * 1000033 + index)
    d = tempfile.mkdtemp(prefix="crushdiffdiff-")
    res = {"cases": 0, "comparisons": 0, "pgs": 0, "ec": 0, "pg_temp": 0, "pg_upmap": 0,
           "text": 0, "affected": 0, "warned": 0, "skipped": 0, "crushdiff_failed": 0,
           "two_state": 0, "diffs": [], "skip_notes": []}
    tag = "seed %d case %d" % (seed, index)
    try:
        for attempt in range(6):
            info = {"notes": []}
            try:
                rdd.build_before(rng, d, info)
                edit_binary(rng, d, info)
                dump_b = rdd.dump_json(d, "before")
                if rdd.tree_out_of_bounds(d, "before.crush", dump_b, crushkit):
                    raise rdd.Nondeterministic("before: a tree bucket descent past its last item")
            except rdd.CaseError:
                if attempt == 5:
                    raise
                continue
            break
        new, compiled = new_crush(rng, d, info)
        if rdd.tree_out_of_bounds(d, "new.crush", dump_b, crushkit):
            raise rdd.Nondeterministic("new: a tree bucket descent past its last item")
        pg_doc, _ = rdd.pg_dump(rng, dump_b, {})
        with open(os.path.join(d, "pgdump.json"), "w") as f:
            json.dump(pg_doc, f)
        cmd = [CRUSHDIFF, "--osdmap", "before", "--pg-dump", "pgdump.json"] + \
            (["--compiled"] if compiled else []) + ["compare", new]
        rc, want_out, want_err = rdd.run(cmd, d)
        if rc != 0 or b"Traceback" in want_err:
            res["crushdiff_failed"] += 1
            last = want_err.decode(errors="replace").strip().splitlines()[-1:]
            res["skip_notes"].append("%s: crushdiff failed (rc %s): %s [%s]" % (
                tag, rc, last, " | ".join(info["notes"])))
            return res
        want_warn = undersized_lines(want_err)
        err = import_state(crushkit, d, "before", dump_b)
        runs = [("diff before.pb --crush-after %s --format crushdiff" % new,
                 ["diff", "before.pb", "--crush-after", new, "--format", "crushdiff"])]
        if not err and rng.random() < two_state_share:
            dump_a = rdd.dump_json(d, "after")
            err = import_state(crushkit, d, "after", dump_a)
            runs.append(("diff before.pb after.pb --format crushdiff",
                         ["diff", "before.pb", "after.pb", "--format", "crushdiff"]))
        res["cases"] += 1
        if err:
            res["diffs"].append("%s: %s [%s]" % (tag, err, " | ".join(info["notes"])))
            return res
        res["ec"] += 1 if info["ec"] else 0
        res["pg_temp"] += 1 if info.get("pg_temp") else 0
        res["pg_upmap"] += 1 if dump_b.get("pg_upmap") or dump_b.get("pg_upmap_items") else 0
        res["text"] += 0 if compiled else 1
        m = re.match(rb"(\d+)/(\d+) ", want_out)
        res["pgs"] += int(m.group(2)) if m else 0
        res["affected"] += 1 if m and m.group(1) != b"0" else 0
        res["warned"] += 1 if want_warn else 0
        for what, args in runs:
            args = args + ["--threads", str(rng.randint(1, 3))]
            res["comparisons"] += 1
            res["two_state"] += 1 if "after.pb" in args else 0
            diffs = compare_run(crushkit, d, args, want_out, want_warn)
            if diffs:
                kept = os.path.join(keep, "seed%d-case%d" % (seed, index)) if keep else None
                res["diffs"].append("%s: crushkit %s%s\n    %s\n    case: %s" % (
                    tag, what, (" (files in %s)" % kept) if kept else "", "\n    ".join(diffs),
                    " | ".join(info["notes"])))
        return res
    except rdd.CaseError as e:
        res["skipped"] += 1
        res["skip_notes"].append("%s: %s" % (tag, e))
        return res
    finally:
        if keep and res["diffs"]:
            shutil.copytree(d, os.path.join(keep, "seed%d-case%d" % (seed, index)),
                            dirs_exist_ok=True)
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--case", type=int, action="append", help="run only these case indices")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--min-cases", type=int, default=0,
                    help="fail if fewer cases than this were compared")
    ap.add_argument("--two-state-share", type=float, default=0.3,
                    help="share of the cases also run as `crushkit diff A B --format crushdiff`")
    ap.add_argument("--keep", help="copy the files of differing cases here")
    ap.add_argument("--show", type=int, default=20, help="differences printed (default 20)")
    ap.add_argument("--show-skips", action="store_true")
    args = ap.parse_args()

    missing = [t for t in ("crushtool", "osdmaptool") if shutil.which(t) is None]
    if not os.access(CRUSHDIFF, os.X_OK):
        missing.append(CRUSHDIFF)
    if missing:
        if os.environ.get("CI") and not os.environ.get("CRUSHKIT_REQUIRE_ORACLE"):
            print("FAIL: missing %s (CI is set)" % ", ".join(missing))
            return 1
        return rdd.oracle.skip_or_fail("missing %s" % ", ".join(missing))
    crushkit = os.path.abspath(args.crushkit)
    indices = args.case or list(range(args.cases))
    jobs = [(args.seed, i, crushkit, args.keep, args.two_state_share) for i in indices]
    t0 = time.time()
    total, failures, notes = {}, [], []
    with multiprocessing.Pool(args.jobs) as pool:
        for done, res in enumerate(pool.imap_unordered(one_case, jobs), 1):
            if done % 50 == 0:
                print("... %d/%d cases" % (done, len(jobs)), file=sys.stderr, flush=True)
            failures += res.pop("diffs")
            notes += res.pop("skip_notes")
            for k, v in res.items():
                total[k] = total.get(k, 0) + v
    elapsed = time.time() - t0
    cases = total.get("cases", 0)
    print("crushdiff differential: seed %d, %d cases compared (%d skipped: Ceph rejected or "
          "undefined; %d where crushdiff itself failed), %d crushkit runs (%d two-state), "
          "%d PGs, %d cases with an EC pool, %d with pg_temp, %d with upmaps, %d text maps, "
          "%d with PGs affected, %d with undersized warnings; %d differences; %.0f s" % (
              args.seed, cases, total.get("skipped", 0), total.get("crushdiff_failed", 0),
              total.get("comparisons", 0), total.get("two_state", 0), total.get("pgs", 0),
              total.get("ec", 0), total.get("pg_temp", 0), total.get("pg_upmap", 0),
              total.get("text", 0), total.get("affected", 0), total.get("warned", 0),
              len(failures), elapsed))
    for f in failures[:args.show]:
        print("DIFF " + f)
    for n in notes if args.show_skips else ():
        print("SKIP " + n)
    if cases < args.min_cases:
        print("FAIL: only %d cases compared (--min-cases %d)" % (cases, args.min_cases))
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
