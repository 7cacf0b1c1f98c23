#!/usr/bin/env python3
"""Differential test on binary osdmaps: `crushkit osdmaptool OSDMAP` vs Ceph's.

Every state is a binary osdmap written by Ceph's own tools (no crushkit
import in between), built per base (deterministic in --seed and its index):
  1. a crush map from `crushtool --build` (random layout and bucket
     algorithms) or a random text map compiled by `crushtool -c`
     (run_osdmap_differential.build_crush);
  2. `osdmaptool --createsimple N --with-default-pool --pg-bits B
     --pgp-bits B2 --import-crush MAP`;
  3. often, persisted changes: `--mark-up-in --mark-out K --mark-up J
     --adjust-crush-weight ID:W --save`, and the upmap balancer
     (`--upmap F --save`, pg_upmap_items);
  4. sometimes a crushtool edit of the exported crush map put back with
     `--import-crush` (run_osdmap_differential.edit_crush).
Then --variations random flag sets (run_osdmap_differential.random_flags:
marks, CRUSH weight edits, --pool, --pg_num, --test-map-pg[s...],
--test-map-object, --export-crush, --upmap-cleanup, --tree; plus, here,
--print, --dump in every format (DUMP_FORMATS), --clean-temps,
--save more often, --clear-temp, and --import-crush of the base's first
crush map) run
on two copies of the map in two directories, `osdmaptool om FLAGS` and
`crushkit osdmaptool om FLAGS`: stdout, exit code and every file left in
the directory (the map after --save, --export-crush's crush map, the
--upmap-cleanup file) must be identical byte for byte. Each (base,
variation) is one state. Every map Ceph wrote (each base step and each
saved variation) is also decoded and re-encoded by crushkit
(osdmap_roundtrip) and must come back identical.

From a second random stream (so the states above do not change): some
variations add --health; each base's map is also perturbed twice by
osdmap_perturb (down and full OSDs, map/OSD/node/class flags, ratios,
pool flags, sizes, cache modes and options, HitSet parameters, pool
snapshots and removed snaps, snap queues, OSD addresses (msgr2 and legacy),
blocklists in sorted or shuffled wire order, features vs
require_osd_release, stretch mode: fields Ceph's tools never set) and `--health`, often with --print
or --dump and sometimes --save, compared on it; some bases
compare the first 256 KiB of the endless `--test-crush`; and some compare
a map each tool creates (--createsimple with its options, or
--create-from-conf with a random ceph.conf): stdout and exit code
identical, and Ceph's `--dump json` of both maps identical once the
clock's stamps are masked. From a third stream, two runs per base of
`--clobber` without a create option (the empty map Ceph default-constructs,
with om present or absent) and random flags: stdout, exit code and every
file identical.

Exit status: 0 if no differences, 1 otherwise (or fewer than --min-states
compared), 77 (ctest SKIP) if Ceph's tools are missing (1 with
CRUSHKIT_REQUIRE_ORACLE=1).
"""
import argparse
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import oracle  # noqa: E402
from oracle import crashed  # noqa: E402
from run_osdmap_differential import (  # noqa: E402
    build_crush, build_osdmap, ceph_undefined, edit_crush, random_flags, run)

COUNTERS = ("states", "saved", "exports", "cleanups", "imports", "upmap_bases", "crush_edits",
            "roundtrips", "skipped_oracle", "unsupported", "bad_base", "ceph_undefined", "health",
            "perturbed",
            "test_crush", "created", "clobbered")

# Every `--dump` format name osdmaptool's Formatter::create knows, and one it
# does not (compact json).
DUMP_FORMATS = ("json", "json-pretty", "plain", "xml", "xml-pretty", "html", "html-pretty",
                "table", "table-kv", "yaml")

# --test-crush never ends: both tools' first bytes are compared, then killed.
TEST_CRUSH_BYTES = 256 * 1024

# What differs between two runs of `osdmaptool --createsimple` (the clock).
STAMPS = re.compile(rb'"(created|modified|create_time|last_up_change|last_in_change)": ?"[^"]*"')


