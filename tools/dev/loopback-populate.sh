#!/usr/bin/env bash
# Fill a loopback cluster (tools/dev/loopback-cluster.sh) with pools and real objects, so that a later change backfills:
#   loopback-populate.sh DIR [--rep-pgs 32] [--ec-pgs 16] [--objects 120] [--omap 24] [--no-upmap]
# - pool `rbd`: replicated, size 3 (min_size 2); pool `ec`: erasure-coded 2+1, profile ec21 with
#   crush-failure-domain=host (needs 3 hosts; --ec-pgs 0: no EC pool);
# - --objects objects per pool with sizes cycling 4 KiB .. 1 MiB (the EC pool gets half as many), --omap objects in
#   `rbd` carrying 8 omap keys each; written through librados (python3-rados, Debian's own binding);
# - PG logs kept short (osd_{min,max}_pg_log_entries 10, osd_pg_log_trim_min 5) and every object rewritten (an xattr)
#   until every PG holding objects has trimmed its log (log_start past 0'0): a PG whose log still covers its whole
#   history is log-recovered, not backfilled;
# - unless --no-upmap: one pg-upmap-items entry on a PG of `rbd` (the monitor validates it), so captures carry one;
# - then waits for active+clean (bounded: 300 s).
set -euo pipefail
die() { echo "loopback-populate.sh: $*" >&2; exit 1; }
[[ $# -ge 1 ]] || { sed -n '2,3p' "$0" | sed 's/^# //' >&2; exit 2; }
D=${1%/}; shift
[[ -x $D/ceph && -f $D/ceph.conf ]] || die "$D: not a loopback cluster (run loopback-cluster.sh start $D first)"
rep_pgs=32 ec_pgs=16 objects=120 omap=24 upmap=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --rep-pgs) rep_pgs=$2; shift 2 ;;
    --ec-pgs) ec_pgs=$2; shift 2 ;;
    --objects) objects=$2; shift 2 ;;
    --omap) omap=$2; shift 2 ;;
    --no-upmap) upmap=0; shift ;;
    *) die "unknown option $1" ;;
  esac
done
C=$D/ceph
here=$(cd "$(dirname "$0")" && pwd)

# Short PG logs, at runtime on every OSD and in the config database for restarts (not in ceph.conf, which would win
# over any later runtime change).
# (Every `ceph` call costs a Python start: on a loaded machine a second or more, so they are few.)
for opt in "osd_min_pg_log_entries 10" "osd_max_pg_log_entries 10" "osd_pg_log_trim_min 5"; do
  # shellcheck disable=SC2086
  $C config set osd $opt
done
$C tell 'osd.*' injectargs '--osd_min_pg_log_entries=10 --osd_max_pg_log_entries=10 --osd_pg_log_trim_min=5' \
  >/dev/null 2>&1

$C osd pool create rbd "$rep_pgs" "$rep_pgs" replicated >/dev/null 2>&1  # size 3: the cluster's default
$C osd pool application enable rbd rbd >/dev/null
if [[ $ec_pgs -gt 0 ]]; then
  $C osd erasure-code-profile set ec21 k=2 m=1 crush-failure-domain=host >/dev/null
  $C osd pool create ec "$ec_pgs" "$ec_pgs" erasure ec21 >/dev/null
  $C osd pool application enable ec rbd >/dev/null
fi
# No wait for the new PGs: librados writes wait for them to be active.

/usr/bin/python3 - "$D/ceph.conf" "$C" "$objects" "$omap" "$upmap" "$ec_pgs" <<'PY'
import json, subprocess, sys, time
import rados

