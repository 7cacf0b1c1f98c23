#!/usr/bin/env python3
"""Generates samples/cluster/: a realistic mid-size Ceph Pacific cluster as an
operator would export it (`ceph osd dump -f json`, `crushtool -d` of the crush
map, `ceph pg dump -f json`, `ceph osd df -f json`, `ceph df -f json`), and
checks it against Ceph's own crushtool and osdmaptool.

Deterministic: the same --seed gives the same bytes (no clocks, no
randomness but random.Random(seed); Ceph's tools are used only where their
output is deterministic).

Usage: make_sample.py [--crushkit build/tools/crushkit] [--out DIR] [--seed N]
       make_sample.py --check [--crushkit ...]   regenerate into a temporary
           folder and compare with the checked-in files (exit 1 on a
           difference; 77 when crushtool/osdmaptool are missing, 1 then if
           CRUSHKIT_REQUIRE_ORACLE is set)
Needs crushtool and osdmaptool (Ceph 16.2) on PATH and a built crushkit.

Steps:
  1. geometry: 3 racks, 14 hosts of 8-16 HDDs (4/8/12 TB) + 2 SSDs in 6 hosts;
  2. crush map text -> `crushtool -c` -> `crushtool -d` = crush.txt (so the
     text is exactly what crushtool prints; checked to recompile to the same
     bytes);
  3. osdmaptool --createsimple 2048 --pg-bits 0 gives pool 1 with 2048 PGs,
     the sample's rbd pool; OSD marks persisted with --import-crush; the
     upmap balancer (--upmap --upmap-max 8 --save) makes the rbd pool's
     pg_upmap_items;
  4. osd-dump.json: four pools, OSD states (one down+out, one up+out, one
     down+in), the balancer's items plus one hand-made EC item;
  5. `crushkit import` + `crushkit map-pgs` give each PG's up set; PG sizes are
     drawn lognormal; each OSD's use is the sum of the shards it holds (for
     the down OSD: what it held before it went down), so osd-df.json and
     df.json agree with pg-dump.json;
  6. checks: crushkit imports all five files and maps every PG; for the rbd
     pool osdmaptool --test-map-pgs-dump-all on the balancer's map gives the
     same up sets as crushkit (the down OSD, which osdmaptool cannot mark,
     removed from them as OSDMap::_raw_to_up does); for the ssd rule a
     stand-in osdmaptool pool (id 1, rule 1, 256 PGs) is compared the same way.
"""

import argparse
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import uuid

TIMEOUT = 60
KIB = 1024
GIB = 1 << 30
TIB = 1 << 40
NONE = 2147483647

# Device sizes in bytes as the drives report them (sector counts of common
# 4/8/12 TB HDDs and a 1.92 TB SSD).
HDD_BYTES = {4: 4000787030016, 8: 8001563222016, 12: 12000138625024}
SSD_BYTES = 1920383410176

# Fixed clocks: the sample must not change with the day it is generated.
STAMP = "2026-11-30T08:41:07.120644+0000"
CREATED = "2021-03-15T10:22:41.913546+0000"
EPOCH = 48213

# Pools: id, name, type, size, min_size, rule, pg_num.
RBD, EC, INDEX, HEALTH = 1, 2, 3, 4


def sh(cmd, cwd, check=True):
    env = dict(os.environ)
    env["CEPH_ARGS"] = "--crash_dir=" + tempfile.mkdtemp(prefix="ceph-crash-")
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=TIMEOUT)
    if check and p.returncode != 0:
        sys.exit("make_sample: %s failed (rc %d): %s" % (" ".join(cmd), p.returncode,
                                                          p.stderr.decode()[-2000:]))
    return p


def f32(x):
    """Ceph keeps the full ratios as floats and prints them as doubles."""
    return struct.unpack("f", struct.pack("f", x))[0]


def weight_text(nbytes):
    """A device's CRUSH weight (its size in TiB) as Ceph 16's `crushtool -d`
    prints it: three decimals."""
    return "%.3f" % (nbytes / TIB)


def w16(nbytes):
    """The 16.16 weight `crushtool -c` makes of weight_text(nbytes):
    (unsigned)(strtof(text) * (float)0x10000), CrushCompiler's conversion."""
    return int(f32(float(weight_text(nbytes))) * 0x10000)


# ---------------------------------------------------------------- geometry

def make_geometry(rng):
    """Hosts in deployment order: dicts name, rack, osds [(id, class, bytes)]."""
    while True:
        hosts = []
        for rack, count in ((0, 5), (1, 5), (2, 4)):
            for i in range(1, count + 1):
                # The first generation (one host in racks 0 and 1) is 16 bays
                # of 4 TB; later hosts have 12-14 bays of 8 TB or 10-12 of 12 TB.
                size = 4 if (i == 1 and rack < 2) else rng.choice([8, 8, 12, 12, 12])
                hdds = rng.choice({4: [16], 8: [12, 14], 12: [10, 12]}[size])
                hosts.append({"name": "node-r%d-%d" % (rack, i), "rack": rack,
                              "hdds": hdds, "size": size, "ssds": 2 if i <= 2 else 0})
        total = sum(h["hdds"] + h["ssds"] for h in hosts)
        if 165 <= total <= 195:
            break
    # One old 4 TB host had two failed drives replaced by 8 TB ones.
    old = [h for h in hosts if h["size"] == 4]
    mixed = old[0]["name"] if old else None
    # OSD ids in deployment order: rack by rack in turn (r0-1, r1-1, r2-1,
    # r0-2, ...), HDDs before SSDs.
    order = sorted(hosts, key=lambda h: (int(h["name"].split("-")[2]), h["rack"]))
    next_id = 0
    for h in order:
        h["osds"] = []
        for j in range(h["hdds"]):
            size = 8 if (h["name"] == mixed and j in (3, 7)) else h["size"]
            h["osds"].append((next_id, "hdd", HDD_BYTES[size]))
            next_id += 1
        for _ in range(h["ssds"]):
            h["osds"].append((next_id, "ssd", SSD_BYTES))
            next_id += 1
    return hosts, next_id


