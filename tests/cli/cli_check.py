"""What the balance CLI tests share: run a command expecting an exit code,
and collect every failed expectation in FAILURES instead of stopping."""
import subprocess

FAILURES = []


def run(cmd, expect_rc=0):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != expect_rc:
        FAILURES.append(f"{' '.join(cmd)}: exit {p.returncode}, expected {expect_rc}\n{p.stderr}")
    return p


def expect(cond, what):
    if not cond:
        FAILURES.append(what)
