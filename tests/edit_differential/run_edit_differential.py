#!/usr/bin/env python3
"""Differential test of crushtool's editing flags: `crushkit crushtool`
(crush/edit/edit.h) vs Ceph's crushtool on random maps and random edit chains.

For each map index:
  1. a map: a gen_maps.py text map compiled by Ceph (`crushtool -c`; these
     carry device classes and choose_args in part), or, for every 4th index
     and for text maps Ceph rejects, a `crushtool --build` map (random layers,
     bucket algorithms, layer names up to 21 bytes, several roots, odd
     sizes and device counts), built by both tools and compared as step -1;
  2. an edit chain of 1..5 crushtool invocations on it, each drawn from
     --add-item (under existing buckets and under new ones), --update-item,
     --remove-item (devices, empty and non-empty buckets, unknown names),
     --reweight-item, --add-bucket (with and without --loc), --move (buckets
     and devices), --reweight, --create-simple-rule, --create-replicated-rule
     (with and without --device-class), --remove-rule, --rebuild-class-roots,
     --build on the current map,
     sometimes two of them in one invocation (stage order), with valid and
     invalid arguments;
  3. each step runs both tools on the same input (`-i cur.bin ... -o
     next.bin`) and compares exit code, stdout, stderr and the written bytes;
     the next step starts from Ceph's output (or the same input if the step
     failed in both). Names for the next step come from `crushkit crushtool
     -d` of the current map.
Where Ceph crashes (signal, abort-style status) or hangs, the step is not
compared and the chain ends: counted as oracle_crash, never as a match.

Exit: 0 with no difference and at least --min-compared maps compared;
1 otherwise; 77 (ctest SKIP) only if Ceph's crushtool is missing and
CRUSHKIT_REQUIRE_ORACLE is not set.
"""
import argparse
import os
import random
import re
import shutil
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import gen_maps  # noqa: E402
import oracle  # noqa: E402

TIMEOUT = 60
ORACLE_TIMEOUT = 15
BUILD_ALGS = ["straw2", "straw2", "straw", "list", "tree", "uniform"]


# Ceph's debug log lines (debug_crush 1/1 goes to stderr, e.g.
# "2026-12-03T13:41:44.856+0000 7f67126b6f00  1 insert_item item 0 already
# exists beneath -1"), possibly in the middle of crushtool's own line. They
# carry a time stamp and a thread id, and crushkit does not print them
# (tools/crushtool/README.md): removed before comparing.
CEPH_LOG_LINE = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+[+-]\d{4} [0-9a-f]+ +-?\d+ [^\n]*\n")


def run(cmd, cwd):
    if cmd[0] != "crushtool":
        return oracle.run(cmd, cwd, TIMEOUT)
    rc, out, err = oracle.run(cmd, cwd, ORACLE_TIMEOUT)
    return rc, oracle.normalize_argv0(out), CEPH_LOG_LINE.sub(b"", oracle.normalize_argv0(err))


def crashed(rc):
    """A hang or a signal. crushtool's own failures exit with 256 - errno,
    so a high status alone is not a crash here."""
    return rc == "timeout" or rc < 0


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def parse_map(text):
    """Names a chain can refer to, from decompiled (Pacific) text."""
    info = {"devices": {}, "types": {}, "buckets": {}, "children": {}, "rules": [],
            "classes": set()}
    info["rules"] = re.findall(r"^rule (\S+) \{", text, re.M)
    info["classes"] = set(re.findall(r"^device \d+ \S+ class (\S+)", text, re.M))
    for m in re.finditer(r"^device (\d+) (\S+)", text, re.M):
        info["devices"][m.group(2)] = int(m.group(1))
    for m in re.finditer(r"^type (\d+) (\S+)", text, re.M):
        info["types"][m.group(2)] = int(m.group(1))
    for m in re.finditer(r"^(\S+) (\S+) \{\n\tid (-\d+)\t\t#.*\n((?:\t.*\n)*?)\}", text, re.M):
        if m.group(1) == "rule":
            continue
        info["buckets"][m.group(2)] = (m.group(1), int(m.group(3)))
        info["children"][m.group(2)] = re.findall(r"^\titem (\S+) weight", m.group(4), re.M)
    return info


def random_weight(rng):
    r = rng.random()
    if r < 0.03:
        return rng.choice(["-1", "1e10", "0.00001", "nan", "70000", "abc"])
    if r < 0.15:
        return "0"
    return rng.choice(["1", "1.0", "0.5", "2", "3.25", "10", "%.5f" % rng.uniform(0.01, 5)])


