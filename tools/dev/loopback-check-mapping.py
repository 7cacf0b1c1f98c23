#!/usr/bin/env python3
"""Compare crushkit's mapping with a real cluster's: every PG's up set, up primary, acting set and acting primary.

  loopback-check-mapping.py PG_DUMP.json MAP_PGS.json

PG_DUMP.json is `ceph pg dump -f json` (or `pg dump pgs|pgs_brief -f json`) of the cluster; MAP_PGS.json is
`crushkit map-pgs STATE --json` of the state imported from the same epoch's osdmap. Prints one line when they
agree; otherwise every differing PG (up to 20) and exits 1. PGs present on one side only are differences too.
"""
import json
import sys

NONE = 2147483647  # CRUSH_ITEM_NONE: Ceph prints EC holes as this


def pg_stats(dump):
    if isinstance(dump, list):  # Luminous' bare array
        return dump
    if "pg_map" in dump:  # Pacific+ `pg dump`
        return dump["pg_map"]["pg_stats"]
    return dump["pg_stats"]  # `pg dump pgs|pgs_brief`


def norm(osds):
    return [NONE if o in (-1, NONE) else o for o in osds]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        cluster = {p["pgid"]: p for p in pg_stats(json.load(f))}
    with open(sys.argv[2]) as f:
        mapped = {p["pgid"]: p for p in json.load(f)}
    diffs = []
    for pgid in sorted(set(cluster) | set(mapped)):
        c, m = cluster.get(pgid), mapped.get(pgid)
        if c is None or m is None:
            diffs.append(f"{pgid}: only in {'crushkit' if c is None else 'the cluster'}")
            continue
        for key in ("up", "up_primary", "acting", "acting_primary"):
            cv, mv = c[key], m[key]
            if isinstance(cv, list):
                cv, mv = norm(cv), norm(mv)
            if cv != mv:
                diffs.append(f"{pgid}: {key} cluster {cv} crushkit {mv}")
    if diffs:
        print(f"mapping DIFFERS from the cluster on {len(diffs)} counts of {len(cluster)} PGs:")
        for d in diffs[:20]:
            print("  " + d)
        sys.exit(1)
    print(f"mapping agrees with the cluster: {len(cluster)} PGs (up, up_primary, acting, acting_primary)")


if __name__ == "__main__":
    main()