def crush_source(hosts):
    out = ["# begin crush map"]
    out += ["tunable choose_local_tries 0", "tunable choose_local_fallback_tries 0",
            "tunable choose_total_tries 50", "tunable chooseleaf_descend_once 1",
            "tunable chooseleaf_vary_r 1", "tunable chooseleaf_stable 1",
            "tunable straw_calc_version 1", "tunable allowed_bucket_algs 54", "",
            "# devices"]
    devices = sorted(o for h in hosts for o in h["osds"])
    out += ["device %d osd.%d class %s" % (i, i, c) for i, c, _ in devices]
    out += ["", "# types"]
    for i, t in enumerate(["osd", "host", "chassis", "rack", "row", "pdu", "pod", "room",
                           "datacenter", "zone", "region", "root"]):
        out.append("type %d %s" % (i, t))
    out += ["", "# buckets"]
    bucket_id = -2
    for h in hosts:
        out += ["host %s {" % h["name"], "\tid %d" % bucket_id, "\talg straw2", "\thash 0"]
        bucket_id -= 1
        out += ["\titem osd.%d weight %s" % (i, weight_text(b)) for i, _, b in h["osds"]]
        out.append("}")
    for rack in range(3):
        out += ["rack rack%d {" % rack, "\tid %d" % bucket_id, "\talg straw2", "\thash 0"]
        bucket_id -= 1
        out += ["\titem %s" % h["name"] for h in hosts if h["rack"] == rack]
        out.append("}")
    out += ["root default {", "\tid -1", "\talg straw2", "\thash 0"]
    out += ["\titem rack%d" % r for r in range(3)]
    out += ["}", "", "# rules"]
    out += ["rule replicated_hdd {", "\tid 0", "\ttype replicated", "\tmin_size 1",
            "\tmax_size 10", "\tstep take default class hdd",
            "\tstep chooseleaf firstn 0 type host", "\tstep emit", "}"]
    out += ["rule replicated_ssd {", "\tid 1", "\ttype replicated", "\tmin_size 1",
            "\tmax_size 10", "\tstep take default class ssd",
            "\tstep chooseleaf firstn 0 type host", "\tstep emit", "}"]
    out += ["rule ec42_hdd {", "\tid 2", "\ttype erasure", "\tmin_size 3", "\tmax_size 6",
            "\tstep set_chooseleaf_tries 5", "\tstep set_choose_tries 100",
            "\tstep take default class hdd", "\tstep chooseleaf indep 0 type host",
            "\tstep emit", "}", "", "# end crush map", ""]
    return "\n".join(out)


# ------------------------------------------------------------- osdmaptool

def osdmaptool_map(work, name, pg_num, marks_out, crush="crush.bin", extra=()):
    """Builds an osdmaptool map with pool 1 of pg_num PGs over `crush`:
    every OSD up and in except marks_out (up, out). Returns the map's --dump
    json."""
    args = ["osdmaptool", "--createsimple", str(pg_num), "--with-default-pool",
            "--pg-bits", "0", "--pgp-bits", "0", "--clobber", name] + list(extra)
    sh(args, work)
    # Marks persist when something else makes osdmaptool write the map;
    # re-importing the same crush map is that something. One --mark-out a run.
    sh(["osdmaptool", name, "--mark-up-in", "--import-crush", crush], work)
    for osd in marks_out:
        sh(["osdmaptool", name, "--mark-out", str(osd), "--import-crush", crush], work)
    out = sh(["osdmaptool", name, "--dump", "json"], work).stdout.decode()
    return json.loads(out[out.index("{"):])


def osdmaptool_up(work, name, pool):
    out = sh(["osdmaptool", name, "--test-map-pgs-dump-all", "--pool", str(pool)],
             work).stdout.decode()
    ups = {}
    for line in out.splitlines():
        parts = line.split(" ")
        if len(parts) > 4 and parts[1] == "raw" and "." in parts[0]:
            up = line[line.index(" up (") + 5:line.index(") acting")]
            osds, primary = up.rsplit(", p", 1)
            ups[parts[0]] = (json.loads(osds), int(primary))
    return ups


# -------------------------------------------------------------- osd dump

def addrvec(ip, port, nonce):
    return {"addrvec": [{"type": "v2", "addr": "%s:%d" % (ip, port), "nonce": nonce},
                        {"type": "v1", "addr": "%s:%d" % (ip, port + 1), "nonce": nonce}]}


def osd_entry(rng, osd, host_index, slot, st):
    up, inn = st["up"], st["in"]
    nonce = rng.randrange(1000, 4000000)
    # Documentation address ranges (RFC 5737): public 198.51.100.x, cluster
    # 203.0.113.x.
    pub, clu = "198.51.100.%d" % (11 + host_index), "203.0.113.%d" % (11 + host_index)
    port = 6800 + 8 * slot
    dead = st.get("dead", False)
    empty = {"addrvec": []}
    unknown = "(unrecognized address family 0)/0"
    e = {"osd": osd, "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
         "up": 1 if up else 0, "in": 1 if inn else 0, "weight": 1 if inn else 0,
         "primary_affinity": 1,
         "last_clean_begin": 0 if up else st["clean_begin"],
         "last_clean_end": 0 if up else st["down_at"] - 1,
         "up_from": st["up_from"], "up_thru": st["up_thru"],
         "down_at": st.get("down_at", 0), "lost_at": 0,
         "public_addrs": empty if dead else addrvec(pub, port, nonce),
         "cluster_addrs": empty if dead else addrvec(clu, port, nonce),
         "heartbeat_back_addrs": empty if dead else addrvec(clu, port + 4, nonce),
         "heartbeat_front_addrs": empty if dead else addrvec(pub, port + 4, nonce),
         "public_addr": unknown if dead else "%s:%d/%d" % (pub, port + 1, nonce),
         "cluster_addr": unknown if dead else "%s:%d/%d" % (clu, port + 1, nonce),
         "heartbeat_back_addr": unknown if dead else "%s:%d/%d" % (clu, port + 5, nonce),
         "heartbeat_front_addr": unknown if dead else "%s:%d/%d" % (pub, port + 5, nonce),
         "state": ["exists", "up"] if up else ["exists"]}
    return e


