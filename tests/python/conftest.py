"""Shared fixtures of the crushkit Python module tests: the crushkit CLI
(the answers the module must give) and the bundled samples.

Run by ctest (python_tests) with PYTHONPATH at the built module,
CRUSHKIT_CLI at the CLI and CRUSHKIT_SOURCE_DIR at the repository."""

import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(
    os.environ.get("CRUSHKIT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SAMPLES = SOURCE_DIR / "samples"
TEXT_MAPS = sorted(SAMPLES.glob("*.crush"))


def cli_path():
    path = os.environ.get("CRUSHKIT_CLI", str(SOURCE_DIR / "build" / "tools" / "crushkit"))
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"crushkit CLI not found at {path} (set CRUSHKIT_CLI)")
    return path


# The module's default release is crushkit's current one (tentacle); the
# CLI's commands without a cluster state default to the Ceph installed on the
# host (tools/common/ceph_release_env.h). The CLI is asked as on a host
# without Ceph, so both defaults agree; states still take their dump's
# release.
CLI_ENV = dict(os.environ, CRUSHKIT_DPKG_STATUS=os.devnull)


def run_cli(*args, binary=False):
    """stdout of `crushkit ARGS` (fails the test on a non-zero exit)."""
    proc = subprocess.run([cli_path(), *map(str, args)], capture_output=True, check=False,
                          env=CLI_ENV)
    assert proc.returncode == 0, f"crushkit {' '.join(map(str, args))}: {proc.stderr.decode()}"
    return proc.stdout if binary else proc.stdout.decode()


def parse_osd_list(text):
    """'[1,2,3]' -> [1, 2, 3]."""
    inner = text.strip()[1:-1]
    return [int(v) for v in inner.split(",")] if inner else []


@pytest.fixture(scope="session")
def compiled_maps(tmp_path_factory):
    """{sample name: path of its binary map as `crushkit compile` writes it}."""
    out = tmp_path_factory.mktemp("maps")
    maps = {}
    for text in TEXT_MAPS:
        binary = out / (text.stem + ".crushmap")
        run_cli("compile", text, "-o", binary)
        maps[text.stem] = binary
    return maps


@pytest.fixture(scope="session")
def sample_state(tmp_path_factory):
    """samples/cluster imported as a state file (188 OSDs, a replicated and an EC pool)."""
    out = tmp_path_factory.mktemp("state") / "state.pb"
    cluster = SAMPLES / "cluster"
    run_cli("import", "--osdmap", cluster / "osd-dump.json", "--crush", cluster / "crush.txt",
            "-o", out)
    return out
