"""Running Ceph's tools (and crushkit) from the differential runners."""
import atexit
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Ceph releases with an oracle here, and the crushtool / osdmaptool each is
# run as: Debian 12's 16.2 on PATH, the newer ones installed by
# ../shared/tools/ceph-oracles.sh (the setup script runs it).
ORACLE_BIN = os.environ.get("CEPH_ORACLES_BIN", "/opt/ceph-oracles/bin")
RELEASES = ("pacific", "reef", "tentacle")


def tool(name, release):
    """Path (or bare name) of Ceph's `name` (crushtool, osdmaptool, crushdiff)
    of `release`."""
    if release == "pacific":
        return name
    return os.path.join(ORACLE_BIN, "%s-%s" % (name, release))


def use_release(release):
    """Makes every crushkit run of this process (and its workers) behave as
    `release` (CRUSHKIT_CEPH_RELEASE, read by crushkit's fronts)."""
    os.environ["CRUSHKIT_CEPH_RELEASE"] = release


# The suites compare with Ceph 16.2 unless they select another release.
use_release("pacific")

# The newer releases' wrappers run the tools through their root's loader, so
# a tool sees argv[0] as its path inside that root; Ceph prints argv[0] in
# some messages, which then name that path instead of `crushtool`.
# Path components are plain names, so that a path printed right after a
# dump ("...</osdmap>/opt/...", "...0)/0\"}]/opt/...") does not eat its tail.
_ORACLE_ARGV0 = re.compile(rb"(?:/[\w.+-]+)*/(?:reef|tentacle)/usr/bin/(crushtool|osdmaptool)")


# crushkit's warning for a text map it compiles only because Ceph accepts it
# (compiler/README.md, "What crushkit refuses that crushtool accepts"): an
# extra stderr line by design, removed before comparing with Ceph.
_QUIRK_WARNING = re.compile(rb"^crushkit crushtool: [^\n]*: warning: [^\n]*; as Ceph,[^\n]*\n", re.M)


def strip_quirk_warnings(data):
    return _QUIRK_WARNING.sub(b"", data)


def normalize_argv0(data):
    """`data` with the newer releases' argv[0] paths shown as bare names."""
    return _ORACLE_ARGV0.sub(rb"\1", data)


def put_on_path(name, release, explicit=""):
    """Puts `release`'s `name` (or the tool `explicit` names) first on PATH
    under its bare name, so that the runners call it as `name` as scripts do
    (messages print argv[0]). Returns its path, or None if it is missing."""
    found = shutil.which(explicit or tool(name, release))
    if found is None:
        return None
    bare = tempfile.mkdtemp(prefix="crushkit-oracle.")
    atexit.register(shutil.rmtree, bare, True)
    os.symlink(found, os.path.join(bare, name))
    os.environ["PATH"] = bare + os.pathsep + os.environ.get("PATH", "")
    return found


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


def map_tasks(check, tasks, jobs, progress_every):
    """Runs check(task) for every task on `jobs` worker processes and returns
    (total, failures): the sum of each counter the checks return, and their
    "failures" lists joined. Prints "... done/all maps" to stderr every
    `progress_every` results, a sign of life on long runs."""
    total, failures = {}, []
    with multiprocessing.Pool(jobs) as pool:
        for done, res in enumerate(pool.imap_unordered(check, tasks), 1):
            if done % progress_every == 0:
                print("... %d/%d maps" % (done, len(tasks)), file=sys.stderr, flush=True)
            for k, v in res.items():
                if k == "failures":
                    failures += v
                else:
                    total[k] = total.get(k, 0) + v
    return total, failures