def pool_entry(pid, name, ptype, size, min_size, rule, pg_num, app, profile="",
               stripe_width=0, flags=1, flags_names="hashpspool", snaps="", last_change=0):
    return {
        "pool": pid, "pool_name": name, "create_time": CREATED, "flags": flags,
        "flags_names": flags_names, "type": ptype, "size": size, "min_size": min_size,
        "crush_rule": rule, "peering_crush_bucket_count": 0, "peering_crush_bucket_target": 0,
        "peering_crush_bucket_barrier": 0, "peering_crush_bucket_mandatory_member": NONE,
        "object_hash": 2, "pg_autoscale_mode": "warn", "pg_num": pg_num,
        "pg_placement_num": pg_num, "pg_placement_num_target": pg_num,
        "pg_num_target": pg_num, "pg_num_pending": pg_num,
        "last_pg_merge_meta": {"source_pgid": "0.0", "ready_epoch": 0, "last_epoch_started": 0,
                               "last_epoch_clean": 0, "source_version": "0'0",
                               "target_version": "0'0"},
        "last_change": str(last_change), "last_force_op_resend": "0",
        "last_force_op_resend_prenautilus": "0", "last_force_op_resend_preluminous": "0",
        "auid": 0, "snap_mode": snaps or "pool", "snap_seq": 0, "snap_epoch": 0,
        "pool_snaps": [], "removed_snaps": "[]", "quota_max_bytes": 0, "quota_max_objects": 0,
        "tiers": [], "tier_of": -1, "read_tier": -1, "write_tier": -1, "cache_mode": "none",
        "target_max_bytes": 0, "target_max_objects": 0, "cache_target_dirty_ratio_micro": 400000,
        "cache_target_dirty_high_ratio_micro": 600000, "cache_target_full_ratio_micro": 800000,
        "cache_min_flush_age": 0, "cache_min_evict_age": 0, "erasure_code_profile": profile,
        "hit_set_params": {"type": "none"}, "hit_set_period": 0, "hit_set_count": 0,
        "use_gmt_hitset": True, "min_read_recency_for_promote": 0,
        "min_write_recency_for_promote": 0, "hit_set_grade_decay_rate": 0,
        "hit_set_search_last_n": 0, "grade_table": [], "stripe_width": stripe_width,
        "expected_num_objects": 0, "fast_read": False, "options": {},
        "application_metadata": {app: {}}}


POOLS = [  # id, name, type, size, min_size, rule, pg_num, application
    (RBD, "rbd", 1, 3, 2, 0, 2048, "rbd"),
    (EC, "default.rgw.buckets.data", 3, 6, 5, 2, 2048, "rgw"),
    (INDEX, "default.rgw.buckets.index", 1, 3, 2, 1, 256, "rgw"),
    (HEALTH, "device_health_metrics", 1, 3, 2, 0, 1, "mgr_devicehealth"),
]


def osd_dump(rng, hosts, max_osd, states, upmap_items):
    osds, xinfo = [], []
    for hi, h in enumerate(sorted(hosts, key=lambda h: h["osds"][0][0])):
        for slot, (osd, _, _) in enumerate(h["osds"]):
            osds.append(osd_entry(rng, osd, hi, slot, states[osd]))
    osds.sort(key=lambda e: e["osd"])
    for e in osds:
        st = states[e["osd"]]
        xinfo.append({"osd": e["osd"],
                      "down_stamp": st.get("down_stamp", "0.000000"),
                      "laggy_probability": 0, "laggy_interval": 0,
                      "features": 4540138297136906239, "old_weight": 0,
                      "last_purged_snaps_scrub": "2026-11-29T21:13:52.401872+0000",
                      "dead_epoch": st.get("down_at", 0)})
    pools = []
    for pid, name, ptype, size, min_size, rule, pg_num, app in POOLS:
        if ptype == 3:
            pools.append(pool_entry(pid, name, ptype, size, min_size, rule, pg_num, app,
                                    profile="ec-4-2-hdd", stripe_width=16384,
                                    last_change=41877))
        elif pid == RBD:
            pools.append(pool_entry(pid, name, ptype, size, min_size, rule, pg_num, app,
                                    flags=8193, flags_names="hashpspool,selfmanaged_snaps",
                                    snaps="selfmanaged", last_change=47990))
        else:
            pools.append(pool_entry(pid, name, ptype, size, min_size, rule, pg_num, app,
                                    last_change=31204 + pid))
    return {
        "epoch": EPOCH, "fsid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "created": CREATED, "modified": STAMP,
        "last_up_change": "2026-11-30T08:39:55.871023+0000",
        "last_in_change": "2026-11-28T14:02:31.550918+0000",
        "flags": "sortbitwise,recovery_deletes,purged_snapdirs,pglog_hardlimit",
        "flags_num": 5799936,
        "flags_set": ["pglog_hardlimit", "purged_snapdirs", "recovery_deletes", "sortbitwise"],
        "crush_version": 187, "full_ratio": f32(0.95), "backfillfull_ratio": f32(0.90),
        "nearfull_ratio": f32(0.85), "cluster_snapshot": "", "pool_max": HEALTH,
        "max_osd": max_osd, "require_min_compat_client": "luminous",
        "min_compat_client": "luminous", "require_osd_release": "pacific",
        "pools": pools, "osds": osds, "osd_xinfo": xinfo, "pg_upmap": [],
        "pg_upmap_items": [{"pgid": pg, "mappings": [{"from": a, "to": b} for a, b in pairs]}
                           for pg, pairs in sorted(upmap_items.items(), key=lambda kv: pg_key(kv[0]))],
        "pg_temp": [], "primary_temp": [], "blocklist": {}, "range_blocklist": {},
        "erasure_code_profiles": {
            "default": {"k": "2", "m": "2", "plugin": "jerasure", "technique": "reed_sol_van"},
            "ec-4-2-hdd": {"crush-device-class": "hdd", "crush-failure-domain": "host",
                           "crush-root": "default", "jerasure-per-chunk-alignment": "false",
                           "k": "4", "m": "2", "plugin": "jerasure",
                           "technique": "reed_sol_van", "w": "8"}},
        "removed_snaps_queue": [], "new_removed_snaps": [], "new_purged_snaps": [],
        "crush_node_flags": {}, "device_class_flags": {},
        "stretch_mode": {"stretch_mode_enabled": False, "stretch_bucket_count": 0,
                         "degraded_stretch_mode": 0, "recovering_stretch_mode": 0,
                         "stretch_mode_bucket": 0}}


