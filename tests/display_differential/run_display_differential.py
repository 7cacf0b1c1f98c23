#!/usr/bin/env python3
"""Differential test of crushtool's display flags: `crushkit crushtool`
(CRUSHKIT_CEPH_RELEASE=pacific) vs Ceph 16.2's crushtool, or with --release
reef/tentacle vs that release's crushtool.

Maps: every sample map (the binary and text maps of Ceph's crushtool cram
directory, ../shared/compat/examples, samples/*.crush), then random maps:
gen_maps.py text maps compiled by Ceph (device classes, choose_args, odd
weights and names) and, for every 4th index or a text map Ceph rejects, a
`crushtool --build` map (random layers and bucket algorithms, the
generator of ../edit_differential).

Per map, a few invocations, each combining several display flags so that
their fixed stage order is compared too:
  --show-location ID --tree --dump -f F1 --check
  --show-location ID --bucket-tree --bucket-name NAME --dump -f F2 --check N
  --dump -f F3 on every other map (and sometimes no -f, -f "" or an unknown
  format)
with the formats rotating over json-pretty, json, xml, xml-pretty, html,
html-pretty, table, table-kv; ids drawn from devices, missing ids and 0;
N from 0, 1, the largest device id and one past it. Exit code, stdout and
stderr must be identical. Ceph crashes or hangs are counted, not compared.

Exit: 0 with no difference and at least --min-compared maps compared;
1 otherwise; 77 (ctest SKIP) when the oracle is missing and
CRUSHKIT_REQUIRE_ORACLE is not set.
"""
import argparse
import glob
import os
import random
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
sys.path.insert(0, os.path.join(HERE, "..", "edit_differential"))
sys.path.insert(0, os.path.join(HERE, "..", "msr_differential"))
import gen_maps  # noqa: E402
import gen_msr_maps  # noqa: E402
import oracle  # noqa: E402
from run_edit_differential import CEPH_LOG_LINE, random_build  # noqa: E402

TIMEOUT = 60
FORMATS = ["json-pretty", "json", "xml", "xml-pretty", "html", "html-pretty", "table", "table-kv"]


def run(cmd, cwd):
    rc, out, err = oracle.run(cmd, cwd, TIMEOUT)
    if cmd[0] == "crushtool":
        out = oracle.normalize_argv0(out)
        err = CEPH_LOG_LINE.sub(b"", oracle.normalize_argv0(err))
    return rc, out, err


def sample_maps(shared):
    """(label, path, is_text) of every sample map."""
    found = []
    cram = os.path.join(shared, "compat", "ceph-cli-tests", "pacific", "crushtool")
    for p in sorted(glob.glob(os.path.join(cram, "*"))):
        if p.endswith(".t") or os.path.isdir(p):
            continue
        with open(p, "rb") as f:
            head = f.read(4)
        text = not head.startswith(b"\x00\x00\x01\x00")
        found.append((os.path.basename(p), p, text))
    for p in sorted(glob.glob(os.path.join(shared, "compat", "examples", "*"))):
        if p.endswith(".crushmap"):
            found.append((os.path.basename(p), p, False))
        elif p.endswith(".crush.txt"):
            found.append((os.path.basename(p), p, True))
    for p in sorted(glob.glob(os.path.join(ROOT, "samples", "*.crush"))):
        found.append((os.path.basename(p), p, True))
    return found


def map_facts(text):
    devices = [int(m.group(1)) for m in re.finditer(r"^device (\d+) ", text, re.M)]
    buckets = re.findall(r"^\S+ (\S+) \{\s*\n\s*id -", text, re.M)
    return devices, buckets


def invocations(rng, index, devices, buckets):
    def loc_id():
        pool = devices + [0, max(devices + [0]) + 1, 1000]
        return str(rng.choice(pool))

    def max_id():
        top = max(devices + [0])
        return str(rng.choice([0, 1, top, top + 1]))

    f = [FORMATS[(index * 3 + k) % len(FORMATS)] for k in range(3)]
    name = rng.choice(buckets + ["nosuch"] + (["osd.%d" % devices[0]] if devices else []) or ["x"])
    cmds = [
        ["--show-location", loc_id(), "--tree", "--dump", "-f", f[0], "--check"],
        ["--show-location", loc_id(), "--bucket-tree", "--bucket-name", name, "--dump",
         "-f", f[1], "--check", max_id()],
    ]
    # A third format on every other map keeps each map to about three Ceph
    # runs (the CI sample's time) while every format still comes round.
    if index % 2 == 0:
        cmds.append(["--dump", "-f", f[2]])
    extra = rng.random()
    if extra < 0.1:
        cmds.append(["--dump"])
    elif extra < 0.2:
        cmds.append(["--dump", "-f", rng.choice(["", "bogus", "JSON"])])
    return cmds


