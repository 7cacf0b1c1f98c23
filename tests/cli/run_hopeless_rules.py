#!/usr/bin/env python3
"""Rules that cannot be satisfied, with set_choose_tries 2000000000 (issue 17):
Ceph's crushtool retries for hours; `crushkit crushtool --test` must finish
at once and print what crushtool prints. crushtool's answer is the same
after 500 tries as after 2e9 (every extra try fails), so the 2e9 map is
checked against crushtool on the same map with 500 tries, and the 500-try
map itself, choose_tries histogram included, against crushtool.

Exit 77 (skip) without crushtool, unless CRUSHKIT_REQUIRE_ORACLE=1."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

MAP = """tunable choose_local_tries 0
tunable choose_local_fallback_tries 0
tunable choose_total_tries 50
tunable chooseleaf_descend_once 1
tunable chooseleaf_vary_r 1
tunable chooseleaf_stable 1
tunable straw_calc_version 1
tunable allowed_bucket_algs 54

device 0 osd.0
device 1 osd.1
device 2 osd.2
device 3 osd.3
device 4 osd.4
device 5 osd.5

type 0 osd
type 1 host
type 11 root

host a {{
\tid -2
\talg straw2
\thash 0
\titem osd.0 weight 1.000
\titem osd.1 weight 1.000
\titem osd.2 weight 0.000
}}
host b {{
\tid -3
\talg straw2
\thash 0
\titem osd.3 weight 1.000
\titem osd.4 weight 2.000
\titem osd.5 weight 1.000
}}
root default {{
\tid -1
\talg straw2
\thash 0
\titem a weight 2.000
\titem b weight 4.000
}}

rule rep3 {{
\tid 0
\ttype replicated
\tstep set_choose_tries {tries}
\tstep set_chooseleaf_tries {tries}
\tstep take default
\tstep chooseleaf firstn 0 type host
\tstep emit
}}
rule ec3 {{
\tid 1
\ttype erasure
\tstep set_choose_tries {tries}
\tstep set_chooseleaf_tries {tries}
\tstep take default
\tstep chooseleaf indep 0 type host
\tstep emit
}}
rule rep4osd {{
\tid 2
\ttype replicated
\tstep set_choose_tries {tries}
\tstep take default
\tstep choose firstn 0 type osd
\tstep emit
}}
"""

SHOWS = [["--show-statistics"], ["--show-mappings"], ["--show-bad-mappings"],
         ["--show-utilization"]]
ORACLE_ONLY = [["--show-choose-tries"], ["--show-mappings", "--weight", "4", "0"],
               ["--show-statistics", "--weight", "1", "0.5", "--weight", "3", "0"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crushkit", required=True)
    args = ap.parse_args()
    crushtool = shutil.which("crushtool")
    if crushtool is None:
        print("crushtool (Ceph) not found", file=sys.stderr)
        return 1 if os.environ.get("CRUSHKIT_REQUIRE_ORACLE") == "1" else 77
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, CEPH_ARGS="--crash_dir=" + tmp)
        maps = {}
        for tries in (500, 2000000000):
            text = os.path.join(tmp, f"t{tries}.txt")
            with open(text, "w") as f:
                f.write(MAP.format(tries=tries))
            maps[tries] = os.path.join(tmp, f"t{tries}.bin")
            subprocess.run([args.crushkit, "crushtool", "-c", text, "-o", maps[tries]], check=True)

        def ours(tries, flags):
            cmd = [args.crushkit, "crushtool", "-i", maps[tries], "--test", "--num-rep", "3",
                   "--min-x", "0", "--max-x", "255"] + flags
            start = time.monotonic()
            p = subprocess.run(cmd, capture_output=True, timeout=60)
            return p, time.monotonic() - start

        def theirs(flags):
            cmd = [crushtool, "-i", maps[500], "--test", "--num-rep", "3",
                   "--min-x", "0", "--max-x", "255"] + flags
            return subprocess.run(cmd, capture_output=True, timeout=300, env=env)

        for flags in SHOWS + ORACLE_ONLY:
            want = theirs(flags)
            tries_list = (500, 2000000000) if flags in SHOWS else (500,)
            for tries in tries_list:
                got, seconds = ours(tries, flags)
                what = f"tries {tries} {' '.join(flags)}"
                if (got.returncode, got.stdout) != (want.returncode, want.stdout):
                    failures.append(f"{what}: differs from crushtool\n--- crushtool\n"
                                    f"{want.stdout.decode()[:2000]}\n--- crushkit\n"
                                    f"{got.stdout.decode()[:2000]}\n{got.stderr.decode()}")
                # Not a benchmark: a generous bound that a retry loop over
                # 2e9 tries could never meet (it took 12 minutes).
                if seconds > 30:
                    failures.append(f"{what}: took {seconds:.1f} s")
                print(f"{what}: {seconds:.2f} s")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