def pg_key(pgid):
    pool, seed = pgid.split(".")
    return (int(pool), int(seed, 16))


# ------------------------------------------------------------- crushkit

def crushkit_map(crushkit, work, dump, name, extra=()):
    with open(os.path.join(work, name + ".json"), "w") as f:
        json.dump(dump, f)
    sh([crushkit, "import", "--osdmap", name + ".json", "--crush", "crush.txt",
        "-o", name + ".pb"] + list(extra), work)
    rows = json.loads(sh([crushkit, "map-pgs", name + ".pb", "--json"], work).stdout)
    return {r["pgid"]: r for r in rows}


# ------------------------------------------------------------- PG stats

def lognormal_sizes(rng, n, total, sigma):
    w = [rng.lognormvariate(0.0, sigma) for _ in range(n)]
    s = sum(w)
    return [int(total * x / s) for x in w]


def make_pg_stats(rng, hdd_in_bytes, ssd_bytes, target_fill):
    """Per-PG {bytes, objects, omap_bytes, omap_keys} by pool."""
    # Raw HDD bytes to place: target fill less ~0.7% BlueStore metadata.
    raw = hdd_in_bytes * (target_fill - 0.007)
    rbd_total = raw * 0.42 / 3
    ec_total = raw * 0.58 / 1.5
    stats = {}
    for ps, b in enumerate(lognormal_sizes(rng, 2048, rbd_total, 0.25)):
        objs = max(1, int(b / (3.3 * 1024 * 1024)))
        stats["%d.%x" % (RBD, ps)] = (b, objs, rng.randrange(20000, 90000), rng.randrange(40, 400))
    for ps, b in enumerate(lognormal_sizes(rng, 2048, ec_total, 0.18)):
        objs = max(1, int(b / (1.7 * 1024 * 1024)))
        stats["%d.%x" % (EC, ps)] = (b, objs, 0, 0)
    for ps, omap in enumerate(lognormal_sizes(rng, 256, ssd_bytes * 0.11 / 3, 0.55)):
        objs = rng.randrange(20, 60)
        stats["%d.%x" % (INDEX, ps)] = (0, objs, omap, omap // 260)
    stats["%d.0" % HEALTH] = (0, 183, 31 * 1024 * 1024, 91000)
    return stats


def shard_bytes(pool, b, objs):
    """Bytes one OSD stores for a PG: a replica, or one EC 4+2 shard
    (num_bytes / k plus half a 4 KiB chunk of padding per object)."""
    if pool == EC:
        return b // 4 + objs * 2048
    return b


# ---------------------------------------------------------------- main

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--crushkit", default=os.path.join(root, "build/tools/crushkit"))
    ap.add_argument("--out", default=here)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if not (shutil.which("crushtool") and shutil.which("osdmaptool")):
        # ctest SKIP on a developer's machine; a failure where CI requires
        # the oracle (tests/differential/oracle.py's convention).
        if os.environ.get("CRUSHKIT_REQUIRE_ORACLE"):
            sys.exit("make_sample: crushtool/osdmaptool not installed "
                     "(CRUSHKIT_REQUIRE_ORACLE is set)")
        print("make_sample: crushtool/osdmaptool not installed; skipped")
        sys.exit(77)
    crushkit = os.path.abspath(args.crushkit)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="crushkit-sample-")
    try:
        out = os.path.join(work, "out") if args.check else os.path.abspath(args.out)
        generate(rng, crushkit, work, out)
        if args.check:
            differ = [f for f in sorted(os.listdir(out))
                      if open(os.path.join(out, f), "rb").read() !=
                      open(os.path.join(here, f), "rb").read()]
            if differ:
                sys.exit("make_sample: regenerated files differ from the checked-in ones: "
                         + ", ".join(differ))
            print("make_sample: the checked-in sample regenerates byte for byte")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def generate(rng, crushkit, work, out_dir):
    hosts, max_osd = make_geometry(rng)
    by_id = {o[0]: (o, h) for h in hosts for o in h["osds"]}

    # 2. crush.txt is crushtool's own decompilation. Ceph 16 prints weights
    # with three decimals, so a decompiled map recompiles to slightly
    # different bucket weights; decompile/compile until the text is a fixed
    # point, as an operator's `crushtool -d` / `crushtool -c` round trip
    # would settle, and take the map compiled from that text as the cluster's.
    with open(os.path.join(work, "crush.txt"), "w") as f:
        f.write(crush_source(hosts))
    for _ in range(5):
        before_text = open(os.path.join(work, "crush.txt")).read()
        sh(["crushtool", "-c", "crush.txt", "-o", "crush.bin"], work)
        sh(["crushtool", "-d", "crush.bin", "-o", "crush.txt"], work)
        if open(os.path.join(work, "crush.txt")).read() == before_text:
            break
    else:
        sys.exit("make_sample: crushtool -d / -c did not reach a fixed point")

    # OSD states. A: a dead HDD, down and out for weeks. B: an HDD an
    # operator marked out (up, drained). C: an HDD that went down minutes ago
    # (still in; its PGs are degraded).
    hdd = [o[0] for h in hosts for o in h["osds"] if o[1] == "hdd"]
    a, b, c = rng.sample(hdd, 3)
    while len({by_id[x][1]["name"] for x in (a, b, c)}) < 3:
        a, b, c = rng.sample(hdd, 3)
    states = {}
    for osd in range(max_osd):
        up_from = rng.randrange(44000, 47000)
        states[osd] = {"up": True, "in": True, "up_from": up_from,
                       "up_thru": rng.randrange(max(up_from, 47900), EPOCH - 3)}
    states[a] = {"up": False, "in": False, "dead": True, "up_from": 39012, "up_thru": 46110,
                 "down_at": 46114, "clean_begin": 39015,
                 "down_stamp": "2026-11-09T03:17:26.402117+0000"}
    states[b].update({"in": False})
    states[c].update({"up": False, "down_at": EPOCH - 2, "clean_begin": states[c]["up_from"],
                      "down_stamp": "2026-11-30T08:39:55.871023+0000"})

    # 3. Mapping with C up and no upmap items. Its rbd pool is what
    # osdmaptool maps on its own map (pool 1, 2048 PGs, rule 0) with every
    # OSD but A and B up and in; osdmaptool cannot mark an OSD down.
    dump_rng = random.Random(rng.getrandbits(32))
    plain = osd_dump(random.Random(dump_rng.getrandbits(32)), hosts, max_osd, states, {})
    mark_up(plain, c)
    m0 = crushkit_map(crushkit, work, plain, "plain")
    osdmaptool_map(work, "om_rbd", 2048, [a, b])
    check_rbd_against_osdmaptool(work, m0)

    # 4. A few pg_upmap_items, as the upmap balancer's first round would
    # make them (Ceph's balancer picks its PGs at random, so osdmaptool's
    # would make the sample change from run to run).
    weights = {o: w16(by_id[o][0][2]) for o in hdd if o not in (a, b)}
    items = choose_upmap_items(rng, m0, weights, {o: by_id[o][1]["name"] for o in by_id}, c)
    dump = osd_dump(random.Random(dump_rng.getrandbits(32)), hosts, max_osd, states, items)
    # The same file with C up: where C's data was before it went down.
    dump_before = json.loads(json.dumps(dump))
    mark_up(dump_before, c)
    held = crushkit_map(crushkit, work, dump_before, "held")
    now = crushkit_map(crushkit, work, dump, "now")
    check_items_and_down_osd(m0, held, now, items, c)

    # 5. PG sizes and the use they make of each OSD.
    hdd_in = sum(by_id[o][0][2] for o in hdd if o not in (a, b))
    ssd_total = sum(o[2] for h in hosts for o in h["osds"] if o[1] == "ssd")
    stats = make_pg_stats(rng, hdd_in, ssd_total, 0.53)
    files = write_outputs(rng, out_dir, work, hosts, by_id, max_osd, dump, states, stats,
                          held, now, (a, b, c))
    sh([crushkit, "import", "--osdmap", "osd-dump.json", "--crush", "crush.txt", "--pg-stats",
        "pg-dump.json", "--osd-df", "osd-df.json", "--df", "df.json", "-o",
        os.path.join(work, "state.pb")], out_dir)
    final = json.loads(sh([crushkit, "map-pgs", os.path.join(work, "state.pb"), "--json"],
                          work).stdout)
    if {r["pgid"]: r for r in final} != now:
        sys.exit("make_sample: the written files map differently from the working state")

    write_ops(out_dir, hosts, states)

    # 6. The ssd and EC rules against osdmaptool, through stand-in pools.
    ssd = {o[0] for h in hosts for o in h["osds"] if o[1] == "ssd"}
    live_hdd = set(hdd) - {a, b}
    done = [check_rule_against_osdmaptool(crushkit, work, "replicated_ssd", 256, 3, (a, b), ssd),
            check_rule_against_osdmaptool(crushkit, work, "ec42_hdd", 2048, 6, (a, b), live_hdd)]
    print("oracle: osdmaptool and crushkit agree on rbd 2048/2048 PGs and stand-ins for "
          + ", ".join(done) + " PGs")
    print(files)


