#!/usr/bin/env python3
"""Differential test: `crushkit diff` / `crushkit plan` vs truth from Ceph's osdmaptool.

Each case (deterministic in --seed and its index) is a pair of cluster states:
  1. BEFORE: a crush map from `crushtool --build` (random layout and bucket
     algorithms, sometimes plus an erasure rule `chooseleaf indep`) or a
     random text map from ../differential/gen_maps.py; `osdmaptool
     --createsimple N --with-default-pool --pg-bits/--pgp-bits
     --import-crush`; `--mark-up-in [--mark-out K] --adjust-crush-weight
     --save`; then edits of the binary map that osdmaptool cannot make
     (osdmap_bin.py: a second pool, replicated or erasure-coded on the
     erasure rule, size/min_size, pg_num/pgp_num that are not powers of two,
     OSDs down or reweighted); sometimes the upmap balancer (`--upmap F
     --save`, pg_upmap_items). A random `ceph pg dump -f json` with uneven
     num_objects / num_bytes / num_omap_bytes for every PG.
  2. AFTER: BEFORE changed by one or two of: osd out / in / reweight / down
     (binary edit of osd_weight / osd_state, as the monitor writes them),
     `osdmaptool --adjust-crush-weight ID:W --save`, a `crushtool -i
     --reweight-item | --add-item | --remove-item | --move` edit imported with
     `osdmaptool --import-crush`, pg_num / pgp_num / size / min_size edits,
     another upmap balancer run, pg_temp entries only, or nothing.
  3. Truth: `osdmaptool X --test-map-pgs-dump-all` of both binary maps (up
     sets), and the counters computed here from the definitions in
     osdmap/proto/movement.proto.
  4. crushkit: `crushkit import` of each map's `--dump json` (+ random pg_temp
     entries, which change acting sets only, and the EC profile of an erasure
     pool) + `--export-crush` + `--pg-stats`, then `crushkit diff A.pb B.pb
     --json` against AFTER with osdmaptool's --upmap-cleanup (the monitor
     cleans upmaps on every epoch; with `--keep-upmaps` against AFTER as it
     is when the cleanup changes something); for crush map edits also
     `crushkit diff A.pb --crush-after NEW [--keep-upmaps] --json` (osdmaptool
     --import-crush keeps upmaps); for osd out/in/reweight/down and CRUSH
     reweights, when the subcommand exists, `crushkit plan A.pb OPS --json`
     against AFTER with osdmaptool's --upmap-cleanup. Every
     per-pool counter, the totals, the per-OSD in/out counts and bytes and
     the host/rack matrices are compared.

Erasure-coded pools: osdmaptool cannot create them, so the binary map is
edited (pool type 3, size k+m, the erasure rule); Ceph's osdmaptool then maps
the pool positionally (holes for down OSDs), and is the truth for it too.

Exit status: 0 if no differences, 1 otherwise (or fewer than --min-cases
cases compared), 77 (ctest SKIP) if Ceph's tools are missing and
CRUSHKIT_REQUIRE_ORACLE is not set.
"""
import argparse
import json
import multiprocessing
import os
import random
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
sys.path.insert(0, os.path.join(HERE, "..", "osdmap_differential"))
import oracle  # noqa: E402
from oracle import crashed  # noqa: E402
import run_osdmap_differential as rod  # noqa: E402
import osdmap_bin as ob  # noqa: E402

TIMEOUT = 15
POOL_FIELDS = ["pgs", "pgs_remapped", "shards_moved", "objects_to_move", "bytes_to_move",
               "pgs_degraded_after", "pgs_inactive_after", "pgs_degraded_before",
               "pgs_inactive_before", "shards_total", "objects_total",
               "bytes_total", "size_before", "size_after", "pg_num_before", "pg_num_after"]
OSD_FIELDS = ["pgs_in", "pgs_out", "bytes_in", "bytes_out"]
OSD_COUNT_FIELDS = ["pgs_before", "pgs_after"]
NONE = 2147483647


class CaseError(Exception):
    """The oracle rejected or crashed on this case: skip it."""


class Nondeterministic(CaseError):
    """Ceph wrote a different crush map when run twice on the same input.

    Ceph leaves some node weights of class shadow tree buckets uninitialised
    (tests/differential/README.md), and its mapper then reads past a tree
    bucket's last item; crushkit documents its own answer there
    (crush/mapper.h). Such maps have no single truth: they are skipped.
    """


def run(cmd, d):
    return oracle.run(cmd, d, TIMEOUT)


def ceph(cmd, d, what):
    rc, out, err = run(cmd, d)
    if rc != 0:
        raise CaseError("%s: rc %s: %s" % (what, rc, err.decode(errors="replace")[-200:]))
    return out


# ---------------------------------------------------------------- generation

def risky(d, crush_file):
    """True if Ceph may write uninitialised shadow tree node weights for this map."""
    text = crush_text(d, crush_file)
    return "alg tree" in text and re.search(r"^device \d+ \S+ class ", text, re.M) is not None


def tree_out_of_bounds(d, crush_file, dump, crushkit):
    """True if a pool's rule on this map descends past a tree bucket's last
    item for some of 8,192 inputs: Ceph's mapper reads out of bounds there
    (inconsistent tree node weights, e.g. after crushtool --add-item on a tree
    bucket), so its answer is not defined; crushkit's crushtool front warns."""
    if "alg tree" not in crush_text(d, crush_file):
        return False
    for p in dump["pools"]:
        rc, _, err = run([crushkit, "crushtool", "-i", crush_file, "--test", "--rule",
                          str(p["crush_rule"]), "--num-rep", str(p["size"]), "--min-x", "0",
                          "--max-x", "8191"], d)
        if b"tree bucket descent past its last item" in err:
            return True
    return False


def same_files(d, a, b):
    with open(os.path.join(d, a), "rb") as fa, open(os.path.join(d, b), "rb") as fb:
        return fa.read() == fb.read()


def crushtool_checked(d, args, out, what, check):
    """`crushtool ARGS -o OUT`; with `check`, run twice and insist on the same bytes."""
    ceph(["crushtool"] + args + ["-o", out], d, what)
    if check:
        ceph(["crushtool"] + args + ["-o", out + ".again"], d, what)
        if not same_files(d, out, out + ".again"):
            raise Nondeterministic("%s: Ceph wrote different crush maps for crushtool %s" % (
                what, " ".join(args)))


def osdmaptool_checked(d, name, args, what, check):
    """`osdmaptool NAME ARGS` (which saves NAME); with `check`, run it on a copy
    too and insist on the same crush map."""
    if check:
        shutil.copyfile(os.path.join(d, name), os.path.join(d, name + ".again"))
    ceph(["osdmaptool", name] + args, d, what)
    if check:
        ceph(["osdmaptool", name + ".again"] + args, d, what)
        ceph(["osdmaptool", name, "--export-crush", name + ".c1"], d, what)
        ceph(["osdmaptool", name + ".again", "--export-crush", name + ".c2"], d, what)
        if not same_files(d, name + ".c1", name + ".c2"):
            raise Nondeterministic("%s: Ceph wrote different crush maps for osdmaptool %s" % (
                what, " ".join(args)))