def new_name(rng, info, prefix):
    while True:
        n = "%s%d" % (prefix, rng.randint(0, 999))
        if n not in info["devices"] and n not in info["buckets"]:
            return n


def random_loc(rng, info):
    """A --loc list: an existing bucket, maybe new buckets below it, maybe
    its parents, sometimes nonsense."""
    types = sorted((t for t in info["types"].items() if t[1] > 0), key=lambda t: t[1])
    r = rng.random()
    if not info["buckets"] or r < 0.05:
        loc = []
        for tname, _ in rng.sample(types, min(len(types), rng.randint(1, 2))):
            loc += ["--loc", tname, new_name(rng, info, "nb")]
        return loc
    if r < 0.09:
        return ["--loc", rng.choice(["nosuchtype", "host", "root"]),
                rng.choice(list(info["devices"]) + ["nosuch", "bad~name"])]
    bname = rng.choice(list(info["buckets"]))
    btype = info["buckets"][bname][0]
    loc = ["--loc", btype, bname]
    if rng.random() < 0.35:
        lower = [t for t in types if t[1] < info["types"].get(btype, 0)]
        if lower:
            loc += ["--loc", rng.choice(lower)[0], new_name(rng, info, "nh")]
    if rng.random() < 0.3:
        other = rng.choice(list(info["buckets"]))
        loc += ["--loc", info["buckets"][other][0], other]
    return loc


def random_edit(rng, info):
    devices, buckets = list(info["devices"]), list(info["buckets"])
    names = devices + buckets
    kind = rng.choice(["add", "add", "update", "remove", "reweight-item", "add-bucket", "move",
                       "move", "reweight", "simple-rule", "replicated-rule", "remove-rule",
                       "rebuild-class-roots", "build"])
    if kind == "build":
        # --build on an -i map: Ceph keeps the input's names, types, rule
        # names and classes
        return random_build(rng)
    if kind in ("simple-rule", "replicated-rule"):
        return random_rule(rng, info, kind)
    if kind == "remove-rule":
        return ["--remove-rule", rng.choice(info["rules"] * 4 + ["nosuchrule"])]
    if kind == "rebuild-class-roots":
        return ["--rebuild-class-roots"]
    if kind == "add":
        ids = list(info["devices"].values())
        top = max(ids) + 1 if ids else 0
        dev = rng.choice([top, top + rng.randint(1, 5)] + (ids[:1] if ids else []))
        name = rng.choice(["osd.%d" % dev, "dev%d" % dev] + (devices[:1] if devices else []))
        return ["--add-item", str(dev), random_weight(rng), name] + random_loc(rng, info)
    if kind == "update" and devices:
        name = rng.choice(devices)
        return (["--update-item", str(info["devices"][name]), random_weight(rng), name] +
                random_loc(rng, info))
    if kind == "remove":
        empty = [b for b in buckets if not info["children"].get(b)]
        pool = devices + empty * 3 + buckets[:2] + ["nosuchitem"]
        return ["--remove-item", rng.choice(pool)]
    if kind == "reweight-item" and names:
        return ["--reweight-item", rng.choice(names + ["nosuchitem"]), random_weight(rng)]
    if kind == "add-bucket":
        types = [t for t in info["types"] if info["types"][t] > 0] or ["host"]
        name = rng.choice([new_name(rng, info, "b")] * 6 + names[:1] + ["bad~name"])
        flags = ["--add-bucket", name, rng.choice(types * 6 + ["nosuchtype", "osd", "device"])]
        return flags + (random_loc(rng, info) if rng.random() < 0.6 else [])
    if kind == "move" and names:
        return ["--move", rng.choice(buckets * 2 + devices + ["nosuchitem"])] + (
            random_loc(rng, info) if rng.random() < 0.95 else [])
    return ["--reweight"]


