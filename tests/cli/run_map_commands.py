#!/usr/bin/env python3
"""`crushkit check`, `crushkit test` and `crushkit tree` on the bundled sample
maps (and a broken copy of one): the findings each map must produce, exit
codes, --json output that parses with the documented fields, and help
texts that carry an example. Then inputs of the wrong kind (empty, binary,
Ceph's dumps where a state belongs, broken JSON): a clear error naming what
the file is, exit 1, nothing written, no raw bytes on the terminal."""
import argparse
import json
import os
import re
import sys
import tempfile

from cli_check import FAILURES, expect, report, run

def codes(report):
    return {f["code"] for f in report["findings"]}


def run_error(cmd, must_say, out_file=None):
    err = run(cmd, expect_rc=1, text=False).stderr.decode("latin1")
    expect(must_say in err, f"{' '.join(cmd)}: stderr lacks {must_say!r}:\n{err}")
    expect(all(c in "\t\n" or 32 <= ord(c) < 127 for c in err), f"{' '.join(cmd)}: raw bytes on stderr")
    if out_file:
        expect(not os.path.exists(out_file), f"{' '.join(cmd)}: wrote {out_file} on error")


def check_wrong_inputs(k, cluster):
    dump, crush = os.path.join(cluster, "osd-dump.json"), os.path.join(cluster, "crush.txt")
    with tempfile.TemporaryDirectory() as tmp:
        def path(name, data):
            p = os.path.join(tmp, name)
            with open(p, "wb") as f:
                f.write(data)
            return p
        empty = path("empty", b"")
        elf = path("elf", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
        body = b"\x09\x01" + bytes(64)
        osdmap = path("osdmap", b"\x08\x07" + len(body).to_bytes(4, "little") + body)
        bad = path("bad.json", b'{\n  "epoch": 1,\n  "max_osd": 3 4\n}\n')
        out = os.path.join(tmp, "state.pb")
        run_error([k, "import", "--osdmap", dump, "--crush", empty, "-o", out], "empty file", out)
        run_error([k, "import", "--osdmap", dump, "--crush", osdmap, "-o", out], "binary osdmap", out)
        run_error([k, "import", "--osdmap", elf, "--crush", crush, "-o", out], "binary data (starts 7f 45 4c 46", out)
        run_error([k, "import", "--osdmap", bad, "--crush", crush, "-o", out], "3:16: Expected , or }", out)
        run_error([k, "map-pgs", dump], "expected a crushkit state ('crushkit import --osdmap DUMP.json "
                  "--crush CRUSHMAP -o state.pb') or Ceph's binary osdmap ('ceph osd getmap -o FILE'); "
                  "this is 'ceph osd dump -f json'")
        run_error([k, "map-pgs", osdmap], "binary osdmap: truncated at offset 12: expected fsid")
        run_error([k, "map-pgs", crush], "this is a text crush map ('crushtool -d')")
        run_error([k, "import", "--osdmap", elf, "-o", out], "--osdmap wants 'ceph osd dump -f json' or Ceph's binary "
                  "osdmap ('ceph osd getmap'); this is binary data (starts 7f 45 4c 46", out)
        run_error([k, "import", "--osdmap", osdmap, "-o", out], "binary osdmap: truncated at offset 12", out)
        run_error([k, "import", "--osdmap", dump, "-o", out], "a JSON osd dump needs --crush", out)
        # A binary osdmap imports on its own (its crush map inside), and loads
        # wherever a state does.
        golden = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "osdmap_binary",
                              "pacific-upmap.osdmap")
        p = run([k, "import", "--osdmap", golden, "-o", out], expect_rc=None)
        expect(p.returncode == 0 and os.path.exists(out), f"import of a binary osdmap failed:\n{p.stderr}")
        from_state = run([k, "map-pgs", out]).stdout
        from_binary = run([k, "map-pgs", golden]).stdout
        expect(from_state == from_binary and from_state, "map-pgs differs between a binary osdmap and its import")
        # A crush map whose devices go beyond the dump's max_osd: imported, with a warning.
        small = path("small.crush", open(os.path.join(os.path.dirname(cluster), "3rack-weighted.crush"), "rb").read())
        p = run([k, "import", "--osdmap", dump, "--crush", small, "-o", out], expect_rc=None)
        expect(p.returncode == 0 and "warning: pool" in p.stderr, f"rule warning missing:\n{p.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    ap.add_argument("--samples", required=True)
    a = ap.parse_args()
    k = a.crushkit
    legacy = os.path.join(a.samples, "legacy-rooms.crush")
    racks = os.path.join(a.samples, "3rack-weighted.crush")
    ec = os.path.join(a.samples, "6host-classes-ec.crush")

    version = run([k, "--version"]).stdout
    # The version, then the release the commands without a state behave as
    # (tests/cli/run_release_follows_cluster.py checks the reasons).
    expect(re.fullmatch(r"crushkit \d+\.\d+\.\d+\ndefault Ceph release: (pacific|reef|tentacle) "
                        r"\([^\n]+\)\n", version), f"--version printed {version!r}")

    r = json.loads(run([k, "check", legacy, "--json"]).stdout)
    expect({"tunables-legacy", "bucket-alg-legacy"} <= codes(r), f"legacy-rooms findings: {codes(r)}")
    expect(r["errors"] == 0 and r["warnings"] >= 2, f"legacy-rooms counts: {r['errors']} {r['warnings']}")
    expect(all(f["hint"] for f in r["findings"] if f["severity"] == "warning"), "every warning has a hint")
    run([k, "check", legacy, "--strict"], expect_rc=1)

    r = json.loads(run([k, "check", racks, "--json"]).stdout)
    expect("failure-domain-imbalance" in codes(r), f"3rack-weighted findings: {codes(r)}")
    # Four replicas in three racks cannot be placed: an error, exit 1.
    r = json.loads(run([k, "check", racks, "--num-rep", "4", "--json"], expect_rc=1).stdout)
    expect("rule-unsatisfiable" in codes(r), f"3rack-weighted --num-rep 4 findings: {codes(r)}")

    r = json.loads(run([k, "check", ec, "--json"]).stdout)
    expect("rule-capacity" in codes(r), f"6host-classes-ec findings: {codes(r)}")

    with tempfile.TemporaryDirectory() as tmp:
        broken = os.path.join(tmp, "broken.crush")
        with open(racks) as f:
            text = f.read()
        # A rule taking a bucket that does not exist cannot compile; a rule
        # without emit compiles and maps nothing.
        with open(broken, "w") as f:
            f.write(text.replace("\tstep emit\n", "", 1))
        r = json.loads(run([k, "check", broken, "--json"], expect_rc=1).stdout)
        expect("rule-no-emit" in codes(r), f"rule without emit: {codes(r)}")
        out = run([k, "check", broken], expect_rc=1).stdout
        expect("fix:" in out and "1 error(s)" in out, f"terminal summary:\n{out}")

    t = json.loads(run([k, "test", racks, "--json", "--inputs", "20000"]).stdout)
    rule = t["rules"][0]
    expect(rule["num_rep"] == 3 and rule["inputs"] == 20000, f"test header: {rule}")
    expect(int(rule["placed"]) > 0 and rule["domain_type"] == "rack", f"test rule: {rule}")
    shares = sum(d["actual_share"] for d in rule["domains"])
    expect(abs(shares - 1.0) < 1e-9, f"rack shares sum to {shares}")
    expect(rule["domain_spread"]["items"] == len(rule["domains"]) == 3, f"spread: {rule['domain_spread']}")
    out = run([k, "test", racks, "--inputs", "20000"]).stdout
    expect("within 2 SD" in out and "DEV/SD" in out, f"test terminal output:\n{out}")

    tr = json.loads(run([k, "tree", ec, "--json", "--test", "--inputs", "4096"]).stdout)
    expect(any(i["device_class"] == "ssd" for i in tr["items"]), "tree --json has classes")
    expect(any("share" in i for i in tr["items"]) and tr["test"]["inputs"] == 4096, "tree --json --test shares")

    for cmd in ["check", "test", "tree", "edit", "compile", "decompile", "diff", "plan", "import", "map-pgs",
                "map-object", "strategies"]:
        out = run([k, cmd, "--help"]).stdout
        expect("xample" in out, f"`crushkit {cmd} --help` has no example")

    check_wrong_inputs(k, os.path.join(a.samples, "cluster"))

    return report("map commands")


if __name__ == "__main__":
    sys.exit(main())