def build_base(rng, d, upmap_stress, keep):
    """Leaves the base map in d/om (each map Ceph wrote copied by keep());
    returns (max_osd, pg_num, has_upmaps) or None if Ceph refused a step."""
    built = build_crush(rng, d)
    if built is None:
        return None
    osdmap = build_osdmap(rng, d, built[0], upmap_stress, keep)
    if osdmap is None:
        return None
    max_osd, bits, has_upmaps = osdmap
    if rng.random() < (0.9 if upmap_stress else 0.7 if has_upmaps else 0.25):
        if edit_crush(rng, d):
            keep("om")
    return max_osd, 1 << bits, has_upmaps


def variation_flags(rng, max_osd, pg_num, has_upmaps, upmap_stress):
    flags = random_flags(rng, max_osd, pg_num, has_upmaps, upmap_stress)
    if rng.random() < 0.1:
        flags = ["--import-crush", "first.crush"] + flags
    if rng.random() < 0.05:
        flags.append("--clear-temp")
    if "--save" not in flags and rng.random() < 0.4:
        flags.append("--save")
    # The printers (binary maps only): after every modification, as Ceph runs them.
    if rng.random() < 0.3:
        flags.append("--print")
    if rng.random() < 0.3:
        flags += ["--dump", rng.choice(DUMP_FORMATS)]
    if rng.random() < 0.05:
        flags.append("--clean-temps")
    return flags


def first_bytes(cmd, cwd, limit):
    """The first `limit` bytes `cmd` writes to stdout (all of it if it ends
    sooner); the process is killed after that."""
    env = dict(os.environ, CEPH_ARGS="--crash_dir=" + cwd)
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = b""
    try:
        while len(out) < limit:
            chunk = p.stdout.read(min(65536, limit - len(out)))
            if not chunk:
                break
            out += chunk
    finally:
        p.kill()
        p.wait()
        p.stdout.close()
    return out


def fresh_dirs(d, names=("om",)):
    dirs = {}
    for who in ("ceph", "crushkit"):
        w = os.path.join(d, who)
        shutil.rmtree(w, ignore_errors=True)
        os.mkdir(w)
        for name in names:
            shutil.copyfile(os.path.join(d, name), os.path.join(w, name))
        dirs[who] = w
    return dirs


def compare_output(res, where, ceph, crushkit):
    """Appends a difference between two (rc, stdout, stderr) results."""
    (orc, oout, _), (krc, kout, kerr) = ceph, crushkit
    if orc == krc and oout == kout:
        return
    ol, kl = oout.decode(errors="replace").splitlines(), kout.decode(errors="replace").splitlines()
    first = next((i for i in range(min(len(ol), len(kl))) if ol[i] != kl[i]), min(len(ol), len(kl)))
    oline = ol[first] if first < len(ol) else "<eof>"
    kline = kl[first] if first < len(kl) else "<eof>"
    # Long lines (compact json, xml) are shown around their first difference.
    col = next((i for i in range(min(len(oline), len(kline))) if oline[i] != kline[i]),
               min(len(oline), len(kline)))
    start = max(0, col - 80)
    res["diffs"].append("%s: rc %s vs %s; first stdout diff at line %d column %d:\n"
                        "  ceph:     %s\n  crushkit: %s\n  crushkit stderr: %s" % (
                            where, orc, krc, first + 1, col + 1,
                            oline[start:col + 120], kline[start:col + 120],
                            kerr.decode(errors="replace")[:300]))


def oracle_release():
    """The release compared with (oracle.use_release sets it)."""
    return os.environ.get("CRUSHKIT_CEPH_RELEASE", "pacific")


