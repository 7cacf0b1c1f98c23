#!/usr/bin/env bash
# Regenerates tests/diff_differential/data/mon_upmap_cleanup/: a real Ceph 16.2
# monitor's upmap cleanup after a CRUSH reweight, for mon_upmap_cleanup_test.py.
#
# What it does (a monitor on loopback from /work/shared/tools/ceph-mon-sandbox.sh,
# stopped by its pid on exit):
#   1. 24 OSDs (`ceph osd create`), 6 hosts x 4 (crushtool --build, straw2),
#      CRUSH weights 1.0 except osd.2/7/13/22 = 3.0 and osd.5/10/17 = 2.0,
#      `ceph osd setcrushmap`, `ceph osd in all`, pool 1 'p' replicated size 3,
#      64 PGs, rule `chooseleaf firstn 0 type host`.
#   2. The change is `ceph osd crush reweight osd.22 1.0`. Offline (osdmaptool
#      on a copy with every OSD up) the script finds, among the PGs whose raw
#      set the change alters, one where an upmap pair is valid before and puts
#      two OSDs of one host together after (the monitor must cancel it), one
#      with two pairs of which only one survives the change (the monitor must
#      rewrite it), and an unaffected PG whose upmap stays. All three go to the
#      monitor with `ceph osd pg-upmap-items`.
#   3. A = `ceph osd getmap` / `ceph osd dump -f json` before the change; the
#      change through the real CLI; B = the same after the monitor committed
#      it (with its clean_pg_upmaps); B.crush = `ceph osd getcrushmap`.
#   4. Every OSD of the monitor is down (no daemons), so the maps crushkit
#      reads are marked up and in with osdmaptool (`--mark-up-in
#      --import-crush OWN_CRUSH --save`, which changes nothing else):
#      A.osdmap, B.osdmap, and Bhand.osdmap = A with only B's crush map
#      imported (`osdmaptool --import-crush`, no cleanup: the hand-made
#      "after" state the monitor never saw).
#   5. truth.json: osdmaptool's up sets of A, B and Bhand
#      (--test-map-pgs-dump-all), the change, and the upmaps before and after
#      as the monitor left them.
# Needs root, ceph-mon (the sandbox installs it), crushtool and osdmaptool 16.2.
#
# Usage: tests/diff_differential/make_mon_upmap_case.sh [OUTDIR] [PORT]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/data/mon_upmap_cleanup}
mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")
PORT=${2:-46811}
SANDBOX=${SANDBOX:-/work/shared/tools/ceph-mon-sandbox.sh}
CHANGE_OSD=22
CHANGE_WEIGHT=1.0

D=$(mktemp -d)
mon_pid=
cleanup() {
  if [ -n "$mon_pid" ]; then kill "$mon_pid" 2>/dev/null || true; fi
  rm -rf "$D"
}
trap cleanup EXIT
export CEPH_ARGS="--crash_dir=$D/crash"
mon_pid=$(bash "$SANDBOX" "$D/mon" "$PORT" | tail -1)
ceph() { timeout 60 /usr/bin/ceph -c "$D/mon/ceph.conf" "$@"; }
cd "$D"
# On a loaded machine the monitor may still refuse commands ("problem getting
# command descriptions") after the sandbox's `ceph -s` answered.
for _ in $(seq 60); do ceph osd ls >/dev/null 2>&1 && break; sleep 0.5; done

for _ in $(seq 24); do ceph osd create >/dev/null; done
crushtool --build --num_osds 24 host straw2 4 root straw2 0 -o crush0.bin >/dev/null
for i in 2 7 13 22; do crushtool -i crush0.bin --reweight-item osd.$i 3.0 -o crush0.bin >/dev/null; done
for i in 5 10 17; do crushtool -i crush0.bin --reweight-item osd.$i 2.0 -o crush0.bin >/dev/null; done
ceph osd setcrushmap -i crush0.bin >/dev/null 2>&1
ceph osd in all >/dev/null 2>&1
ceph osd set-require-min-compat-client luminous >/dev/null 2>&1
ceph osd pool create p 64 64 replicated replicated_rule >/dev/null 2>&1
ceph osd pool set p size 3 >/dev/null 2>&1