def crush_text(d, path):
    return ceph(["crushtool", "-d", path], d, "crushtool -d").decode()


def add_erasure_rule(rng, d, text):
    """Adds a `chooseleaf indep` erasure rule to crush.bin; returns its id."""
    ids = [int(x) for x in re.findall(r"^\s+id (\d+)$", text, re.M)]
    rule_id = max(ids) + 1 if ids else 0
    root = re.findall(r"^root (\S+) \{", text, re.M)
    types = sorted(set(re.findall(r"^(\w+) \S+ \{", text, re.M)) - {"root", "rule"})
    if not root:
        return None
    domain = rng.choice(types + ["osd"])
    step = ("step chooseleaf indep 0 type %s" % domain) if domain != "osd" else \
        "step choose indep 0 type osd"
    rule = ("rule dd_ec {\n\tid %d\n\ttype erasure\n\tmin_size 1\n\tmax_size 20\n"
            "\tstep set_chooseleaf_tries 5\n\tstep set_choose_tries 100\n"
            "\tstep take %s\n\t%s\n\tstep emit\n}\n" % (rule_id, root[0], step))
    text = text.replace("# end crush map", "") + rule
    with open(os.path.join(d, "crush_ec.txt"), "w") as f:
        f.write(text)
    ceph(["crushtool", "-c", "crush_ec.txt", "-o", "crush.bin"], d, "crushtool -c (ec rule)")
    return rule_id


def erasure_rules(text):
    """Ids of the erasure rules of a text map (gen_maps syntax)."""
    out = []
    for m in re.finditer(r"^rule \S+ \{(.*?)^\}", text, re.M | re.S):
        body = m.group(1)
        if re.search(r"^\s+type erasure", body, re.M):
            rid = re.search(r"^\s+(?:id|ruleset) (\d+)", body, re.M)
            if rid:
                out.append(int(rid.group(1)))
    return out


def pick_pg_num(rng, cap):
    return max(1, min(cap, rng.choice([1, 3, 8, 12, 16, 20, 24, 32, 48, 64, 100, 128])))


def build_before(rng, d, info):
    built = rod.build_crush(rng, d)
    if built is None:
        raise CaseError("crush map rejected")
    devices, _, is_text = built
    text = crush_text(d, "crush.bin")
    info["risky"] = risky(d, "crush.bin")
    if is_text and info["risky"]:
        crushtool_checked(d, ["-c", "crush.txt"], "crush.bin", "crushtool -c", True)
    ec_rule = None
    if not is_text and rng.random() < 0.6:
        ec_rule = add_erasure_rule(rng, d, text)
    elif is_text:
        rules = erasure_rules(text)
        if rules and rng.random() < 0.7:
            ec_rule = rng.choice(rules)
    max_osd = devices + rng.randint(0, 3)
    info["max_osd"] = max_osd
    bits = rng.randint(0, 6)
    while (max_osd << bits) > 512 and bits > 0:
        bits -= 1
    pgp_bits = bits if rng.random() < 0.6 else rng.randint(0, bits)
    ceph(["osdmaptool", "--createsimple", str(max_osd), "--with-default-pool", "--pg-bits",
          str(bits), "--pgp-bits", str(pgp_bits), "--clobber", "--import-crush", "crush.bin",
          "before"], d, "createsimple")
    persist = ["--mark-up-in"]
    if rng.random() < 0.3:
        persist += ["--mark-out", str(rng.randrange(max_osd))]
    persist += ["--adjust-crush-weight", "%d:%s" % (
        rng.randrange(devices), rng.choice(["0.5", "1", "2", "1.5"])), "--save"]
    osdmaptool_checked(d, "before", persist, "persist marks", info["risky"])
    info["notes"].append("base: " + " ".join(persist))

    m = ob.load(os.path.join(d, "before"))
    if rng.random() < 0.5:
        size = rng.randint(1, 4)
        m.set_pool_u8(1, ob.POOL_SIZE, size)
        m.set_pool_u8(1, ob.POOL_MIN_SIZE, rng.randint(1, size))
    if rng.random() < 0.3:
        pg = pick_pg_num(rng, 256)
        m.set_pg_nums(1, pg, rng.randint(1, pg))
    info["ec"] = {}
    if rng.random() < 0.6:
        m.add_pool_copy(1, 2, "second")
        pg = pick_pg_num(rng, 128)
        m.set_pg_nums(2, pg, pg if rng.random() < 0.6 else rng.randint(1, pg))
        if ec_rule is not None and rng.random() < 0.8:
            k, mm = rng.randint(2, 4), rng.randint(1, 2)
            m.set_pool_u8(2, ob.POOL_TYPE, 3)
            m.set_pool_u8(2, ob.POOL_RULE, ec_rule)
            m.set_pool_u8(2, ob.POOL_SIZE, k + mm)
            m.set_pool_u8(2, ob.POOL_MIN_SIZE, k + rng.randint(0, 1))
            info["ec"][2] = (k, mm)
            info["notes"].append("pool 2 erasure k=%d m=%d rule %d" % (k, mm, ec_rule))
        else:
            size = rng.randint(1, 4)
            m.set_pool_u8(2, ob.POOL_SIZE, size)
            m.set_pool_u8(2, ob.POOL_MIN_SIZE, rng.randint(1, size))
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        m.mark_down(rng.randrange(max_osd))
    for _ in range(rng.choice([0, 0, 1, 2])):
        m.set_osd_weight(rng.randrange(max_osd), rng.choice([0x4000, 0x8000, 0xb333, 0]))
    ob.save(m, os.path.join(d, "before"))
    if rng.random() < 0.4:
        upmap = ["--upmap", "upmap.txt", "--upmap-max", str(rng.randint(1, 30)),
                 "--upmap-deviation", "1", "--osd_calc_pg_upmaps_aggressively=false", "--save"]
        rc, _, _ = run(["osdmaptool", "before"] + upmap, d)
        if rc != 0:
            raise CaseError("upmap balancer rc %s" % rc)
        info["notes"].append("base: upmap balancer")
    if rng.random() < 0.3:
        m = ob.load(os.path.join(d, "before"))
        random_upmaps(rng, m, info, "base")
        ob.save(m, os.path.join(d, "before"))


def random_upmaps(rng, m, info, what):
    """Adds random pg_upmap / pg_upmap_items entries and drops some old ones
    (ceph osd pg-upmap, pg-upmap-items, rm-pg-upmap-items): odd ones too,
    e.g. OSDs that are out, down or beyond max_osd, which Ceph skips."""
    upmap, items = dict(m.pg_upmap), dict(m.pg_upmap_items)
    for table in (upmap, items):
        for key in list(table):
            if rng.random() < 0.3:
                del table[key]
    osds = list(range(m.max_osd + (1 if rng.random() < 0.2 else 0)))
    for _ in range(rng.randint(1, 5)):
        pool = rng.choice(sorted(m.pools))
        seed = rng.randrange(m.pool_u32(pool, ob.POOL_PG_NUM))
        size = m.pool_u8(pool, ob.POOL_SIZE)
        if rng.random() < 0.5:
            n = max(1, min(len(osds), size + rng.choice([0, 0, 0, -1, 1])))
            upmap[(pool, seed)] = rng.sample(osds, n)
        else:
            items[(pool, seed)] = [(rng.choice(osds), rng.choice(osds))
                                   for _ in range(rng.randint(1, 2))]
    m.set_upmaps(upmap, items)
    info["notes"].append("%s: %d pg_upmap, %d pg_upmap_items" % (what, len(upmap), len(items)))


