"""Running Ceph's tools (and crushkit) from the differential runners."""
import os
import subprocess


def run(cmd, cwd, timeout):
    """Runs `cmd` in `cwd`; returns (rc, stdout, stderr), rc "timeout" on a hang.

    Ceph's crash reports go to `cwd` (CEPH_ARGS) so they never pile up in
    /var/lib/ceph/crash.
    """
    env = dict(os.environ, CEPH_ARGS="--crash_dir=" + cwd)
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def crashed(rc):
    """True for a hang, a signal, or an abort-style exit code."""
    return rc == "timeout" or rc < 0 or rc >= 128


def skip_or_fail(message):
    """Exit code for a suite whose oracle is missing: 77 (ctest SKIP) on a
    developer's machine, 1 when CRUSHKIT_REQUIRE_ORACLE is set (CI), so a
    missing Ceph can never turn the compatibility suites green."""
    if os.environ.get("CRUSHKIT_REQUIRE_ORACLE"):
        print("FAIL: %s (CRUSHKIT_REQUIRE_ORACLE is set)" % message)
        return 1
    print("SKIP: %s" % message)
    return 77
