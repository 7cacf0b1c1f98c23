#!/usr/bin/env python3
"""Opens crushkit's HTML movement report in headless Chromium.

Builds a small cluster with Ceph's tools (or takes --state/--change), runs
`crushkit diff ... --html`, loads the page in Debian's headless chromium and
checks: the page loads (its DOM has the report's sections), the console
reports no error or uncaught exception, the page names no external resource
(http:, https:, //), and a screenshot is written (--screenshot, default
report.png in the work directory, kept for people to look at).

Exit: 0 ok, 1 failure, 77 (ctest SKIP) without chromium or Ceph's tools
unless CRUSHKIT_REQUIRE_ORACLE is set (then 1).
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


def run(cmd, cwd, **kw):
    env = dict(os.environ, CEPH_ARGS="--crash_dir=" + cwd)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, **kw)


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
        p = run(cmd, d)
        if p.returncode != 0:
            raise RuntimeError("%s failed: %s" % (" ".join(cmd), p.stderr))
    p = run(["osdmaptool", "om", "--dump", "json", "--export-crush", "exported.bin"], d)
    with open(os.path.join(d, "om.json"), "w") as f:
        f.write(p.stdout[p.stdout.index("{"):])
    p = run([crushkit, "import", "--osdmap", "om.json", "--crush", "exported.bin", "-o", "state.pb"], d)
    if p.returncode != 0:
        raise RuntimeError("import failed: " + p.stderr)
    return ["state.pb", "--crush-after", "after.bin"]


def sample_plan(crushkit, d, sample):
    """The bundled sample cluster and its rack expansion, staged at 5%."""
    files = {f: os.path.join(sample, f) for f in
             ["osd-dump.json", "crush.txt", "pg-dump.json", "osd-df.json", "df.json", "add-rack.ops"]}
    p = run([crushkit, "import", "--osdmap", files["osd-dump.json"], "--crush", files["crush.txt"],
             "--pg-stats", files["pg-dump.json"], "--osd-df", files["osd-df.json"], "--df", files["df.json"],
             "-o", "state.pb"], d)
    if p.returncode != 0:
        raise RuntimeError("import of the sample failed: " + p.stderr)
    return ["state.pb", files["add-rack.ops"], "--max-misplaced", "5%", "--upmap-remapped"]


def console_lines(stderr):
    return [l for l in stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]


def detector_works(base, d):
    """The console check must see an error on a page that has one."""
    bad = os.path.join(d, "bad.html")
    with open(bad, "w") as f:
        f.write("<html><body><script>undefinedFunction();</script></body></html>")
    p = run(base + ["--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + bad], d)
    return bool(console_lines(p.stderr))


def headline_failures(crushkit, command, args, d, dom):
    """The headline comes first on the page and shows the JSON's figures."""
    failures = []
    top, what_moves = dom.find('id="headline"'), dom.find("What moves")
    if top < 0 or what_moves < 0 or top > what_moves:
        return ["the headline is not above 'What moves'"]
    if 'id="assumptions"' not in dom:
        failures.append("the page has no assumptions section")
    p = run([crushkit, command] + args + ["--json"], d)
    if p.returncode != 0:
        return failures + ["crushkit %s --json exited %d" % (command, p.returncode)]
    h = json.loads(p.stdout)["headline"]
    rows = {k: html.unescape(v) for k, v in
            re.findall(r'<tr data-key="([a-z_]+)"><th>[^<]*</th><td>([^<]*)</td></tr>', dom)}
    pgs = "%d PG%s of %d" % (h["pgs_remapped"], "" if h["pgs_remapped"] == 1 else "s", h["pgs_total"])
    share = 100 * h["share_of_stored"]
    want = {"moves": pgs + (" (%.1f%% of stored)" % share if h["bytes_known"]
                            else ", %.1f%% of the copies" % share)}
    if h["steps"]:
        want["steps"] = ("1 step (step 0)" if h["steps"] == 1 else
                         "%d steps, numbered 0 to %d" % (h["steps"], h["steps"] - 1))
    if h["first_command"]:
        want["first_command"] = h["first_command"]
    if h["peak_osd"] != 2147483647:
        want["peak"] = "osd.%d at %.1f%%" % (h["peak_osd"], 100 * h["peak_fill"])
    for key, text in want.items():
        if text not in rows.get(key, ""):
            failures.append("headline row %s is %r, not the JSON's %r" % (key, rows.get(key), text))
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--args", nargs="*", help="diff/plan arguments instead of the built-in cluster")
    ap.add_argument("--command", default="diff", choices=["diff", "plan"])
    ap.add_argument("--screenshot", help="where to keep the screenshot")
    ap.add_argument("--sample", help="samples/cluster: plan its add-rack.ops staged at 5%% (needs no Ceph)")
    a = ap.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        return oracle.skip_or_fail("chromium not installed (apt-get install chromium)")
    if a.args is None and a.sample is None and not (shutil.which("crushtool") and shutil.which("osdmaptool")):
        return oracle.skip_or_fail("Ceph's crushtool/osdmaptool not installed")
    crushkit = os.path.abspath(a.crushkit)
    d = tempfile.mkdtemp(prefix="crushkit-html-")
    needles = ["What moves", "OSDs before and after", "placement of copies</h2>", "network traffic</h2>",
               "<svg"]
    if a.sample:
        a.command = "plan"
        args = sample_plan(crushkit, d, os.path.abspath(a.sample))
        needles += ["Staged plan steps", "Staged plan:", "Backfill at once", "Upmap way:"]
    else:
        args = a.args if a.args is not None else make_state(crushkit, d)
    page = os.path.join(d, "report.html")
    p = run([crushkit, a.command] + args + ["--html", page], d)
    if p.returncode != 0:
        print("FAIL: crushkit %s exited %d: %s" % (a.command, p.returncode, p.stderr))
        return 1
    html = open(page).read()
    failures = []
    if re.search(r"""(src|href)\s*=\s*['"]?(https?:|//)""", html):
        failures.append("the page loads an external resource")
    shot = os.path.abspath(a.screenshot or os.path.join(d, "report.png"))
    base = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--user-data-dir=" + os.path.join(d, "profile")]
    if not detector_works(base, d):
        print("FAIL: chromium's console log did not report an error on a broken page")
        return 1
    # Console messages are logged as "CONSOLE(line)" with --enable-logging.
    p = run(base + ["--enable-logging=stderr", "--v=0", "--window-size=1280,3200",
                    "--screenshot=" + shot, "file://" + page], d)
    console = console_lines(p.stderr)
    if p.returncode != 0:
        failures.append("chromium --screenshot exited %d" % p.returncode)
    if console:
        failures.append("console messages: " + " | ".join(console[:5]))
    if not os.path.isfile(shot) or os.path.getsize(shot) < 1000:
        failures.append("no screenshot")
    dom = run(base + ["--dump-dom", "file://" + page], d).stdout
    for needle in needles:
        if needle not in dom:
            failures.append("the loaded page lacks %r" % needle)
    failures += headline_failures(crushkit, a.command, args, d, dom)
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print("OK: %s loads in headless chromium with no console errors; screenshot %s" % (page, shot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
