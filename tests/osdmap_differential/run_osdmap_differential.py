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
     (`--upmap F --save`), which stores pg_upmap_items; then, more often
     when there are upmaps, a CRUSH change under them: the exported map
     edited by crushtool (--reweight-item, --update-item to another bucket,
     --move of a bucket, --remove-item, a bucket moved under a new root)
     and put back with `osdmaptool --import-crush`;
  4. `osdmaptool --dump json --export-crush` -> `crushkit import` (.pb or
     .json state);
  5. `crushkit map-pgs` against the oracle's --test-map-pgs-dump-all;
  6. --variations runs with random osdmaptool flags on top (marks, CRUSH
     weight edits, --pool, --pg_num, --test-map-pgs[-dump[-all]],
     --test-map-pg, --test-map-object, --upmap-cleanup - or FILE, --save):
     Ceph on the binary map and crushkit on a copy of the state must print
     the same stdout and exit with the same code, write the same
     --upmap-cleanup file, and, when --save wrote the maps, hold the same
     pg_upmap / pg_upmap_items and map every PG the same way.
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
    rc, out, err = oracle.run(cmd, cwd, TIMEOUT)
    return rc, oracle.normalize_argv0(out), oracle.normalize_argv0(err)


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


def random_flags(rng, max_osd, pg_num, has_upmaps, upmap_stress=False):
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
    if rng.random() < (0.85 if upmap_stress else 0.6 if has_upmaps else 0.15):
        # Runs after the marks and CRUSH weight edits, before the tests, which
        # then map with the cleaned upmaps.
        flags += ["--upmap-cleanup", "-" if rng.random() < 0.75 else "cleanup.txt"]
        if rng.random() < 0.35:
            # Only a modifying action (a weight edit with --save) writes the
            # map; the cleanup itself never marks it modified.
            flags.append("--save")
            if "--adjust-crush-weight" not in flags and rng.random() < 0.7:
                flags += ["--adjust-crush-weight", "%d:%s" % (
                    rng.randrange(max_osd), rng.choice(["0", "0.5", "1", "2"]))]
    r = rng.random()
    if r < 0.15:
        # Printed last whatever its position; "--tree X" takes X as the format.
        flags = ["--tree", rng.choice(["json", "plain", "json", "plain", "json-pretty", "xml",
                                       "xml-pretty", "html-pretty", "table", "table-kv"])] + flags
    elif r < 0.3:
        # Trailing --tree: Ceph keeps the previous string option's value as the
        # format (json unless none was given).
        flags.append("--tree")
    elif r < 0.4:
        flags.append(rng.choice(["--tree=plain", "--tree=json", "--tree=xml", "--tree=table-kv"]))
    return flags


BUCKET_RE = re.compile(r"^(\S+) (\S+) \{\n(.*?)^\}", re.M | re.S)


def parse_crush_text(text):
    """Buckets of a decompiled map: name -> (type, id, [item names]); types; devices."""
    types = {m.group(2): int(m.group(1)) for m in re.finditer(r"^type (\d+) (\S+)$", text, re.M)}
    devices = {m.group(2): int(m.group(1))
               for m in re.finditer(r"^device (\d+) (\S+)", text, re.M)}
    buckets = {}
    for m in BUCKET_RE.finditer(text):
        if m.group(1) not in types or m.group(1) == "rule":
            continue
        body = m.group(3)
        bid = re.search(r"^\s*id (-\d+)", body, re.M)
        items = [(i.group(1), i.group(2))
                 for i in re.finditer(r"^\s*item (\S+) weight (\S+)", body, re.M)]
        alg = re.search(r"^\s*alg (\S+)", body, re.M)
        if bid:
            buckets[m.group(2)] = (m.group(1), int(bid.group(1)), items,
                                   alg.group(1) if alg else "")
    return types, devices, buckets


def subtree(buckets, name):
    seen, stack = set(), [name]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in buckets:
            stack += [i for i, _ in buckets[n][2]]
    return seen


