#!/usr/bin/env python3
"""Nothing crushkit reads may mislead the operator (issue 34): every command
that reads a file, given a file of the wrong kind, exits non-zero and says
so in a few lines: stderr under 2 KiB, no raw control bytes, whatever the
file. Inputs: 5 MB one-line JSONs with keys of the dumps crushkit imports
(so they reach the JSON parsers), one cut short (a syntax error near its
end), 1 MiB of random bytes, and Ceph's real dumps swapped between flags
(each refusal names the dump the flag wants).

With --bulk-crushkit (CI: the Release binary, while --crushkit is the ASan
one) the bulk binary runs every check above, and the crushkit under test
(whose every run costs ~0.35 CPU-s of ASan start and exit) a subset that
still reads every input kind with every command: the import flags with every
hostile file (a JSON importer each), every other command with one hostile
file in turn (one sniffer refuses them all), and each of Ceph's dumps once
at a wrong flag: 49 ASan runs instead of 117.

Run from ctest (tests/cli/CMakeLists.txt) with --crushkit and --source."""
import argparse
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

MAX_STDERR = 2048


def make_inputs(tmp):
    """The hostile files: name -> path."""
    # One line of JSON, ~5 MB, every value a long string: a parser error, a
    # "line" of a text map or of a change file, and every quoted key or
    # value would be huge if echoed. dump.json has an osd dump's keys (it
    # reaches the osd dump and state parsers); usage.json only those the
    # osd df and df importers read (it reaches theirs); cut.json is
    # usage.json cut short (a syntax error 5 MB in).
    filler = "x" * 4000 + "\u0001\u001b[2J" + "y" * 4000
    docs = {"dump.json": {"epoch": 1, "max_osd": "three", "pools": [{"pool_name": filler}] * 640,
                          "osds": filler},
            "usage.json": {"nodes": [{"id": filler}] * 320, "pools": [{"id": filler}] * 320}}
    paths = {}
    for name, doc in docs.items():
        text = json.dumps(doc, separators=(",", ":"))
        assert len(text) > 5_000_000, len(text)
        paths[name] = os.path.join(tmp, name)
        with open(paths[name], "w") as f:
            f.write(text)
        if name == "usage.json":
            paths["cut.json"] = os.path.join(tmp, "cut.json")
            with open(paths["cut.json"], "w") as f:
                f.write(text[:-3])
    rng = random.Random(34)
    paths["random.bin"] = os.path.join(tmp, "random.bin")
    with open(paths["random.bin"], "wb") as f:
        f.write(rng.randbytes(1 << 20))
    return paths


def commands(k, bad, good, tmp):
    """Every crushkit command line that reads a file, with `bad` in one
    file position and good files elsewhere."""
    out = os.path.join(tmp, "out")
    state, dump, crush, ops = good["state"], good["dump"], good["crush"], good["ops"]
    return [
        [k, "import", "--osdmap", bad, "--crush", crush, "-o", out],
        [k, "import", "--osdmap", dump, "--crush", bad, "-o", out],
        [k, "import", "--osdmap", dump, "--crush", crush, "--pg-stats", bad, "-o", out],
        [k, "import", "--osdmap", dump, "--crush", crush, "--osd-df", bad, "-o", out],
        [k, "import", "--osdmap", dump, "--crush", crush, "--df", bad, "-o", out],
        [k, "plan", bad, ops],
        [k, "plan", state, bad],
        [k, "diff", bad, state],
        [k, "diff", state, bad],
        [k, "diff", state, "--crush-after", bad],
        [k, "map-pgs", bad],
        [k, "map-object", bad, "rbd", "obj"],
        [k, "balance", bad],
        [k, "compile", bad, "-o", out],
        [k, "decompile", bad, "-o", out],
        [k, "edit", bad, "--do", "osd out 1", "-o", out],
        [k, "edit", crush, bad, "-o", out],
        [k, "check", bad],
        [k, "tree", bad],
        [k, "test", bad],
        [k, "osdmaptool", bad, "--print"],
        [k, "osdmaptool", good["state_copy"], "--import-crush", bad],
        [k, "crushtool", "-c", bad, "-o", out],
        [k, "crushtool", "-i", bad, "--tree"],
    ]


def check_bounded(cmd, failures):
    env = dict(os.environ, CEPH_ARGS="--crash_dir=/nonexistent")
    p = subprocess.run(cmd, capture_output=True, timeout=120, env=env)
    shown = " ".join(os.path.basename(c) if os.sep in c else c for c in cmd[1:])
    if p.returncode == 0:
        failures.append("%s: exit 0" % shown)
    if len(p.stderr) >= MAX_STDERR:
        failures.append("%s: %d bytes on stderr:\n%r" % (shown, len(p.stderr), p.stderr[:300]))
    raw = [b for b in p.stderr if (b < 0x20 and b not in (0x09, 0x0a)) or b == 0x7f]
    if raw:
        failures.append("%s: raw control bytes on stderr: %r" % (shown, p.stderr[:300]))
    try:
        text = p.stderr.decode("utf-8")
        if any(0x80 <= ord(c) < 0xa0 for c in text):
            failures.append("%s: C1 control characters on stderr" % shown)
    except UnicodeDecodeError:
        failures.append("%s: stderr is not UTF-8: %r" % (shown, p.stderr[:300]))
    return p


