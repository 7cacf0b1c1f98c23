#!/usr/bin/env bash
# Compiles a 10,000-OSD text map with Ceph's `crushtool -c` and with
# `crushkit compile`, checks the outputs are byte-identical and prints the
# speed ratio (best CPU time, user+sys, of RUNS runs each; wall time is too
# noisy on shared machines). Then the same for decompiling the binary map
# (`crushtool -d` vs `crushkit decompile`, which also recompiles its text to
# check that it is lossless).
#
# Usage: bench/compile_vs_ceph.sh [path/to/crushkit] [RUNS]
# The map: crushtool --build --num_osds 10000 host straw2 10 rack straw2 20 root straw2 0, then -d.
set -euo pipefail
# The oracle is Ceph 16.2: crushkit behaves as that release.
export CRUSHKIT_CEPH_RELEASE=pacific
CRUSHKIT=$(realpath "${1:-build/tools/crushkit}")
RUNS=${2:-5}
command -v crushtool >/dev/null || { echo "crushtool (Ceph) not installed"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export CEPH_ARGS="--crash_dir=$WORK"
cd "$WORK"
crushtool --outfn built.bin --build --num_osds 10000 host straw2 10 rack straw2 20 root straw2 0 >/dev/null 2>&1
crushtool -d built.bin -o map.txt
python3 - "$CRUSHKIT" "$RUNS" <<'PY'
import os, resource, subprocess, sys
crushkit, runs = sys.argv[1], int(sys.argv[2])
def cpu(cmd):
    best = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = t if best is None else min(best, t)
    return best
ceph = cpu(["crushtool", "-c", "map.txt", "-o", "ceph.bin"])
ours = cpu([crushkit, "compile", "map.txt", "-o", "ours.bin"])
same = open("ceph.bin", "rb").read() == open("ours.bin", "rb").read()
print("map.txt: %d lines" % sum(1 for _ in open("map.txt")))
print("crushtool -c:     %.3f s CPU (best of %d)" % (ceph, runs))
print("crushkit compile: %.3f s CPU (best of %d)" % (ours, runs))
print("outputs identical: %s" % ("yes" if same else "NO"))
print("speedup: %.1fx" % (ceph / ours if ours > 0 else float("inf")))
dceph = cpu(["crushtool", "-d", "built.bin", "-o", "ceph.txt"])
dours = cpu([crushkit, "decompile", "built.bin", "-o", "ours.txt"])
dsame = open("ceph.txt", "rb").read() == open("ours.txt", "rb").read()
print("crushtool -d:       %.3f s CPU (best of %d)" % (dceph, runs))
print("crushkit decompile: %.3f s CPU (best of %d)" % (dours, runs))
print("outputs identical: %s" % ("yes" if dsame else "NO"))
print("decompile speedup: %.1fx" % (dceph / dours if dours > 0 else float("inf")))
sys.exit(0 if same and dsame else 1)
PY
