#!/usr/bin/env python3
"""Differential test: `crushkit compile/decompile` vs Ceph's crushtool -c/-d.

For every input text map (the Pacific cram corpus, the corpus binaries
decompiled by Ceph, and random maps from gen_maps.py):
  1. Ceph: crushtool -c map.txt -o theirs.bin; crushkit compile -> ours.bin.
     Both accept: the bytes must be equal. crushtool 16.2 writes
     uninitialised bytes for some shadow tree buckets, so when two Ceph runs
     differ (garbage internal node weights of tree buckets grown item by item),
     the maps must match with those words masked, and so must the text.
     Both reject: crushkit must print a located `FILE:LINE:COL: error:`.
     Exactly one rejects: a failure, except the documented checks where
     crushkit is stricter than Ceph (STRICTER below), counted separately.
  2. crushkit decompile theirs.bin == crushtool -d theirs.bin (text), and the
     text compiles back to the same bytes (text -> bin -> text -> bin).
With --mutations N, N mutated copies (one token deleted, duplicated or
replaced by another token of the same file) are checked the same way;
crushkit must never crash or hang (exit codes other than 0/1 fail).

Exit status: 0 all good, 1 failures, 77 crushtool not installed (skip).
CI: --maps 150 --mutations 300 (< 3 min on 2 cores).
Large run (documented): --maps 2000 --mutations 2000 --jobs 4.
"""
import argparse
import concurrent.futures
import glob
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_maps  # noqa: E402
import oracle  # noqa: E402

# crushkit rejects these although Pacific accepts them (see compiler/sema*.cc
# and compiler/README.md). Repeated type ids, type names and device ids are
# accepted with --allow-ceph-quirks, which this suite passes.
STRICTER = [
    r"bucket id .* is already used",  # two buckets (or a bucket and a device) share an id
    r"has more than one id",
    r"is negative",
    r"out of the 16.16 fixed-point range",
    r"does not fit in 32 bits",
    r"is out of range \(0\.\.",
    r"needs a non-zero item weight",  # Ceph asserts (crash)
    r"is below the supported minimum",
]
LOCATED = re.compile(r"^[^\n:]+:\d+:\d+: error: ", re.M)
ENV = dict(os.environ, CEPH_ARGS="--crash_dir=" + tempfile.mkdtemp(prefix="ceph-crash-"))


def run(cmd, cwd, timeout=60):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout, env=ENV)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", b"", ""


def check(task):
    name, text, crushkit = task
    with tempfile.TemporaryDirectory(prefix="compile-diff-") as wd:
        with open(os.path.join(wd, "map.txt"), "w") as f:
            f.write(text)
        trc, _, terr = run(["crushtool", "-c", "map.txt", "-o", "theirs.bin"], wd)
        orc, _, oerr = run([crushkit, "compile", "--allow-ceph-quirks", "map.txt", "-o", "ours.bin"], wd)
        if orc not in (0, 1):
            return "fail", "%s: crushkit compile exit %s\n%s" % (name, orc, oerr[-2000:])
        if trc == "timeout":
            return "skip", name + ": crushtool hung"
        if trc != 0 and orc != 0:
            if not LOCATED.search(oerr):
                return "fail", "%s: rejected without a located error:\n%s" % (name, oerr)
            return "both-reject", ""
        if trc == 0 and orc != 0:
            if any(re.search(p, oerr) for p in STRICTER):
                return "stricter", "%s: %s" % (name, oerr.splitlines()[0] if oerr else "")
            return "fail", "%s: crushtool accepts, crushkit rejects:\n%s" % (name, oerr)
        if trc != 0:
            if os.path.exists(os.path.join(wd, "ours.bin")) and trc not in (1,):
                # Ceph crashed (abort) on input we accept, e.g. asserts.
                return "oracle-crash", "%s: crushtool exit %s, crushkit accepts" % (name, trc)
            return "fail", "%s: crushtool rejects (%s), crushkit accepts:\n%s" % (
                name, terr.strip().splitlines()[-1:] if terr else "", text[:0])
        theirs = open(os.path.join(wd, "theirs.bin"), "rb").read()
        ours = open(os.path.join(wd, "ours.bin"), "rb").read()
        # The crushtool front compiles every map Ceph accepts to the same
        # bytes as `compile --allow-ceph-quirks` (and so as crushtool).
        frc, _, ferr = run([crushkit, "crushtool", "-c", "map.txt", "-o", "front.bin"], wd)
        if frc != 0 or open(os.path.join(wd, "front.bin"), "rb").read() != ours:
            return "fail", "%s: crushkit crushtool -c differs from crushkit compile (rc %s)\n%s" % (
                name, frc, ferr[-2000:])
        if theirs != ours:
            run(["crushtool", "-c", "map.txt", "-o", "theirs2.bin"], wd)
            theirs2 = open(os.path.join(wd, "theirs2.bin"), "rb").read()
            if theirs2 == theirs:
                return "fail", "%s: binary differs from crushtool -c" % name
            # Nondeterministic oracle (uninitialised tree node weights in shadow
            # buckets): every byte that is stable across Ceph runs must match,
            # and so must the decompiled text. Mappings are not compared: Ceph's
            # depend on the garbage.
            if len(theirs2) != len(theirs) or len(ours) != len(theirs):
                return "fail", "%s: size differs from (nondeterministic) crushtool -c" % name
            # Ceph's garbage lives in the internal and unused-leaf node weights of tree
            # buckets grown item by item; some of its bytes even repeat across
            # runs. Mask exactly those words, then require equality.
            if mask_tree_internal_nodes(ours) != mask_tree_internal_nodes(theirs):
                return "fail", "%s: differs from (nondeterministic) crushtool -c outside tree node weights" % name
            a = run(["crushtool", "-d", "theirs.bin"], wd)[1]
            b = run(["crushtool", "-d", "ours.bin"], wd)[1]
            if a != b:
                return "fail", "%s: decompiled text differs from (nondeterministic) crushtool -c" % name
        drc, dtext, derr = run(["crushtool", "-d", "theirs.bin"], wd)
        krc, ktext, kerr = run([crushkit, "decompile", "theirs.bin"], wd)
        if krc != 0 or ktext != dtext:
            return "fail", "%s: decompile differs from crushtool -d (rc %s)\n%s" % (name, krc, kerr)
        with open(os.path.join(wd, "dec.txt"), "wb") as f:
            f.write(ktext)
        rrc, _, rerr = run([crushkit, "compile", "dec.txt", "-o", "again.bin"], wd)
        if rrc != 0 or open(os.path.join(wd, "again.bin"), "rb").read() != ours:
            if "will not recompile" not in kerr and "does not compile" not in kerr:
                return "fail", "%s: text->bin->text->bin changed and decompile did not warn\n%s" % (name, rerr)
            return "lossy-warned", ""
        return "equal", ""