def check_wrong_dumps(k, pacific, tmp, failures, every_flag=True):
    """Ceph's own dumps given to the wrong import flag: refused, naming the
    dump the flag wants and what the file is. every_flag=False: each dump at
    one wrong flag only. Returns the number of runs."""
    wants = {"--pg-stats": "--pg-stats wants 'ceph pg dump -f json' (or 'ceph pg dump pgs -f json')",
             "--osd-df": "--osd-df wants 'ceph osd df -f json' (or 'ceph osd df tree -f json')",
             "--df": "--df wants 'ceph df -f json' (or 'ceph df detail -f json')"}
    is_ = {"pg-dump.json": "this is 'ceph pg dump -f json'", "osd-df.json": "this is 'ceph osd df -f json'",
           "df.json": "this is 'ceph df -f json'", "osd-dump.json": "this is 'ceph osd dump -f json'",
           "osd-tree.json": "this is 'ceph osd tree -f json'", "report.json": "this is 'ceph report'",
           "crush-dump.json": "this is 'ceph osd crush dump -f json'"}
    right = {"--pg-stats": "pg-dump.json", "--osd-df": "osd-df.json", "--df": "df.json"}
    osdmap = os.path.join(pacific, "osdmap.bin")
    runs = 0
    for i, (name, what) in enumerate(is_.items()):
        flags = [f for f in wants if right[f] != name]
        if not every_flag:
            flags = [flags[i % len(flags)]]
        for flag in flags:
            cmd = [k, "import", "--osdmap", osdmap, flag, os.path.join(pacific, name), "-o",
                   os.path.join(tmp, "out")]
            p = check_bounded(cmd, failures)
            runs += 1
            err = p.stderr.decode("utf-8", "replace")
            if wants[flag] not in err or what not in err:
                failures.append("import %s %s: expected %r and %r, got:\n%s" % (flag, name, wants[flag], what, err))
    return runs


def check_user_report(k, good, sample, pacific, tmp, failures):
    """The user's report: arguments swapped, and pgs_brief. Returns the runs."""
    p = check_bounded([k, "plan", good["state"], os.path.join(pacific, "pg-dump.json")], failures)
    p2 = check_bounded([k, "plan", os.path.join(sample, "pg-dump.json"), good["ops"]], failures)
    if b"this is 'ceph pg dump -f json'" not in p2.stderr:
        failures.append("plan PGDUMP OPS: %r" % p2.stderr)
    if b"this is 'ceph pg dump -f json'" not in p.stderr:
        failures.append("plan STATE PGDUMP: %r" % p.stderr)
    brief = os.path.join(tmp, "brief.json")
    with open(brief, "w") as f:
        json.dump({"pg_ready": True, "pg_stats": [{"pgid": "1.0", "state": "active+clean", "up": [0, 1],
                                                   "acting": [0, 1], "up_primary": 0, "acting_primary": 0}]}, f)
    p = check_bounded([k, "import", "--osdmap", os.path.join(pacific, "osdmap.bin"), "--pg-stats", brief,
                       "-o", os.path.join(tmp, "out")], failures)
    if b"'ceph pg dump pgs_brief -f json', which has no byte or object counts" not in p.stderr:
        failures.append("--pg-stats pgs_brief: %r" % p.stderr)
    return 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--bulk-crushkit", default="",
                    help="a faster build of crushkit for the whole matrix")
    ap.add_argument("--source", required=True, help="the project's source directory")
    a = ap.parse_args()
    k = a.crushkit
    bulk = a.bulk_crushkit or k
    if os.path.realpath(bulk) == os.path.realpath(k):
        bulk = k
    sample = os.path.join(a.source, "samples", "cluster")
    pacific = os.path.join(a.source, "tests", "data", "loopback-pacific")
    failures = []
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        # Small good files (Ceph 16.2's own), so each run costs little but
        # the bad file. state_copy: osdmaptool --import-crush writes its map.
        good = {"dump": os.path.join(pacific, "osd-dump.json"), "crush": os.path.join(pacific, "crushmap.bin"),
                "ops": os.path.join(sample, "add-rack.ops"), "state": os.path.join(pacific, "osdmap.bin"),
                "state_copy": os.path.join(tmp, "osdmap.bin")}
        shutil.copy(good["state"], good["state_copy"])
        hostile = make_inputs(tmp)
        batch = [cmd for bad in hostile.values() for cmd in commands(bulk, bad, good, tmp)]
        if bulk != k:
            # The binary under test: the import flags with every hostile
            # file, every other command with one of them in turn.
            per_kind = [commands(k, bad, good, tmp) for bad in hostile.values()]
            for i, cmd in enumerate(per_kind[0]):
                if cmd[1] == "import":
                    batch += [cmds[i] for cmds in per_kind]
                else:
                    batch.append(per_kind[i % len(per_kind)][i])
        # Two at a time: the runs are short and mostly reading.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda cmd: check_bounded(cmd, failures), batch))
        runs = len(batch)
        runs += check_wrong_dumps(bulk, pacific, tmp, failures)
        runs += check_user_report(bulk, good, sample, pacific, tmp, failures)
        if bulk != k:
            runs += check_wrong_dumps(k, pacific, tmp, failures, every_flag=False)
            runs += check_user_report(k, good, sample, pacific, tmp, failures)
    for f in failures:
        print("FAIL", f)
    print("%d runs in %.1f s; %d failures" % (runs, time.time() - started, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