def perturbed_health(rng, d, index, crushkit, perturb, res):
    """`--health` on the base map with fields Ceph's tools never set
    (osdmap_perturb): down and full OSDs, flags, ratios, pool states."""
    seed = rng.randrange(1 << 30)
    p = subprocess.run([perturb, str(seed), os.path.join(d, "om"), os.path.join(d, "pert.om")],
                       capture_output=True)
    if p.returncode != 0:
        res["diffs"].append("base %d: osdmap_perturb %d failed: %s" % (index, seed, p.stderr.decode()))
        return
    dirs = fresh_dirs(d, ("pert.om",))
    flags = ["--health"] + (["--mark-up-in"] if rng.random() < 0.2 else [])
    flags += rng.choice([[], ["--print"], ["--dump", "json"], ["--dump", rng.choice(DUMP_FORMATS)]])
    if rng.random() < 0.2:
        flags.append("--save")
    # Reef and later: the mappings, where the perturbed pg_upmap_primaries
    # move primaries (no draw for Pacific, whose streams stay as they were).
    if oracle_release() != "pacific" and rng.random() < 0.5:
        flags.append("--test-map-pgs-dump")
    ceph = run(["osdmaptool", "pert.om"] + flags, dirs["ceph"])
    if crashed(ceph[0]):
        res["skipped_oracle"] += 1
        res["notes"].append("base %d: ceph rc %s on perturbed map %d --health" % (index, ceph[0], seed))
        return
    res["perturbed"] += 1
    where = "base %d perturbed map (osdmap_perturb %d) %s" % (index, seed, " ".join(flags))
    compare_output(res, where, ceph, run([crushkit, "osdmaptool", "pert.om"] + flags, dirs["crushkit"]))
    if open(os.path.join(dirs["ceph"], "pert.om"), "rb").read() != \
            open(os.path.join(dirs["crushkit"], "pert.om"), "rb").read():
        res["diffs"].append("%s: the saved maps differ" % where)


def test_crush(rng, d, index, crushkit, max_osd, res):
    flags = ["--test-crush"] + (["--mark-up-in"] if rng.random() < 0.5 else [])
    if rng.random() < 0.3:
        flags += ["--mark-out", str(rng.randrange(max_osd))]
    dirs = fresh_dirs(d)
    ceph = first_bytes(["osdmaptool", "om"] + flags, dirs["ceph"], TEST_CRUSH_BYTES)
    ours = first_bytes([crushkit, "osdmaptool", "om"] + flags, dirs["crushkit"], TEST_CRUSH_BYTES)
    res["test_crush"] += 1
    if ceph != ours:
        compare_output(res, "base %d %s (first %d bytes)" % (index, " ".join(flags), TEST_CRUSH_BYTES),
                       (0, ceph, b""), (0, ours, b""))


def create_flags(rng):
    """A random --createsimple or --create-from-conf command line (the map
    is written to new.om; conf.txt is written by the caller)."""
    if rng.random() < 0.3:
        return ["--create-from-conf", "-c", "conf.txt", "--clobber", "new.om"]
    flags = ["--createsimple", str(rng.randint(1, 40)), "--clobber"]
    if rng.random() < 0.6:
        flags.append("--with-default-pool")
    if rng.random() < 0.5:
        flags += ["--pg-bits", str(rng.randint(0, 6))]
    if rng.random() < 0.3:
        flags += ["--pgp-bits", str(rng.randint(0, 6))]
    if rng.random() < 0.3:
        flags += ["--osd_pool_default_size", str(rng.randint(1, 4))]
    return flags + ["new.om"]


def conf_text(rng):
    lines = ["[global]", "\tosd pool default size = %d" % rng.randint(1, 4)]
    for i in range(rng.randint(1, 8)):
        lines += ["[osd.%d]" % i, "\thost = h%d" % rng.randint(0, 3)]
        if rng.random() < 0.5:
            lines.append("\track = r%d" % rng.randint(0, 1))
    return "\n".join(lines) + "\n"


