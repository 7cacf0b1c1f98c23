"""crushkit.ClusterState and crushkit.diff against the CLI's map-pgs,
map-object, osdmaptool and diff answers, on the bundled sample cluster and
on a binary osdmap made in the test."""

import json
import re

import numpy as np
import pytest

import crushkit
from conftest import SAMPLES, parse_osd_list, run_cli

NONE = crushkit.ITEM_NONE


def map_pgs(state, pool):
    """{ps: (up, up_primary, acting, acting_primary)} from `crushkit map-pgs`."""
    result = {}
    for line in run_cli("map-pgs", state, "--pool", pool).splitlines():
        pgid, up, up_primary, acting, acting_primary = line.split("\t")
        result[int(pgid.split(".")[1], 16)] = (parse_osd_list(up), int(up_primary),
                                               parse_osd_list(acting), int(acting_primary))
    return result


def padded(sets, width):
    """Lists padded with ITEM_NONE to `width`, as map_pool returns them."""
    return [list(s) + [NONE] * (width - len(s)) for s in sets]


@pytest.fixture(scope="session")
def simple_osdmap(tmp_path_factory):
    """A binary osdmap as `osdmaptool --createsimple 12 --with-default-pool` writes it,
    every OSD marked up and in but osd.3 out (persisted with --save)."""
    path = tmp_path_factory.mktemp("osdmap") / "om"
    run_cli("osdmaptool", "--createsimple", 12, "--with-default-pool", path)
    run_cli("osdmaptool", path, "--mark-up-in", "--mark-out", 3, "--adjust-crush-weight", "0:1",
            "--save")
    return path


