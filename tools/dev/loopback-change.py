#!/usr/bin/python3
"""Measure one change on a running, populated loopback cluster against crushkit's prediction (issue 35).

  loopback-change.py DIR --change 'osd crush reweight osd.2 0.5' [--change ...] [--out OUTDIR] [--timeout 900]
                     [--plan-arg ARG ...] [--strict]
  loopback-change.py --table OUTDIR/result.json       (prints a finished run's table again)
  loopback-change.py --replan OUTDIR [--plan-arg ARG ...]
                     (predicts a finished run again, e.g. with --plan-arg=--calibration=FILE: the plan of
                      OUTDIR/before/state.pb replaces the prediction; writes OUTDIR/result-replan.json, prints the table)

1. waits for active+clean, captures the cluster (loopback-capture.sh: dumps, import, mapping check);
2. predicts: `crushkit plan before/state.pb --do CHANGE [--do CHANGE ...] --json` (plus --plan-arg ARGs, e.g.
   --max-backfills=2 or --calibration=FILE), then reads every holder's log tail of each moving replicated PG
   (`pg query`) and predicts again with them (`--log-tails OUTDIR/log-tails.json`; --replan does the same with
   a run's recorded tails);
3. reads every OSD's perf counters (`perf dump`, osd section), applies CHANGE with the real `ceph` CLI, then about
   once a second records the mgr's `pg stat` (misplaced/degraded objects and ratios, PG states), `pg dump pgs_brief`
   (every PG's up, acting and acting primary) and `osd df` (every OSD's fill) until every PG is active+clean with
   up == acting (or --timeout). Several --change commands (adding a host's OSDs one by one) are applied as operators
   do, under `nobackfill` and `norecover`: the PGs peer to the final map, then both flags are unset and the clock
   starts (the duration of the backfill itself, not of the operator typing the commands);
4. reads the perf counters again, captures the cluster after (same mapping check);
5. prints predicted vs measured: duration, remapped PGs, the misplaced ratio at every sample against the plan's
   curve, the pushing OSD of every remapped PG, bytes pushed per OSD and per host, peak fill per OSD, each pool's
   MAX AVAIL before and after (`ceph df`), the PGs seen in backfill_toofull and the OSDs they waited for (up minus
   acting) against the plan's predicted stalls (`safety.toofull_stalls`); writes everything (the raw series too) to
   OUTDIR/result.json (`toofull`).

Exit status: 0 when the structural predictions hold (crushkit maps both captures exactly as Ceph does, and the
plan's remapped-PG count equals the PGs whose up set changed); 1 otherwise; 2 on usage or cluster errors. The
pushing OSD, bytes and duration are reported, not judged (the backfill model is known to differ: issue 35), unless
--strict, which also fails on any pushing-OSD difference and on any OSD whose `push_out_bytes` is not, to the byte,
the replicated bytes of the PGs the plan has it push. The last line, `timing: predicted ... ratio ...`, is the
duration ratio with the load average.

The cluster is read through librados (python3-rados) in this process so polling costs little CPU; the change
itself goes through DIR/ceph. The predicted pusher of each PG is the plan's
(`crushkit plan --json --pgs`: `pgs[].pusher`, osdmap/planning/backfill_pusher.h); a PG the plan does not list (no data to
push) falls back to its up primary before the change.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

import rados

HERE = os.path.dirname(os.path.abspath(__file__))
NONE = 2147483647


def fail(msg, code=2):
    print(f"{os.path.basename(sys.argv[0])}: {msg}", file=sys.stderr)
    sys.exit(code)


def run(*args, **kw):
    return subprocess.run([str(a) for a in args], check=True, text=True, capture_output=True, **kw).stdout


class Cluster:
    def __init__(self, d):
        self.d = d
        self.r = rados.Rados(conffile=os.path.join(d, "ceph.conf"))
        self.r.connect(timeout=30)

    def _json(self, call, cmd):
        for _ in range(5):
            ret, out, err = call(json.dumps(dict(cmd, format="json")), b"", timeout=30)
            if ret != 0 and "wrong fsid" in err:  # sent before the client had the monmap (fsid 0): retry
                time.sleep(0.5)
                continue
            if ret != 0:
                raise RuntimeError(f"{cmd['prefix']}: {err} ({ret})")
            if out:  # a new session's first mgr command can answer empty
                return json.loads(out)
            time.sleep(0.2)
        raise RuntimeError(f"{cmd['prefix']}: empty answer")

    def mon(self, **cmd):
        return self._json(self.r.mon_command, cmd)

    def mon_do(self, **cmd):
        """A mon command that answers nothing (osd set/unset); raises on failure."""
        for _ in range(5):
            ret, _, err = self.r.mon_command(json.dumps(cmd), b"", timeout=30)
            if ret == 0:
                return
            if "wrong fsid" not in err:
                raise RuntimeError(f"{cmd['prefix']}: {err} ({ret})")
            time.sleep(0.5)
        raise RuntimeError(f"{cmd['prefix']}: no answer")

    def mgr(self, **cmd):
        return self._json(self.r.mgr_command, cmd)

    def perf(self, osd):
        ret, out, err = self.r.osd_command(osd, json.dumps({"prefix": "perf dump"}), b"", timeout=30)
        if ret != 0:
            raise RuntimeError(f"osd.{osd} perf dump: {err}")
        return json.loads(out)["osd"]

    def pg_query(self, pgid):
        ret, out, err = self.r.pg_command(pgid, json.dumps({"prefix": "query", "pgid": pgid}), b"", timeout=30)
        if ret != 0:
            raise RuntimeError(f"pg {pgid} query: {err}")
        return json.loads(out)

    def osds(self):
        return [o["osd"] for o in self.mon(prefix="osd dump")["osds"] if o["up"]]


def pg_stats(dump):
    if isinstance(dump, list):
        return dump
    return dump["pg_map"]["pg_stats"] if "pg_map" in dump else dump.get("pg_stats", [])


def capture(d, outdir):
    r = subprocess.run(["bash", os.path.join(HERE, "loopback-capture.sh"), d, outdir], text=True, capture_output=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    return r.returncode == 0


def pools_of(outdir):
    with open(os.path.join(outdir, "osd-dump.json")) as f:
        dump = json.load(f)
    profiles = dump.get("erasure_code_profiles", {})
    pools = {}
    for p in dump["pools"]:
        ec = p["type"] == 3
        k = int(profiles.get(p.get("erasure_code_profile", ""), {}).get("k", 1)) if ec else 1
        pools[p["pool"]] = {"name": p["pool_name"], "ec": ec, "k": k}
    return pools


def hosts_of(outdir):
    """OSD id -> host name from a capture's `osd tree`."""
    with open(os.path.join(outdir, "osd-tree.json")) as f:
        tree = json.load(f)
    return {c: n["name"] for n in tree["nodes"] if n["type"] == "host" for c in n.get("children", [])}


