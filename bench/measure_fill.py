#!/usr/bin/env python3
"""Ceph's view of a balancer's result, by bytes: from Ceph's own mappings
(`osdmaptool MAP --test-map-pgs-dump-all`) of the map before and a saved map
after, the PG sizes (`ceph pg dump -f json`) and the fill before (`ceph osd
df -f json`), computes for the map after:

  * per device class: fullest and emptiest %USE and the spread, over the up
    and in OSDs with a capacity; an OSD's use after is its `osd df` kb_used
    plus the shards it gains minus those it loses (a shard: num_bytes +
    num_omap_bytes, / k for EC);
  * per pool: MAX AVAIL as `ceph df` computes it (PGMap::get_rule_avail:
    min over the rule's in OSDs of (kb_avail - kb x (1 - full_ratio)) x 1024
    / the OSD's share of the rule's CRUSH weight, / raw_used_rate), and the
    PG deviation: max |PGs in up sets - CRUSH-weight x reweight target| over
    the up and in OSDs (what calc_pg_upmaps compares with max_deviation).

A rule's OSDs are those of its take's device class (`root~class`), else
all; its shares are CRUSH weights over their sum (one take of the whole
tree, as in the bench clusters). Prints one JSON object.

Usage: measure_fill.py BEFORE.pgs AFTER.pgs OSDMAP-DUMP.json CRUSH-DUMP.json PGDUMP.json OSDDF.json
"""
import collections
import json
import re
import sys

NONE = 2147483647


def mapping(path):
    text = open(path).read()
    up = {}
    for pgid, osds in re.findall(
            r"^(\d+\.[0-9a-f]+) raw \(\[[^]]*\], p-?\d+\) up \(\[([^]]*)\]", text, re.M):
        up[pgid] = [int(o) for o in osds.split(",") if o and int(o) != NONE]
    table = {int(m[0]): (float(m[1]), float(m[2])) for m in
             re.findall(r"^osd\.(\d+)\t\d+\t\d+\t\d+\t(\S+)\t(\S+)$", text, re.M)}
    return up, table


def main():
    before_pgs, after_pgs, dump_path, crush_path, pg_path, df_path = sys.argv[1:7]
    up0, table = mapping(before_pgs)
    up1, _ = mapping(after_pgs)
    dump = json.load(open(dump_path))
    crush = json.load(open(crush_path))
    pgdump = json.load(open(pg_path))
    stats = pgdump.get("pg_stats") or pgdump["pg_map"]["pg_stats"]
    nodes = json.load(open(df_path))["nodes"]
    pools = {p["pool"]: p for p in dump["pools"]}
    profiles = dump.get("erasure_code_profiles", {})
    full_ratio = dump.get("full_ratio") or 0.95
    osd_state = {o["osd"]: o for o in dump["osds"]}
    klass = {d["id"]: d.get("class", "") for d in crush["devices"]}

    def k_of(pool):
        if pool["type"] == 3:
            return int(profiles[pool["erasure_code_profile"]]["k"])
        return 1

    shard = {}
    for s in stats:
        pool = pools[int(s["pgid"].split(".")[0])]
        ss = s["stat_sum"]
        shard[s["pgid"]] = (ss.get("num_bytes", 0) + ss.get("num_omap_bytes", 0)) / k_of(pool)
    delta = collections.Counter()
    for pgid, osds in up0.items():
        for o in osds:
            delta[o] -= shard.get(pgid, 0)
    for pgid, osds in up1.items():
        for o in osds:
            delta[o] += shard.get(pgid, 0)

    def active(o):
        st = osd_state.get(o, {})
        return st.get("up") == 1 and st.get("in") == 1

    usage = {}
    for n in nodes:
        if n["kb"] <= 0:
            continue
        d = delta[n["id"]] / 1024
        usage[n["id"]] = (n["kb"], n["kb_used"] + d, n["kb_avail"] - d)

    by_class = collections.defaultdict(list)
    for o, (kb, used, _) in usage.items():
        if active(o):
            by_class[klass.get(o, "")].append((100.0 * used / kb, o))
    classes = {}
    for c, v in sorted(by_class.items()):
        v.sort()
        classes[c or "(none)"] = {"osds": len(v), "fullest_pct": v[-1][0], "fullest_osd": v[-1][1],
                                  "emptiest_pct": v[0][0], "emptiest_osd": v[0][1],
                                  "spread": v[-1][0] - v[0][0]}

    rules = {r["rule_id"]: r for r in crush["rules"]}
    out_pools = {}
    counts = collections.defaultdict(collections.Counter)
    for pgid, osds in up1.items():
        for o in osds:
            counts[int(pgid.split(".")[0])][o] += 1
    for pid, pool in sorted(pools.items()):
        rule = rules.get(pool["crush_rule"])
        take = next((s.get("item_name", "") for s in rule["steps"] if s["op"] == "take"), "")
        cls = take.split("~")[1] if "~" in take else None
        members = [o for o, (cw, _) in table.items() if cw > 0 and (cls is None or klass.get(o) == cls)]
        total_cw = sum(table[o][0] for o in members)
        raw = None
        for o in members:
            if o not in usage or not osd_state.get(o, {}).get("in"):
                continue
            kb, _, avail = usage[o]
            share = table[o][0] / total_cw
            proj = max(0.0, avail - kb * (1 - full_ratio)) * 1024 / share
            raw = proj if raw is None else min(raw, proj)
        rate = pool["size"] if pool["type"] != 3 else pool["size"] / k_of(pool)
        weights = {o: table[o][0] / total_cw * table[o][1] for o in members}
        wsum = sum(weights.values())
        replicas = pool["pg_num"] * pool["size"]
        dev = 0.0
        for o, w in weights.items():
            if w > 0 and active(o):
                dev = max(dev, abs(counts[pid][o] - replicas * w / wsum))
        out_pools[pool["pool_name"]] = {"max_avail": int((raw or 0) / rate), "pg_deviation": dev}
    entries = dump.get("pg_upmap_items", [])
    print(json.dumps({"classes": classes, "pools": out_pools, "entries": len(entries)}))


if __name__ == "__main__":
    main()