def crushtool_edit(rng, d, info):
    """A crushtool edit of after's crush map, imported into after."""
    ceph(["osdmaptool", "after", "--export-crush", "cur.bin"], d, "export-crush")
    text = crush_text(d, "cur.bin")
    devices = [int(x) for x in re.findall(r"^device (\d+) osd\.\d+", text, re.M)]
    buckets = re.findall(r"^(\w+) (\S+) \{", text, re.M)
    buckets = [(t, n) for t, n in buckets if t != "rule" and t != "choose_args"]
    kind = rng.choice(["reweight", "reweight", "add", "remove", "move"])
    args = None
    if kind == "reweight" and devices:
        args = ["--reweight-item", "osd.%d" % rng.choice(devices),
                rng.choice(["0", "0.25", "0.5", "1.5", "3", "0.1"])]
    elif kind == "add":
        # Ceph refuses a crush map with more devices than max_osd.
        free = [o for o in range(info["max_osd"]) if o not in devices]
        hosts = [n for t, n in buckets if t not in ("root",)]
        if free and hosts:
            o = rng.choice(free)
            host = rng.choice(buckets)
            args = ["--add-item", str(o), rng.choice(["1", "0.5", "2"]), "osd.%d" % o,
                    "--loc", host[0], host[1]]
    elif kind == "remove" and devices:
        args = ["--remove-item", "osd.%d" % rng.choice(devices)]
    elif kind == "move" and len(buckets) > 2:
        parent_types = {}
        for t, n in buckets:
            parent_types.setdefault(t, []).append(n)
        movable = [(t, n) for t, n in buckets if t != "root"]
        if movable:
            t, n = rng.choice(movable)
            dest_type = rng.choice(list(parent_types))
            dest = rng.choice(parent_types[dest_type])
            if dest != n:
                args = ["--move", n, "--loc", dest_type, dest]
    if args is None:
        args = ["--reweight-item", "osd.%d" % rng.choice(devices or [0]), "0.75"]
    rc, _, _ = run(["crushtool", "-i", "cur.bin"] + args + ["-o", "new.bin"], d)
    if rc == 0 and info["risky"]:
        crushtool_checked(d, ["-i", "cur.bin"] + args, "new.bin", "crushtool edit", True)
    elif rc != 0 and not crashed(rc):
        # e.g. a --move to where the bucket already is: reweight instead.
        info["notes"].append("crushtool %s refused" % " ".join(args))
        args = ["--reweight-item", "osd.%d" % rng.choice(devices or [0]), "0.75"]
        crushtool_checked(d, ["-i", "cur.bin"] + args, "new.bin", "crushtool edit", info["risky"])
    elif rc != 0:
        raise CaseError("crushtool %s: rc %s" % (" ".join(args), rc))
    ceph(["osdmaptool", "after", "--import-crush", "new.bin", "--save"], d, "import-crush")
    info["notes"].append("change: crushtool " + " ".join(args) + " + osdmaptool --import-crush")