def max_avail_of(outdir):
    """Pool name -> `ceph df`'s MAX AVAIL (bytes) from a capture."""
    with open(os.path.join(outdir, "df.json")) as f:
        return {p["name"]: p["stats"]["max_avail"] for p in json.load(f)["pools"]}


def fill_of(outdir):
    """OSD id -> `osd df` utilization (percent) from a capture."""
    with open(os.path.join(outdir, "osd-df.json")) as f:
        return {n["id"]: n["utilization"] for n in json.load(f)["nodes"]}


def query_log_tails(c, plan, pools):
    """Every holder's log_tail of each moving replicated PG (`pg query`: the primary's info and its peers'), which
    the pg dump does not show: find_best_info prefers the holder with the longer log."""
    tails = {}
    for m in plan.get("pgs", []):
        if pools[int(m["pg"].split(".")[0])]["ec"]:
            continue
        try:
            q = c.pg_query(m["pg"])
        except RuntimeError:
            continue
        primary = q.get("acting_primary", (q.get("acting") or [None])[0])
        tails[m["pg"]] = {str(primary): q["info"]["log_tail"],
                          **{str(p["peer"]): p["log_tail"] for p in q.get("peer_info", [])}}
    return tails


def write_log_tails(outdir, log_tails):
    """OUTDIR/log-tails.json, `crushkit plan --log-tails`'s input: PG -> {OSD -> log_tail}."""
    path = os.path.join(outdir, "log-tails.json")
    with open(path, "w") as f:
        json.dump(log_tails, f, indent=1, sort_keys=True)
    return path


def moved_targets(pool, before, after):
    """OSDs that newly hold a copy (replicated: set difference) or shard (EC: changed positions)."""
    if pool["ec"]:
        return [a for i, a in enumerate(after) if a != NONE and (i >= len(before) or before[i] != a)]
    return sorted(set(after) - set(before) - {NONE})


def remapped(pool, before, after):
    return (before != after) if pool["ec"] else (set(before) != set(after))


def stamp(text):
    """Seconds since the epoch of an osdmap `modified` stamp (2026-12-06T19:41:02.123456+0000)."""
    from datetime import datetime
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()