def compare_map(res, label, wd, binary, crushkit, rng, index, keep):
    # Ids and names to ask about, from crushkit's decompiler (one Ceph start-up
    # less per map); a map it cannot read is still compared, with no names.
    rc, text, _ = run(crushkit + ["-d", binary], wd)
    devices, buckets = map_facts(text.decode("latin1")) if rc == 0 else ([], [])
    res["maps"] += 1
    for flags in invocations(rng, index, devices, buckets):
        theirs = run(["crushtool", "-i", binary] + flags, wd)
        if oracle.crashed(theirs[0]):
            res["oracle_crash"] += 1
            continue
        ours = run(crushkit + ["-i", binary] + flags, wd)
        res["runs"] += 1
        if theirs == ours:
            res["matches"] += 1
            continue
        res["diffs"] += 1
        res["failures"].append("%s: %s" % (label, " ".join(flags)))
        if keep:
            d = os.path.join(keep, "%s-%d" % (re.sub(r"[^\w.-]", "_", label), res["diffs"]))
            os.makedirs(d, exist_ok=True)
            shutil.copy(os.path.join(wd, binary), d)
            for who, r in (("theirs", theirs), ("ours", ours)):
                with open(os.path.join(d, who + ".out"), "wb") as f:
                    f.write(r[1])
                with open(os.path.join(d, who + ".err"), "wb") as f:
                    f.write(("rc=%s\n" % r[0]).encode() + r[2])
            with open(os.path.join(d, "cmd"), "w") as f:
                f.write(" ".join(flags) + "\n")
        return


def new_result():
    return {"maps": 0, "samples": 0, "random": 0, "rejected": 0, "runs": 0, "matches": 0,
            "diffs": 0, "oracle_crash": 0, "failures": []}


def check_task(task):
    kind, seed, index, payload, crushkit, keep, release = task
    oracle.use_release(release)
    rng = random.Random(seed * 7919 + index)
    res = new_result()
    wd = tempfile.mkdtemp(prefix="crushdisplay.")
    try:
        if kind == "sample":
            label, path, is_text = payload
            if is_text:
                shutil.copy(path, os.path.join(wd, "map.txt"))
                rc, _, _ = run(["crushtool", "-c", "map.txt", "-o", "map.bin"], wd)
                if rc != 0:
                    res["rejected"] += 1
                    return res
            else:
                shutil.copy(path, os.path.join(wd, "map.bin"))
            res["samples"] += 1
        else:
            label = "random-%d" % index
            made = False
            if index % 4 != 3:
                # Tentacle: every other text map is an MSR map (MSR rules,
                # steps and tunables), from the MSR suite's generator.
                msr = release == "tentacle" and index % 2 == 1
                with open(os.path.join(wd, "map.txt"), "w") as f:
                    f.write(gen_msr_maps.generate(seed, index)[0] if msr else
                            gen_maps.generate(seed, index))
                rc, _, _ = run(["crushtool", "-c", "map.txt", "-o", "map.bin"], wd)
                made = rc == 0
            if not made:
                rc, _, _ = run(["crushtool"] + random_build(rng) + ["-o", "map.bin"], wd)
                if rc != 0:
                    res["rejected"] += 1
                    return res
            res["random"] += 1
        compare_map(res, label, wd, "map.bin", crushkit, rng, index, keep)
        return res
    finally:
        shutil.rmtree(wd, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="crushkit crushtool display flags vs Ceph crushtool")
    ap.add_argument("--maps", type=int, default=100, help="random maps (plus every sample map)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--min-compared", type=int, default=0,
                    help="fail unless at least this many maps were compared")
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--release", choices=oracle.RELEASES, default="pacific",
                    help="Ceph release to compare with (its crushtool; crushkit runs as it)")
    ap.add_argument("--crushtool", default="", help="the oracle (default: that release's crushtool)")
    ap.add_argument("--keep-failures", default="")
    a = ap.parse_args()
    if oracle.put_on_path("crushtool", a.release, a.crushtool) is None:
        return oracle.skip_or_fail("crushtool (the oracle) of %s not found: %s" %
                                   (a.release, a.crushtool or oracle.tool("crushtool", a.release)))
    crushkit = [os.path.abspath(a.crushkit), "crushtool"]
    shared = a.shared if os.path.isdir(a.shared) else "/work/shared"
    tasks = [("sample", a.seed, i, s, crushkit, a.keep_failures, a.release)
             for i, s in enumerate(sample_maps(shared))]
    tasks += [("random", a.seed, i, None, crushkit, a.keep_failures, a.release)
              for i in range(a.maps)]
    total, failures = oracle.map_tasks(check_task, tasks, a.jobs, progress_every=100)
    for f in sorted(failures):
        print("FAIL", f)
    print("maps_compared=%d (samples=%d random=%d) rejected=%d runs=%d matches=%d diffs=%d "
          "oracle_crashes=%d" %
          (total.get("maps", 0), total.get("samples", 0), total.get("random", 0),
           total.get("rejected", 0), total.get("runs", 0), total.get("matches", 0),
           total.get("diffs", 0), total.get("oracle_crash", 0)))
    if total.get("maps", 0) < a.min_compared:
        print("FAIL: only %d maps compared, need %d" % (total.get("maps", 0), a.min_compared))
        return 1
    return 1 if total.get("diffs", 0) else 0


if __name__ == "__main__":
    sys.exit(main())