def created(rng, d, index, crushkit, res):
    """A map created by each tool: stdout and exit code identical, and the
    maps equal except for the clock (compared through Ceph's --dump json)."""
    flags = create_flags(rng)
    with open(os.path.join(d, "conf.txt"), "w") as f:
        f.write(conf_text(rng))
    dirs = fresh_dirs(d, ("conf.txt",))
    ceph = run(["osdmaptool"] + flags, dirs["ceph"])
    if crashed(ceph[0]):
        res["skipped_oracle"] += 1
        return
    ours = run([crushkit, "osdmaptool"] + flags, dirs["crushkit"])
    res["created"] += 1
    where = "base %d %s" % (index, " ".join(flags))
    compare_output(res, where, ceph, ours)
    dumps = []
    for who in ("ceph", "crushkit"):
        om = os.path.join(dirs[who], "new.om")
        if not os.path.exists(om):
            dumps.append(None)
            continue
        rc, out, _ = run(["osdmaptool", "new.om", "--dump", "json"], dirs[who])
        dumps.append((rc, STAMPS.sub(b"STAMP", out), os.path.getsize(om)))
    if dumps[0] != dumps[1]:
        res["diffs"].append("%s: created maps differ beyond their timestamps (%s vs %s bytes)" % (
            where, dumps[0] and dumps[0][2], dumps[1] and dumps[1][2]))


# A crush map without devices: the one --import-crush can put into the empty
# map of --clobber alone (max_osd 0).
EMPTY_CRUSH = os.path.join(HERE, "..", "golden", "osdmaptool_clobber", "empty.crush")


def clobber_flags(rng):
    """Random flags for `osdmaptool om --clobber FLAGS` (no create option:
    both tools work on an empty map, never reading om)."""
    flags = ["--clobber"]
    choices = [["--import-crush", "empty.crush"], ["--import-crush", "first.crush"],
               ["--export-crush", "out.crush"], ["--test-map-pgs"], ["--test-map-pgs-dump"],
               ["--test-map-pgs-dump-all"], ["--test-map-pg", "0.0"],
               ["--test-map-object", "obj"], ["--mark-up-in"], ["--mark-out", "0"],
               ["--upmap", "out.cmds"], ["--upmap-cleanup", "-"],
               ["--adjust-crush-weight", "0:1"], ["--save"], ["--health"], ["--print"],
               ["--dump", rng.choice(DUMP_FORMATS)], ["--tree"],
               ["--tree", rng.choice(("json", "json-pretty", "xml", "plain"))]]
    for c in rng.sample(choices, rng.randint(1, 4)):
        flags += c
    return flags


def clobbered(rng, d, index, crushkit, res):
    """`--clobber` without a create option, om present or not: stdout, exit
    code and every file identical."""
    flags = clobber_flags(rng)
    names = ("om", "crush.bin") if rng.random() < 0.5 else ("crush.bin",)
    dirs = fresh_dirs(d, names)
    for w in dirs.values():
        os.rename(os.path.join(w, "crush.bin"), os.path.join(w, "first.crush"))
        shutil.copyfile(EMPTY_CRUSH, os.path.join(w, "empty.crush"))
    ceph = run(["osdmaptool", "om"] + flags, dirs["ceph"])
    if crashed(ceph[0]):
        res["skipped_oracle"] += 1
        return
    res["clobbered"] += 1
    where = "base %d om %s %s" % (index, "present" if "om" in names else "absent", " ".join(flags))
    compare_output(res, where, ceph, run([crushkit, "osdmaptool", "om"] + flags, dirs["crushkit"]))
    cf, kf = files_of(dirs["ceph"]), files_of(dirs["crushkit"])
    for f in sorted(set(cf) | set(kf)):
        if cf.get(f) != kf.get(f):
            res["diffs"].append("%s: file %s differs" % (where, f))


def files_of(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))
            if os.path.isfile(os.path.join(d, f))}