def random_rule(rng, info, kind):
    """--create-simple-rule NAME ROOT TYPE MODE or --create-replicated-rule
    NAME ROOT TYPE [--device-class C], mostly valid."""
    name = rng.choice(["r%d" % rng.randint(0, 99)] * 8 + info["rules"][:1])
    roots = list(info["buckets"]) * 6 + list(info["devices"])[:2] + ["nosuchroot"]
    types = [t for t in info["types"] if info["types"][t] > 0] * 6 + ["osd", "nosuchtype"]
    flags = ["--create-simple-rule" if kind == "simple-rule" else "--create-replicated-rule",
             name, rng.choice(roots), rng.choice(types)]
    if kind == "simple-rule":
        flags.append(rng.choice(["firstn", "indep"] * 6 + ["spread"]))
    elif rng.random() < 0.5:
        flags += ["--device-class", rng.choice(sorted(info["classes"]) * 4 + ["nosuchclass"])]
    return flags


def random_build(rng):
    n = rng.choice([rng.randint(1, 40)] * 20 + [0, -3])
    names = ["host", "rack", "row"]
    if rng.random() < 0.1:
        # Ceph prints names through 19/20-byte buffers: 17 bytes leave a
        # lone '%', 18+ lose the number, 20+ lose the root (rule fails).
        names[0] = "h" * rng.choice([16, 17, 18, 19, 21])
    layers = []
    for lname in names[:rng.randint(1, 3)]:
        layers += [lname, rng.choice(BUILD_ALGS), str(rng.choice([0, 1, 2, 3, 4, 8]))]
    if rng.random() < 0.85:
        layers += ["root", rng.choice(BUILD_ALGS), "0"]  # else maybe several roots
    if rng.random() < 0.03:
        layers += ["bad", "nosuchalg", "1"]
    return ["--build", "--num_osds", str(n)] + layers


def mask_tree_inner_nodes(data):
    """`data` with the inner node weights of tree buckets, and the leaf slots
    past the last item, zeroed (the leaves of the items are kept). Ceph leaves the nodes a tree grows into
    uninitialised (builder.c crush_add_tree_bucket_item); some of that
    garbage is stable from run to run (recycled heap), so once a step is
    seen to be nondeterministic, all inner nodes are left out."""
    out = bytearray(data)
    u32 = lambda o: struct.unpack_from("<I", data, o)[0]  # noqa: E731
    try:
        nbuckets = u32(4)
        off = 16
        for _ in range(nbuckets):
            alg = u32(off)
            off += 4
            if alg == 0:
                continue
            size = u32(off + 12)
            off += 16 + 4 * size
            if alg == 1:
                off += 4
            elif alg in (2, 4):
                off += 8 * size
            elif alg == 5:
                off += 4 * size
            elif alg == 3:
                num_nodes = data[off]
                off += 1
                for node in range(num_nodes):
                    if node % 2 == 0 or node >= 2 * size:
                        out[off + 4 * node:off + 4 * node + 4] = b"\0\0\0\0"
                off += 4 * num_nodes
            else:
                return bytes(data)
    except (struct.error, IndexError):
        return bytes(data)
    return bytes(out)


def bucket_ids(data):
    """{bucket id: alg} of an encoded map, or None if it does not parse."""
    ids = {}
    u32 = lambda o: struct.unpack_from("<I", data, o)[0]  # noqa: E731
    try:
        off = 16
        for _ in range(u32(4)):
            alg = u32(off)
            off += 4
            if alg == 0:
                continue
            ids[struct.unpack_from("<i", data, off)[0]] = alg
            size = u32(off + 12)
            off += 16 + 4 * size
            off += {1: 4, 2: 8 * size, 4: 8 * size, 5: 4 * size}.get(alg, 0)
            if alg == 3:
                off += 1 + 4 * data[off]
    except (struct.error, IndexError):
        return None
    return ids


def tree_garbage_failure(cur, theirs, ours, tbin, obin):
    """Ceph's tree buckets grow into uninitialised nodes, and the overflow
    checks of crush_add_tree_bucket_item() run on them: a shadow-tree clone
    of a tree bucket (or an insert) can then fail with -ERANGE at random
    (crushtool exits 222; --remove-rule reports its rebuild's failure as
    "fail to remove rule" and exits 1 -- valgrind shows the jump on
    uninitialised memory, seed 2 map 845; remove_item, which ignores the
    rebuild's result, writes a map with the shadow trees made so far;
    --reclassify prints "reclassify err from insert_item: (34)")."""
    cur_ids = bucket_ids(cur) or {}
    if 3 not in cur_ids.values():
        return False
    if theirs[0] == 256 - 34:
        return True
    if theirs[0] == 1 and theirs[2].startswith(b"fail to remove rule") and ours[0] == 0:
        return True
    # --reclassify's insert_item into a garbage tree bucket (valgrind: seed 2
    # maps 444, 604, 1734 of the reclassify differential).
    if theirs[0] == 1 and b"err from insert_item: (34)" in theirs[1]:
        return True
    tids, oids = bucket_ids(tbin or b""), bucket_ids(obin or b"")
    return tids is not None and oids is not None and set(tids) < set(oids)