conf, ceph, objects, omap, pin = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
with_ec = int(sys.argv[6]) > 0
sizes = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20]
cluster = rados.Rados(conffile=conf)
cluster.connect(timeout=30)
written = {"rbd": [], "ec": []} if with_ec else {"rbd": []}
total = 0
for pool, count in (("rbd", objects), ("ec", objects // 2))[:2 if with_ec else 1]:
    io = cluster.open_ioctx(pool)
    for i in range(count):
        name = f"obj-{i:04d}"
        size = sizes[i % len(sizes)]
        # Content differs per object so nothing dedups or compresses alike.
        io.write_full(name, (name.encode() * (size // len(name) + 1))[:size])
        written[pool].append(name)
        total += size
    if pool == "rbd":
        for i in range(omap):
            name = f"omap-{i:04d}"
            io.write_full(name, b"")
            with rados.WriteOpCtx() as op:
                io.set_omap(op, tuple(f"key{k}" for k in range(8)), tuple(b"v" * 100 for _ in range(8)))
                io.operate_write_op(op, name)
            written[pool].append(name)
    io.close()

def command(kind, **cmd):
    """A mon or mgr command through this librados session (no CLI start); JSON answer."""
    call = cluster.mon_command if kind == "mon" else cluster.mgr_command
    for _ in range(10):
        ret, out, err = call(json.dumps(dict(cmd, format="json")), b"", timeout=30)
        if ret == 0 and out:
            return json.loads(out)
        if ret != 0 and "wrong fsid" not in err:  # wrong fsid: sent before the monmap came
            sys.exit(f"loopback-populate.sh: {cmd['prefix']}: {err} ({ret})")
        time.sleep(0.5)
    sys.exit(f"loopback-populate.sh: {cmd['prefix']}: no answer")


def untrimmed():
    dump = command("mgr", prefix="pg dump", dumpcontents=["pgs"])
    stats = dump["pg_stats"] if isinstance(dump, dict) else dump
    return [p["pgid"] for p in stats
            if p["stat_sum"]["num_objects"] > 0 and p["log_start"] == "0'0" and not p["pgid"].startswith("1.")]

# Rewrite (an xattr per object, cheap) until every PG with objects has trimmed its log. The pg dump lags the OSDs by
# a few seconds (stats reports), so wait for it before deciding to write more.
rounds = 0
while True:
    time.sleep(3)
    left = untrimmed()
    if not left:
        break
    rounds += 1
    if rounds > 40:
        sys.exit(f"loopback-populate.sh: PG logs still untrimmed after 40 rewrite rounds: {left[:8]}")
    for pool, names in written.items():
        io = cluster.open_ioctx(pool)
        for _ in range(8):
            completions = [io.aio_setxattr(n, "gen", str(rounds).encode()) for n in names] \
                if hasattr(io, "aio_setxattr") else None
            if completions is None:
                for n in names:
                    io.set_xattr(n, "gen", str(rounds).encode())
            else:
                for c in completions:
                    c.wait_for_complete()
        io.close()
if pin:
    # One pg-upmap-items pin on rbd's first PG: replace its last up OSD by an OSD of a host outside its up set.
    osdmap = command("mon", prefix="osd dump")
    pool = next(p["pool"] for p in osdmap["pools"] if p["pool_name"] == "rbd")
    pgid = f"{pool}.0"
    brief = command("mgr", prefix="pg dump", dumpcontents=["pgs_brief"])
    up = next(p["up"] for p in (brief["pg_stats"] if isinstance(brief, dict) else brief) if p["pgid"] == pgid)
    tree = command("mon", prefix="osd tree")
    host_of = {c: n["name"] for n in tree["nodes"] if n["type"] == "host" for c in n.get("children", [])}
    spare = [o for o in sorted(host_of) if host_of[o] not in {host_of[u] for u in up}]
    if not spare:
        sys.exit("loopback-populate.sh: no OSD outside the up set's hosts for a pg-upmap-items pin (need more hosts)")
    subprocess.run([ceph, "osd", "pg-upmap-items", pgid, str(up[-1]), str(spare[0])], check=True,
                   capture_output=True)
cluster.shutdown()
print(f"wrote {sum(len(v) for v in written.values())} objects, {total / 1048576:.1f} MiB of data, "
      f"{rounds} rewrite rounds of 8 xattr updates each")
PY

"$here/loopback-wait-clean.sh" "$D" 300
$C df | sed -n '1,3p'
