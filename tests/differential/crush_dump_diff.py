#!/usr/bin/env python3
"""Differential test: crushkit's reader of `ceph osd crush dump -f json` vs Ceph.

For every text map (random maps from gen_maps.py, samples/*.crush,
samples/cluster/crush.txt):
  1. Ceph: crushtool -c map.txt -o ceph.bin (maps Ceph rejects are counted
     and skipped), then crushtool -i ceph.bin --dump (json-pretty, or
     `--format json` for every 3rd map) > dump.json: the same
     CrushWrapper::dump as `ceph osd crush dump -f json`.
  2. JSON -> binary: crushkit compile dump.json -o ours.bin must be
     ceph.bin byte for byte. crushtool leaves the internal node weights of
     tree buckets grown item by item uninitialised (garbage that differs
     between two of its runs); when a second `crushtool -c` differs from the
     first, those words are masked on both sides (compile_diff.py's mask).
  3. binary -> JSON: Ceph reads ours.bin back and dumps it: the dump must be
     dump.json exactly.
  4. Where the text can express the map, Ceph's text round trip
     (crushtool -d ceph.bin; crushtool -c of that text) must also give
     ours.bin; where it cannot (weights rounded by the text, holes), the
     count `text_lossy` says how often, and JSON stays exact.
Exit status: 0 all good, 1 failures, 77 the oracle is missing (skip).
CI: --maps 40 (a few seconds). Large run (README.md): --maps 2000 --jobs 4.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compile_diff  # noqa: E402
import gen_maps  # noqa: E402
import oracle  # noqa: E402

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIZE_LINE = re.compile(r"^\s*(min_size|max_size)\s.*\n", re.M)


def release_text(text, release):
    """Quincy and later warn about min_size/max_size: leave them out."""
    return text if release == "pacific" else SIZE_LINE.sub("", text)


def inputs(maps, seed):
    out = []
    for path in sorted(os.listdir(os.path.join(SOURCE_DIR, "samples"))):
        if path.endswith(".crush"):
            out.append((path, open(os.path.join(SOURCE_DIR, "samples", path)).read()))
    out.append(("cluster/crush.txt",
                open(os.path.join(SOURCE_DIR, "samples", "cluster", "crush.txt")).read()))
    for i in range(maps):
        out.append(("random-%d-%d" % (seed, i), gen_maps.generate(seed, i, oddities=True)))
    return out


def check(task):
    index, name, text, crushkit, crushtool, release = task
    oracle.use_release(release)
    res = {"maps": 1, "failures": []}

    def fail(msg):
        res["failures"].append("%s: %s" % (name, msg))
        return res

    with tempfile.TemporaryDirectory(prefix="crush-dump-diff-") as wd:
        def path(f):
            return os.path.join(wd, f)

        def read(f):
            with open(path(f), "rb") as fh:
                return fh.read()

        with open(path("map.txt"), "w") as f:
            f.write(release_text(text, release))
        rc, _, _ = oracle.run([crushtool, "-c", "map.txt", "-o", "ceph.bin"], wd, 30)
        if rc != 0:
            res["rejected_by_oracle"] = 1
            return res
        fmt = ["--format", "json"] if index % 3 == 0 else []
        rc, dump, err = oracle.run([crushtool, "-i", "ceph.bin", "--dump", *fmt], wd, 30)
        if rc != 0:
            return fail("crushtool --dump failed: %s" % err.decode(errors="replace")[-500:])
        with open(path("dump.json"), "wb") as f:
            f.write(dump)
        rc, _, err = oracle.run([crushkit, "compile", "dump.json", "-o", "ours.bin"], wd, 60)
        if rc != 0:
            return fail("crushkit compile dump.json: exit %s: %s" %
                        (rc, err.decode(errors="replace")[-1000:]))
        ceph, ours = read("ceph.bin"), read("ours.bin")
        if ours != ceph:
            # Ceph's uninitialised tree nodes: masked only where they vary.
            oracle.run([crushtool, "-c", "map.txt", "-o", "ceph2.bin"], wd, 30)
            if read("ceph2.bin") == ceph or \
                    compile_diff.mask_tree_internal_nodes(ours) != \
                    compile_diff.mask_tree_internal_nodes(ceph):
                return fail("JSON -> binary differs from crushtool -c")
            res["tree_garbage_masked"] = 1
        res["json_to_binary_equal"] = 1
        rc, again, err = oracle.run([crushtool, "-i", "ours.bin", "--dump", *fmt], wd, 30)
        if rc != 0 or again != dump:
            return fail("Ceph's dump of crushkit's bytes differs from the input dump")
        res["binary_to_json_equal"] = 1
        rc, text_out, _ = oracle.run([crushtool, "-d", "ceph.bin"], wd, 30)
        with open(path("d.txt"), "wb") as f:
            f.write(text_out)
        rc2, _, _ = oracle.run([crushtool, "-c", "d.txt", "-o", "text.bin"], wd, 30)
        if rc != 0 or rc2 != 0 or compile_diff.mask_tree_internal_nodes(read("text.bin")) != \
                compile_diff.mask_tree_internal_nodes(ceph):
            res["text_lossy"] = 1
        elif compile_diff.mask_tree_internal_nodes(read("text.bin")) != \
                compile_diff.mask_tree_internal_nodes(ours):
            return fail("crushtool -c of the decompiled text differs from JSON -> binary")
        else:
            res["text_equal"] = 1
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--crushtool", default="", help="the oracle (default: the release's crushtool)")
    ap.add_argument("--release", choices=oracle.RELEASES, default="pacific")
    ap.add_argument("--maps", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    crushtool = oracle.put_on_path("crushtool", a.release, a.crushtool)
    if crushtool is None:
        return oracle.skip_or_fail("Ceph %s crushtool not found" % a.release)
    crushkit = os.path.abspath(a.crushkit)
    tasks = [(i, name, text, crushkit, "crushtool", a.release)
             for i, (name, text) in enumerate(inputs(a.maps, a.seed))]
    total, failures = oracle.map_tasks(check, tasks, a.jobs, 500)
    for f in failures[:20]:
        print("FAIL " + f)
    print("crush_dump_diff: release=%s %s failures=%d" % (
        a.release, " ".join("%s=%d" % kv for kv in sorted(total.items())), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