def unstable_bytes(wd, flags, tbin):
    """Byte positions (+-3) where Ceph's output changes from run to run: it
    writes uninitialised memory (tree buckets' new inner nodes, builder.c
    crush_add_tree_bucket_item) and maps using those nodes are undefined."""
    unstable = set()
    for _ in range(2):
        run(["crushtool", "-i", "cur.bin"] + flags + ["-o", "again.bin"], wd)
        again = read(os.path.join(wd, "again.bin")) or b""
        if len(again) != len(tbin):
            return None
        for i in range(len(again)):
            if again[i] != tbin[i]:
                unstable.update(range(i - 3, i + 4))
    return unstable


def compare_step(res, index, step, flags, theirs, ours, tbin, obin, wd):
    res["steps"] += 1
    if crashed(theirs[0]):
        res["oracle_crash"] += 1
        if os.environ.get("CRUSHKIT_DEBUG_CRASHES"):
            sys.stderr.write("oracle crash rc=%s map %d step %d: %s\n%s\n" % (
                theirs[0], index, step, " ".join(flags), theirs[2][-300:].decode("latin1")))
        return False
    if crashed(ours[0]):
        res["ours_crash"] += 1
        res["failures"].append("map %d step %d: crushkit crashed (rc=%s) on %s" %
                               (index, step, ours[0], " ".join(flags)))
        return False
    if ours != theirs and b"undefined in Ceph" in ours[2]:
        # crushkit found Ceph reading or writing out of bounds, or asserting
        # where this build did not abort: Ceph's answer is undefined.
        res["ceph_undefined"] += 1
        return False
    if (ours != theirs or obin != tbin) and tree_garbage_failure(
            read(os.path.join(wd, "cur.bin")) or b"", theirs, ours, tbin, obin):
        res["ceph_uninitialised"] += 1
        return False
    if ours == theirs and obin != tbin and tbin is not None and obin is not None:
        if mask_tree_inner_nodes(obin) == mask_tree_inner_nodes(tbin):
            # Only uninitialised tree nodes differ: nondeterministic if Ceph's
            # bytes move between runs, else recycled (stable) heap garbage.
            unstable = unstable_bytes(wd, flags, tbin)
            res["ceph_nondeterministic" if unstable else "ceph_uninitialised"] += 1
            return False
    if ours != theirs or obin != tbin:
        what = [n for n, i in (("rc", 0), ("stdout", 1), ("stderr", 2)) if ours[i] != theirs[i]]
        if obin != tbin:
            what.append("bytes")
        res["diffs"] += 1
        res["failures"].append("map %d step %d: %s differ on: %s" %
                               (index, step, "/".join(what), " ".join(flags)))
        return False
    return True


