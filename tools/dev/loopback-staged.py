#!/usr/bin/python3
"""Run crushkit's staged plan of a change on a loopback cluster, step by step, and watch for backfill_toofull (issue 35).

  loopback-staged.py DIR --do 'osd crush reweight osd.0 0' [--do CMD ...] [--out OUTDIR]
                     [--max-misplaced 100%] [--plan-arg ARG ...] [--timeout 600]

1. waits for active+clean and captures the cluster (loopback-capture.sh: dumps, import, mapping check);
2. plans: `crushkit plan before/state.pb --do CMD ... --max-misplaced M --commands OUTDIR/plan.sh --json` (the
   fill limit is crushkit's default, the state's backfillfull_ratio, unless a --plan-arg gives --max-fill);
3. runs each step of the plan's command script (`sh plan.sh step_N`, with `ceph` this cluster's CLI), then about once
   a second records the PG states (`pg dump pgs_brief`) and every OSD's use (`osd df`) until every PG is active+clean
   with up == acting, before the next step;
4. captures the cluster after (same mapping check) and prints, per step, the predicted peak fill and the measured
   one (the highest `osd df` utilization seen while the step ran), and every PG seen in backfill_toofull (with the
   OSDs it waited for: up minus acting); writes everything to OUTDIR/result.json.

Exit status: 0 when no PG entered backfill_toofull and every step finished; 1 otherwise; 2 on usage or cluster
errors.
"""
import argparse
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("loopback_change", os.path.join(HERE, "loopback-change.py"))
lc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lc)


def fail(msg, code=2):
    print(f"loopback-staged.py: {msg}", file=sys.stderr)
    sys.exit(code)


def run_step(c, d, script, name, bindir, timeout):
    """Runs one step function of the script and samples until the cluster is clean again."""
    epoch_before = c.mon(prefix="osd stat")["epoch"]
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    t0 = time.monotonic()
    subprocess.run(["sh", script, name], check=True, capture_output=True, text=True, env=env, timeout=300)
    samples, toofull, peak = [], {}, {}
    seen_unclean = False
    while True:
        t = time.monotonic() - t0
        epoch = c.mon(prefix="osd stat")["epoch"]
        brief = lc.pg_stats(c.mgr(prefix="pg dump", dumpcontents=["pgs_brief"]))
        df = c.mgr(prefix="osd df")
        util = {n["id"]: n["utilization"] / 100 for n in df.get("nodes", [])}
        for o, u in util.items():
            peak[o] = max(peak.get(o, 0), u)
        states = {}
        for p in brief:
            states[p["state"]] = states.get(p["state"], 0) + 1
            if "backfill_toofull" in p["state"]:
                e = toofull.setdefault(p["pgid"], {"pg": p["pgid"], "first_seconds": round(t, 1), "targets": set()})
                e["last_seconds"] = round(t, 1)
                e["targets"].update(o for o in p["up"] if o not in p["acting"] and o != lc.NONE)
        clean = all(p["state"] == "active+clean" and p["up"] == p["acting"] for p in brief) and epoch > epoch_before
        samples.append({"t": round(t, 3), "epoch": epoch, "states": states, "util": util})
        seen_unclean |= not clean
        if clean and (seen_unclean or t > 20):
            return {"step": name, "seconds": round(t, 1), "clean": True, "samples": samples,
                    "toofull": [dict(e, targets=sorted(e["targets"])) for e in toofull.values()],
                    "peak_utilization": peak}
        if t > timeout:
            return {"step": name, "seconds": round(t, 1), "clean": False, "samples": samples,
                    "toofull": [dict(e, targets=sorted(e["targets"])) for e in toofull.values()],
                    "peak_utilization": peak}
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0 - t)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--do", action="append", required=True, help="a ceph command of the change (repeatable)")
    ap.add_argument("--out", help="output directory (default DIR/staged/<time>)")
    ap.add_argument("--max-misplaced", default="100%", help="crushkit plan --max-misplaced (default 100%%)")
    ap.add_argument("--plan-arg", action="append", default=[], help="extra `crushkit plan` argument (repeatable)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds to wait for active+clean per step")
    a = ap.parse_args()
    d, out, crushkit = lc.open_run(a.dir, a.out, "staged")

    lc.wait_clean(d, 300)
    before_dir, after_dir = os.path.join(out, "before"), os.path.join(out, "after")
    if not lc.capture(d, before_dir):
        fail("before: the capture failed or crushkit's mapping differs from the cluster's (see above)", 1)
    script = os.path.join(out, "plan.sh")
    do = [w for c in a.do for w in ("--do", c)]
    plan = json.loads(lc.run(crushkit, "plan", os.path.join(before_dir, "state.pb"), *do, "--max-misplaced",
                             a.max_misplaced, "--commands", script, "--json", *a.plan_arg))
    with open(os.path.join(out, "plan.json"), "w") as f:
        json.dump(plan, f, indent=1)
    staging = plan.get("staging", {})
    steps = plan.get("steps", [])
    print(f"plan: {len(steps)} steps ({staging.get('order', 'all weights together')}), max fill "
          f"{100 * staging.get('max_fill', 0):.1f}%, feasible: {staging.get('fill_feasible', True)}")
    bindir = os.path.join(out, "bin")
    os.makedirs(bindir, exist_ok=True)
    # `ceph` in the script is this cluster's CLI; DIR/ceph itself runs the `ceph` of the original PATH.
    with open(os.path.join(bindir, "ceph"), "w") as f:
        f.write(f"#!/bin/sh\nPATH={shlex.quote(os.environ.get('PATH', '/usr/bin:/bin'))} "
                f"exec {shlex.quote(os.path.join(d, 'ceph'))} \"$@\"\n")
    os.chmod(os.path.join(bindir, "ceph"), 0o755)

    c = lc.Cluster(d)
    results = []
    for s in steps:
        name = f"step_{s.get('index', 0)}"
        print(f"{name}: " + "; ".join(s.get("commands", [])))
        r = run_step(c, d, script, name, bindir, a.timeout)
        r["predicted"] = {"misplaced_ratio": s.get("misplaced_ratio", 0), "seconds": s.get("seconds", 0),
                          "peak_fill": s.get("peak_fill", {}), "over_fill": s.get("over_fill", False)}
        results.append(r)
        print(f"  {'clean' if r['clean'] else 'NOT clean'} after {r['seconds']:.0f}s, "
              f"{len(r['toofull'])} PGs seen in backfill_toofull")
        if not r["clean"]:
            break
    c.r.shutdown()
    lc.wait_clean(d, 60)
    if not lc.capture(d, after_dir):
        fail("after: the capture failed or crushkit's mapping differs from the cluster's (see above)", 1)
    result = {"do": a.do, "dir": d, "out": out, "plan_staging": staging, "steps": results}
    with open(os.path.join(out, "result.json"), "w") as f:
        json.dump(result, f, indent=1, default=sorted)
    ok = print_table(result)
    sys.exit(0 if ok else 1)


