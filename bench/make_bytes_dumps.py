#!/usr/bin/env python3
"""Uneven PG sizes for a binary osdmap: the `ceph pg dump -f json` and
`ceph osd df -f json` a cluster with this map could print.

Reads Ceph's own mapping of the map (`osdmaptool MAP --test-map-pgs-dump-all`
on stdin) and its `osdmaptool MAP --dump json` (DUMP), and writes PGDUMP and
OSDDF. PG sizes are lognormal per pool (seeded, so the same every run), and a
few PGs per pool are hot (4x): replicated size-3 pools 20 GiB median, sigma
0.5; size-2 pools 12 GiB, sigma 0.4; EC pools 56 GiB logical, sigma 0.3
(a shard holds 1/k). An OSD's capacity is its CRUSH weight in TiB; its use
is the shards it holds plus 0.5% metadata, so %USE differs as PG sizes do.

Usage: osdmaptool MAP --test-map-pgs-dump-all | make_bytes_dumps.py DUMP PGDUMP OSDDF
"""
import json
import math
import random
import re
import sys

GIB = 1 << 30
TIB = 1 << 40
OBJECT = 4 << 20


def main():
    dump_path, pg_path, df_path = sys.argv[1:4]
    dump = json.load(open(dump_path))
    text = sys.stdin.read()
    pools = {p["pool"]: p for p in dump["pools"]}
    profiles = dump.get("erasure_code_profiles", {})
    weights = {int(m[0]): float(m[1]) for m in
               re.findall(r"^osd\.(\d+)\t\d+\t\d+\t\d+\t(\S+)\t\S+$", text, re.M)}
    rng = random.Random(40)
    stats = []
    held = {o: 0.0 for o in weights}
    for pgid, up in re.findall(r"^(\d+\.[0-9a-f]+) raw \(\[[^]]*\], p-?\d+\) up \(\[([^]]*)\]",
                               text, re.M):
        pool = pools[int(pgid.split(".")[0])]
        k = 1
        if pool["type"] == 3:
            k = int(profiles[pool["erasure_code_profile"]]["k"])
            median, sigma = 56 * GIB, 0.3
        elif pool["size"] == 2:
            median, sigma = 12 * GIB, 0.4
        else:
            median, sigma = 20 * GIB, 0.5
        size = median * math.exp(rng.gauss(0, sigma))
        if rng.random() < 0.01:
            size *= 4
        size = int(size)
        osds = [int(o) for o in up.split(",") if o and int(o) != 2147483647]
        for o in osds:
            held[o] += size / k
        primary = osds[0] if osds else -1
        stats.append({"pgid": pgid, "state": "active+clean",
                      "stat_sum": {"num_bytes": size, "num_objects": max(1, size // OBJECT),
                                   "num_omap_bytes": 0},
                      "up": osds, "acting": osds, "up_primary": primary,
                      "acting_primary": primary})
    json.dump({"pg_ready": True, "pg_map": {"pg_stats": stats}}, open(pg_path, "w"))
    nodes = []
    states = {o["osd"]: o for o in dump["osds"]}
    for o, w in sorted(weights.items()):
        kb = int(w * TIB) >> 10
        used = min(kb, int(held[o] * 1.005) >> 10)
        st = states.get(o, {})
        nodes.append({"id": o, "device_class": "", "name": "osd.%d" % o, "type": "osd",
                      "type_id": 0, "crush_weight": w, "reweight": st.get("weight", 1),
                      "kb": kb, "kb_used": used, "kb_avail": kb - used,
                      "utilization": 100.0 * used / kb if kb else 0,
                      "status": "up" if st.get("up") else "down"})
    json.dump({"nodes": nodes, "stray": [], "summary": {}}, open(df_path, "w"))


if __name__ == "__main__":
    main()
