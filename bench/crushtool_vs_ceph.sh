#!/usr/bin/env bash
# Side-by-side timing of `crushtool --test` (Ceph 16.2) and
# `crushkit crushtool --test` on a 10,000-OSD straw2 map, checking that both
# print identical output.
#
# Usage: bench/crushtool_vs_ceph.sh [CRUSHKIT_BINARY] [NUM_X] [RUNS]
#   CRUSHKIT_BINARY  default: build/tools/crushkit (the `release` preset; build it with
#                    cmake --preset release && cmake --build build --target crushkit)
#   NUM_X            inputs to map (default 1000000: --min-x 0 --max-x 999999)
#   RUNS             runs of each tool; the best is kept (default 1)
# Prints wall time and CPU time (user+sys) of the best run of each, the
# wall-time speed-up ratio as the headline (crushkit maps the x range on
# several threads: CRUSHKIT_THREADS=N forces N, 1 = single-threaded), the
# CPU-time ratio, and the load average before and after (wall times on a
# shared machine depend on it). Exit 1 if the outputs differ.
set -euo pipefail
# The oracle is Ceph 16.2: crushkit behaves as that release.
export CRUSHKIT_CEPH_RELEASE=pacific

crushkit=${1:-build/tools/crushkit}
num_x=${2:-1000000}
runs=${3:-1}
crushtool=${CRUSHTOOL:-crushtool}
if ! command -v "$crushtool" >/dev/null; then
  echo "crushtool (Ceph) not found; install ceph-base" >&2
  exit 1
fi
crushkit=$(readlink -f "$crushkit")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export CEPH_ARGS="--crash_dir=$work"

"$crushtool" --build --num_osds 10000 host straw2 10 rack straw2 20 root straw2 0 \
  -o big.bin >/dev/null

python3 - "$crushtool" "$crushkit" "$num_x" "$runs" <<'PY'
import filecmp, os, resource, subprocess, sys, time
crushtool, crushkit, num_x, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
args = ["-i", "big.bin", "--test", "--show-statistics", "--num-rep", "3",
        "--min-x", "0", "--max-x", str(num_x - 1)]
def best(cmd, out, err):
    cpu = wall = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        with open(out, "wb") as o, open(err, "wb") as e:
            subprocess.run(cmd, check=True, stdout=o, stderr=e)
        w = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        c = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu = c if cpu is None else min(cpu, c)
        wall = w if wall is None else min(wall, w)
    return cpu, wall
load_before = os.getloadavg()
ceph_cpu, ceph_wall = best([crushtool] + args, "ceph.out", "ceph.err")
ours_cpu, ours_wall = best([crushkit, "crushtool"] + args, "crushkit.out", "crushkit.err")
if not filecmp.cmp("ceph.out", "crushkit.out", shallow=False) or \
   not filecmp.cmp("ceph.err", "crushkit.err", shallow=False):
    print("OUTPUTS DIFFER", file=sys.stderr)
    sys.exit(1)
load_after = os.getloadavg()
print("map: 10000 OSDs (host straw2 10, rack straw2 20, root straw2), %d inputs x 3 replicas" % num_x)
print("cpus: %d online; load average %.2f before, %.2f after; CRUSHKIT_THREADS=%s" %
      (os.cpu_count(), load_before[0], load_after[0], os.environ.get("CRUSHKIT_THREADS", "(auto)")))
print("ceph crushtool:     %8.3f s wall  %8.3f s CPU (best of %d)" % (ceph_wall, ceph_cpu, runs))
print("crushkit crushtool: %8.3f s wall  %8.3f s CPU (best of %d)" % (ours_wall, ours_cpu, runs))
print("outputs identical; speed-up (wall): %.2fx   (CPU): %.2fx" %
      (ceph_wall / ours_wall, ceph_cpu / ours_cpu))
PY
cat ceph.out