def print_table(r):
    """Prints the per-step table of a result.json; returns whether no PG went toofull and every step finished."""
    st = r["plan_staging"]
    limit = st.get("max_fill", 0)
    print(f"\nstaged plan of: {'; '.join('ceph ' + c for c in r['do'])}    (raw series: {r['out']}/result.json)")
    print(f"order: {st.get('order', 'all weights together')}; fill limit {100 * limit:.1f}%")
    print(f"{'step':>6}{'predicted s':>13}{'measured s':>12}  {'predicted peak fill':<24}{'measured peak (osd df)':<26}"
          f"{'toofull PGs':>12}")
    ok = True
    for s in r["steps"]:
        pf = s["predicted"]["peak_fill"]
        pred = f"{100 * pf.get('fill', 0):.1f}% osd.{pf.get('osd', '-')}" if pf else "-"
        osd = pf.get("osd")
        meas = s["peak_utilization"].get(str(osd), s["peak_utilization"].get(osd)) if osd is not None else None
        top = max(s["peak_utilization"].items(), key=lambda kv: kv[1], default=(None, 0))
        mtext = (f"{100 * meas:.1f}% osd.{osd}" if meas is not None else "-") + f" (max {100 * top[1]:.1f}% osd.{top[0]})"
        print(f"{s['step']:>6}{s['predicted']['seconds']:>13.1f}{s['seconds']:>12.1f}  {pred:<24}{mtext:<26}"
              f"{len(s['toofull']):>12}")
        for t in s["toofull"]:
            print(f"        backfill_toofull: {t['pg']} waiting for {t['targets']} "
                  f"({t['first_seconds']}-{t['last_seconds']} s)")
        ok = ok and s["clean"] and not s["toofull"]
    print("\nno PG entered backfill_toofull" if ok else "\nFAILED: a PG entered backfill_toofull or a step did not finish")
    return ok


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        with open(sys.argv[2]) as f:
            sys.exit(0 if print_table(json.load(f)) else 1)
    main()