def crush_edit_ops(rng, types, devices, buckets):
    """One or two crushtool edit argument lists changing the map under the upmaps.

    Nothing is added to a tree bucket: Ceph's builder.c leaves the nodes a
    tree grows uninitialised, so the edited map (and where Ceph maps, even
    past the bucket's items) would depend on heap garbage.
    """
    parent = {}
    for b, (_, _, items, _) in buckets.items():
        for i, w in items:
            parent.setdefault(i, (b, w))
    placed = [o for o in devices if o in parent]
    leaf_buckets = [b for b, v in buckets.items()
                    if any(i in devices for i, _ in v[2]) and v[3] != "tree"]
    inner = [b for b in buckets if b in parent]
    roots = [b for b in buckets if b not in parent]
    kind = rng.choice(["reweight", "reweight", "move-osd", "move-osd", "move-bucket",
                       "remove-osd", "new-root"])
    if kind == "reweight" and placed:
        return kind, [["--reweight-item", rng.choice(placed), rng.choice(["0", "0.5", "2", "3"])]]
    if kind == "move-osd" and placed and leaf_buckets:
        osd = rng.choice(placed)
        dests = [b for b in leaf_buckets if b != parent[osd][0]]
        if dests:
            dest = rng.choice(dests)
            return kind, [["--update-item", str(devices[osd]), parent[osd][1], osd,
                           "--loc", buckets[dest][0], dest]]
    if kind == "move-bucket" and inner:
        b = rng.choice(inner)
        btype = types[buckets[b][0]]
        dests = [x for x in buckets if types[buckets[x][0]] > btype and x != parent[b][0]
                 and x not in subtree(buckets, b) and buckets[x][3] != "tree"]
        if dests:
            dest = rng.choice(dests)
            return kind, [["--move", b, "--loc", buckets[dest][0], dest]]
    if kind == "remove-osd" and placed:
        return kind, [["--remove-item", rng.choice(placed)]]
    if kind == "new-root" and inner and roots:
        rtype = buckets[roots[0]][0]
        return kind, [["--add-bucket", "newroot", rtype],
                      ["--move", rng.choice(inner), "--loc", rtype, "newroot"]]
    if placed:
        return "reweight", [["--reweight-item", rng.choice(placed), "0"]]
    return None, []


def edit_crush(rng, d):
    """Applies a random crushtool edit to om's crush map; returns its kind or None."""
    rc, _, _ = run(["osdmaptool", "om", "--export-crush", "pre_edit.bin"], d)
    if rc != 0:
        return None
    rc, text, _ = run(["crushtool", "-d", "pre_edit.bin"], d)
    if rc != 0:
        return None
    kind, ops = crush_edit_ops(rng, *parse_crush_text(text.decode()))
    src = "pre_edit.bin"
    for i, op in enumerate(ops):
        dst = "edit%d.bin" % i
        rc, _, _ = run(["crushtool", "-i", src, "-o", dst] + op, d)
        if rc != 0:
            return None
        src = dst
    if not ops:
        return None
    rc, _, _ = run(["osdmaptool", "om", "--import-crush", src], d)
    return kind if rc == 0 else None


def saved_upmaps_ceph(d, fn):
    rc, out, _ = run(["osdmaptool", fn, "--dump", "json"], d)
    if rc != 0:
        return None
    text = out.decode()
    j = json.loads(text[text.index("{"):])
    return ({e["pgid"]: e["osds"] for e in j.get("pg_upmap", [])},
            {e["pgid"]: [[m["from"], m["to"]] for m in e["mappings"]]
             for e in j.get("pg_upmap_items", [])})


def saved_upmaps_crushkit(path):
    with open(path) as f:
        j = json.load(f)
    return ({e["pgid"]: e.get("osds", []) for e in j.get("pg_upmap", [])},
            {e["pgid"]: [[m.get("from", 0), m.get("to", 0)] for m in e.get("items", [])]
             for e in j.get("pg_upmap_items", [])})


def build_osdmap(rng, d, devices, upmap_stress, keep=lambda name: None):
    """`osdmaptool --createsimple` of a random size (at most 1024 PGs) over
    d/crush.bin as d/om, then usually persisted marks, a CRUSH weight edit
    and Ceph's own `--upmap --save`. keep(name) is called after each map
    Ceph wrote. Returns (max_osd, pg_bits, has_upmaps), or None if Ceph
    refused a step."""
    max_osd = devices + rng.randint(0, 3)
    bits = rng.randint(0, 6)
    while (max_osd << bits) > 1024 and bits > 0:
        bits -= 1
    pgp_bits = bits if rng.random() < 0.5 else rng.randint(0, bits)
    rc, _, _ = run(["osdmaptool", "--createsimple", str(max_osd), "--with-default-pool",
                    "--pg-bits", str(bits), "--pgp-bits", str(pgp_bits), "--clobber",
                    "--import-crush", "crush.bin", "om"], d)
    if rc != 0:
        return None
    keep("om")
    if upmap_stress or rng.random() < 0.7:
        persist = ["--mark-up-in"]
        if rng.random() < 0.5:
            persist += ["--mark-out", str(rng.randrange(max_osd))]
        if rng.random() < 0.3:
            persist += ["--mark-up", str(rng.randrange(max_osd))]
        persist += ["--adjust-crush-weight", "%d:%s" % (
            rng.randrange(max_osd), rng.choice(["0.5", "1", "2"])), "--save"]
        if upmap_stress or rng.random() < 0.8:
            persist += ["--upmap", "upmap.txt", "--upmap-max", str(rng.randint(1, 30)),
                        "--upmap-deviation", "1", "--osd_calc_pg_upmaps_aggressively=false"]
        rc, _, _ = run(["osdmaptool", "om"] + persist, d)
        if crashed(rc) or rc != 0:
            return None
        keep("om")
    up = os.path.join(d, "upmap.txt")
    return max_osd, bits, os.path.exists(up) and os.path.getsize(up) > 0