# Marks every OSD of binary map $1 up and in, keeping its crush map.
mark_up() {
  osdmaptool "$1" --export-crush "$1.crush" >/dev/null 2>&1
  osdmaptool "$1" --mark-up-in --import-crush "$1.crush" --save >/dev/null 2>&1
}
# --test-map-pgs-dump-all of map $1, optionally with crush map $2 imported
# (into a copy: osdmaptool --import-crush writes the map it reads).
dump_all() {
  cp "$1" dump.tmp
  if [ $# -gt 1 ]; then
    osdmaptool dump.tmp --import-crush "$2" --test-map-pgs-dump-all 2>/dev/null
  else
    osdmaptool dump.tmp --test-map-pgs-dump-all 2>/dev/null
  fi
}

ceph osd getmap -o probe.osdmap >/dev/null 2>&1
mark_up probe.osdmap
osdmaptool probe.osdmap --export-crush probe.crush >/dev/null 2>&1
crushtool -i probe.crush --reweight-item osd.$CHANGE_OSD $CHANGE_WEIGHT -o probe_after.crush >/dev/null
dump_all probe.osdmap >raw_before.txt
dump_all probe.osdmap probe_after.crush >raw_after.txt

# Picks the three PGs and prints one `PG FROM TO [FROM TO]` line each.
python3 - raw_before.txt raw_after.txt >upmaps.txt <<'EOF'
import re, sys
def raw(path):
    sets = {}
    for line in open(path):
        m = re.match(r"(\d+\.[0-9a-f]+) raw \(\[([\d,]*)\]", line)
        if m:
            sets[m.group(1)] = [int(x) for x in m.group(2).split(",") if x]
    return sets
before, after = raw(sys.argv[1]), raw(sys.argv[2])
host = lambda osd: osd // 4  # crushtool --build: 4 OSDs per host, in order
def ok(s):
    return len({host(o) for o in s}) == len(s)
cancel = rewrite = keep = None
for pg in sorted(before, key=lambda p: int(p.split(".")[1], 16)):
    s, s2 = before[pg], after[pg]
    if s == s2:
        if keep is None:
            keep = (pg, [(s[0], t) for t in range(24) if t not in s and ok([t] + s[1:])][:1])
        continue
    stays = [o for o in s if o in s2]
    gone = [o for o in s if o not in s2]
    new = [o for o in s2 if o not in s]
    if cancel is None and stays and new:
        f = stays[0]
        for t in range(24):
            upmapped_before = [t if o == f else o for o in s]
            upmapped_after = [t if o == f else o for o in s2]
            if t not in s and t not in s2 and ok(upmapped_before) and not ok(upmapped_after):
                cancel = (pg, [(f, t)])
                break
        if cancel and cancel[0] == pg:
            continue
    if rewrite is None and stays and gone:
        f, g = stays[0], gone[0]
        for t in range(24):
            for u in range(24):
                b = [t if o == f else u if o == g else o for o in s]
                a = [t if o == f else o for o in s2]
                if len({t, u}) == 2 and t not in s + s2 and u not in s + s2 and ok(b) and ok(a):
                    rewrite = (pg, [(f, t), (g, u)])
                    break
            if rewrite:
                break
if not (cancel and rewrite and keep and keep[1]):
    sys.exit("no suitable PGs: %r %r %r" % (cancel, rewrite, keep))
for pg, pairs in (keep, cancel, rewrite):
    print(pg, " ".join("%d %d" % p for p in pairs))
EOF
while read -r pg pairs; do
  # shellcheck disable=SC2086
  ceph osd pg-upmap-items "$pg" $pairs >/dev/null 2>&1
done <upmaps.txt

# Waits until the monitor's epoch passes $1.
wait_epoch() {
  for _ in $(seq 100); do
    e=$(ceph osd dump -f json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["epoch"])')
    [ "$e" -gt "$1" ] && return 0
    sleep 0.2
  done
  echo "the monitor did not commit a new epoch" >&2
  exit 1
}

ceph osd dump -f json >A.json 2>/dev/null
ceph osd getmap -o A.osdmap >/dev/null 2>&1
epoch_a=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["epoch"])' A.json)
ceph osd crush reweight osd.$CHANGE_OSD $CHANGE_WEIGHT >/dev/null 2>&1
wait_epoch "$epoch_a"
ceph osd dump -f json >B.json 2>/dev/null
ceph osd getmap -o B.osdmap >/dev/null 2>&1
ceph osd getcrushmap -o B.crush >/dev/null 2>&1
kill "$mon_pid"
mon_pid=

mark_up A.osdmap
mark_up B.osdmap
cp A.osdmap Bhand.osdmap
osdmaptool Bhand.osdmap --import-crush B.crush --save >/dev/null 2>&1
dump_all A.osdmap >up_A.txt
dump_all B.osdmap >up_B.txt
dump_all Bhand.osdmap >up_Bhand.txt

python3 - "$CHANGE_OSD" "$CHANGE_WEIGHT" >truth.json <<'EOF'
import json, re, sys
def up(path):
    sets = {}
    for line in open(path):
        m = re.match(r"(\d+\.[0-9a-f]+) raw .* up \(\[([\d,]*)\]", line)
        if m:
            sets[m.group(1)] = [int(x) for x in m.group(2).split(",") if x]
    return sets
def upmaps(path):
    d = json.load(open(path))
    return {"pg_upmap_items": {e["pgid"]: [[m["from"], m["to"]] for m in e["mappings"]]
                               for e in d["pg_upmap_items"]},
            "pg_upmap": {e["pgid"]: e["osds"] for e in d["pg_upmap"]},
            "epoch": d["epoch"]}
print(json.dumps({
    "change": "osd crush reweight osd.%s %s" % (sys.argv[1], sys.argv[2]),
    "monitor_before": upmaps("A.json"),
    "monitor_after": upmaps("B.json"),
    "up": {"A": up("up_A.txt"), "B": up("up_B.txt"), "Bhand": up("up_Bhand.txt")},
}, indent=1, sort_keys=True))
EOF

cp A.json B.json B.crush A.osdmap B.osdmap Bhand.osdmap truth.json "$OUT/"
echo "wrote $OUT (upmaps set: $(tr '\n' ';' <upmaps.txt))"