def write_outputs(rng, out_dir, work, hosts, by_id, max_osd, dump, states, stats, held, now,
                  marked):
    a, b, c = marked
    os.makedirs(out_dir, exist_ok=True)
    shutil.copyfile(os.path.join(work, "crush.txt"), os.path.join(out_dir, "crush.txt"))

    def write(name, obj):
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(json.dumps(obj, separators=(",", ":")) + "\n")

    write("osd-dump.json", dump)

    # Per-OSD use: every shard an OSD holds (for C, what it held when it
    # went down), plus BlueStore metadata.
    data = {o: 0 for o in range(max_osd)}
    omap = {o: 0 for o in range(max_osd)}
    for pg, (nbytes, objs, omap_bytes, _) in stats.items():
        pool = pg_key(pg)[0]
        for o in held[pg]["up"]:
            if o == NONE:
                continue
            data[o] += shard_bytes(pool, nbytes, objs)
            if pool != EC:
                omap[o] += omap_bytes
    nodes = []
    up_pgs = {o: 0 for o in range(max_osd)}
    for r in now.values():
        for o in r["up"]:
            if o != NONE:
                up_pgs[o] += 1
    for h in hosts:
        for osd, cls, size in sorted(h["osds"]):
            st = states[osd]
            if st.get("dead"):
                kb = used = used_data = used_omap = used_meta = 0
            else:
                kb = size // KIB
                used_data = data[osd] // KIB
                used_omap = omap[osd] // KIB
                used_meta = (int(1.2 * GIB) + rng.randrange(0, int(0.6 * GIB)) +
                             data[osd] // 400) // KIB
                used = used_data + used_omap + used_meta
            nodes.append({"id": osd, "device_class": cls, "name": "osd.%d" % osd, "type": "osd",
                          "type_id": 0, "crush_weight": w16(size) / 0x10000, "depth": 3,
                          "pool_weights": {}, "reweight": 1 if st["in"] else 0, "kb": kb,
                          "kb_used": used, "kb_used_data": used_data, "kb_used_omap": used_omap,
                          "kb_used_meta": used_meta, "kb_avail": kb - used,
                          "utilization": 100.0 * used / kb if kb else 0,
                          "var": 0, "pgs": up_pgs[osd], "status": "up" if st["up"] else "down"})
    tot_kb = sum(n["kb"] for n in nodes)
    tot_used = sum(n["kb_used"] for n in nodes)
    avg = 100.0 * tot_used / tot_kb
    vars_ = []
    for n in nodes:
        if n["kb"]:
            n["var"] = n["utilization"] / avg
            vars_.append(n["var"])
    dev = math.sqrt(sum((n["utilization"] - avg) ** 2 for n in nodes if n["kb"]) /
                    len(vars_))
    write("osd-df.json", {"nodes": nodes, "stray": [], "summary": {
        "total_kb": tot_kb, "total_kb_used": tot_used,
        "total_kb_used_data": sum(n["kb_used_data"] for n in nodes),
        "total_kb_used_omap": sum(n["kb_used_omap"] for n in nodes),
        "total_kb_used_meta": sum(n["kb_used_meta"] for n in nodes),
        "total_kb_avail": tot_kb - tot_used, "average_utilization": avg,
        "min_var": min(vars_), "max_var": max(vars_), "dev": dev}})

    write("pg-dump.json", pg_dump(rng, stats, now, held, nodes))
    write("df.json", ceph_df(stats, nodes, dump))

    fills = sorted(n["utilization"] for n in nodes
                   if n["device_class"] == "hdd" and n["reweight"] and n["kb"])
    ssd_fills = sorted(n["utilization"] for n in nodes if n["device_class"] == "ssd")
    return ("osds %d (hdd %d, ssd %d), hosts %d; hdd fill of in OSDs %.1f%%..%.1f%% "
            "(mean %.1f%%), ssd fill %.1f%%..%.1f%%; pg_upmap_items %d; marked: osd.%d "
            "down+out, osd.%d up+out, osd.%d down+in"
            % (len(nodes), sum(1 for n in nodes if n["device_class"] == "hdd"), len(ssd_fills),
               len(hosts), fills[0], fills[-1], sum(fills) / len(fills), ssd_fills[0],
               ssd_fills[-1], len(dump["pg_upmap_items"]), a, b, c))


def write_ops(out_dir, hosts, states):
    """The planner's three sample changes, naming this sample's hosts and
    OSDs (picked by rule, so they follow the geometry)."""
    nodes = json.load(open(os.path.join(out_dir, "osd-df.json")))["nodes"]
    live = [n for n in nodes if n["device_class"] == "hdd" and n["reweight"] and
            states[n["id"]]["up"]]
    host_of = {o[0]: h["name"] for h in hosts for o in h["osds"]}
    size = {8: weight_text(HDD_BYTES[8]), 12: weight_text(HDD_BYTES[12])}
    ops = {}
    ops["add-rack.ops"] = [
        "# Expansion: a fourth rack with three new hosts (8 TB and 12 TB HDDs; the",
        "# weights are the drives' size in TiB, as `ceph osd tree` shows the",
        "# existing ones). New OSDs take the next free ids.",
        "osd crush add-bucket rack3 rack root=default",
        "add-host node-r3-1 osds=12 weight=%s class=hdd rack=rack3" % size[8],
        "add-host node-r3-2 osds=12 weight=%s class=hdd rack=rack3" % size[8],
        "add-host node-r3-3 osds=10 weight=%s class=hdd rack=rack3" % size[12]]
    drain = next(h for h in hosts if h["rack"] == 1 and not h["ssds"])
    ops["drain-host.ops"] = [
        "# Decommission %s (%d HDDs): CRUSH weight 0 for the whole host, so its"
        % (drain["name"], len(drain["osds"])),
        "# data moves to the other hosts. Draining by marking its OSDs out instead",
        "# keeps the host's CRUSH weight and so moves data differently:",
        "#   " + "; ".join("osd out %d" % o[0] for o in drain["osds"]),
        "osd crush reweight-subtree %s 0" % drain["name"]]
    small = max((n for n in live if n["crush_weight"] < 4), key=lambda n: n["utilization"])
    big = max((n for n in live if n["crush_weight"] > 4 and n["id"] != small["id"]),
              key=lambda n: n["utilization"])
    other = next(n for n in live if host_of[n["id"]] not in (host_of[small["id"]],
                                                            host_of[big["id"]]))
    ops["reweight.ops"] = [
        "# Relieve the fullest OSDs and take one out for a disk check:",
        "# osd.%d is the fullest 4 TB HDD (%.1f%%): lower its CRUSH weight;"
        % (small["id"], small["utilization"]),
        "osd crush reweight osd.%d 3.0" % small["id"],
        "# osd.%d is the fullest larger HDD (%.1f%%): override reweight 0.85;"
        % (big["id"], big["utilization"]),
        "osd reweight %d 0.85" % big["id"],
        "# osd.%d (%s) goes out." % (other["id"], host_of[other["id"]]),
        "osd out %d" % other["id"]]
    for name, lines in ops.items():
        with open(os.path.join(out_dir, name), "w") as f:
            f.write("\n".join(lines) + "\n")


def pg_dump(rng, stats, now, held, nodes):
    pgs = []
    sums = {}
    for pg in sorted(stats, key=pg_key):
        nbytes, objs, omap_bytes, omap_keys = stats[pg]
        pool = pg_key(pg)[0]
        r = now[pg]
        size = len(held[pg]["up"])
        degraded = len([o for o in r["up"] if o != NONE]) < size
        state = "active+undersized+degraded" if degraded else "active+clean"
        if not degraded and rng.random() < 0.002:
            state = "active+clean+scrubbing+deep"
        lv = rng.randrange(1000, 400000)
        s = {"num_bytes": nbytes, "num_objects": objs, "num_object_copies": objs * size,
             "num_objects_degraded": objs if degraded else 0, "num_objects_misplaced": 0,
             "num_objects_unfound": 0, "num_omap_bytes": omap_bytes, "num_omap_keys": omap_keys}
        agg = sums.setdefault(pool, {k: 0 for k in s})
        for k, v in s.items():
            agg[k] += v
        pgs.append({"pgid": pg, "version": "%d'%d" % (EPOCH - rng.randrange(0, 900), lv),
                    "reported_epoch": EPOCH, "state": state, "stat_sum": s,
                    "up": r["up"], "acting": r["acting"], "up_primary": r["up_primary"],
                    "acting_primary": r["acting_primary"]})
    total = {k: sum(p[k] for p in sums.values()) for k in next(iter(sums.values()))}
    return {"pg_ready": True, "pg_map": {
        "version": 1937551, "stamp": STAMP, "last_osdmap_epoch": 0, "last_pg_scan": 0,
        "pg_stats_sum": {"stat_sum": total},
        "osd_stats_sum": {"kb": sum(n["kb"] for n in nodes),
                          "kb_used": sum(n["kb_used"] for n in nodes),
                          "kb_avail": sum(n["kb_avail"] for n in nodes)},
        "pg_stats": pgs,
        "pool_stats": [{"poolid": p, "num_pg": sum(1 for pg in stats if pg_key(pg)[0] == p),
                        "stat_sum": sums[p]} for p in sorted(sums)],
        "osd_stats": [{"osd": n["id"], "num_pgs": n["pgs"], "kb": n["kb"],
                       "kb_used": n["kb_used"], "kb_avail": n["kb_avail"]}
                      for n in sorted(nodes, key=lambda n: n["id"])]}}


def ceph_df(stats, nodes, dump):
    full = dump["full_ratio"]
    rules = {0: "hdd", 1: "ssd", 2: "hdd"}
    by_class = {}
    for n in nodes:
        c = by_class.setdefault(n["device_class"], {"total": 0, "avail": 0, "used": 0, "raw": 0})
        c["total"] += n["kb"] * KIB
        c["avail"] += n["kb_avail"] * KIB
        c["used"] += (n["kb_used_data"] + n["kb_used_omap"]) * KIB
        c["raw"] += n["kb_used"] * KIB

    def max_avail(cls, rate):
        # PGMap::get_rule_avail: the OSD that fills first bounds the pool.
        osds = [n for n in nodes if n["device_class"] == cls and n["reweight"] and n["kb"]]
        wsum = sum(n["crush_weight"] for n in osds)
        proj = min((n["kb_avail"] * KIB - (1 - full) * n["kb"] * KIB) /
                   (n["crush_weight"] / wsum) for n in osds)
        return max(0, int(proj / rate))

    pools = []
    for pid, name, ptype, size, _, rule, _, _ in POOLS:
        mine = [v for k, v in stats.items() if pg_key(k)[0] == pid]
        stored = sum(v[0] + v[2] for v in mine)
        objects = sum(v[1] for v in mine)
        rate = 1.5 if ptype == 3 else float(size)
        used = sum(shard_bytes(pid, v[0], v[1]) * 6 for v in mine) if ptype == 3 else \
            int(stored * rate)
        avail = max_avail(rules[rule], rate)
        pools.append({"name": name, "id": pid, "stats": {
            "stored": stored, "objects": objects, "kb_used": used // KIB, "bytes_used": used,
            "percent_used": used / (used + avail * rate) if used else 0.0,
            "max_avail": avail}})
    tot = {k: sum(c[k] for c in by_class.values()) for k in ("total", "avail", "used", "raw")}

    def block(c):
        return {"total_bytes": c["total"], "total_avail_bytes": c["avail"],
                "total_used_bytes": c["used"], "total_used_raw_bytes": c["raw"],
                "total_used_raw_ratio": c["raw"] / c["total"]}

    stats_block = block(tot)
    stats_block.update({"num_osds": len(nodes), "num_per_pool_osds": len(nodes),
                        "num_per_pool_omap_osds": len(nodes)})
    return {"stats": stats_block, "stats_by_class": {k: block(v) for k, v in sorted(by_class.items())},
            "pools": pools}


def mark_up(dump, osd):
    for e in dump["osds"]:
        if e["osd"] == osd:
            e["up"], e["state"] = 1, ["exists", "up"]


def choose_upmap_items(rng, m0, weights, host_of, down, count=8):
    """`count` single-pair items moving a PG shard from the HDD OSD with the
    most PG shards above its CRUSH-weight share to the one furthest below it
    whose host the PG does not use (calc_pg_upmaps' idea, without its
    randomness source), at most two items from one OSD and three to one.
    Skips the down OSD and PGs holding it."""
    shards = {o: 0 for o in weights}
    for r in m0.values():
        for o in r["up"]:
            if o in shards:
                shards[o] += 1
    total, wsum = sum(shards.values()), sum(weights.values())
    dev = {o: shards[o] - total * weights[o] / wsum for o in weights}
    items = {}
    used_from, used_to = {}, {}
    for _ in range(count):
        for over in sorted((o for o in dev if o != down and used_from.get(o, 0) < 2),
                           key=lambda o: -dev[o]):
            pgs = sorted((pg for pg, r in m0.items()
                          if over in r["up"] and down not in r["up"] and NONE not in r["up"]
                          and pg not in items and pg_key(pg)[0] in (RBD, EC)), key=pg_key)
            found = None
            for under in sorted((o for o in dev if o != down and used_to.get(o, 0) < 3),
                                key=lambda o: dev[o]):
                if dev[under] > -1:
                    break
                fits = [pg for pg in pgs if under not in m0[pg]["up"] and host_of[under] not in
                        {host_of[o] for o in m0[pg]["up"] if o != over}]
                if fits:
                    found = (rng.choice(fits), under)
                    break
            if found:
                pg, under = found
                items[pg] = [(over, under)]
                dev[over] -= 1
                dev[under] += 1
                used_from[over] = used_from.get(over, 0) + 1
                used_to[under] = used_to.get(under, 0) + 1
                break
    return items


def check_items_and_down_osd(m0, held, now, items, c):
    """With C up, the items replace `from` by `to` in place
    (OSDMap::_apply_upmap); with C down, a replicated pool drops C and an
    EC pool leaves a hole (OSDMap::_raw_to_up)."""
    for pg, r in held.items():
        want = list(m0[pg]["up"])
        for frm, to in items.get(pg, []):
            want[want.index(frm)] = to
        if r["up"] != want:
            sys.exit("make_sample: %s: up %s with upmap items, expected %s" % (pg, r["up"], want))
        if pg_key(pg)[0] == EC:
            down = [NONE if o == c else o for o in want]
            primary = next((o for o in down if o != NONE), -1)
        else:
            down = [o for o in want if o != c]
            primary = down[0] if down else -1
        if now[pg]["up"] != down or now[pg]["up_primary"] != primary:
            sys.exit("make_sample: %s: up with osd.%d down is %s, expected %s"
                     % (pg, c, now[pg]["up"], down))


def check_rbd_against_osdmaptool(work, m0):
    ups = osdmaptool_up(work, "om_rbd", RBD)
    if len(ups) != 2048:
        sys.exit("make_sample: osdmaptool mapped %d rbd PGs" % len(ups))
    for pg, (up, primary) in ups.items():
        if (m0[pg]["up"], m0[pg]["up_primary"]) != (up, primary):
            sys.exit("make_sample: %s: osdmaptool up %s p%d, crushkit %s p%d"
                     % (pg, up, primary, m0[pg]["up"], m0[pg]["up_primary"]))


def rule_block(text, name):
    start = text.index("rule %s {" % name)
    return start, text.index("}\n", start) + 2


def rule_as_rule_zero(text, name):
    """The crush text with rule `name` as rule 0 of type replicated and the
    old rule 0 in its place. Neither a rule's id nor its type enters
    crush_do_rule; OSDMap only looks the rule up by id, pool type and size."""
    rules = {}
    for rule in ("replicated_hdd", name):
        a, b = rule_block(text, rule)
        rules[rule] = text[a:b]
    own_id = rules[name].split("\tid ")[1].split("\n")[0]
    moved = rules[name].replace("\tid %s\n" % own_id, "\tid 0\n", 1).replace(
        "\ttype erasure\n", "\ttype replicated\n", 1)
    old_zero = rules["replicated_hdd"].replace("\tid 0\n", "\tid %s\n" % own_id, 1)
    a, b = rule_block(text, name)
    text = text[:a] + old_zero + text[b:]
    a, b = rule_block(text, "replicated_hdd")
    return text[:a] + moved + text[b:]


def check_rule_against_osdmaptool(crushkit, work, rule, pg_num, size, out_osds, allowed):
    """osdmaptool can make neither pools 2 and 3 nor pools on rules other
    than 0 (--createsimple picks the rule before --import-crush), nor EC
    pools. Stand-in: `rule` made rule 0 (rule_as_rule_zero), osdmaptool's
    pool 1 of pg_num PGs and `size` replicas on it, imported into crushkit
    from osdmaptool's own dump; the up sets must agree and stay in
    `allowed`. An EC pool's up set equals a replicated one's while no
    position is a hole, which the check also requires."""
    name = "om_" + rule
    text = rule_as_rule_zero(open(os.path.join(work, "crush.txt")).read(), rule)
    with open(os.path.join(work, name + ".txt"), "w") as f:
        f.write(text)
    sh(["crushtool", "-c", name + ".txt", "-o", name + ".bin"], work)
    om = osdmaptool_map(work, name, pg_num, list(out_osds), crush=name + ".bin",
                        extra=["--osd_pool_default_size", str(size)])
    if om["pools"][0]["size"] != size:
        sys.exit("make_sample: osdmaptool's stand-in pool has size %d" % om["pools"][0]["size"])
    with open(os.path.join(work, name + ".json"), "w") as f:
        json.dump(om, f)
    sh([crushkit, "import", "--osdmap", name + ".json", "--crush", name + ".txt", "-o",
        name + ".pb"], work)
    rows = json.loads(sh([crushkit, "map-pgs", name + ".pb", "--json"], work).stdout)
    ups = osdmaptool_up(work, name, 1)
    got = {r["pgid"]: (r["up"], r["up_primary"]) for r in rows}
    osds = {o for r in rows for o in r["up"]}
    if len(ups) != pg_num or got != ups or not osds <= allowed or \
            any(len(r["up"]) != size for r in rows):
        sys.exit("make_sample: rule %s stand-in pool: osdmaptool and crushkit differ" % rule)
    return "%s %d/%d" % (rule, len(ups), pg_num)


if __name__ == "__main__":
    main()