def make_change(rng, d, info):
    """Writes `after`; returns (plan ops or None, crush file or None)."""
    shutil.copyfile(os.path.join(d, "before"), os.path.join(d, "after"))
    kinds = ["out", "in", "reweight", "down", "crush-weight", "crush-weight", "crushtool",
             "crushtool", "crushtool", "pg_num", "pgp_num", "size", "upmap", "pg-upmap",
             "pg_temp", "none"]
    chosen = [rng.choice(kinds)]
    if rng.random() < 0.2:
        chosen.append(rng.choice(kinds))
    ops = []
    plannable = True
    for kind in chosen:
        m = ob.load(os.path.join(d, "after"))
        max_osd = m.max_osd
        o = rng.randrange(max_osd)
        if kind == "out":
            m.set_osd_weight(o, 0)
            ops.append("osd out %d" % o)
        elif kind == "in":
            # `osd in` of an OSD that is in does nothing (OSDMonitor: "is
            # already in"), whatever its reweight: mark an out OSD in, else
            # reweight one to 1.
            out = [x for x in range(max_osd) if m.osd_weight(x) == 0]
            if out:
                o = rng.choice(out)
            m.set_osd_weight(o, 0x10000)
            ops.append(("osd in %d" if out else "osd reweight %d 1") % o)
        elif kind == "reweight":
            w = rng.choice([0.5, 0.25, 0.75, 0.125])
            m.set_osd_weight(o, int(w * 0x10000))
            ops.append("osd reweight %d %s" % (o, w))
        elif kind == "down":
            m.mark_down(o)
            ops.append("osd down %d" % o)
        elif kind == "pg-upmap":
            plannable = False
            random_upmaps(rng, m, info, "change")
        elif kind in ("pg_num", "pgp_num", "size"):
            plannable = False
            pid = rng.choice(sorted(m.pools))
            if kind == "pg_num":
                pg = m.pool_u32(pid, ob.POOL_PG_NUM)
                new = max(1, rng.choice([pg * 2, pg + rng.randint(1, 20), pg // 2, pg - 1, pg * 4]))
                new = min(new, 512)
                pgp = m.pool_u32(pid, ob.POOL_PGP_NUM)
                new_pgp = pgp
                if pgp > new or rng.random() < 0.4:
                    new_pgp = rng.randint(1, new) if rng.random() < 0.5 else new
                m.set_pg_nums(pid, new, new_pgp)
                info["notes"].append("change: pool %d pg_num %d -> %d, pgp_num %d -> %d" % (
                    pid, pg, new, pgp, m.pool_u32(pid, ob.POOL_PGP_NUM)))
            elif kind == "pgp_num":
                pg = m.pool_u32(pid, ob.POOL_PG_NUM)
                new = rng.randint(1, pg)
                info["notes"].append("change: pool %d pgp_num %d -> %d" % (
                    pid, m.pool_u32(pid, ob.POOL_PGP_NUM), new))
                m.set_pg_nums(pid, pg, new)
            else:
                if m.pool_u8(pid, ob.POOL_TYPE) == 3:
                    m.set_pool_u8(pid, ob.POOL_MIN_SIZE, rng.randint(1, m.pool_u8(pid, ob.POOL_SIZE)))
                else:
                    size = rng.randint(1, 5)
                    m.set_pool_u8(pid, ob.POOL_SIZE, size)
                    m.set_pool_u8(pid, ob.POOL_MIN_SIZE, rng.randint(1, size))
                info["notes"].append("change: pool %d size %d min_size %d" % (
                    pid, m.pool_u8(pid, ob.POOL_SIZE), m.pool_u8(pid, ob.POOL_MIN_SIZE)))
        m.bump_epoch()
        ob.save(m, os.path.join(d, "after"))
        if kind == "crush-weight":
            text = crush_text(d, "before.crush")
            devices = [int(x) for x in re.findall(r"^device (\d+) osd\.\d+", text, re.M)]
            if not devices:
                continue
            dev = rng.choice(devices)
            w = rng.choice(["0", "0.5", "1", "2", "3.25", "0.125"])
            osdmaptool_checked(d, "after", ["--adjust-crush-weight", "%d:%s" % (dev, w), "--save"],
                               "adjust-crush-weight", info["risky"])
            ops.append("osd crush reweight osd.%d %s" % (dev, w))
        elif kind == "crushtool":
            plannable = False
            crushtool_edit(rng, d, info)
        elif kind == "upmap":
            plannable = False
            rc, _, _ = run(["osdmaptool", "after", "--upmap", "upmap2.txt", "--upmap-max",
                            str(rng.randint(1, 30)), "--upmap-deviation", "1",
                            "--osd_calc_pg_upmaps_aggressively=false", "--save"], d)
            if rc != 0:
                raise CaseError("upmap balancer (change) rc %s" % rc)
            info["notes"].append("change: upmap balancer")
    info["notes"].append("change kinds: " + ",".join(chosen) +
                         ("; ops: " + "; ".join(ops) if ops else ""))
    if all(k in ("crush-weight", "crushtool") for k in chosen):
        # A crush-only change: after is before with after's crush map.
        ceph(["osdmaptool", "after", "--export-crush", "after_only.crush"], d, "export-crush")
        crush_after = "after_only.crush"
        if rng.random() < 0.3:
            with open(os.path.join(d, "after_only.txt"), "w") as f:
                f.write(crush_text(d, "after_only.crush"))
            # Only text Ceph compiles (a uniform bucket whose items all weigh
            # 0 decompiles to text crushtool -c aborts on).
            rc, _, _ = run(["crushtool", "-c", "after_only.txt", "-o", "after_only.recompiled"], d)
            if rc == 0:
                crush_after = "after_only.txt"
    else:
        crush_after = None
    return (ops if plannable and ops else None), crush_after


def add_pg_temp(rng, dump, max_osd):
    entries = []
    for p in dump["pools"]:
        for _ in range(rng.randint(1, 4)):
            ps = rng.randrange(p["pg_num"])
            osds = rng.sample(range(max_osd), min(max_osd, rng.randint(1, p["size"] or 1)))
            entries.append({"pgid": "%d.%x" % (p["pool"], ps), "osds": osds})
    seen = set()
    dump["pg_temp"] = [e for e in entries if not (e["pgid"] in seen or seen.add(e["pgid"]))]
    if rng.random() < 0.5 and dump["pg_temp"]:
        e = dump["pg_temp"][0]
        # OSDMap::dump writes primary_temp as alternating pgid strings and OSDs.
        dump["primary_temp"] = [e["pgid"], e["osds"][0]]


def pg_dump(rng, dump, up):
    """A `ceph pg dump -f json` of the state, uneven sizes, every PG."""
    stats = []
    sizes = {}
    for p in dump["pools"]:
        pid = p["pool"]
        for ps in range(p["pg_num"]):
            r = rng.random()
            if r < 0.08:
                objects = 0
            elif r < 0.9:
                objects = int(rng.lognormvariate(6, 1.5))
            else:
                objects = rng.randint(10 ** 5, 10 ** 7)
            obj_size = rng.choice([4096, 65536, 1 << 20, 4 << 20, 123457])
            nbytes = objects * obj_size + (rng.randrange(obj_size) if objects else 0)
            omap = 0 if rng.random() < 0.7 else rng.randint(1, 10 ** 9)
            sizes[(pid, ps)] = (objects, nbytes + omap)
            up_set = [o for o in up.get(pid, {}).get(ps, []) if o != NONE]
            stats.append({
                "pgid": "%d.%x" % (pid, ps), "version": "%d'%d" % (rng.randint(1, 50), objects),
                "reported_seq": rng.randint(1, 10 ** 6), "reported_epoch": dump["epoch"],
                "state": "active+clean", "last_fresh": "2026-12-03T13:00:00.000000+0000",
                "stat_sum": {"num_bytes": nbytes, "num_objects": objects,
                             "num_object_clones": 0, "num_object_copies": objects * p["size"],
                             "num_objects_missing_on_primary": 0, "num_objects_degraded": 0,
                             "num_objects_misplaced": 0, "num_omap_bytes": omap,
                             "num_omap_keys": omap // 100},
                "up": up_set, "acting": up_set, "up_primary": up_set[0] if up_set else -1,
                "acting_primary": up_set[0] if up_set else -1})
    if rng.random() < 0.5:
        doc = {"pg_ready": True, "pg_map": {"version": 1, "stamp": "2026-12-03T13:00:00+0000",
                                            "pg_stats": stats, "pool_stats": [], "osd_stats": []}}
    else:
        doc = {"pg_ready": True, "pg_stats": stats}
    return doc, sizes


# --------------------------------------------------------------------- truth

PG_LINE = re.compile(r"^(\d+)\.([0-9a-f]+) raw \(\[[^]]*\], p-?\d+\) up \(\[([^]]*)\], p-?\d+\)",
                     re.M)


def map_all(d, name, extra=()):
    out = ceph(["osdmaptool", name, "--test-map-pgs-dump-all"] + list(extra), d,
               "test-map-pgs-dump-all")
    up = {}
    for m in PG_LINE.finditer(out.decode()):
        up.setdefault(int(m.group(1)), {})[int(m.group(2), 16)] = \
            [int(x) for x in m.group(3).split(",") if x]
    return up


def dump_json(d, name):
    out = ceph(["osdmaptool", name, "--export-crush", name + ".crush", "--dump", "json"], d,
               "dump json").decode()
    return json.loads(out[out.index("{"):])


def stable_mod(x, b, bmask):
    return x & bmask if (x & bmask) < b else x & (bmask >> 1)


def fold(ps, pg_num):
    mask = (1 << (pg_num - 1).bit_length()) - 1
    return stable_mod(ps, pg_num, mask)


def is_osd(o):
    return o != NONE and o >= 0


def truth(pools_b, pools_a, up_b, up_a, sizes, ec):
    """Counters from movement.proto's definitions; returns (pools, osds,
    moves), moves = [(from OSD or None, to OSD, shard bytes)] per moved shard."""
    pools, osds, moves = {}, {}, []

    def osd(o):
        return osds.setdefault(o, dict.fromkeys(OSD_FIELDS + OSD_COUNT_FIELDS, 0))

    for pid, pa in sorted(pools_a.items()):
        pb = pools_b[pid]
        nb, na = pb["pg_num"], pa["pg_num"]
        fine = max(nb, na)
        erasure = pa["type"] == 3
        k = ec[pid][0] if erasure else 1
        c = dict.fromkeys(POOL_FIELDS, 0)
        c.update(pgs=fine, size_before=pb["size"], size_after=pa["size"], pg_num_before=nb,
                 pg_num_after=na)
        # A split child starts on its parent with an even share of its data.
        family = {}
        for p in range(fine):
            bp = p if p < nb else fold(p, nb)
            family[bp] = family.get(bp, 0) + 1
        for p in range(fine):
            bp = p if p < nb else fold(p, nb)
            ap = p if p < na else fold(p, na)
            b = up_b.get(pid, {}).get(bp, [])
            a = up_a.get(pid, {}).get(ap, [])
            objects, nbytes = sizes.get((pid, bp), (0, 0))
            objects //= family[bp]
            nbytes //= family[bp]
            shard = nbytes // k
            real_a = [o for o in a if is_osd(o)]
            real_b = [o for o in b if is_osd(o)]
            if len(real_b) < pb["size"]:
                c["pgs_degraded_before"] += 1
            if len(real_b) < pb["min_size"]:
                c["pgs_inactive_before"] += 1
            if len(real_a) < pa["size"]:
                c["pgs_degraded_after"] += 1
            if len(real_a) < pa["min_size"]:
                c["pgs_inactive_after"] += 1
            c["shards_total"] += pa["size"]
            c["objects_total"] += objects * pa["size"]
            c["bytes_total"] += shard * pa["size"]
            # A replicated set listing an OSD twice (rules with several
            # take/emit blocks) holds one copy there: PGs count once per OSD.
            for o in (b if erasure else list(dict.fromkeys(b))):
                if is_osd(o):
                    osd(o)["pgs_before"] += 1
            for o in (real_a if erasure else list(dict.fromkeys(real_a))):
                osd(o)["pgs_after"] += 1
            if erasure:
                n = max(len(a), len(b))
                pos_b = b + [NONE] * (n - len(b))
                pos_a = a + [NONE] * (n - len(a))
                remapped = pos_b != pos_a
                arrived = [pos_a[i] for i in range(n) if pos_a[i] != pos_b[i] and is_osd(pos_a[i])]
                left = [pos_b[i] for i in range(n) if pos_a[i] != pos_b[i] and is_osd(pos_b[i])]
                sources = [pos_b[i] if is_osd(pos_b[i]) else None
                           for i in range(n) if pos_a[i] != pos_b[i] and is_osd(pos_a[i])]
            else:
                sb = {o for o in b if is_osd(o)}
                sa = set(real_a)
                remapped = sb != sa
                arrived = sorted(sa - sb)
                left = sorted(sb - sa)
                # movement.proto: leaving and arriving OSDs paired in
                # ascending order; extra arrivals read from the before primary.
                primary = b[0] if b and is_osd(b[0]) else None
                sources = [left[i] if i < len(left) else primary for i in range(len(arrived))]
            if not remapped:
                continue
            c["pgs_remapped"] += 1
            c["shards_moved"] += len(arrived)
            c["objects_to_move"] += len(arrived) * objects
            c["bytes_to_move"] += len(arrived) * shard
            for o, src in zip(arrived, sources):
                osd(o)["pgs_in"] += 1
                osd(o)["bytes_in"] += shard
                moves.append((src, o, shard))
            for o in left:
                osd(o)["pgs_out"] += 1
                osd(o)["bytes_out"] += shard
        pools[pid] = c
    return pools, osds, moves


def osd_domains(text, type_name):
    """OSD -> name of its ancestor bucket of `type_name` in a decompiled map
    (each item's first parent by bucket slot, shadow trees excluded)."""
    ids, types, items = {}, {}, {}
    for m in re.finditer(r"^device (\d+) (\S+)", text, re.M):
        ids[m.group(2)] = int(m.group(1))
    for m in re.finditer(r"^(\w+) (\S+) \{\n(.*?)^\}", text, re.M | re.S):
        if m.group(1) in ("rule", "choose_args"):
            continue
        bid = re.search(r"^\s+id (-\d+)\s*(?:#.*)?$", m.group(3), re.M)
        if not bid:
            continue
        ids[m.group(2)] = int(bid.group(1))
        types[int(bid.group(1))] = (m.group(1), m.group(2))
        items[int(bid.group(1))] = re.findall(r"^\s+item (\S+)", m.group(3), re.M)
    parent = {}
    for bid in sorted(items, reverse=True):  # slot order: -1, -2, ...
        for name in items[bid]:
            if name in ids:
                parent.setdefault(ids[name], bid)
    out = {}
    for o in (v for v in ids.values() if v >= 0):
        cur, seen = o, set()
        while cur in parent and cur not in seen:
            seen.add(cur)
            cur = parent[cur]
            if types[cur][0] == type_name:
                out[o] = types[cur][1]
                break
    return out


def domain_truth(moves, text_b, text_a, type_name):
    """{(from, to): [shards, bytes]} of one bucket type, or None if no OSD is
    below a bucket of that type in either map (then there is no matrix)."""
    before, after = osd_domains(text_b, type_name), osd_domains(text_a, type_name)
    if not before and not after:
        return None
    cells = {}
    for src, dst, nbytes in moves:
        key = ("(new)" if src is None else before.get(src, "(none)"), after.get(dst, "(none)"))
        cell = cells.setdefault(key, [0, 0])
        cell[0] += 1
        cell[1] += nbytes
    return cells


def compare_domains(report, moves, text_b, text_a):
    diffs = []
    got = {m["type"]: m for m in report.get("domains", [])}
    for type_name in ("host", "rack"):
        want = domain_truth(moves, text_b, text_a, type_name)
        if want is None:
            if type_name in got:
                diffs.append("domains: a %s matrix, but no OSD is below a %s" % (type_name, type_name))
            continue
        if type_name not in got:
            diffs.append("domains: no %s matrix" % type_name)
            continue
        cells = {(c["from"], c["to"]): [int(c.get("shards", 0)), int(c.get("bytes", 0))]
                 for c in got[type_name].get("cells", [])}
        for key in sorted(set(cells) | set(want)):
            if cells.get(key) != want.get(key):
                diffs.append("%s matrix %s -> %s: got %s, expected %s (shards, bytes)" % (
                    type_name, key[0], key[1], cells.get(key), want.get(key)))
    return diffs


# ------------------------------------------------------------------ compare

def compare(report, want_pools, want_osds, check_counts):
    """Differences between a crushkit JSON report and the truth, as strings."""
    diffs = []
    got_pools = {int(p["pool_id"]): p for p in report.get("pools", [])}
    if sorted(got_pools) != sorted(want_pools):
        diffs.append("pools %s vs truth %s" % (sorted(got_pools), sorted(want_pools)))
    totals = dict.fromkeys(POOL_FIELDS, 0)
    for pid, want in sorted(want_pools.items()):
        got = got_pools.get(pid, {})
        for f in POOL_FIELDS:
            if f not in ("size_before", "size_after", "pg_num_before", "pg_num_after"):
                totals[f] += want[f]
            if int(got.get(f, 0)) != want[f]:
                diffs.append("pool %d %s: got %s, expected %d" % (pid, f, got.get(f), want[f]))
    got_t = report.get("totals", {})
    for f in totals:
        if f in ("size_before", "size_after", "pg_num_before", "pg_num_after"):
            continue
        if int(got_t.get(f, 0)) != totals[f]:
            diffs.append("totals %s: got %s, expected %d" % (f, got_t.get(f), totals[f]))
    got_osds = {int(o["osd"]): o for o in report.get("osds", [])}
    # The report lists every OSD that exists; those the truth leaves out
    # (no PG before or after) must show no PGs.
    if set(want_osds) - set(got_osds):
        diffs.append("osds not listed %s" % sorted(set(want_osds) - set(got_osds)))
    for o in sorted(set(got_osds) - set(want_osds)):
        if any(int(got_osds[o].get(f, 0)) for f in ("pgs_before", "pgs_after", "pgs_in", "pgs_out")):
            diffs.append("osd.%d listed with PGs, the truth has none" % o)
    fields = OSD_FIELDS + (OSD_COUNT_FIELDS if check_counts else [])
    for o, want in sorted(want_osds.items()):
        got = got_osds.get(o, {})
        for f in fields:
            if int(got.get(f, 0)) != want[f]:
                diffs.append("osd.%d %s: got %s, expected %d" % (o, f, got.get(f), want[f]))
    if report.get("bytes_source") != "PG_STATS":
        diffs.append("bytes_source %s, expected PG_STATS" % report.get("bytes_source"))
    return diffs


# --------------------------------------------------------------------- case

def crushkit_import(crushkit, d, name, dump, rng, ec, max_osd):
    dump = json.loads(json.dumps(dump))
    if ec:
        profiles = dump.setdefault("erasure_code_profiles", {})
        for pid, (k, m) in ec.items():
            prof = "dd_k%dm%d" % (k, m)
            profiles[prof] = {"k": str(k), "m": str(m), "plugin": "jerasure",
                              "technique": "reed_sol_van"}
            for p in dump["pools"]:
                if p["pool"] == pid:
                    p["erasure_code_profile"] = prof
    if rng.random() < 0.35:
        add_pg_temp(rng, dump, max_osd)
    with open(os.path.join(d, name + ".json"), "w") as f:
        json.dump(dump, f)
    rc, _, err = run([crushkit, "import", "--osdmap", name + ".json", "--crush", name + ".crush",
                      "--pg-stats", "pgdump.json", "-o", name + ".pb"], d)
    if rc != 0:
        return "crushkit import %s failed (rc %s): %s" % (name, rc, err.decode()[:300])
    return None


def crushkit_json(crushkit, d, args):
    rc, out, err = run([crushkit] + args + ["--json"], d)
    if rc != 0:
        return None, "rc %s: %s" % (rc, err.decode(errors="replace")[:300])
    try:
        return json.loads(out.decode()), None
    except ValueError as e:
        return None, "bad JSON (%s): %s" % (e, out.decode()[:200])


def mapped_anything(up):
    return any(is_osd(o) for pool in up.values() for s in pool.values() for o in s)


def cleanup_counts(d, path):
    """(entries dropped, pg_upmap_items rewritten) from osdmaptool's --upmap-cleanup commands."""
    with open(os.path.join(d, path)) as f:
        lines = f.read().splitlines()
    dropped = sum(1 for line in lines if re.match(r"ceph osd rm-pg-upmap(-items)? ", line))
    rewritten = sum(1 for line in lines if line.startswith("ceph osd pg-upmap-items "))
    return dropped, rewritten


def mapping_diffs(crushkit, d, name, up):
    """`crushkit map-pgs` up sets of a state against osdmaptool's (attributes a
    counter difference to mapping rather than counting)."""
    rc, out, err = run([crushkit, "map-pgs", name + ".pb"], d)
    if rc != 0:
        return ["crushkit map-pgs %s.pb: rc %s: %s" % (name, rc, err.decode()[:200])], 0
    got = {}
    acting_differs = 0
    for line in out.decode().splitlines():
        f = line.split("\t")
        pool, ps = f[0].split(".")
        got.setdefault(int(pool), {})[int(ps, 16)] = [int(x) for x in f[1].strip("[]").split(",") if x]
        acting_differs += 1 if f[1] != f[3] else 0
    diffs = []
    for pool in sorted(set(got) | set(up)):
        for ps in sorted(set(got.get(pool, {})) | set(up.get(pool, {}))):
            g, w = got.get(pool, {}).get(ps), up.get(pool, {}).get(ps)
            if g != w:
                diffs.append("%s: pg %d.%x up %s, osdmaptool %s" % (name, pool, ps, g, w))
    return diffs, acting_differs


def count(res, category):
    res["categories"][category] = res["categories"].get(category, 0) + 1


WEIGHT_OPS = ("osd out ", "osd in ", "osd reweight ", "osd crush reweight ")
STEP_COUNTERS = ("pgs_remapped", "shards_moved", "objects_to_move", "bytes_to_move")


def staged_check(rng, d, crushkit, ops, pools_b, up_b, up_a, sizes, ec):
    """`crushkit plan --max-misplaced L`: each step's commands applied with
    Ceph's tools (osd crush reweight -> osdmaptool --adjust-crush-weight,
    osd reweight -> the osd_weight the monitor writes) to the previous
    step's map; its counters must equal the osdmaptool-derived truth of that
    step, stay under L unless flagged, and the last step must map as AFTER.
    Returns (differences, steps checked)."""
    limit = rng.choice([0.01, 0.02, 0.05])
    report, err = crushkit_json(crushkit, d, ["plan", "before.pb", "ops.txt", "--max-misplaced",
                                              str(limit), "--no-schedule",
                                              "--threads", str(rng.randint(1, 3))])
    if err:
        return ["plan --max-misplaced %s: %s" % (limit, err)], 0
    diffs = []
    cur, prev_up = "before", up_b
    steps = report.get("steps", [])
    for step in steps:
        i = int(step.get("index", 0))
        if i == 0:
            diffs.append("step 0 for a change of weights only")
            continue
        name = "step%d" % i
        shutil.copyfile(os.path.join(d, cur), os.path.join(d, name))
        for c in step.get("commands", []):
            w = c.split()
            if w[:4] == ["ceph", "osd", "crush", "reweight"]:
                dev = int(w[4].split(".")[1])
                ceph(["osdmaptool", name, "--adjust-crush-weight", "%d:%s" % (dev, w[5]), "--save"], d,
                     "staged step adjust-crush-weight")
            elif w[:3] == ["ceph", "osd", "reweight"]:
                m = ob.load(os.path.join(d, name))
                m.set_osd_weight(int(w[3]), int(0x10000 * float(w[4])))
                m.bump_epoch()
                ob.save(m, os.path.join(d, name))
            else:
                diffs.append("step %d: unexpected command %r" % (i, c))
        up_i = map_all(d, name)
        want_pools = truth(pools_b, pools_b, prev_up, up_i, sizes, ec)[0]
        got = step.get("totals", {})
        for f in STEP_COUNTERS:
            want = sum(c[f] for c in want_pools.values())
            if int(got.get(f, 0)) != want:
                diffs.append("step %d %s: got %s, truth %d" % (i, f, got.get(f), want))
        copies = int(got.get("objects_total", 0))
        moved = int(got.get("objects_to_move", 0)) if copies else int(got.get("shards_moved", 0))
        total = copies or int(got.get("shards_total", 0))
        if total and moved / total > limit and not step.get("over_limit"):
            diffs.append("step %d misplaces %.4f > %s without over_limit" % (i, moved / total, limit))
        cur, prev_up = name, up_i
    if steps and prev_up != up_a:
        diffs.append("the last step does not map as AFTER (%d pools differ)" %
                     sum(1 for p in up_a if prev_up.get(p) != up_a[p]))
    return diffs, len(steps)


def one_case(job):
    seed, index, crushkit, keep, has_plan, staged_share, map_pgs_share = job
    rng = random.Random(seed * 1000003 + index)
    d = tempfile.mkdtemp(prefix="diffdiff-")
    res = {"cases": 0, "comparisons": 0, "pgs": 0, "ec": 0, "diffs": [], "skipped": 0,
           "skip_notes": [], "kinds": {}, "plans": 0, "crush_after": 0, "pg_temp": 0,
           "cleanups": 0, "acting_differs": 0, "nondeterministic": 0, "pg_upmap": 0,
           "categories": {}, "cases_with_diffs": 0, "refused": 0, "staged": 0, "staged_steps": 0}
    tag = "seed %d case %d" % (seed, index)
    try:
        # Random text maps Ceph rejects, and bases whose pools map no PG
        # anywhere (they test little): draw again.
        for attempt in range(6):
            info = {"notes": []}
            try:
                build_before(rng, d, info)
                up_b = map_all(d, "before")
                dump_b = dump_json(d, "before")
                if tree_out_of_bounds(d, "before.crush", dump_b, crushkit):
                    raise Nondeterministic("before: a tree bucket descent past its last item")
            except CaseError:
                if attempt == 5:
                    raise
                continue
            if mapped_anything(up_b):
                break
        ops, crush_after = make_change(rng, d, info)
        dump_a = dump_json(d, "after")
        if tree_out_of_bounds(d, "after.crush", dump_a, crushkit):
            raise Nondeterministic("after: a tree bucket descent past its last item")
        up_a = map_all(d, "after")
        pg_doc, sizes = pg_dump(rng, dump_b, up_b)
        with open(os.path.join(d, "pgdump.json"), "w") as f:
            json.dump(pg_doc, f)
        ec = info["ec"]
        for name, dump in (("before", dump_b), ("after", dump_a)):
            err = crushkit_import(crushkit, d, name, dump, rng, ec, info["max_osd"])
            if err:
                res["cases"] += 1
                res["diffs"].append("%s: %s [%s]" % (tag, err, " | ".join(info["notes"])))
                return res
        for n in ("before", "after"):
            with open(os.path.join(d, n + ".json")) as f:
                text = f.read()
            res["pg_temp"] += 1 if '"pg_temp": [{' in text else 0
            res["pg_upmap"] += 1 if '"pg_upmap": [{' in text else 0
        pools_b = {p["pool"]: p for p in dump_b["pools"]}
        pools_a = {p["pool"]: p for p in dump_a["pools"]}
        want = truth(pools_b, pools_a, up_b, up_a, sizes, ec)
        same_pg_num = all(pools_b[p]["pg_num"] == pools_a[p]["pg_num"] for p in pools_a)
        # The monitor runs clean_pg_upmaps on every epoch it commits, so every
        # entry point (diff A B, diff A --crush-after, plan) cleans AFTER's
        # upmaps as it would; the truth is AFTER after osdmaptool's
        # --upmap-cleanup (applied in memory before mapping), with the counts
        # of the commands it wrote. --keep-upmaps takes AFTER as it is.
        up_clean = map_all(d, "after", ["--upmap-cleanup", "cleanup.txt"])
        want_clean = truth(pools_b, pools_a, up_b, up_clean, sizes, ec)
        counts_clean = cleanup_counts(d, "cleanup.txt")
        res["cleanups"] += 1 if up_clean != up_a else 0
        # (description, crushkit arguments, truth, expected (upmaps dropped, rewritten))
        runs = [("diff before.pb after.pb", ["diff", "before.pb", "after.pb"], want_clean,
                 counts_clean)]
        if counts_clean != (0, 0):
            runs.append(("diff before.pb after.pb --keep-upmaps",
                         ["diff", "before.pb", "after.pb", "--keep-upmaps"], want, (0, 0)))
        if crush_after:
            runs.append(("diff before.pb --crush-after %s --keep-upmaps" % crush_after,
                         ["diff", "before.pb", "--crush-after", crush_after, "--keep-upmaps"],
                         want, (0, 0)))
            runs.append(("diff before.pb --crush-after %s" % crush_after,
                         ["diff", "before.pb", "--crush-after", crush_after], want_clean,
                         counts_clean))
        if ops and has_plan:
            with open(os.path.join(d, "ops.txt"), "w") as f:
                f.write("\n".join(ops) + "\n")
            if rng.random() < 0.3:
                plan = ["plan", "before.pb"] + [x for op in ops for x in ("--do", op)]
            else:
                plan = ["plan", "before.pb", "ops.txt"]
            runs.append(("%s (%s)" % (" ".join(plan[:3]), "; ".join(ops)), plan, want_clean,
                         counts_clean))
            runs.append(("%s --keep-upmaps (%s)" % (" ".join(plan[:3]), "; ".join(ops)),
                         plan + ["--keep-upmaps"], want, (0, 0)))
        res["cases"] += 1
        res["ec"] += 1 if ec else 0
        res["pgs"] += sum(w["pgs"] for w in want[0].values())
        for n in info["notes"]:
            if n.startswith("change kinds: "):
                for k in n[len("change kinds: "):].split(";")[0].split(","):
                    res["kinds"][k] = res["kinds"].get(k, 0) + 1
        for name, up in (("before", up_b), ("after", up_a)) if rng.random() < map_pgs_share else ():
            diffs, acting_differs = mapping_diffs(crushkit, d, name, up)
            res["acting_differs"] += acting_differs
            if diffs:
                count(res, "map-pgs")
                res["diffs"].append("%s: crushkit map-pgs %s.pb differs from osdmaptool in %d PGs"
                                    "\n    %s\n    case: %s" % (tag, name, len(diffs),
                                                              "\n    ".join(diffs[:5]),
                                                              " | ".join(info["notes"])))
        text_b, text_a = crush_text(d, "before.crush"), crush_text(d, "after.crush")
        # Rules with several take/emit blocks can give a replicated PG the same
        # OSD twice; the report compares sets (movement.proto).
        dup_sets = any(len(set(v)) != len(v) for up in (up_b, up_a)
                       for pid, pool in up.items() if pools_a[pid]["type"] != 3
                       for v in pool.values())
        for what, args, (want_pools, want_osds, want_moves), upmaps in runs:
            args = args + ["--threads", str(rng.randint(1, 3))]
            report, err = crushkit_json(crushkit, d, args)
            if err and "Ceph reads past" in err:
                # crushkit refuses a change whose Ceph result is undefined.
                res["refused"] += 1
                res["skip_notes"].append("%s: crushkit %s refused: %s" % (tag, what, err[:160]))
                continue
            res["comparisons"] += 1
            res["plans"] += 1 if args[0] == "plan" else 0
            res["crush_after"] += 1 if "--crush-after" in args else 0
            diffs = [err] if err else compare(report, want_pools, want_osds, same_pg_num)
            if not err:
                diffs += compare_domains(report, want_moves, text_b, text_a)
            if not err and upmaps is not None:
                risks = report.get("risks", {})
                got = (int(risks.get("upmaps_dropped", 0)), int(risks.get("upmap_items_rewritten", 0)))
                if got != upmaps:
                    diffs.append("risks upmaps_dropped/upmap_items_rewritten: got %s, expected %s"
                                 % (got, upmaps))
            if diffs and not err and upmaps is not None and upmaps != (0, 0) and \
                    not compare(report, want[0], want[1], same_pg_num):
                diffs.insert(0, "(the counters equal the truth with every upmap kept: none was dropped)")
            if diffs:
                words = [w for i, w in enumerate(args[:-2])
                         if w != "--do" and (i == 0 or args[i - 1] != "--do")]
                if "--do" in args:
                    words.insert(2, "--do OP...")
                category = " ".join(words).replace("before.pb", "A").replace(
                    "after.pb", "B").replace("ops.txt", "OPS")
                category = re.sub(r"after_only\.(crush|txt)", "NEW", category)
                if dup_sets:
                    category += " [duplicate OSDs in replicated up sets]"
                if any("equal the truth with every upmap kept" in x for x in diffs):
                    category += " [upmaps not dropped]"
                elif any(x.startswith("risks upmaps") for x in diffs) and len(diffs) == 1:
                    category += " [upmap counts only]"
                count(res, category)
                kept = os.path.join(keep, "seed%d-case%d" % (seed, index)) if keep else None
                res["diffs"].append("%s: crushkit %s: %d differences%s\n    %s\n    case: %s" % (
                    tag, what, len(diffs), (" (files in %s)" % kept) if kept else "",
                    "\n    ".join(diffs[:12]), " | ".join(info["notes"])))
        no_upmaps = not dump_b.get("pg_upmap") and not dump_b.get("pg_upmap_items")
        if ops and has_plan and no_upmaps and all(op.startswith(WEIGHT_OPS) for op in ops) and \
                rng.random() < staged_share:
            # Staged plans of weight changes, step by step against Ceph
            # (states without upmaps: the monitor's cleanup is then a no-op).
            diffs, n = staged_check(rng, d, crushkit, ops, pools_b, up_b, up_a, sizes, ec)
            res["staged"] += 1
            res["staged_steps"] += n
            if diffs:
                count(res, "plan --max-misplaced (steps vs osdmaptool)")
                res["diffs"].append("%s: crushkit plan --max-misplaced: %d differences\n    %s\n    case: %s" % (
                    tag, len(diffs), "\n    ".join(diffs[:12]), " | ".join(info["notes"])))
        res["cases_with_diffs"] = 1 if res["diffs"] else 0
        return res
    except CaseError as e:
        res["skipped"] += 1
        res["nondeterministic"] += 1 if isinstance(e, Nondeterministic) else 0
        res["skip_notes"].append("%s: %s" % (tag, e))
        return res
    finally:
        if keep and res["diffs"]:
            kept = os.path.join(keep, "seed%d-case%d" % (seed, index))
            shutil.copytree(d, kept, dirs_exist_ok=True)
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--min-cases", type=int, default=0,
                    help="fail unless at least this many cases were compared")
    ap.add_argument("--keep", help="copy the files of each differing case under this folder")
    ap.add_argument("--case", type=int, action="append",
                    help="run only this case index (repeatable), e.g. to reproduce a DIFF line")
    ap.add_argument("--show", type=int, default=30, help="DIFF entries printed (default 30)")
    ap.add_argument("--diff-log", help="write every DIFF entry to this file")
    ap.add_argument("--no-plan", action="store_true", help="do not run `crushkit plan`")
    ap.add_argument("--map-pgs-share", type=float, default=1.0,
                    help="share of the cases whose states are also mapped with `crushkit map-pgs` and "
                         "compared with osdmaptool's up/acting sets (default 1)")
    ap.add_argument("--staged-share", type=float, default=1.0,
                    help="share of the eligible cases whose staged plan is checked step by step (default 1)")
    a = ap.parse_args()
    if not shutil.which("osdmaptool") or not shutil.which("crushtool"):
        return oracle.skip_or_fail("osdmaptool/crushtool not installed")
    crushkit = os.path.abspath(a.crushkit)
    _, out, _ = oracle.run([crushkit, "--help"], ".", 30)
    has_plan = re.search(rb"^  plan ", out, re.M) is not None and not a.no_plan
    keep = os.path.abspath(a.keep) if a.keep else None
    indexes = a.case if a.case else range(a.cases)
    jobs = [(a.seed, i, crushkit, keep, has_plan, a.staged_share, a.map_pgs_share) for i in indexes]
    total = {"cases": 0, "comparisons": 0, "pgs": 0, "ec": 0, "diffs": [], "skipped": 0,
             "skip_notes": [], "kinds": {}, "plans": 0, "crush_after": 0, "pg_temp": 0,
             "cleanups": 0, "acting_differs": 0, "nondeterministic": 0, "pg_upmap": 0,
             "categories": {}, "cases_with_diffs": 0, "refused": 0, "staged": 0, "staged_steps": 0}
    start = time.time()
    with multiprocessing.Pool(a.jobs) as pool:
        for r in pool.imap_unordered(one_case, jobs):
            for k in total:
                if k in ("kinds", "categories"):
                    for kk, v in r[k].items():
                        total[k][kk] = total[k].get(kk, 0) + v
                else:
                    total[k] += r[k]
    for d in sorted(total["diffs"])[:a.show]:
        print("DIFF", d)
    if a.diff_log:
        with open(a.diff_log, "w") as f:
            for d in sorted(total["diffs"]):
                f.write("DIFF %s\n" % d)
    for category, n in sorted(total["categories"].items()):
        print("differing reports: %5d  crushkit %s" % (n, category))
    for n in total["skip_notes"][:10]:
        print("SKIPPED", n)
    print("compared %d cases (%d crushkit reports: %d diff A B, %d --crush-after, %d plan; "
          "%d PGs; %d with an erasure-coded pool; %d states with pg_upmap; %d with pg_temp, %d PGs whose acting set "
          "differs from up; %d cases where "
          "clean_pg_upmaps changed mappings); change kinds %s; "
          "%d cases with differences; %d reports refused by crushkit (Ceph undefined); %d skipped (oracle rejected or crashed; %d of them because Ceph's "
          "answer is undefined: uninitialised or inconsistent tree bucket weights); plan %s; %.1f s" % (
              total["cases"], total["comparisons"],
              total["comparisons"] - total["crush_after"] - total["plans"], total["crush_after"],
              total["plans"], total["pgs"], total["ec"], total["pg_upmap"], total["pg_temp"],
              total["acting_differs"],
              total["cleanups"],
              json.dumps(dict(sorted(total["kinds"].items()))), total["cases_with_diffs"],
              total["refused"],
              total["skipped"], total["nondeterministic"], "available" if has_plan else "not available",
              time.time() - start))
    print("staged plans checked step by step against osdmaptool: %d (%d steps)" % (
        total["staged"], total["staged_steps"]))
    if total["cases"] < a.min_cases:
        print("FAIL: only %d cases compared, fewer than --min-cases %d" % (
            total["cases"], a.min_cases))
        return 1
    return 1 if total["diffs"] else 0


if __name__ == "__main__":
    sys.exit(main())