def one_base(job):
    seed, index, variations, crushkit, roundtrip, perturb, upmap_stress, keep_dir, builders = job
    rng = random.Random(seed * 1000003 + index + 7777)
    # The --health, --test-crush and create states draw from their own
    # stream, so the states above stay those of earlier versions.
    rng2 = random.Random(seed * 7919 + index + 31)
    d = tempfile.mkdtemp(prefix="binosdmapdiff-")
    res = {k: 0 for k in COUNTERS}
    res["diffs"], res["notes"] = [], []
    kept = []

    def keep(name):
        dst = os.path.join(d, "kept%d.om" % len(kept))
        shutil.copyfile(os.path.join(d, name), dst)
        kept.append(dst)

    try:
        # The base maps come from --maps-from's tools when given (first on
        # PATH while they are built), the variations run the oracle.
        path = os.environ["PATH"]
        if builders:
            os.environ["PATH"] = builders + os.pathsep + path
        try:
            base = build_base(rng, d, upmap_stress, keep)
        finally:
            os.environ["PATH"] = path
        if base is None:
            res["bad_base"] = 1
            return res
        max_osd, pg_num, has_upmaps = base
        res["upmap_bases"] += 1 if has_upmaps else 0
        res["crush_edits"] += 1 if os.path.exists(os.path.join(d, "pre_edit.bin")) else 0
        for v in range(variations):
            flags = variation_flags(rng, max_osd, pg_num, has_upmaps, upmap_stress)
            if rng2.random() < 0.2:
                flags.append("--health")
                res["health"] += 1
            dirs = fresh_dirs(d)
            for w in dirs.values():
                shutil.copyfile(os.path.join(d, "crush.bin"), os.path.join(w, "first.crush"))
            orc, oout, _ = run(["osdmaptool", "om"] + flags, dirs["ceph"])
            if crashed(orc):
                res["skipped_oracle"] += 1
                res["notes"].append("base %d: ceph rc %s on %s" % (index, orc, " ".join(flags)))
                continue
            krc, kout, kerr = run([crushkit, "osdmaptool", "om"] + flags, dirs["crushkit"])
            if krc != 0 and b"not supported" in kerr:
                res["unsupported"] += 1
                res["notes"].append("base %d: crushkit: %s" % (index, kerr.decode().strip()))
                continue
            if ceph_undefined(kerr) and krc in (0, 1):
                # crushkit warned that a mapping went where Ceph reads out of
                # bounds (uninitialised tree node weights): no answer to compare.
                res["ceph_undefined"] += 1
                continue
            res["states"] += 1
            cf, kf = files_of(dirs["ceph"]), files_of(dirs["crushkit"])
            res["exports"] += 1 if "out.crush" in cf else 0
            res["cleanups"] += 1 if "--upmap-cleanup" in flags else 0
            res["imports"] += 1 if "--import-crush" in flags else 0
            if b"writing epoch" in oout:
                res["saved"] += 1
                keep(os.path.join("ceph", "om"))
            where = "base %d (seed %d) flags %s" % (index, seed, " ".join(flags))
            compare_output(res, where, (orc, oout, b""), (krc, kout, kerr))
            for f in sorted(set(cf) | set(kf)):
                if cf.get(f) != kf.get(f):
                    res["diffs"].append("%s: file %s differs (%s vs %s bytes)" % (
                        where, f, len(cf[f]) if f in cf else "no", len(kf[f]) if f in kf else "no"))
        for _ in range(2):
            perturbed_health(rng2, d, index, crushkit, perturb, res)
        if rng2.random() < 0.25:
            test_crush(rng2, d, index, crushkit, max_osd, res)
        if rng2.random() < 0.4:
            created(rng2, d, index, crushkit, res)
        # Its own stream, so the states above stay those of earlier versions.
        rng3 = random.Random(seed * 104729 + index + 17)
        for _ in range(2):
            clobbered(rng3, d, index, crushkit, res)
        if kept:
            p = subprocess.run([roundtrip] + kept, capture_output=True)
            res["roundtrips"] += len(kept)
            if p.returncode != 0:
                for line in p.stdout.decode().splitlines()[:-1] or [p.stderr.decode()]:
                    res["diffs"].append("base %d (seed %d) round trip: %s" % (
                        index, seed, line.replace(d + "/", "")))
        if res["diffs"] and keep_dir:
            shutil.copytree(d, os.path.join(keep_dir, "base%d" % index), dirs_exist_ok=True)
        return res
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--roundtrip", required=True, help="the osdmap_roundtrip binary")
    ap.add_argument("--perturb", required=True, help="the osdmap_perturb binary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bases", type=int, default=40)
    ap.add_argument("--variations", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--upmap-stress", action="store_true",
                    help="every base runs the upmap balancer; most get a crushtool edit")
    ap.add_argument("--min-states", type=int, default=0,
                    help="fail unless at least this many states were compared")
    ap.add_argument("--keep-failures", default="",
                    help="copy the work directory of every base with a difference here")
    ap.add_argument("--release", choices=oracle.RELEASES, default="pacific",
                    help="Ceph release whose osdmaptool and crushtool are the oracle "
                         "(crushkit runs as it)")
    ap.add_argument("--maps-from", choices=oracle.RELEASES, default="",
                    help="build the base maps with this release's tools (default: --release's)")
    ap.add_argument("--show-diffs", type=int, default=20, help="print at most this many differences")
    a = ap.parse_args()
    oracle.use_release(a.release)
    builders = ""
    if a.maps_from and a.maps_from != a.release:
        if (oracle.put_on_path("osdmaptool", a.maps_from) is None or
                oracle.put_on_path("crushtool", a.maps_from) is None):
            return oracle.skip_or_fail("osdmaptool/crushtool of %s not installed" % a.maps_from)
        # put_on_path put both tools' directories first: keep them off PATH
        # but for the base builds.
        parts = os.environ["PATH"].split(os.pathsep)
        builders = os.pathsep.join(parts[:2])
        os.environ["PATH"] = os.pathsep.join(parts[2:])
    if (oracle.put_on_path("osdmaptool", a.release) is None or
            oracle.put_on_path("crushtool", a.release) is None):
        return oracle.skip_or_fail("osdmaptool/crushtool of %s not installed" % a.release)
    crushkit, roundtrip = os.path.abspath(a.crushkit), os.path.abspath(a.roundtrip)
    perturb = os.path.abspath(a.perturb)
    jobs = [(a.seed, i, a.variations, crushkit, roundtrip, perturb, a.upmap_stress,
             os.path.abspath(a.keep_failures) if a.keep_failures else "", builders)
            for i in range(a.bases)]
    total = {k: 0 for k in COUNTERS}
    total["diffs"], total["notes"] = [], []
    with multiprocessing.Pool(a.jobs) as pool:
        for r in pool.imap_unordered(one_base, jobs):
            for k in total:
                total[k] += r[k]
    for line in total["diffs"][:a.show_diffs]:
        print("DIFF", line)
    for line in total["notes"][:10]:
        print("SKIPPED", line)
    print("release %s, maps from %s" % (a.release, a.maps_from or a.release))
    print("compared %d binary osdmap states (%d saved maps, %d exported crush maps, "
          "%d --upmap-cleanup runs, %d --import-crush; %d bases with upmaps, %d crushtool "
          "edits); %d maps round-tripped; %d differences; %d unsupported by crushkit; "
          "%d oracle crashes skipped; %d bases rejected by Ceph; %d runs where Ceph's answer "
          "is undefined (crushkit warned: a mapping read out of bounds in Ceph)" % (
              total["states"], total["saved"], total["exports"], total["cleanups"],
              total["imports"], total["upmap_bases"], total["crush_edits"],
              total["roundtrips"], len(total["diffs"]), total["unsupported"],
              total["skipped_oracle"], total["bad_base"], total["ceph_undefined"]))
    print("also: %d states with --health, %d --health (often with --print/--dump) runs on "
          "perturbed maps, %d --test-crush "
          "prefixes (%d KiB each), %d created maps, %d --clobber runs on the empty map" % (
              total["health"], total["perturbed"], total["test_crush"], TEST_CRUSH_BYTES // 1024,
              total["created"], total["clobbered"]))
    if total["states"] < a.min_states:
        print("FAIL: only %d states compared, fewer than --min-states %d" % (
            total["states"], a.min_states))
        return 1
    return 1 if total["diffs"] else 0


if __name__ == "__main__":
    sys.exit(main())
