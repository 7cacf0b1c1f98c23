#!/usr/bin/env python3
"""Opens crushkit's HTML report in headless Chromium and checks it from the DOM.

The report comes from one of:
  (default)      a 36-OSD cluster built with Ceph's tools, one host drained (`diff`);
  --sample DIR   samples/cluster's rack expansion staged at 5% (`plan`);
  --compare DIR  samples/cluster's change files compared (`plan STATE A.ops B.ops ...`, issue 40):
                 the best alternative's report with the comparison table above 'What moves',
                 one row per alternative; the page's figures are checked against that
                 alternative's own `plan --json`.
  --cluster-10k  10,000 OSDs (20 racks x 20 hosts x 25, as bench/lib.sh builds them) built with
                 crushkit's own crushtool/osdmaptool fronts, one PG per OSD and a made-up
                 `ceph osd df`, one host drained and one OSD reweighted, staged at 5% (`plan`).
At each window size (--sizes, default 1280x800 and 1920x1080) the page is loaded with a
checking script appended; after the page's own scripts ran it records, and this program checks:
  * no console message or uncaught exception (and the detector sees one on a broken page);
  * no horizontal page scroll (documentElement.scrollWidth <= clientWidth), no chart wider
    than the window;
  * Chart.js loaded, and every chart has ticks on both axes and axis titles naming units
    (%, count, object copies; time in minutes/hours/days with the unit on each tick);
  * every OSD of the plan's JSON (`osds`) is in the OSD chart;
  * every heat map cell carries its value as text;
  * the headline is above 'What moves' and shows the JSON `headline`'s figures;
  * the page names no external resource.
A screenshot of the top of the page at each size is kept (--screenshot-prefix: PREFIX-WxH.png);
the work directory is removed after a pass, kept after a failure.
With --sample the page is also generated without Chart.js (CRUSHKIT_CHART_JS pointing nowhere):
every chart box must then say why it is empty, with no console error.

Exit: 0 ok, 1 failure, 77 (ctest SKIP) without chromium (or, for the default cluster, Ceph's
tools) unless CRUSHKIT_REQUIRE_ORACLE is set (then 1).
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import oracle  # noqa: E402

NO_OSD = 2147483647

# Appended to a copy of the page: runs after the page's scripts and leaves
# what it measured as JSON in <pre id=crushkit-check>.
CHECKER = r"""<script>
(function () {
  var de = document.documentElement, out = {};
  out.scrollWidth = de.scrollWidth;
  out.clientWidth = de.clientWidth;
  out.chartLoaded = typeof Chart !== 'undefined';
  out.chartBoxes = document.querySelectorAll('.chart').length;
  out.chartNotes = Array.prototype.map.call(document.querySelectorAll('.chart'), function (b) {
    var p = b.querySelector('p.note');
    return p ? p.textContent : '';
  });
  out.charts = [];
  if (out.chartLoaded) {
    Object.keys(Chart.instances).forEach(function (k) {
      var ch = Chart.instances[k], c = {kind: ch.canvas.className, axes: {}};
      if (c.kind === 'osd-chart') c.labels = ch.data.labels;
      ['x', 'y'].forEach(function (a) {
        var s = ch.scales[a];
        c.axes[a] = {ticks: s.ticks.map(function (t) { return String(t.label); }),
                     title: s.options.title && s.options.title.display ? s.options.title.text : ''};
      });
      c.right = ch.canvas.getBoundingClientRect().right;
      out.charts.push(c);
    });
  }
  out.heatCells = 0;
  out.heatBlank = [];
  document.querySelectorAll('table.heat td').forEach(function (td) {
    out.heatCells++;
    if (!/^[0-9.]+$/.test(td.textContent.trim())) out.heatBlank.push(td.textContent);
  });
  var pre = document.createElement('pre');
  pre.id = 'crushkit-check';
  pre.style.display = 'none';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""

UNIT_WORDS = ("%", "count", "object copies")


def run(cmd, cwd, env=None, **kw):
    e = dict(os.environ, CEPH_ARGS="--crash_dir=" + cwd)
    e.update(env or {})
    return subprocess.run(cmd, cwd=cwd, env=e, capture_output=True, text=True, timeout=180, **kw)


def check(p, what):
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (what, p.returncode, p.stderr[-2000:]))
    return p


def make_state(crushkit, d):
    """A 3-rack cluster and the same cluster with one host drained."""
    steps = [
        ["crushtool", "--build", "--num_osds", "36", "host", "straw2", "4", "rack", "straw2", "3",
         "root", "straw2", "0", "-o", "crush.bin"],
        ["osdmaptool", "--createsimple", "36", "--with-default-pool", "--pg-bits", "5", "--pgp-bits", "5",
         "--clobber", "--import-crush", "crush.bin", "om"],
        ["osdmaptool", "om", "--mark-up-in", "--adjust-crush-weight", "0:1", "--save"],
        ["crushtool", "-i", "crush.bin", "--reweight-item", "osd.0", "0", "--reweight-item", "osd.1", "0",
         "-o", "after.bin"],
    ]
    for cmd in steps:
        check(run(cmd, d), " ".join(cmd))
    p = run(["osdmaptool", "om", "--dump", "json", "--export-crush", "exported.bin"], d)
    with open(os.path.join(d, "om.json"), "w") as f:
        f.write(p.stdout[p.stdout.index("{"):])
    check(run([crushkit, "import", "--osdmap", "om.json", "--crush", "exported.bin", "-o", "state.pb"], d),
          "import")
    return ["state.pb", "--crush-after", "after.bin"]


def sample_plan(crushkit, d, sample):
    """The bundled sample cluster and its rack expansion, staged at 5%."""
    files = {f: os.path.join(sample, f) for f in
             ["osd-dump.json", "crush.txt", "pg-dump.json", "osd-df.json", "df.json", "add-rack.ops"]}
    check(run([crushkit, "import", "--osdmap", files["osd-dump.json"], "--crush", files["crush.txt"],
               "--pg-stats", files["pg-dump.json"], "--osd-df", files["osd-df.json"], "--df",
               files["df.json"], "-o", "state.pb"], d), "import of the sample")
    return ["state.pb", files["add-rack.ops"], "--max-misplaced", "5%", "--upmap-remapped"]


COMPARED = ["add-rack.ops", "add-hosts-spread.ops", "drain-host.ops", "reweight.ops"]


def sample_compare(crushkit, d, sample):
    """The sample's change files side by side; (args, the best alternative's plan args)."""
    sample_plan(crushkit, d, sample)
    files = [os.path.join(sample, f) for f in COMPARED]
    p = check(run([crushkit, "plan", "state.pb"] + files + ["--json"], d), "plan (compare) --json")
    best = json.loads(p.stdout)["alternatives"][0]["name"]
    # A comparison simulates one request order per alternative (no range):
    # the best one's own plan is read the same way.
    return ["state.pb"] + files, ["state.pb", best, "--request-orders", "0"]


def cluster_10k(crushkit, d):
    """10,000 OSDs with crushkit's fronts (about a second), 10,000 PGs, a made-up osd df."""
    check(run([crushkit, "crushtool", "--build", "--num_osds", "10000", "host", "straw2", "25", "rack",
               "straw2", "20", "root", "straw2", "0", "-o", "crush.bin"], d), "crushtool --build")
    check(run([crushkit, "osdmaptool", "om", "--createsimple", "10000", "--with-default-pool", "--pg-bits",
               "0", "--pgp-bits", "0", "--clobber", "--import-crush", "crush.bin"], d), "--createsimple")
    check(run([crushkit, "osdmaptool", "om", "--mark-up-in", "--adjust-crush-weight", "0:1", "--save"], d),
          "--mark-up-in")
    kb = 3907018584  # a 4 TB disk; fill 40% .. 70%, spread by a fixed stride
    nodes = [{"id": i, "name": "osd.%d" % i, "type": "osd", "kb": kb,
              "kb_used": int(kb * (0.40 + 0.30 * ((i * 7919) % 1000) / 1000))} for i in range(10000)]
    with open(os.path.join(d, "osd-df.json"), "w") as f:
        json.dump({"nodes": nodes, "stray": []}, f)
    check(run([crushkit, "import", "--osdmap", "om", "--osd-df", "osd-df.json", "-o", "state.pb"], d),
          "import")
    with open(os.path.join(d, "change.ops"), "w") as f:
        f.write("drain host5\nosd crush reweight osd.7 0.5\n")
    return ["state.pb", "change.ops", "--max-misplaced", "5%", "--upmap-remapped"]


def console_lines(stderr):
    return [l for l in stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]


def detector_works(base, d):
    """The console check must see an error on a page that has one."""
    bad = os.path.join(d, "bad.html")
    with open(bad, "w") as f:
        f.write("<html><body><script>undefinedFunction();</script></body></html>")
    p = run(base + ["--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + bad], d)
    return bool(console_lines(p.stderr))


def format_duration(s):
    """osdmap/planning/movement_report.cc FormatDuration, to find the JSON's seconds on the page."""
    if not s > 0:
        return "0 s"
    if s < 10:
        return "%.1f s" % s
    units = [(86400, "day", "days"), (3600, "h", "h"), (60, "min", "min"), (1, "s", "s")]
    for (big, one, many), (small, sone, smany) in zip(units, units[1:]):
        total = int(s / small + 0.5)  # std::round: halves away from zero
        per = big // small
        if total < per:
            continue
        whole, rest = divmod(total, per)
        text = "%d %s" % (whole, one if whole == 1 else many)
        return text if rest == 0 else text + " %d %s" % (rest, sone if rest == 1 else smany)
    return "%d s" % int(s + 0.5)


def headline_failures(h, dom):
    """The headline comes first on the page and shows the JSON's figures."""
    failures = []
    top, what_moves = dom.find('id="headline"'), dom.find("What moves")
    if top < 0 or what_moves < 0 or top > what_moves:
        return ["the headline is not above 'What moves'"]
    if 'id="assumptions"' not in dom:
        failures.append("the page has no assumptions section")
    rows = {k: html.unescape(v) for k, v in
            re.findall(r'<tr data-key="([a-z_]+)"><th>[^<]*</th><td>([^<]*)</td></tr>', dom)}
    pgs = "%d PG%s of %d" % (h["pgs_remapped"], "" if h["pgs_remapped"] == 1 else "s", h["pgs_total"])
    share = 100 * h["share_of_stored"]
    want = {"moves": pgs + (" (%.1f%% of stored)" % share if h["bytes_known"]
                            else ", %.1f%% of the copies" % share)}
    first = h.get("first_step", 0)
    if h["steps"]:
        want["steps"] = ("1 step (step %d)" % first if h["steps"] == 1 else
                         "%d steps, numbered %d to %d" % (h["steps"], first, first + h["steps"] - 1))
    if h["first_command"]:
        want["first_command"] = h["first_command"]
    if h["peak_osd"] != NO_OSD:
        want["peak"] = "osd.%d at %.1f%%" % (h["peak_osd"], 100 * h["peak_fill"])
    if h["simulated"] and h["seconds_high"] > 0:
        want["duration"] = format_duration(h["seconds_low"])
        if format_duration(h["seconds_high"]) != want["duration"]:
            want["duration"] += " .. " + format_duration(h["seconds_high"])
    if h.get("duration_orders"):
        want["duration_orders"] = h["duration_orders"]
    for key, text in want.items():
        if text not in rows.get(key, ""):
            failures.append("headline row %s is %r, not the JSON's %r" % (key, rows.get(key), text))
    return failures


def axis_failures(chart, width):
    """Ticks on both axes; titles with units on the value axes and time axes."""
    failures = []
    name = chart["kind"]
    for a in ("x", "y"):
        axis = chart["axes"][a]
        if len(axis["ticks"]) < 2:
            failures.append("%s: %s axis has %d ticks" % (name, a, len(axis["ticks"])))
        if not axis["title"]:
            failures.append("%s: %s axis has no title" % (name, a))
    y = chart["axes"]["y"]
    if not any(u in y["title"] for u in UNIT_WORDS):
        failures.append("%s: y axis title %r names no unit" % (name, y["title"]))
    if "%" in y["title"] and not all(t.endswith("%") for t in y["ticks"]):
        failures.append("%s: y ticks %r lack '%%'" % (name, y["ticks"][:4]))
    if name == "time-chart":
        x = chart["axes"]["x"]
        m = re.search(r"\((days|hours|minutes|seconds)\)", x["title"])
        if not m:
            failures.append("time chart: x title %r names no time unit" % x["title"])
        elif not all(t.endswith(" " + m.group(1)[0]) for t in x["ticks"]):
            failures.append("time chart: x ticks %r lack the unit" % x["ticks"][:4])
    if chart["right"] > width + 1:
        failures.append("%s: chart ends at x=%d, past the %d px window" % (name, chart["right"], width))
    return failures


def inspect(base, page, size, shot, d, env=None):
    """Loads a copy of `page` with CHECKER at `size`, keeps a screenshot; (measured, dom, console)."""
    text = open(page).read()
    checked = os.path.join(d, "checked-%s.html" % size)
    with open(checked, "w") as f:
        f.write(text.replace("</body>", CHECKER + "</body>"))
    w, h = size.split("x")
    p = run(base + ["--enable-logging=stderr", "--v=0", "--window-size=%s,%s" % (w, h),
                    "--screenshot=" + shot, "--dump-dom", "file://" + checked], d, env)
    m = re.search(r'<pre id="crushkit-check"[^>]*>([^<]*)</pre>', p.stdout)
    measured = json.loads(html.unescape(m.group(1))) if m else None
    return measured, p.stdout, console_lines(p.stderr)


def state_osds(crushkit, d, a):
    """The ids of every OSD that exists in the input osdmap (its `osd dump` JSON
    lists those), independent of the report; empty with --args."""
    if a.sample or a.compare:
        with open(os.path.join(os.path.abspath(a.sample or a.compare), "osd-dump.json")) as f:
            dump = json.load(f)
    elif a.cluster_10k:
        p = check(run([crushkit, "osdmaptool", "om", "--dump", "json"], d), "osdmaptool --dump json")
        dump = json.loads(p.stdout[p.stdout.index("{"):])
    elif a.args is None:
        with open(os.path.join(d, "om.json")) as f:
            dump = json.load(f)
    else:
        return set()
    return {int(o["osd"]) for o in dump["osds"]}


def page_failures(measured, dom, console, width, report, with_library=True, osds=()):
    failures = []
    if console:
        failures.append("console messages: " + " | ".join(console[:5]))
    if measured is None:
        return failures + ["the checking script left no result (did the page's scripts stop it?)"]
    if measured["scrollWidth"] > measured["clientWidth"]:
        failures.append("the page scrolls sideways: %d px wide in a %d px window" %
                        (measured["scrollWidth"], measured["clientWidth"]))
    if not with_library:
        if measured["chartLoaded"]:
            failures.append("Chart.js is on a page generated without it")
        if not measured["chartBoxes"] or not all("libjs-chart.js" in n for n in measured["chartNotes"]):
            failures.append("a chart box without Chart.js does not say why: %r" % measured["chartNotes"][:3])
        return failures
    if not measured["chartLoaded"]:
        return failures + ["Chart.js did not load (is libjs-chart.js installed?)"]
    if len(measured["charts"]) < measured["chartBoxes"]:
        failures.append("%d chart boxes, %d charts drawn" % (measured["chartBoxes"], len(measured["charts"])))
    for c in measured["charts"]:
        failures += axis_failures(c, width)
    drawn = set()
    for c in measured["charts"]:
        drawn.update(c.get("labels") or [])
    # Every OSD of the state (also those that hold no PG) and every OSD the
    # change creates (the report lists them).
    want = {"osd.%d" % o for o in osds} | {"osd.%d" % o["osd"] for o in report["osds"]}
    if want - drawn:
        failures.append("%d of %d OSDs missing from the OSD chart (e.g. %s)" %
                        (len(want - drawn), len(want), sorted(want - drawn)[:5]))
    if measured["heatCells"] == 0:
        failures.append("no heat map cells")
    if measured["heatBlank"]:
        failures.append("%d heat map cells carry no value (e.g. %r)" %
                        (len(measured["heatBlank"]), measured["heatBlank"][:3]))
    return failures + headline_failures(report["headline"], dom)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--args", nargs="*", help="diff/plan arguments instead of the built-in cluster")
    ap.add_argument("--command", default="diff", choices=["diff", "plan"])
    ap.add_argument("--screenshot-prefix", help="keep screenshots as PREFIX-WxH.png")
    ap.add_argument("--sample", help="samples/cluster: plan its add-rack.ops staged at 5%% (needs no Ceph)")
    ap.add_argument("--cluster-10k", action="store_true", help="the 10,000-OSD plan (needs no Ceph)")
    ap.add_argument("--compare", help="samples/cluster: compare its change files (needs no Ceph)")
    ap.add_argument("--sizes", default="1280x800,1920x1080")
    a = ap.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        return oracle.skip_or_fail("chromium not installed (apt-get install chromium)")
    if (a.args is None and a.sample is None and not a.cluster_10k and not a.compare and
            not (shutil.which("crushtool") and shutil.which("osdmaptool"))):
        return oracle.skip_or_fail("Ceph's crushtool/osdmaptool not installed")
    crushkit = os.path.abspath(a.crushkit)
    d = tempfile.mkdtemp(prefix="crushkit-html-")
    needles = ["What moves", "OSDs before and after", "placement of copies</h2>", "network traffic</h2>"]
    if a.sample:
        a.command = "plan"
        args = sample_plan(crushkit, d, os.path.abspath(a.sample))
        needles += ["Staged plan steps", "Staged plan:", "Backfill at once", "Upmap way:", "Fill per step"]
    elif a.compare:
        a.command = "plan"
        args, single = sample_compare(crushkit, d, os.path.abspath(a.compare))
        needles += ["Alternatives compared (%d)" % len(COMPARED)] + COMPARED
    elif a.cluster_10k:
        a.command = "plan"
        args = cluster_10k(crushkit, d)
        needles += ["Staged plan steps", "Upmap way:", "sums the other"]
    else:
        args = a.args if a.args is not None else make_state(crushkit, d)
    page = os.path.join(d, "report.html")
    p = run([crushkit, a.command] + args + ["--html", page], d)
    if p.returncode != 0:
        print("FAIL: crushkit %s exited %d: %s" % (a.command, p.returncode, p.stderr))
        return 1
    # A comparison's page is its best alternative's report: check it against that plan alone.
    report_args = single if a.compare else args
    report = json.loads(check(run([crushkit, a.command] + report_args + ["--json"], d), "--json").stdout)
    failures = []
    osds = state_osds(crushkit, d, a)
    listed = {int(o["osd"]) for o in report["osds"]}
    if osds - listed:
        failures.append("%d of the state's %d OSDs missing from the JSON's osds (e.g. %s)" %
                        (len(osds - listed), len(osds), sorted(osds - listed)[:5]))
    if report["osds"] and not any(o.get("domain") for o in report["osds"]):
        failures.append("no OSD carries its failure domain (the bucket above its host)")
    text = open(page).read()
    if re.search(r"""(src|href)\s*=\s*['"]?(https?:|//)""", text):
        failures.append("the page loads an external resource")
    base = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--user-data-dir=" + os.path.join(d, "profile")]
    if not detector_works(base, d):
        print("FAIL: chromium's console log did not report an error on a broken page")
        return 1
    prefix = os.path.abspath(a.screenshot_prefix or os.path.join(d, "report"))
    shots = []
    for size in a.sizes.split(","):
        shot = "%s-%s.png" % (prefix, size)
        measured, dom, console = inspect(base, page, size, shot, d)
        failures += ["%s: %s" % (size, f) for f in
                     page_failures(measured, dom, console, int(size.split("x")[0]), report,
                                   osds=osds)]
        for needle in needles:
            if needle not in dom:
                failures.append("%s: the loaded page lacks %r" % (size, needle))
        if a.compare:
            top, moves = dom.find("Alternatives compared"), dom.find("What moves")
            if not 0 <= top < moves:
                failures.append("%s: the comparison is not above 'What moves'" % size)
        if not os.path.isfile(shot) or os.path.getsize(shot) < 1000:
            failures.append("%s: no screenshot" % size)
        shots.append(shot)
    if a.sample:
        # The same page generated without Chart.js: tables only, and a note in each chart box.
        bare = os.path.join(d, "bare.html")
        check(run([crushkit, a.command] + args + ["--html", bare], d,
                  {"CRUSHKIT_CHART_JS": os.path.join(d, "no-such-chart.js")}), "--html without Chart.js")
        measured, dom, console = inspect(base, bare, "1280x800", os.path.join(d, "bare.png"), d)
        failures += ["without Chart.js: " + f for f in
                     page_failures(measured, dom, console, 1280, report, with_library=False)]
    if failures:
        print("FAIL: " + "\n  ".join(failures) + "\n(pages and chromium's profile kept in %s)" % d)
        return 1
    shutil.rmtree(d, ignore_errors=True)  # the screenshots are outside it
    print("OK: the %s report (%d OSDs, the state has %d) in headless chromium at %s: no console errors, no "
          "sideways scroll, every OSD charted, every heat map cell valued, axes with ticks and units, the JSON's "
          "headline; screenshots %s" % (a.command, len(report["osds"]), len(osds), a.sizes, " ".join(shots)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
