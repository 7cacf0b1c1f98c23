"""What the CLI tests share: run a command and check its exit code, and
collect every failed expectation in FAILURES instead of stopping at the
first, so one run reports them all."""
import subprocess

FAILURES = []


def run(cmd, expect_rc=0, timeout=300, text=True, check=False, **kwargs):
    """Runs `cmd` with its output captured and returns the CompletedProcess.

    expect_rc: the exit code `cmd` must end with; another one is a failure in
    FAILURES, or with check=True raises RuntimeError (for set-up steps the rest
    depends on). None: any exit code, the caller looks. text=False keeps the
    output as bytes. Further keywords (env, cwd, pass_fds) go to subprocess.run."""
    p = subprocess.run(cmd, capture_output=True, text=text, timeout=timeout, **kwargs)
    if expect_rc is not None and p.returncode != expect_rc:
        err = p.stderr if text else p.stderr.decode(errors="replace")
        what = f"{' '.join(cmd)}: exit {p.returncode}, expected {expect_rc}\n{err}"
        if check:
            raise RuntimeError(what)
        FAILURES.append(what)
    return p


def expect(cond, what):
    if not cond:
        FAILURES.append(what)


def report(name):
    """Prints every failure and a summary line; returns the exit code."""
    for f in FAILURES:
        print("FAIL:", f)
    print(f"{'FAILED' if FAILURES else 'OK'}: {name} ({len(FAILURES)} failure(s))")
    return 1 if FAILURES else 0