def hold_until_peered(c, epoch_before, limit):
    """With nobackfill set: waits until every PG has peered in the final map (no peering, activating or unknown
    state), so unsetting the flag starts the backfill of everything at once."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        time.sleep(1)
        if c.mon(prefix="osd stat")["epoch"] <= epoch_before:
            continue
        states = [s["name"] for s in c.mgr(prefix="pg stat")["pg_summary"].get("num_pg_by_state", [])]
        if not any(k in st for st in states for k in ("peering", "activating", "unknown", "creating")):
            time.sleep(2)  # one more mgr report
            return
    fail("the PGs did not peer under nobackfill")


def open_run(cluster_dir, out, kind):
    """The cluster directory (checked), the run's output directory (made; default DIR/KIND/<time>) and the
    crushkit binary ($CRUSHKIT, else the build tree's)."""
    d = os.path.abspath(cluster_dir)
    if not os.path.exists(os.path.join(d, "ceph.conf")):
        fail(f"{d}: not a loopback cluster")
    out = os.path.abspath(out or os.path.join(d, kind, time.strftime("%Y%m%d-%H%M%S")))
    os.makedirs(out, exist_ok=True)
    return d, out, os.environ.get("CRUSHKIT", os.path.join(HERE, "..", "..", "build", "tools", "crushkit"))


def wait_clean(d, limit):
    subprocess.run(["bash", os.path.join(HERE, "loopback-wait-clean.sh"), d, str(limit)], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--change", required=True, action="append",
                    help="a ceph CLI command without the leading `ceph` (repeatable: applied under nobackfill)")
    ap.add_argument("--out", help="output directory (default DIR/runs/<time>)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds to wait for active+clean")
    ap.add_argument("--plan-arg", action="append", default=[], help="extra `crushkit plan` argument (repeatable)")
    ap.add_argument("--strict", action="store_true",
                    help="also fail when a pushing OSD or an OSD's pushed bytes (replicated pools) differ")
    a = ap.parse_args()
    d, out, crushkit = open_run(a.dir, a.out, "runs")
    ok = True

    wait_clean(d, 300)
    before_dir, after_dir = os.path.join(out, "before"), os.path.join(out, "after")
    if not capture(d, before_dir):
        fail("before: the capture failed or crushkit's mapping differs from the cluster's (see above)", 1)
    do = [arg for change in a.change for arg in ("--do", change)]
    plan = json.loads(run(crushkit, "plan", os.path.join(before_dir, "state.pb"), *do, "--json", "--pgs",
                          *a.plan_arg))
    c = Cluster(d)
    log_tails = query_log_tails(c, plan, pools_of(before_dir))
    if log_tails:
        # Predict again with every holder's log tail: the pusher rule then follows find_best_info.
        plan = json.loads(run(crushkit, "plan", os.path.join(before_dir, "state.pb"), *do, "--json", "--pgs",
                              "--log-tails", write_log_tails(out, log_tails), *a.plan_arg))
    with open(os.path.join(out, "plan.json"), "w") as f:
        json.dump(plan, f, indent=1)

    epoch_start = None
    osds = c.osds()
    perf_before = {o: c.perf(o) for o in osds}
    epoch_before = c.mon(prefix="osd dump")["epoch"]
    samples = []
    held = len(a.change) > 1
    moving = {m["pg"]: m["after"] for m in plan.get("pgs", [])}
    if held:
        for flag in ("nobackfill", "norecover"):
            c.mon_do(prefix="osd set", key=flag)
    t0 = time.monotonic()
    try:
        for change in a.change:
            subprocess.run([os.path.join(d, "ceph"), *shlex.split(change)], check=True, capture_output=True,
                           text=True)
            print(f"applied `ceph {change}`")
        if held:
            hold_until_peered(c, epoch_before, a.timeout)
    finally:
        if held:
            c.mon_do(prefix="osd unset", key="norecover")
            t0 = time.monotonic()
            c.mon_do(prefix="osd unset", key="nobackfill")
    if held:
        epoch_start = c.mon(prefix="osd stat")["epoch"]
        print(f"unset norecover, nobackfill (epoch {epoch_start}): the clock starts")
    seen_unclean = False
    duration = None
    while True:
        t = time.monotonic() - t0
        # The mgr's own `pg stat` (fresher than the monitor's `status`, which gets the mgr's digest later).
        epoch = c.mon(prefix="osd stat")["epoch"]
        pgmap = c.mgr(prefix="pg stat")["pg_summary"]
        brief = pg_stats(c.mgr(prefix="pg dump", dumpcontents=["pgs_brief"]))
        fill = {n["id"]: round(n["utilization"], 3) for n in c.mgr(prefix="osd df")["nodes"]}
        by_state = {s["name"]: s["num"] for s in pgmap.get("num_pg_by_state", [])}
        clean = by_state.get("active+clean", 0) == pgmap["num_pgs"] and \
            all(p["up"] == p["acting"] for p in brief) and epoch > epoch_before
        samples.append({
            "t": round(t, 3), "wall": round(time.time(), 3), "epoch": epoch, "num_pgs": pgmap["num_pgs"], "states": by_state,
            **{k: pgmap.get(k, 0) for k in ("misplaced_objects", "misplaced_total", "misplaced_ratio",
                                            "degraded_objects", "degraded_total", "degraded_ratio")},
            "pgs": {p["pgid"]: [p["state"], p["up"], p["acting"], p["acting_primary"]]
                    for p in brief if p["state"] != "active+clean" or p["up"] != p["acting"]},
            # How many of the plan's moving PGs the mgr already shows in their new up set: until all are, the mgr
            # still reports (some of) the PGs as of the map before the change.
            "new_up": sum(moving.get(p["pgid"]) == p["up"] for p in brief), "fill": fill,
            # The machine's 1-minute load average: memstore OSDs are CPU-bound, so a loaded machine slows them.
            "load": round(os.getloadavg()[0], 2),
        })
        seen_unclean |= not clean
        # The mgr's PG states lag the osdmap by a report or two: a clean sample counts once something moved, or
        # after 20 s of seeing nothing move.
        if clean and (seen_unclean or t > 20):
            duration = t
            break
        if t > a.timeout:
            print(f"NOT clean after {a.timeout:.0f}s")
            ok = False
            break
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0 - t)))
    perf_after = {o: c.perf(o) for o in osds}
    # The osdmap history of the change: every epoch's time and pg_temp/primary_temp. The monitor primes pg_temp when
    # a PG must backfill (acting = the OSDs that hold its data) and the primary drops it when done, so the history
    # names every backfill's acting primary (the pusher) and when it ended, whatever the sampling missed.
    epoch_end = c.mon(prefix="osd dump")["epoch"]
    history = []
    for e in range(epoch_before, epoch_end + 1):
        m = c.mon(prefix="osd dump", epoch=e)
        history.append({"epoch": e, "modified": m["modified"],
                        "pg_temp": {t["pgid"]: t["osds"] for t in m.get("pg_temp", [])},
                        "primary_temp": {t["pgid"]: t["osd"] for t in m.get("primary_temp", [])}})
    c.r.shutdown()
    wait_clean(d, 60)
    if not capture(d, after_dir):
        fail("after: the capture failed or crushkit's mapping differs from the cluster's (see above)", 1)

    # --- measured ---
    pools = pools_of(before_dir)
    with open(os.path.join(before_dir, "pg-dump.json")) as f:
        pg_before = {p["pgid"]: p for p in pg_stats(json.load(f))}
    with open(os.path.join(after_dir, "pg-dump.json")) as f:
        pg_after = {p["pgid"]: p for p in pg_stats(json.load(f))}
    with open(os.path.join(before_dir, "map-pgs.json")) as f:
        map_before = {p["pgid"]: p for p in json.load(f)}
    with open(os.path.join(after_dir, "map-pgs.json")) as f:
        map_after = {p["pgid"]: p for p in json.load(f)}
    measured_remapped = sorted(pg for pg in pg_before if pg in pg_after and remapped(
        pools[int(pg.split(".")[0])], pg_before[pg]["up"], pg_after[pg]["up"]))
    crushkit_remapped = sorted(pg for pg in map_before if pg in map_after and remapped(
        pools[int(pg.split(".")[0])], map_before[pg]["up"], map_after[pg]["up"]))
    # Who pushed: the acting primary while the PG was backfilling or recovering (first such sample); how: the
    # recovery kind seen.
    pusher, kind = {}, {}
    for s in samples:
        for pg, (state, up, acting, primary) in s["pgs"].items():
            for k in ("backfilling", "recovering"):
                if k in state:
                    pusher.setdefault(pg, primary)
                    kind.setdefault(pg, set()).add(k)
    # From the osdmap history: the acting primary under the PG's first pg_temp, and when its last pg_temp went.
    temp_pusher, temp_end = {}, {}
    # The clock starts with the change's first epoch, or with the epoch that unset nobackfill (held changes).
    start = next((h for h in history if h["epoch"] == epoch_start), None) if held else \
        (history[1] if len(history) > 1 else None)
    t_change = stamp(start["modified"]) if start else None
    for prev, h in zip(history, history[1:]):
        for pg, osds_ in h["pg_temp"].items():
            if pg not in temp_pusher and pg not in prev["pg_temp"]:
                temp_pusher[pg] = h["primary_temp"].get(pg, next((o for o in osds_ if o != NONE), None))
        for pg in prev["pg_temp"]:
            if pg not in h["pg_temp"]:
                temp_end[pg] = stamp(h["modified"]) - t_change
    plan_pusher = {m["pg"]: m["pusher"] for m in plan.get("pgs", [])}
    predicted_pusher = {pg: plan_pusher.get(pg, map_before[pg]["up_primary"]) for pg in crushkit_remapped}
    push_rows = []
    for pg in crushkit_remapped:
        pool = pools[int(pg.split(".")[0])]
        push_rows.append({"pg": pg, "pool": pool["name"], "up_before": pg_before[pg]["up"],
                          "up_after": pg_after[pg]["up"], "predicted": predicted_pusher[pg],
                          "measured": temp_pusher.get(pg, pg_after[pg]["up_primary"]),
                          "pg_temp": pg in temp_pusher, "sampled": pusher.get(pg),
                          "pg_temp_end_seconds": temp_end.get(pg), "kind": sorted(kind.get(pg, [])),
                          "objects": pg_before[pg]["stat_sum"]["num_objects"]})
    # Bytes each remapped PG pushes: bytes per new copy × new copies (EC: ÷ k), credited to its pusher.
    for r in push_rows:
        pool = pools[int(r["pg"].split(".")[0])]
        st = pg_before[r["pg"]]["stat_sum"]
        per_target = (st["num_bytes"] + st.get("num_omap_bytes", 0)) // pool["k"]
        r["ec"] = pool["ec"]
        r["bytes"] = per_target * len(moved_targets(pool, map_before[r["pg"]]["up"], map_after[r["pg"]]["up"]))
    counters = ("push_out_bytes", "push", "subop_push_in_bytes", "subop_push", "recovery_ops", "recovery_bytes")
    perf_delta = {o: {k: perf_after[o].get(k, 0) - perf_before[o].get(k, 0) for k in counters if k in perf_after[o]}
                  for o in osds}
    first = next((s for s in samples if s["misplaced_objects"] or s["degraded_objects"]), None)
    peak_misplaced = max((s["misplaced_objects"] for s in samples), default=0)
    peak_degraded = max((s["degraded_objects"] for s in samples), default=0)
    temp_duration = max(temp_end.values(), default=None)
    schedule = plan.get("schedule", {})
    totals = plan["totals"]
    result = {
        "change": a.change, "dir": d, "out": out, "osds": osds, "duration_seconds": duration, "pg_temp_duration_seconds": temp_duration,
        "predicted": {"duration_seconds": schedule.get("makespan_seconds"), "pgs_remapped": totals["pgs_remapped"],
                      "objects_to_move": int(totals["objects_to_move"]), "bytes_to_move": int(totals["bytes_to_move"]),
                      "misplaced_curve": schedule.get("misplaced", []), "curve_shape": "linear",
                      "busiest_osds": schedule.get("busiest_osds", []),
                      "request_orders": schedule.get("request_orders")},
        "measured": {"pgs_remapped": len(measured_remapped), "remapped_pgs": measured_remapped,
                     "first_misplaced_objects": first and first["misplaced_objects"],
                     "first_degraded_objects": first and first["degraded_objects"],
                     "peak_misplaced_objects": peak_misplaced, "peak_degraded_objects": peak_degraded,
                     "perf_delta": perf_delta},
        "crushkit_remapped_pgs": crushkit_remapped,
        "plan_pgs": plan.get("pgs", []), "plan_safety": plan.get("safety", {}), "plan_traffic": plan.get("traffic", []),
        "plan_cost": schedule.get("cost", {}), "held": held, "change_wall": t_change,
        "host_of": {**hosts_of(before_dir), **hosts_of(after_dir)},
        "pool_names": {str(k): v["name"] for k, v in pools.items()},
        "pool_ec": {str(k): v["ec"] for k, v in pools.items()},
        "max_avail": {"before": max_avail_of(before_dir), "after": max_avail_of(after_dir)},
        "osd_df": {"before": fill_of(before_dir), "after": fill_of(after_dir)},
        "pgs": push_rows, "samples": samples, "osdmap_history": history, "log_tails": log_tails,
        "load": load_summary(samples), "runner_nice": os.getpriority(os.PRIO_PROCESS, 0),
    }
    problems = []
    if crushkit_remapped != measured_remapped:
        problems.append(f"remapped PGs: crushkit {crushkit_remapped} cluster {measured_remapped}")
    if totals["pgs_remapped"] != len(measured_remapped):
        problems.append(f"plan predicted {totals['pgs_remapped']} remapped PGs, the cluster remapped "
                        f"{len(measured_remapped)}")
    result["problems"] = problems
    result["checks"] = print_comparisons(result, quiet=True)
    result["toofull"] = toofull_summary(samples, plan)
    with open(os.path.join(out, "result.json"), "w") as f:
        json.dump(result, f, indent=1, default=sorted)
    wrong = print_table(result)
    byte_diffs = pushed_bytes_differences(result)
    for o, pred, meas in byte_diffs:
        print(f"MISMATCH osd.{o} pushed {meas} bytes (push_out_bytes), predicted {pred} (replicated pools)")
    # The timing ratio, one line for logs (CI's loopback_scenario_ci keeps it).
    pd, td = result["predicted"]["duration_seconds"], result["pg_temp_duration_seconds"]
    if pd and td:
        load = result.get("load") or {}
        print(f"timing: predicted {pd:.1f} s, measured {td:.1f} s to the last pg_temp dropped, "
              f"ratio {pd / td:.2f}, load average {load.get('mean', float('nan')):.2f}")
    ok = ok and not problems and not (a.strict and (wrong or byte_diffs))
    print("\nstructural predictions: " + ("OK" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


def pushed_bytes_differences(r):
    """Every OSD whose push_out_bytes differs from the replicated bytes of the PGs the plan has it push (exact to
    the byte when the pushers are right: each remapped PG's bytes per new copy x new copies, from the pg dump
    before). EC recovery is not in the counter (Pacific and Tentacle), so EC PGs are left out of both."""
    out = []
    for o in r["osds"]:
        perf = r["measured"]["perf_delta"].get(str(o), r["measured"]["perf_delta"].get(o, {}))
        pred = sum(x["bytes"] for x in r["pgs"] if not x["ec"] and x["predicted"] == o)
        meas = perf.get("push_out_bytes", 0)
        if pred != meas:
            out.append((o, pred, meas))
    return out


def load_summary(samples):
    """The machine's 1-minute load average over the run's samples: first, mean, highest."""
    loads = [s["load"] for s in samples if "load" in s]
    if not loads:
        return None
    return {"first": loads[0], "mean": round(sum(loads) / len(loads), 2), "max": max(loads)}


def toofull_summary(samples, plan):
    """backfill_toofull, predicted (the plan's safety.toofull_stalls) and seen in the samples: every PG that was in
    backfill_toofull, when, and the OSDs it was waiting to backfill into (up minus acting while it waited)."""
    seen = {}
    for s in samples:
        for pg, (state, up, acting, _) in s["pgs"].items():
            if "backfill_toofull" not in state:
                continue
            e = seen.setdefault(pg, {"pg": pg, "first_seconds": s["t"], "last_seconds": s["t"], "targets": set()})
            e["last_seconds"] = s["t"]
            e["targets"].update(o for o in up if o not in acting and o != NONE)
    measured = [dict(e, targets=sorted(e["targets"])) for e in sorted(seen.values(), key=lambda e: e["pg"])]
    safety = plan.get("safety", {})
    predicted = [{"pg": t["pgid"], "osd": t["osd"], "first_seconds": t.get("first_seconds", 0),
                  "seconds": t.get("seconds", 0), "never_starts": t.get("never_starts", False)}
                 for t in safety.get("toofull_stalls", [])]
    return {"ratio": safety.get("backfillfull_ratio"), "predicted": predicted, "measured": measured}


def print_toofull(r):
    t = r.get("toofull")
    if not t or not (t["predicted"] or t["measured"]):
        return
    print(f"\nbackfill_toofull (targets refuse above {100 * (t['ratio'] or 0):.1f}%):")
    print(f"  predicted: {len(t['predicted'])} PGs: " + ", ".join(
        f"{p['pg']} on osd.{p['osd']} {p['seconds']:.0f}s" + (" never starts" if p["never_starts"] else "")
        for p in t["predicted"]))
    print(f"  measured:  {len(t['measured'])} PGs: " + ", ".join(
        f"{m['pg']} on {'/'.join(f'osd.{o}' for o in m['targets'])} {m['first_seconds']:.0f}-{m['last_seconds']:.0f}s"
        for m in t["measured"]))
    p_osds = sorted({p["osd"] for p in t["predicted"]})
    m_osds = sorted({o for m in t["measured"] for o in m["targets"]})
    print(f"  OSDs refusing: predicted {p_osds}, measured (targets of the PGs seen toofull) {m_osds}")


def print_table(r):
    """Prints predicted vs measured from a result.json; returns the PGs whose pushing OSD differs."""
    def mib(b):
        return f"{b / 1048576:.1f}"

    p, m, rows, nan = r["predicted"], r["measured"], r["pgs"], float("nan")
    known = [x for x in rows if x["objects"] > 0]  # PGs that hold nothing push nothing
    right = sum(x["predicted"] == x["measured"] for x in known)
    pd, dur, tdur = p["duration_seconds"] or 0, r["duration_seconds"], r["pg_temp_duration_seconds"]
    pushed = sum(v.get("push_out_bytes", 0) for v in m["perf_delta"].values())
    rep_bytes = sum(x["bytes"] for x in rows if not x["ec"])
    print(f"\nchange: ceph {r['change']}    (raw series: {r['out']}/result.json)")
    print(f"{'':40}{'predicted':>12}{'measured':>12}")
    print(f"{'duration to all active+clean (s)':40}{pd:>12.1f}{(dur or nan):>12.1f}"
          + (f"   x{dur / pd:.2f}" if dur and pd else ""))
    print(f"{'duration to last pg_temp dropped (s)':40}{pd:>12.1f}{(tdur if tdur is not None else nan):>12.1f}"
          + (f"   x{tdur / pd:.2f}" if tdur and pd else ""))
    orders = p.get("request_orders") or {}
    if orders.get("orders"):
        # The same jobs in other reservation request orders (osdmap/planning/backfill_orders.h).
        lo, hi = orders["p10_seconds"], orders["p90_seconds"]
        inside = tdur is not None and orders["min_seconds"] <= tdur <= orders["max_seconds"]
        print(f"{'  over %d request orders: p10 .. p90' % orders['orders']:40}{f'{lo:.1f}..{hi:.1f}':>12}"
              f"{'':>12}   median {orders['median_seconds']:.1f}, all {orders['min_seconds']:.1f}.."
              f"{orders['max_seconds']:.1f}: measured {'inside' if inside else 'outside'}")
    if r.get("load"):
        print(f"{'load average (1 min) during the run':40}{'':>12}{r['load']['mean']:>12.2f}"
              f"   (first {r['load']['first']:.2f}, highest {r['load']['max']:.2f}; 2 cores)")
    print(f"{'remapped PGs':40}{p['pgs_remapped']:>12}{m['pgs_remapped']:>12}")
    print(f"{'objects misplaced (peak seen)':40}{p['objects_to_move']:>12}{m['peak_misplaced_objects']:>12}")
    print(f"{'objects degraded (peak seen)':40}{0:>12}{m['peak_degraded_objects']:>12}")
    print(f"{'MiB to move (all pools)':40}{mib(p['bytes_to_move']):>12}{'':>12}")
    print(f"{'MiB pushed, replicated pools':40}{mib(rep_bytes):>12}{mib(pushed):>12}   (measured: push_out_bytes)")
    print(f"{'pushing OSD as predicted':40}{'':>12}{f'{right}/{len(known)}':>12}"
          f"   (PGs with objects; measured: acting primary under pg_temp)")
    # push_out_bytes/push count replicated pushes only (Pacific and Tentacle); EC recovery shows in recovery_ops.
    print("\nMiB pushed per OSD, replicated pools (push_out_bytes counts no EC recovery, Pacific and Tentacle):")
    print(f"{'osd':>5}{'predicted':>11}{'by real pusher':>16}{'measured':>10}{'pushes':>8}{'recovery_ops':>14}"
          f"{'predicted incl. EC':>20}")
    for o in r["osds"]:
        o_key = str(o) if str(o) in m["perf_delta"] else o
        perf = m["perf_delta"][o_key]
        pred = sum(x["bytes"] for x in rows if not x["ec"] and x["predicted"] == o)
        real = sum(x["bytes"] for x in rows if not x["ec"] and x["measured"] == o)
        pred_all = sum(x["bytes"] for x in rows if x["predicted"] == o)
        print(f"{o:>5}{mib(pred):>11}{mib(real):>16}{mib(perf.get('push_out_bytes', 0)):>10}{perf.get('push', 0):>8}"
              f"{perf.get('recovery_ops', 0):>14}{mib(pred_all):>20}")
    # The recorded log tails went to the plan (--log-tails): its pushers above are the rule with them
    # (osdmap/planning/backfill_pusher.h), the one home of that rule.
    wrong = [x for x in known if x["predicted"] != x["measured"]]
    if wrong:
        print("\nPGs pushed by another OSD than predicted (pg pool: up before -> after, predicted, measured):")
        for x in wrong:
            print(f"  {x['pg']} {x['pool']}: {x['up_before']} -> {x['up_after']}  {x['predicted']}  {x['measured']}"
                  + ("" if x["pg_temp"] else "  (no pg_temp)"))
    if "plan_pgs" in r:
        print_comparisons(r)
    print_toofull(r)
    for problem in r.get("problems", []):
        print("MISMATCH " + problem)
    return wrong


def replan(outdir, plan_args):
    """Predicts a finished run again with other plan arguments; the measurements stay."""
    with open(os.path.join(outdir, "result.json")) as f:
        r = json.load(f)
    crushkit = os.environ.get("CRUSHKIT", os.path.join(HERE, "..", "..", "build", "tools", "crushkit"))
    changes = r["change"] if isinstance(r["change"], list) else [r["change"]]
    do = [arg for change in changes for arg in ("--do", change)]
    if r.get("log_tails") and not any(a.startswith("--log-tails") for a in plan_args):
        plan_args = ["--log-tails", write_log_tails(outdir, r["log_tails"]), *plan_args]
    plan = json.loads(run(crushkit, "plan", os.path.join(outdir, "before", "state.pb"), *do, "--json", "--pgs",
                          *plan_args))
    schedule = plan.get("schedule", {})
    r["plan_preemptions"] = schedule.get("preemptions", 0)
    r["predicted"].update({"duration_seconds": schedule.get("makespan_seconds"),
                           "misplaced_curve": schedule.get("misplaced", []), "curve_shape": "linear",
                           "busiest_osds": schedule.get("busiest_osds", []),
                           "request_orders": schedule.get("request_orders")})
    if "toofull" in r:  # the predicted stalls are the new plan's, the seen ones stay
        r["toofull"] = toofull_summary(r["samples"], plan)
    r.update({"plan_pgs": plan.get("pgs", []), "plan_safety": plan.get("safety", {}),
              "plan_traffic": plan.get("traffic", []), "plan_cost": schedule.get("cost", {}),
              "plan_args": plan_args})
    pusher = {m["pg"]: m["pusher"] for m in plan.get("pgs", [])}
    for row in r["pgs"]:
        row["predicted"] = pusher.get(row["pg"], row["predicted"])
    r["checks"] = print_comparisons(r, quiet=True)
    with open(os.path.join(outdir, "result-replan.json"), "w") as f:
        json.dump(r, f, indent=1, default=sorted)
    print_table(r)


# The mgr's `pg stat` shows the PGs as their OSDs last reported them: every `mgr stats period` (1 s on the loopback
# clusters, loopback-cluster.sh). Measured on the 21 runs of 2026-12-07: a PG's pg_temp drop shows in the first sample
# 1.46-1.60 s after the osdmap committed it (mean per series; min 1.0 s on Pacific), i.e. this lag plus half of the
# 1 s sampling interval. The mgr's figure at a sample is compared with the plan's at the sample's time less the lag.
MGR_LAG_SECONDS = 1.0


def predicted_ratio(curve, t, linear=True):
    """The plan's misplaced ratio at t seconds: linear between the curve's points (crushkit counts a PG down while it
    pushes, osdmap/planning/backfill_schedule.h), or a step function for plans made before (a PG left the count at
    its end); the last point's after its end."""
    if not curve:
        return 0.0
    if not linear or t <= curve[0]["seconds"]:
        ratio = curve[0].get("ratio", 0.0)
        for point in curve:
            if point["seconds"] > t:
                break
            ratio = point.get("ratio", 0.0)
        return ratio
    prev = curve[0]
    for point in curve:
        if point["seconds"] > t:
            a, b = prev.get("ratio", 0.0), point.get("ratio", 0.0)
            return a + (b - a) * (t - prev["seconds"]) / (point["seconds"] - prev["seconds"])
        prev = point
    return prev.get("ratio", 0.0)


def print_comparisons(r, quiet=False):
    """The issue-35 checks of a run: the misplaced curve at every sample, bytes per host, peak fill per OSD,
    MAX AVAIL before and after. Prints the table; returns the figures (also stored by main in result.json)."""
    def mib(b):
        return f"{b / 1048576:.1f}"

    if quiet:
        import io
        from contextlib import redirect_stdout
        with redirect_stdout(io.StringIO()):
            return print_comparisons(r)
    out = {}
    curve = r["predicted"]["misplaced_curve"]
    linear = r["predicted"].get("curve_shape") == "linear"
    moving = {m["pg"] for m in r["plan_pgs"]}
    # Sample times from the change's osdmap epoch (the clock of the plan's curve; for held changes the epoch that
    # unset nobackfill). Samples before the first one by which the mgr has shown every moving PG active in its new
    # up set are skipped: the mgr counts no misplaced objects for a PG until it is active in the change's interval.
    # "By which", not "at which": a PG that has finished peers again when its pg_temp goes, so on a fast change some
    # PG is always peering and "at which" skipped all but the last samples (3 of the 21 runs of 2026-12-07).
    t0 = r.get("change_wall")
    lag = MGR_LAG_SECONDS

    def when(s):
        return s["wall"] - t0 if t0 and "wall" in s else s["t"]

    seen_active, first = set(), len(r["samples"])
    for i, s in enumerate(r["samples"]):
        # new_up: how many of the plan's moving PGs the mgr shows in their new up set (sampled since the
        # curve comparison came; older runs lack it); a PG not listed is active+clean with up == acting.
        if s.get("new_up", len(moving)) == len(moving):
            seen_active |= {pg for pg in moving if pg not in s["pgs"] or s["pgs"][pg][0].startswith("active")}
        if len(seen_active) == len(moving) and when(s) >= 0:
            first = i
            break
    rows = [(when(s), predicted_ratio(curve, when(s) - lag, linear), s["misplaced_ratio"], i >= first)
            for i, s in enumerate(r["samples"])]
    seen = [x for x in rows if x[3]]
    worst = max(seen, key=lambda x: abs(x[1] - x[2]), default=None)
    out["curve_worst_points"] = worst and round(100 * abs(worst[1] - worst[2]), 2)
    out["curve_samples"] = len(seen)
    print(f"\nmisplaced ratio (%) at each sample (seconds after the change's map), predicted {lag:g} s earlier (the "
          f"mgr's report lag) / the mgr's `pg stat` ({len(rows) - len(seen)} early samples skipped: a moving PG not "
          f"yet active in the change's interval):")
    print("  " + "  ".join(f"{t:.0f}s {100 * p:.1f}/{100 * m:.1f}" for t, p, m, ok in rows if ok))
    if worst:
        print(f"  largest difference {100 * abs(worst[1] - worst[2]):.1f} points at {worst[0]:.1f} s "
              f"(predicted {100 * worst[1]:.1f}%, measured {100 * worst[2]:.1f}%)")

    host_of = {int(k): v for k, v in r["host_of"].items()}
    ec = {int(k): v for k, v in r["pool_ec"].items()}
    sent, recv, sent_ec = {}, {}, {}
    for pg in r["plan_pgs"]:
        b = int(pg["bytes_per_target"])
        pusher_host = host_of.get(pg["pusher"], "?")
        if ec[int(pg["pg"].split(".")[0])]:
            sent_ec[pusher_host] = sent_ec.get(pusher_host, 0) + b * len(pg["targets"])
            continue
        sent[pusher_host] = sent.get(pusher_host, 0) + b * len(pg["targets"])
        for t in pg["targets"]:
            recv[host_of.get(t, "?")] = recv.get(host_of.get(t, "?"), 0) + b
    msent, mrecv = {}, {}
    # subop_push_in_bytes stays 0 for backfill pushes on 16.2 and 20.2 (measured): compared only when counted
    have_recv = any(perf.get("subop_push_in_bytes", 0) for perf in r["measured"]["perf_delta"].values())
    for o, perf in r["measured"]["perf_delta"].items():
        h = host_of.get(int(o), "?")
        msent[h] = msent.get(h, 0) + perf.get("push_out_bytes", 0)
        mrecv[h] = mrecv.get(h, 0) + perf.get("subop_push_in_bytes", 0)
    if not have_recv:
        recv = mrecv = {}
    print("\nMiB per host, replicated pools (push_out_bytes / subop_push_in_bytes; neither counts EC recovery):")
    print(f"{'host':>6}{'sent pred':>11}{'sent meas':>11}{'recv pred':>11}{'recv meas':>11}{'EC sent pred':>14}")
    worst_host = 0.0
    for h in sorted(set(sent) | set(recv) | set(msent) | set(mrecv)):
        for p_, m_ in ((sent.get(h, 0), msent.get(h, 0)), (recv.get(h, 0), mrecv.get(h, 0))):
            if p_ or m_:
                worst_host = max(worst_host, abs(p_ - m_) / max(p_, m_))
        rp, rm = (mib(recv.get(h, 0)), mib(mrecv.get(h, 0))) if have_recv else ("-", "-")
        print(f"{h:>6}{mib(sent.get(h, 0)):>11}{mib(msent.get(h, 0)):>11}{rp:>11}{rm:>11}{mib(sent_ec.get(h, 0)):>14}")
    out["host_bytes_worst_share"] = round(worst_host, 4)
    print(f"  largest difference {100 * worst_host:.1f}% of the host's bytes")

    safety = r["plan_safety"]
    peak_pred = {o["osd"]: o for o in safety.get("peak_osds", [])}
    before = {int(k): v for k, v in r["osd_df"]["before"].items()}
    after = {int(k): v for k, v in r["osd_df"]["after"].items()}
    peak_meas = dict(before)
    for s in r["samples"]:
        for k, v in s.get("fill", {}).items():
            peak_meas[int(k)] = max(peak_meas.get(int(k), 0.0), v)
    for k, v in after.items():
        peak_meas[k] = max(peak_meas.get(k, 0.0), v)
    # The peak's range over the plan's request orders (safety.peak_request_orders; fill_peak_min/max): how far the
    # measured peak lies outside it, 0 inside.
    orders = safety.get("peak_request_orders", 0)
    print("\nfill per OSD (%), predicted / measured (`osd df` each sample):")
    print(f"{'osd':>5}{'before':>15}{'peak':>15}{'after':>15}{'peak at (s)':>13}"
          + (f"  peak over {orders} request orders" if orders else ""))
    worst_fill = worst_range = 0.0
    for o in sorted(peak_pred):
        p_ = peak_pred[o]
        m = peak_meas.get(o, 0.0)
        worst_fill = max(worst_fill, abs(100 * p_["fill_peak"] - m))
        line = (f"{o:>5}{100 * p_['fill_before']:>8.2f}/{before.get(o, 0.0):<6.2f}"
                f"{100 * p_['fill_peak']:>8.2f}/{m:<6.2f}"
                f"{100 * p_['fill_after']:>8.2f}/{after.get(o, 0.0):<6.2f}{p_['peak_seconds']:>13.1f}")
        if orders:
            lo, hi = 100 * p_.get("fill_peak_min", 0.0), 100 * p_.get("fill_peak_max", 0.0)
            worst_range = max(worst_range, lo - m, m - hi)
            line += f"  {lo:.2f}-{hi:.2f}"
        print(line)
    out["peak_fill_worst_points"] = round(worst_fill, 3)
    print(f"  largest peak difference {worst_fill:.2f} points")
    if orders:
        out["peak_fill_range_worst_points"] = round(worst_range, 3)
        print(f"  largest distance outside the range over {orders} request orders {worst_range:.2f} points")

    print("\nMAX AVAIL per pool (MiB), predicted / `ceph df`:")
    worst = {"before": 0, "after": 0}
    for pool in safety.get("pools", []):
        name = pool["name"]
        b = (int(pool["max_avail_before"]), r["max_avail"]["before"].get(name))
        a = (int(pool["max_avail_after"]), r["max_avail"]["after"].get(name))
        for side, (p_, m_) in (("before", b), ("after", a)):
            if m_ is not None:
                worst[side] = max(worst[side], abs(p_ - m_))
        print(f"  {name:24} before {mib(b[0])} / {mib(b[1] or 0)}   after {mib(a[0])} / {mib(a[1] or 0)}"
              f"   lowest during {mib(int(pool['max_avail_peak']))}")
    out["max_avail_worst_bytes"] = max(worst.values())
    out["max_avail_before_worst_bytes"], out["max_avail_after_worst_bytes"] = worst["before"], worst["after"]
    print(f"  largest difference {out['max_avail_worst_bytes']} bytes (before {worst['before']}, after "
          f"{worst['after']})")
    out.update(print_osdmap_growth(r, peak_pred, after))
    return out


def print_osdmap_growth(r, peak_pred, after):
    """What `osd df` holds after the change beyond the plan's data: the osdmap epochs every OSD stores (the plan's
    MAX AVAIL counts data only and estimates them in a note, osdmap/planning/change_safety.h OsdmapGrowth)."""
    history = r.get("osdmap_history") or []
    epochs = history[-1]["epoch"] - history[0]["epoch"] if len(history) > 1 else 0
    # KiB each OSD ends above the plan's after: its `osd df` utilization against the plan's fill, on the plan's size
    above = {o: (after[o] / 100 - p["fill_after"]) * int(p["capacity_bytes"]) / 1024
             for o, p in peak_pred.items() if after.get(o) and int(p.get("capacity_bytes", 0))}  # 0: out
    if not above:
        return {}
    ordered = sorted(above.values())
    median = ordered[len(ordered) // 2]
    print(f"osdmaps: the change made {epochs} epochs; every OSD's use after is above the plan's by a median "
          f"{median:.0f} KiB" + (f" ({median / epochs:.2f} KiB per epoch)" if epochs else "")
          + f", {ordered[0]:.0f} .. {ordered[-1]:.0f} KiB (OSDs that got or gave EC shards: each shard's padding)")
    for note in r["plan_safety"].get("notes", []):
        if "osdmap epoch" in note:
            print(f"  the plan: {note}")
    return {"osdmap_epochs": epochs, "after_above_plan_median_kib": round(median, 1),
            "after_above_plan_kib": [round(ordered[0], 1), round(ordered[-1], 1)]}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        with open(sys.argv[2]) as f:
            print_table(json.load(f))
        sys.exit(0)
    if len(sys.argv) >= 3 and sys.argv[1] == "--replan":
        replan(sys.argv[2], [a.split("=", 1)[1] if a.startswith("--plan-arg=") else a for a in sys.argv[3:]
                             if a != "--plan-arg"])
        sys.exit(0)
    main()