def test_map_pool_and_map_pg_match_map_pgs(sample_state):
    state = crushkit.ClusterState.load(str(sample_state))
    assert state.pools, "the sample has pools"
    for name, pool_id in state.pools.items():
        expected = map_pgs(sample_state, pool_id)
        up, up_primary, acting, acting_primary = state.map_pool(name)
        assert up.dtype == np.int32 and up.shape[0] == state.pg_num(pool_id) == len(expected)
        width = up.shape[1]
        assert up.tolist() == padded((expected[ps][0] for ps in range(len(expected))), width)
        assert up_primary.tolist() == [expected[ps][1] for ps in range(len(expected))]
        assert acting.tolist() == padded((expected[ps][2] for ps in range(len(expected))), width)
        assert acting_primary.tolist() == [expected[ps][3] for ps in range(len(expected))]
        for ps in sorted({0, 1, len(expected) // 2, len(expected) - 1} & set(expected)):
            assert state.map_pg(pool_id, ps) == expected[ps]
            assert state.map_pg(name, ps) == expected[ps]


MAP_OBJECT = re.compile(r"-> pg \S+ \((\S+)\) -> up \((\[.*\]), p(-?\d+)\) acting \((\[.*\]), p(-?\d+)\)")


def test_map_object_matches_map_object(sample_state):
    state = crushkit.ClusterState.load(str(sample_state))
    for pool in state.pools:
        for name, nspace in (("rbd_data.1234.0000000000000000", ""), ("obj", "ns1")):
            args = ["map-object", sample_state, pool, name]
            if nspace:
                args += ["--namespace", nspace]
            m = MAP_OBJECT.search(run_cli(*args))
            assert m, "unexpected map-object output"
            expected = (m.group(1), parse_osd_list(m.group(2)), int(m.group(3)),
                        parse_osd_list(m.group(4)), int(m.group(5)))
            assert state.map_object(pool, name, namespace=nspace) == expected


def test_binary_osdmap_matches_osdmaptool(simple_osdmap):
    state = crushkit.ClusterState.load(str(simple_osdmap))
    assert state.pools == {"rbd": 1}
    # osdmaptool --test-map-pgs-dump: "<pgid>\t[up]\t<up primary>" per PG.
    dump = run_cli("osdmaptool", simple_osdmap, "--test-map-pgs-dump", "--pool", 1)
    lines = [l.split("\t") for l in dump.splitlines() if re.match(r"^1\.[0-9a-f]+\t", l)]
    assert len(lines) == state.pg_num(1)
    up, up_primary, _, _ = state.map_pool(1)
    assert 3 not in up and (up != NONE).any()
    for pgid, osds, primary in lines:
        ps = int(pgid.split(".")[1], 16)
        assert up[ps].tolist() == padded([parse_osd_list(osds)], up.shape[1])[0]
        assert up_primary[ps] == int(primary)
    # osdmaptool --test-map-object NAME: " object 'NAME' -> 1.x -> [up]".
    out = run_cli("osdmaptool", simple_osdmap, "--test-map-object", "foo", "--pool", 1)
    m = re.search(r"object 'foo' -> (\S+) -> (\[.*\])", out)
    assert m, out
    pgid, obj_up, _, _, _ = state.map_object("rbd", "foo")
    assert (pgid, obj_up) == (m.group(1), parse_osd_list(m.group(2)))


def test_diff_matches_the_cli_mappings(sample_state, tmp_path):
    cluster = SAMPLES / "cluster"
    crush_after = tmp_path / "crush-after.bin"
    run_cli("edit", cluster / "crush.txt", "-o", crush_after,
            "--do", "osd crush reweight-subtree node-r1-3 0")
    after_path = tmp_path / "after.pb"
    run_cli("import", "--osdmap", cluster / "osd-dump.json", "--crush", crush_after,
            "-o", after_path)
    before = crushkit.ClusterState.load(str(sample_state))
    after = crushkit.ClusterState.load(str(after_path))
    # As map-pgs maps them: after's upmaps as they are.
    moves = crushkit.diff(before, after, keep_upmaps=True)
    assert moves, "draining a host moves PGs"
    assert crushkit.diff(before, before) == []
    dump = json.loads((cluster / "osd-dump.json").read_text())
    erasure = {p["pool"] for p in dump["pools"] if p["type"] == 3}
    expected = {}
    for name, pool_id in before.pools.items():
        a, b = map_pgs(sample_state, pool_id), map_pgs(after_path, pool_id)
        for ps in a:
            old, new = a[ps][0], b[ps][0]
            if pool_id in erasure:  # shards by position
                targets = sorted(n for i, n in enumerate(new)
                                 if n != NONE and (i >= len(old) or old[i] != n))
            else:
                targets = sorted(set(new) - set(old))
            if targets:
                expected[f"{pool_id}.{ps:x}"] = targets
    assert {pgid: sorted(targets) for pgid, _, targets in moves} == expected
    # The CLI's own count of the same change: every new copy is one shard moved.
    report = json.loads(run_cli("diff", sample_state, after_path, "--no-schedule", "--json",
                                "--keep-upmaps"))
    assert report["totals"]["shards_moved"] == sum(len(t) for _, _, t in moves)
    # By default both clean after's upmaps as the monitor would: the drained
    # host's OSDs are upmap targets in the sample, so entries go and more moves.
    cleaned = crushkit.diff(before, after)
    report = json.loads(run_cli("diff", sample_state, after_path, "--no-schedule", "--json"))
    assert report["risks"]["upmaps_dropped"] > 0
    assert report["totals"]["shards_moved"] == sum(len(t) for _, _, t in cleaned)
    assert cleaned != moves


def test_bad_input(sample_state, simple_osdmap, tmp_path):
    with pytest.raises(OSError):
        crushkit.ClusterState.load(str(tmp_path / "missing.pb"))
    data = simple_osdmap.read_bytes()
    truncated = tmp_path / "truncated"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError):
        crushkit.ClusterState.load(str(truncated))
    with pytest.raises(ValueError):
        crushkit.ClusterState.from_bytes(b"{ not json")
    state = crushkit.ClusterState.load(str(simple_osdmap))
    with pytest.raises(ValueError, match="no pool 'nope'"):
        state.map_pg("nope", 0)
    with pytest.raises(ValueError, match="no pool 9"):
        state.map_pool(9)
    with pytest.raises(ValueError):
        crushkit.diff(state, crushkit.ClusterState.load(str(sample_state)))
