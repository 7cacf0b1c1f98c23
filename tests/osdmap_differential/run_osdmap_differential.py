#!/usr/bin/env python3
"""Differential test: `crushkit osdmaptool STATE` vs Ceph's osdmaptool.

For each base cluster (deterministic in --seed and its index):
  1. a crush map: `crushtool --build` with a random layout and random bucket
     algorithms (uniform/list/tree/straw/straw2), or a random text map from
     ../differential/gen_maps.py compiled with `crushtool -c`;
  2. `osdmaptool --createsimple N --with-default-pool --pg-bits B
     --pgp-bits B2 --import-crush MAP` (pgp_num < pg_num half the time);
  3. optionally persisted cluster changes: `--mark-up-in --mark-out K
     --mark-up J --adjust-crush-weight ID:W --save` and the upmap balancer
     (`--upmap F --save`), which stores pg_upmap_items;
  4. `osdmaptool --dump json --export-crush` -> `crushkit import` (.pb or
     .json state);
  5. `crushkit map-pgs` against the oracle's --test-map-pgs-dump-all;
  6. --variations runs with random osdmaptool flags on top (marks, CRUSH
     weight edits, --pool, --pg_num, --test-map-pgs[-dump[-all]],
     --test-map-pg, --test-map-object): Ceph on the binary map and crushkit
     on the state must print the same stdout and exit with the same code.
Each (base, variation) is one cluster state. A crushkit "is not supported"
error (documented gaps, e.g. CRUSH weight edits on maps with choose_args) is
counted separately, never as a match. Runs where Ceph crashes are skipped.

Exit status: 0 if no differences, 1 otherwise, 77 (ctest SKIP) if Ceph's
osdmaptool/crushtool are not installed.
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import gen_maps  # noqa: E402
import oracle  # noqa: E402
from oracle import crashed  # noqa: E402,F401

TIMEOUT = 10  # the oracle can spin for minutes on unsatisfiable rules
ALGS = ["straw2", "straw2", "straw", "list", "tree", "uniform"]
LAYERS = ["host", "rack", "row", "room"]


def run(cmd, cwd):
    return oracle.run(cmd, cwd, TIMEOUT)


def build_crush(rng, d, only_choose_args=False):
    """Returns (max_devices, has_choose_args, is_text) or None if the oracle failed."""
    if not only_choose_args and rng.random() < 0.6:
        osds = rng.randint(3, 40)
        layers = []
        for name in LAYERS[:rng.randint(1, 3)]:
            layers += [name, rng.choice(ALGS), str(rng.randint(2, 5))]
        layers += ["root", rng.choice(["straw2", "straw2", "straw", "list", "tree"]), "0"]
        rc, _, _ = run(["crushtool", "--build", "--num_osds", str(osds)] + layers +
                       ["-o", "crush.bin"], d)
        return (osds, False, False) if rc == 0 else None
    want_choose_args = only_choose_args or rng.random() < 0.5
    for _ in range(200):
        text = gen_maps.generate(rng.randint(0, 1 << 30), rng.randint(0, 1000))
        if not want_choose_args or "choose_args" in text:
            break
    with open(os.path.join(d, "crush.txt"), "w") as f:
        f.write(text)
    rc, _, _ = run(["crushtool", "-c", "crush.txt", "-o", "crush.bin"], d)
    if rc != 0:
        return None
    ids = [int(x) for x in re.findall(r"^device (\d+) ", text, re.M)]
    return (max(ids) + 1 if ids else 1), "choose_args" in text, True


def random_flags(rng, max_osd, pg_num):
    flags = []
    if rng.random() < 0.75:
        flags.append("--mark-up-in")
    if rng.random() < 0.35:
        flags += ["--mark-out", str(rng.randrange(max_osd))]
    mark_in = rng.random() < 0.15
    if mark_in or rng.random() < 0.15:
        flags += ["--mark-up", str(rng.randrange(max_osd))]
    if mark_in:
        # Pacific marks the --mark-up osd in; without --mark-up it crashes.
        flags += ["--mark-in", str(rng.randrange(max_osd))]
    if rng.random() < 0.2:
        n = rng.randint(1, 3)
        flags += ["--adjust-crush-weight", ",".join(
            "%d:%s" % (rng.randrange(max_osd),
                       # 40000 and -1 fail Ceph's validate_weightf (map unchanged)
                       rng.choice(["0", "0.3", "0.5", "1", "2.5", "3", "40000", "-1"]))
            for _ in range(n))]
    test = rng.choice(["--test-map-pgs-dump-all", "--test-map-pgs-dump-all",
                       "--test-map-pgs-dump", "--test-map-pgs", None])
    if test:
        flags.append(test)
        if rng.random() < 0.15:
            flags += ["--pg_num", str(rng.randint(1, pg_num * 2))]
    if rng.random() < 0.3:
        flags += ["--pool", rng.choice(["1", "1", "2"])]
    if rng.random() < 0.3 or not test:
        flags += ["--test-map-pg", "1.%x" % rng.randrange(pg_num * 2)]
    if rng.random() < 0.3:
        flags += ["--test-map-object", "obj_%d" % rng.randrange(1 << 20)]
    if rng.random() < 0.25:
        flags += ["--export-crush", "out.crush"]
    r = rng.random()
    if r < 0.15:
        # Printed last whatever its position; "--tree X" takes X as the format.
        flags = ["--tree", rng.choice(["json", "plain"])] + flags
    elif r < 0.3:
        # Trailing --tree: Ceph keeps the previous string option's value as the
        # format (json unless none was given).
        flags.append("--tree")
    elif r < 0.4:
        flags.append(rng.choice(["--tree=plain", "--tree=json"]))
    return flags


def one_base(job):
    seed, index, variations, crushkit, only_choose_args = job
    rng = random.Random(seed * 1000003 + index)
    d = tempfile.mkdtemp(prefix="osdmapdiff-")
    res = {"states": 0, "pgs": 0, "diffs": [], "skipped_oracle": 0, "unsupported": 0,
           "bad_base": 0, "skip_notes": [], "trees": 0, "exports": 0, "choose_args": 0,
           "text_imports": 0}
    try:
        built = build_crush(rng, d, only_choose_args)
        if built is None:
            res["bad_base"] = 1
            return res
        devices, has_choose_args, is_text = built
        res["choose_args"] += 1 if has_choose_args else 0
        max_osd = devices + rng.randint(0, 3)
        bits = rng.randint(0, 6)
        while (max_osd << bits) > 1024 and bits > 0:
            bits -= 1
        pgp_bits = bits if rng.random() < 0.5 else rng.randint(0, bits)
        rc, _, _ = run(["osdmaptool", "--createsimple", str(max_osd), "--with-default-pool",
                        "--pg-bits", str(bits), "--pgp-bits", str(pgp_bits), "--clobber",
                        "--import-crush", "crush.bin", "om"], d)
        if rc != 0:
            res["bad_base"] = 1
            return res
        if rng.random() < 0.6:
            persist = ["--mark-up-in"]
            if rng.random() < 0.5:
                persist += ["--mark-out", str(rng.randrange(max_osd))]
            if rng.random() < 0.3:
                persist += ["--mark-up", str(rng.randrange(max_osd))]
            persist += ["--adjust-crush-weight", "%d:%s" % (
                rng.randrange(max_osd), rng.choice(["0.5", "1", "2"])), "--save"]
            if rng.random() < 0.6:
                persist += ["--upmap", "upmap.txt", "--upmap-max", str(rng.randint(1, 20)),
                            "--upmap-deviation", "1",
                            "--osd_calc_pg_upmaps_aggressively=false"]
            rc, _, _ = run(["osdmaptool", "om"] + persist, d)
            if crashed(rc) or rc != 0:
                res["bad_base"] = 1
                return res
        rc, out, _ = run(["osdmaptool", "om", "--export-crush", "exported.bin",
                          "--dump", "json"], d)
        if rc != 0:
            res["bad_base"] = 1
            return res
        text = out.decode()
        with open(os.path.join(d, "dump.json"), "w") as f:
            f.write(text[text.index("{"):])
        pg_num = json.loads(text[text.index("{"):])["pools"][0]["pg_num"]
        state = "state.json" if rng.random() < 0.3 else "state.pb"
        rc, _, err = run([crushkit, "import", "--osdmap", "dump.json", "--crush",
                          "exported.bin", "-o", state], d)
        if rc != 0:
            res["diffs"].append("base %d: crushkit import failed: %s" % (index, err.decode()))
            return res
        if is_text:
            # `crushkit import --crush TEXT` must give the state that importing
            # `crushtool -c TEXT` gives (modulo the tree-bucket bytes Ceph's
            # compiler leaves uninitialised: then compare what they print).
            rc1, _, e1 = run([crushkit, "import", "--osdmap", "dump.json", "--crush",
                              "crush.bin", "-o", "from_bin.json"], d)
            rc2, _, e2 = run([crushkit, "import", "--osdmap", "dump.json", "--crush",
                              "crush.txt", "-o", "from_txt.json"], d)
            res["text_imports"] += 1
            if rc1 != 0 or rc2 != 0:
                res["diffs"].append("base %d: import of crush.bin/crush.txt failed: %s %s"
                                    % (index, e1.decode(), e2.decode()))
            else:
                with open(os.path.join(d, "from_bin.json")) as f1, \
                        open(os.path.join(d, "from_txt.json")) as f2:
                    same = f1.read() == f2.read()
                if not same:
                    probe = ["--mark-up-in", "--test-map-pgs-dump-all", "--tree"]
                    o1 = run([crushkit, "osdmaptool", "from_bin.json"] + probe, d)
                    o2 = run([crushkit, "osdmaptool", "from_txt.json"] + probe, d)
                    if o1[:2] != o2[:2] or "alg tree" not in open(os.path.join(d, "crush.txt")).read():
                        res["diffs"].append("base %d: text and binary crush imports differ" % index)
        # `crushkit map-pgs` (parallel fast path, its own format) against the
        # oracle's --test-map-pgs-dump-all of the same state.
        orc, oout, _ = run(["osdmaptool", "om", "--test-map-pgs-dump-all"], d)
        if not crashed(orc):
            want = []
            for m in re.finditer(r"^(\d+\.[0-9a-f]+) raw \(\[[^]]*\], p-?\d+\) "
                                 r"up \((\[[^]]*\]), p(-?\d+)\) acting \((\[[^]]*\]), p(-?\d+)\)$",
                                 oout.decode(), re.M):
                want.append("\t".join(m.groups()))
            krc, kout, kerr = run([crushkit, "map-pgs", state, "--threads",
                                   str(rng.randint(1, 3))], d)
            got = kout.decode().splitlines()
            res["pgs"] += len(want)
            if krc != 0 or got != want:
                res["diffs"].append("base %d (seed %d): map-pgs differs (rc %s, %d vs %d lines)"
                                    % (index, seed, krc, len(got), len(want)))
        for v in range(variations):
            flags = random_flags(rng, max_osd, pg_num)
            shutil.copyfile(os.path.join(d, "om"), os.path.join(d, "om.scratch"))
            for f in ("out.crush", "out.crush.ceph"):
                if os.path.exists(os.path.join(d, f)):
                    os.remove(os.path.join(d, f))
            orc, oout, _ = run(["osdmaptool", "om.scratch"] + flags, d)
            if os.path.exists(os.path.join(d, "out.crush")):
                os.rename(os.path.join(d, "out.crush"), os.path.join(d, "out.crush.ceph"))
            if crashed(orc):
                res["skipped_oracle"] += 1
                res["skip_notes"].append("base %d: ceph rc %s on %s" % (index, orc, " ".join(flags)))
                continue
            krc, kout, kerr = run([crushkit, "osdmaptool", state] + flags, d)
            if krc != 0 and b"not supported" in kerr:
                res["unsupported"] += 1
                res["skip_notes"].append("base %d: crushkit: %s" % (index, kerr.decode().strip()))
                continue
            res["states"] += 1
            res["pgs"] += len(re.findall(rb"^\d+\.[0-9a-f]+ raw|^\d+\.[0-9a-f]+\t", oout, re.M))
            if any(f.startswith("--tree") for f in flags):
                res["trees"] += 1
            if "--export-crush" in flags and orc == 0:
                res["exports"] += 1
                a = os.path.join(d, "out.crush.ceph")
                b = os.path.join(d, "out.crush")
                if not (os.path.exists(a) and os.path.exists(b)) or \
                        open(a, "rb").read() != open(b, "rb").read():
                    res["diffs"].append("base %d (seed %d) flags %s: exported crush maps differ"
                                        % (index, seed, " ".join(flags)))
            if orc != krc or oout != kout:
                ol, kl = oout.decode().splitlines(), kout.decode().splitlines()
                first = next((i for i in range(min(len(ol), len(kl))) if ol[i] != kl[i]),
                             min(len(ol), len(kl)))
                res["diffs"].append(
                    "base %d (seed %d) flags %s: rc %s vs %s; first diff at line %d:\n"
                    "  ceph:     %s\n  crushkit: %s\n  crushkit stderr: %s" % (
                        index, seed, " ".join(flags), orc, krc, first + 1,
                        ol[first] if first < len(ol) else "<eof>",
                        kl[first] if first < len(kl) else "<eof>", kerr.decode()[:300]))
        return res
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bases", type=int, default=40)
    ap.add_argument("--variations", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--only-choose-args", action="store_true",
                    help="every base is a random text map with choose_args (weight sets)")
    ap.add_argument("--min-states", type=int, default=0,
                    help="fail unless at least this many states were compared")
    a = ap.parse_args()
    if not shutil.which("osdmaptool") or not shutil.which("crushtool"):
        return oracle.skip_or_fail("osdmaptool/crushtool not installed")
    crushkit = os.path.abspath(a.crushkit)
    jobs = [(a.seed, i, a.variations, crushkit, a.only_choose_args) for i in range(a.bases)]
    total = {"states": 0, "pgs": 0, "diffs": [], "skipped_oracle": 0, "unsupported": 0,
             "bad_base": 0, "skip_notes": [], "trees": 0, "exports": 0, "choose_args": 0,
             "text_imports": 0}
    with multiprocessing.Pool(a.jobs) as pool:
        for r in pool.imap_unordered(one_base, jobs):
            for k in total:
                total[k] += r[k]
    for d in total["diffs"][:20]:
        print("DIFF", d)
    for n in total["skip_notes"][:10]:
        print("SKIPPED", n)
    print("compared %d cluster states (%d PG mappings printed by Ceph; %d with --tree, "
          "%d exported crush maps; %d bases with choose_args, %d text-vs-binary imports); "
          "%d differences; %d unsupported by crushkit; %d oracle crashes skipped; "
          "%d bases rejected by Ceph" % (
              total["states"], total["pgs"], total["trees"], total["exports"],
              total["choose_args"], total["text_imports"], len(total["diffs"]),
              total["unsupported"], total["skipped_oracle"], total["bad_base"]))
    if total["states"] < a.min_states:
        print("FAIL: only %d states compared, fewer than --min-states %d" % (
            total["states"], a.min_states))
        return 1
    return 1 if total["diffs"] else 0


if __name__ == "__main__":
    sys.exit(main())