def check_map(task):
    seed, index, crushkit, keep, release = task
    oracle.use_release(release)
    rng = random.Random(seed * 104729 + index)
    res = {"maps": 0, "text_maps": 0, "build_maps": 0, "rejected": 0, "steps": 0, "matches": 0,
           "diffs": 0, "oracle_crash": 0, "ours_crash": 0, "ceph_undefined": 0,
           "ceph_nondeterministic": 0, "ceph_uninitialised": 0, "failures": []}
    wd = tempfile.mkdtemp(prefix="crushedit.")
    try:
        made = False
        if index % 4 != 3:
            with open(os.path.join(wd, "map.txt"), "w") as f:
                f.write(gen_maps.generate(seed, index, oddities=True))
            rc, _, _ = run(["crushtool", "-c", "map.txt", "-o", "cur.bin"], wd)
            made = rc == 0
            res["text_maps" if made else "rejected"] += 1
        if not made:
            flags = random_build(rng)
            theirs = run(["crushtool"] + flags + ["-o", "theirs.bin"], wd)
            ours = run(crushkit + flags + ["-o", "ours.bin"], wd)
            tbin, obin = read(os.path.join(wd, "theirs.bin")), read(os.path.join(wd, "ours.bin"))
            if not compare_step(res, index, -1, flags, theirs, ours, tbin, obin, wd):
                return res
            res["matches"] += 1
            if theirs[0] != 0:
                res["rejected"] += 1
                return res
            shutil.copy(os.path.join(wd, "theirs.bin"), os.path.join(wd, "cur.bin"))
            res["build_maps"] += 1
        res["maps"] += 1
        for step in range(rng.randint(1, 5)):
            rc, text, _ = run(crushkit + ["-d", "cur.bin"], wd)
            info = parse_map(text.decode("latin1"))
            flags = random_edit(rng, info)
            if rng.random() < 0.15:
                more = random_edit(rng, info)
                if more[0] != flags[0] and "--loc" not in more and "--loc" not in flags:
                    flags += more
            for name in ("theirs.bin", "ours.bin"):
                if os.path.exists(os.path.join(wd, name)):
                    os.remove(os.path.join(wd, name))
            theirs = run(["crushtool", "-i", "cur.bin"] + flags + ["-o", "theirs.bin"], wd)
            ours = run(crushkit + ["-i", "cur.bin"] + flags + ["-o", "ours.bin"], wd)
            tbin, obin = read(os.path.join(wd, "theirs.bin")), read(os.path.join(wd, "ours.bin"))
            ok = compare_step(res, index, step, flags, theirs, ours, tbin, obin, wd)
            if not ok:
                if keep and res["failures"]:
                    d = os.path.join(keep, "map-%d-step-%d" % (index, step))
                    os.makedirs(d, exist_ok=True)
                    for name in ("cur.bin", "theirs.bin", "ours.bin", "map.txt"):
                        if os.path.exists(os.path.join(wd, name)):
                            shutil.copy(os.path.join(wd, name), d)
                    with open(os.path.join(d, "cmd"), "w") as f:
                        f.write(" ".join(flags) + "\n")
                        f.write("theirs rc=%s\n%s\n%s\n" % (theirs[0], theirs[1], theirs[2]))
                        f.write("ours rc=%s\n%s\n%s\n" % (ours[0], ours[1], ours[2]))
                break
            res["matches"] += 1
            if tbin is not None:
                shutil.copy(os.path.join(wd, "theirs.bin"), os.path.join(wd, "cur.bin"))
        return res
    finally:
        shutil.rmtree(wd, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="crushkit crushtool edits vs Ceph crushtool")
    ap.add_argument("--maps", type=int, default=100)
    ap.add_argument("--first-map", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--min-compared", type=int, default=0,
                    help="fail unless at least this many maps were compared")
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--release", choices=oracle.RELEASES, default="pacific",
                    help="Ceph release to compare with (its crushtool; crushkit runs as it)")
    ap.add_argument("--crushtool", default="", help="the oracle (default: that release's crushtool)")
    ap.add_argument("--keep-failures", default="")
    a = ap.parse_args()
    if oracle.put_on_path("crushtool", a.release, a.crushtool) is None:
        return oracle.skip_or_fail("crushtool (the oracle) of %s not found: %s" %
                                   (a.release, a.crushtool or oracle.tool("crushtool", a.release)))
    crushkit = [os.path.abspath(a.crushkit), "crushtool"]
    tasks = [(a.seed, i, crushkit, a.keep_failures, a.release)
             for i in range(a.first_map, a.first_map + a.maps)]
    total, failures = oracle.map_tasks(check_map, tasks, a.jobs, progress_every=250)
    for f in sorted(failures):
        print("FAIL", f)
    print("maps_compared=%d (text=%d build=%d) rejected_text_maps=%d steps=%d matches=%d diffs=%d "
          "oracle_crashes=%d crushkit_crashes=%d ceph_undefined=%d ceph_nondeterministic=%d "
          "ceph_uninitialised=%d" %
          (total.get("maps", 0), total.get("text_maps", 0), total.get("build_maps", 0),
           total.get("rejected", 0), total.get("steps", 0), total.get("matches", 0),
           total.get("diffs", 0), total.get("oracle_crash", 0), total.get("ours_crash", 0),
           total.get("ceph_undefined", 0), total.get("ceph_nondeterministic", 0),
           total.get("ceph_uninitialised", 0)))
    if total.get("maps", 0) < a.min_compared:
        print("FAIL: only %d maps compared, need %d" % (total.get("maps", 0), a.min_compared))
        return 1
    return 1 if total.get("diffs", 0) + total.get("ours_crash", 0) else 0


if __name__ == "__main__":
    sys.exit(main())