def mask_tree_internal_nodes(b):
    """Zeroes the internal node weights of every tree bucket in a binary map."""
    b = bytearray(b)
    try:
        _, max_buckets, _, _ = struct.unpack_from("<IiIi", b, 0)
        o = 16
        for _ in range(max_buckets):
            alg, = struct.unpack_from("<I", b, o)
            o += 4
            if alg == 0:
                continue
            size, = struct.unpack_from("<I", b, o + 12)
            o += 16 + 4 * size
            if alg == 1:
                o += 4
            elif alg in (2, 4):
                o += 8 * size
            elif alg == 3:
                nodes = b[o]
                o += 1
                for k in range(nodes):
                    if k % 2 == 0 or k > 2 * size - 1:  # internal or unused leaf
                        b[o + 4 * k:o + 4 * k + 4] = b"\0\0\0\0"
                o += 4 * nodes
            elif alg == 5:
                o += 4 * size
    except struct.error:
        pass
    return bytes(b)


TOKEN = re.compile(r"[A-Za-z0-9_.+-]+|[{}\[\]]")


def mutate(text, rng):
    toks = [m for m in TOKEN.finditer(text)]
    if not toks:
        return text
    t = rng.choice(toks)
    op = rng.choice(["delete", "duplicate", "replace"])
    if op == "delete":
        return text[:t.start()] + text[t.end():]
    if op == "duplicate":
        return text[:t.end()] + " " + t.group() + text[t.end():]
    other = rng.choice(toks).group()
    return text[:t.start()] + other + text[t.end():]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--corpus", default=None, help="shared compat dir (adds the Pacific cram maps)")
    ap.add_argument("--maps", type=int, default=150)
    ap.add_argument("--mutations", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if shutil.which("crushtool") is None:
        return oracle.skip_or_fail("Ceph crushtool not found")
    crushkit = os.path.abspath(a.crushkit)
    inputs = []
    if a.corpus:
        d = os.path.join(a.corpus, "ceph-cli-tests", "pacific", "crushtool")
        for p in sorted(glob.glob(d + "/*.txt") + glob.glob(d + "/*.crush")):
            inputs.append((os.path.basename(p), open(p).read()))
        with tempfile.TemporaryDirectory() as wd:
            bins = sorted(glob.glob(d + "/*.crushmap") + glob.glob(d + "/crush-classes/*") +
                          glob.glob(d + "/simple.template*") + glob.glob(d + "/tree.template*") +
                          glob.glob(d + "/multitype.*"))
            for p in bins:
                rc, out, _ = run(["crushtool", "-d", p], wd)
                if rc == 0:
                    inputs.append((os.path.basename(p) + ".d", out.decode()))
    for i in range(a.maps):
        inputs.append(("random-%d-%d" % (a.seed, i), gen_maps.generate(a.seed, i, oddities=True)))
    rng = random.Random(a.seed)
    base = list(inputs)
    for i in range(a.mutations):
        name, text = rng.choice(base)
        inputs.append(("%s~mut%d" % (name, i), mutate(text, rng)))
    counts = {}
    failures = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for kind, msg in ex.map(check, [(n, t, crushkit) for n, t in inputs]):
            counts[kind] = counts.get(kind, 0) + 1
            if kind == "fail":
                failures.append(msg)
            elif msg and a.verbose:
                print(kind + ": " + msg)
    for f in failures[:20]:
        print("FAIL " + f)
    print("compile_diff: %d inputs: %s" % (len(inputs), ", ".join("%s=%d" % kv for kv in sorted(counts.items()))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
