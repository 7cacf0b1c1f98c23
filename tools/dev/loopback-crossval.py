#!/usr/bin/python3
"""Cross-validates `crushkit calibrate` on a finished loopback series (issue 35, tools/dev/README.md).

usage: loopback-crossval.py CRUSHKIT CALDIR OUT.json PREFIX [PREFIX ...]

PREFIX-cal, PREFIX-out, PREFIX-in, PREFIX-addhost, PREFIX-drain, PREFIX-move, PREFIX-rule are the seven runs of
the "Fresh runs" driver (loopback-change.py's OUTDIRs). Each run is predicted (`crushkit plan before/state.pb --do
... --json` with its recorded log tails, as `loopback-change.py --replan` does) uncalibrated ("model"), with a
calibration on the runs before it ("earlier") and on the six others ("others"), each with the concurrency
slowdown k as `crushkit calibrate` fits it ("fit") and kept at 0 (`--no-slowdown`, "k0"), and each of those with
the EC hold factor as calibrate fits it and kept at 1 (`--no-ec-factor`, the "_noec" columns). Prints predicted /
measured (to the last pg_temp dropped) per run, then per procedure how many lie within +-20% and the mean
|log(predicted / measured)|; writes the figures (and each calibration's k and EC factor) to OUT.json and the
calibration files to CALDIR (an existing file is reused)."""
import json
import math
import os
import re
import subprocess
import sys

if len(sys.argv) < 5:
    sys.exit("usage: loopback-crossval.py CRUSHKIT CALDIR OUT.json PREFIX [PREFIX ...]")
K, CALDIR, OUT = sys.argv[1:4]
prefixes = sys.argv[4:]
runs = ["cal", "out", "in", "addhost", "drain", "move", "rule"]
os.makedirs(CALDIR, exist_ok=True)

def calib(D, names, fit, out, ec=True):
    if not os.path.exists(out):
        args = [K, "calibrate", f"{D}-{names[0]}/before/state.pb", f"{D}-{names[0]}/after/state.pb",
                "--result", f"{D}-{names[0]}/result.json"]
        for n in names[1:]:
            args += ["--and", f"{D}-{n}/before/state.pb", f"{D}-{n}/after/state.pb", f"{D}-{n}/result.json"]
        if not fit:
            args.append("--no-slowdown")
        if not ec:
            args.append("--no-ec-factor")
        subprocess.run(args + ["-o", out], check=True, stdout=subprocess.DEVNULL)
    k, f = 0.0, 1.0
    for line in open(out):
        m = re.match(r"concurrency_slowdown=([\d.e+-]+)", line)
        if m: k = float(m[1])
        m = re.search(r" ec_hold_factor=([\d.e+-]+)", line)
        if m and not line.startswith("#"): f = float(m[1])
    return out, k, f

def predict(D, r, cal):
    res = json.load(open(f"{D}-{r}/result.json"))
    changes = res["change"] if isinstance(res["change"], list) else [res["change"]]
    do = [a for c in changes for a in ("--do", c)]
    args = [K, "plan", f"{D}-{r}/before/state.pb", *do, "--json"]
    if os.path.exists(f"{D}-{r}/log-tails.json"):
        args += ["--log-tails", f"{D}-{r}/log-tails.json"]
    if cal: args.append(f"--calibration={cal}")
    p = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    load = res.get("load")
    if isinstance(load, dict):
        load = load.get("mean")
    return p["schedule"]["makespan_seconds"], res["pg_temp_duration_seconds"], load

out = {}
for D in prefixes:
    c = os.path.basename(D)
    rows = {}
    for i, r in enumerate(runs):
        row = {}
        pm, meas, load = predict(D, r, None)
        row.update(measured=meas, load=load, model=pm / meas)
        others = [x for x in runs if x != r]
        for fit in (True, False):
            for ec in (True, False):
                tag = ("fit" if fit else "k0") + ("" if ec else "_noec")
                cal, k, f = calib(D, others, fit, f"{CALDIR}/{c}-others-{r}-{tag}.txt", ec)
                row[f"others_{tag}"] = predict(D, r, cal)[0] / meas
                if fit: row[f"others_k{'' if ec else '_noec'}"] = k
                if ec: row[f"others_ec_{tag}"] = f
                if i > 0:
                    cal, k, f = calib(D, runs[:i], fit, f"{CALDIR}/{c}-earlier-{r}-{tag}.txt", ec)
                    row[f"earlier_{tag}"] = predict(D, r, cal)[0] / meas
                    if fit: row[f"earlier_k{'' if ec else '_noec'}"] = k
                    if ec: row[f"earlier_ec_{tag}"] = f
        rows[r] = row
        print(c, r, json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}), flush=True)
    out[c] = rows
    for key in ("model", "earlier_k0_noec", "earlier_k0", "earlier_fit_noec", "earlier_fit", "others_k0_noec",
                "others_k0", "others_fit_noec", "others_fit"):
        v = [row[key] for row in rows.values() if key in row]
        print(f"{c} {key:12} within +-20% {sum(1 for a in v if 0.8 <= a <= 1.2)}/{len(v)}  mean|log| "
              f"{sum(abs(math.log(a)) for a in v) / len(v):.3f}", flush=True)
json.dump(out, open(OUT, "w"), indent=1)