def ceph_undefined(crushkit_stderr):
    """crushkit warned that some mapping of the run took a tree bucket
    descent past its last item, where Ceph reads out of bounds (node weights
    its builder left uninitialised): Ceph's answer is undefined there."""
    return b"reads out of bounds" in crushkit_stderr


def one_base(job):
    seed, index, variations, crushkit, only_choose_args, upmap_stress = job
    rng = random.Random(seed * 1000003 + index)
    d = tempfile.mkdtemp(prefix="osdmapdiff-")
    res = {"states": 0, "pgs": 0, "diffs": [], "skipped_oracle": 0, "unsupported": 0,
           "bad_base": 0, "skip_notes": [], "trees": 0, "exports": 0, "choose_args": 0,
           "text_imports": 0, "upmap_bases": 0, "crush_edits": 0, "cleanups": 0,
           "cleanup_commands": 0, "cleanup_trims": 0, "saved": 0, "ceph_undefined": 0}
    try:
        built = build_crush(rng, d, only_choose_args)
        if built is None:
            res["bad_base"] = 1
            return res
        devices, has_choose_args, is_text = built
        res["choose_args"] += 1 if has_choose_args else 0
        built = build_osdmap(rng, d, devices, upmap_stress)
        if built is None:
            res["bad_base"] = 1
            return res
        max_osd, _, has_upmaps = built
        res["upmap_bases"] += 1 if has_upmaps else 0
        if rng.random() < (0.9 if upmap_stress else 0.7 if has_upmaps else 0.25):
            res["crush_edits"] += 1 if edit_crush(rng, d) else 0
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
                    if ceph_undefined(o1[2]) or ceph_undefined(o2[2]):
                        res["ceph_undefined"] += 1
                    elif o1[:2] != o2[:2] or "alg tree" not in open(
                            os.path.join(d, "crush.txt")).read():
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
            if ceph_undefined(kerr):
                res["ceph_undefined"] += 1
            elif krc != 0 or got != want:
                res["diffs"].append("base %d (seed %d): map-pgs differs (rc %s, %d vs %d lines)"
                                    % (index, seed, krc, len(got), len(want)))
        for v in range(variations):
            flags = random_flags(rng, max_osd, pg_num, has_upmaps, upmap_stress)
            shutil.copyfile(os.path.join(d, "om"), os.path.join(d, "om.scratch"))
            # crushkit works on a copy (--save may write it); JSON whatever
            # the state's format, so the saved upmaps can be read back.
            shutil.copyfile(os.path.join(d, state), os.path.join(d, "k.json"))
            for f in ("out.crush", "out.crush.ceph", "cleanup.txt", "cleanup.txt.ceph"):
                if os.path.exists(os.path.join(d, f)):
                    os.remove(os.path.join(d, f))
            orc, oout, _ = run(["osdmaptool", "om.scratch"] + flags, d)
            for f in ("out.crush", "cleanup.txt"):
                if os.path.exists(os.path.join(d, f)):
                    os.rename(os.path.join(d, f), os.path.join(d, f + ".ceph"))
            if crashed(orc):
                res["skipped_oracle"] += 1
                res["skip_notes"].append("base %d: ceph rc %s on %s" % (index, orc, " ".join(flags)))
                continue
            krc, kout, kerr = run([crushkit, "osdmaptool", "k.json"] + flags, d)
            oout = oout.replace(b" to om.scratch\n", b" to MAP\n")
            kout = kout.replace(b" to k.json\n", b" to MAP\n")
            if krc != 0 and b"not supported" in kerr:
                res["unsupported"] += 1
                res["skip_notes"].append("base %d: crushkit: %s" % (index, kerr.decode().strip()))
                continue
            if ceph_undefined(kerr) and krc in (0, 1):
                # Some mapping went where Ceph reads out of bounds: no answer
                # to compare with (crushkit exited normally and said so).
                res["ceph_undefined"] += 1
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
            if "--upmap-cleanup" in flags:
                res["cleanups"] += 1
                res["cleanup_commands"] += len(re.findall(rb"^ceph osd ", oout, re.M))
                res["cleanup_trims"] += len(re.findall(rb"^ceph osd pg-upmap-items ", oout, re.M))
                if "cleanup.txt" in flags and orc == 0:
                    a = os.path.join(d, "cleanup.txt.ceph")
                    b = os.path.join(d, "cleanup.txt")
                    ca = open(a, "rb").read() if os.path.exists(a) else None
                    res["cleanup_commands"] += len(re.findall(rb"^ceph osd ", ca or b"", re.M))
                    res["cleanup_trims"] += len(re.findall(rb"^ceph osd pg-upmap-items ",
                                                           ca or b"", re.M))
                    if ca is None or not os.path.exists(b) or ca != open(b, "rb").read():
                        res["diffs"].append("base %d (seed %d) flags %s: upmap cleanup files "
                                            "differ" % (index, seed, " ".join(flags)))
            if orc == 0 and krc == 0 and b"writing epoch" in oout:
                res["saved"] += 1
                want = saved_upmaps_ceph(d, "om.scratch")
                got = saved_upmaps_crushkit(os.path.join(d, "k.json"))
                o2 = run(["osdmaptool", "om.scratch", "--test-map-pgs-dump-all"], d)
                k2 = run([crushkit, "osdmaptool", "k.json", "--test-map-pgs-dump-all"], d)
                if ceph_undefined(k2[2]):
                    res["ceph_undefined"] += 1
                elif want != got or o2[:2] != k2[:2]:
                    res["diffs"].append("base %d (seed %d) flags %s: saved maps differ (%s)" % (
                        index, seed, " ".join(flags),
                        "upmaps" if want != got else "mappings"))
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
    ap.add_argument("--upmap-stress", action="store_true",
                    help="every base runs the upmap balancer, 90%% get a crushtool edit, "
                         "85%% of the variations run --upmap-cleanup")
    ap.add_argument("--min-states", type=int, default=0,
                    help="fail unless at least this many states were compared")
    ap.add_argument("--release", choices=oracle.RELEASES, default="pacific",
                    help="Ceph release whose osdmaptool and crushtool are the oracle "
                         "(crushkit runs as it)")
    a = ap.parse_args()
    oracle.use_release(a.release)
    if (oracle.put_on_path("osdmaptool", a.release) is None or
            oracle.put_on_path("crushtool", a.release) is None):
        return oracle.skip_or_fail("osdmaptool/crushtool of %s not installed" % a.release)
    crushkit = os.path.abspath(a.crushkit)
    jobs = [(a.seed, i, a.variations, crushkit, a.only_choose_args, a.upmap_stress)
            for i in range(a.bases)]
    total = {"states": 0, "pgs": 0, "diffs": [], "skipped_oracle": 0, "unsupported": 0,
             "bad_base": 0, "skip_notes": [], "trees": 0, "exports": 0, "choose_args": 0,
             "text_imports": 0, "upmap_bases": 0, "crush_edits": 0, "cleanups": 0,
             "cleanup_commands": 0, "cleanup_trims": 0, "saved": 0, "ceph_undefined": 0}
    with multiprocessing.Pool(a.jobs) as pool:
        for r in pool.imap_unordered(one_base, jobs):
            for k in total:
                total[k] += r[k]
    for d in total["diffs"][:20]:
        print("DIFF", d)
    for n in total["skip_notes"][:10]:
        print("SKIPPED", n)
    print("compared %d cluster states (%d PG mappings printed by Ceph; %d with --tree, "
          "%d exported crush maps; %d bases with choose_args, %d text-vs-binary imports; "
          "%d bases with upmaps, %d crushtool edits imported; %d --upmap-cleanup runs "
          "printing %d commands (%d of them pair trims), %d saved maps compared); "
          "%d differences; %d unsupported by crushkit; %d oracle crashes skipped; "
          "%d bases rejected by Ceph; %d runs where Ceph's answer is undefined "
          "(crushkit warned: a mapping read out of bounds in Ceph)" % (
              total["states"], total["pgs"], total["trees"], total["exports"],
              total["choose_args"], total["text_imports"], total["upmap_bases"],
              total["crush_edits"], total["cleanups"], total["cleanup_commands"],
              total["cleanup_trims"], total["saved"], len(total["diffs"]),
              total["unsupported"], total["skipped_oracle"], total["bad_base"],
              total["ceph_undefined"]))
    if total["states"] < a.min_states:
        print("FAIL: only %d states compared, fewer than --min-states %d" % (
            total["states"], a.min_states))
        return 1
    return 1 if total["diffs"] else 0


if __name__ == "__main__":
    sys.exit(main())
