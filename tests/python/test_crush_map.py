"""crushkit.CrushMap against the crushkit CLI's compile, decompile and
`crushtool --test --show-mappings` answers on the bundled sample maps."""

import concurrent.futures
import re

import numpy as np
import pytest

import crushkit
from conftest import SAMPLES, TEXT_MAPS, parse_osd_list, run_cli

MAPPING_LINE = re.compile(r"^CRUSH rule (\d+) x (\d+) (\[.*\])$")


def show_mappings(binary, rule, num_rep, max_x, *extra):
    """{x: [items]} from `crushkit crushtool --test --show-mappings`."""
    out = run_cli("crushtool", "-i", binary, "--test", "--show-mappings", "--rule", rule,
                  "--num-rep", num_rep, "--min-x", 0, "--max-x", max_x, *extra)
    result = {}
    for line in out.splitlines():
        m = MAPPING_LINE.match(line)
        assert m, line
        result[int(m.group(2))] = parse_osd_list(m.group(3))
    return result


@pytest.mark.parametrize("text", TEXT_MAPS, ids=lambda p: p.stem)
def test_from_text_compiles_to_the_cli_bytes(text, compiled_maps):
    expected = compiled_maps[text.stem].read_bytes()
    source = text.read_text()
    assert crushkit.CrushMap.from_text(source).to_binary() == expected
    assert crushkit.compile_text(source) == expected


@pytest.mark.parametrize("text", TEXT_MAPS, ids=lambda p: p.stem)
def test_binary_round_trips_and_decompiles_as_the_cli(text, compiled_maps):
    binary = compiled_maps[text.stem]
    m = crushkit.CrushMap.from_binary(binary.read_bytes())
    assert m.to_binary() == binary.read_bytes()
    assert m.decompile() == run_cli("crushtool", "-d", binary)
    assert m.decompile(release="pacific") == run_cli("decompile", binary, "--ceph-release",
                                                     "pacific")


def test_rule_lookup_by_name_and_id(compiled_maps):
    m = crushkit.CrushMap.from_binary(compiled_maps["6host-classes-ec"].read_bytes())
    assert m.rules == {"replicated_hdd": 0, "replicated_ssd": 1, "ec_4_2_hdd": 2}
    assert m.rule_id("ec_4_2_hdd") == 2
    assert m.rule_id(1) == 1
    assert m.rule_name(2) == "ec_4_2_hdd"
    with pytest.raises(ValueError, match="no rule 'nope'"):
        m.rule_id("nope")
    with pytest.raises(ValueError, match="no rule 7"):
        m.do_rule(7, 0, 3)


@pytest.mark.parametrize("text", TEXT_MAPS, ids=lambda p: p.stem)
def test_do_rule_and_map_many_match_show_mappings(text, compiled_maps):
    binary = compiled_maps[text.stem]
    m = crushkit.CrushMap.from_binary(binary.read_bytes())
    max_x = 511
    xs = np.arange(max_x + 1, dtype=np.uint32)
    for name, rule in m.rules.items():
        for num_rep in (1, 3, 6):
            expected = show_mappings(binary, rule, num_rep, max_x)
            assert len(expected) == max_x + 1
            rows = m.map_many(name, xs, num_rep)
            assert rows.dtype == np.int32 and rows.shape == (max_x + 1, num_rep)
            for x, items in expected.items():
                assert m.do_rule(rule, x, num_rep) == items, (name, num_rep, x)
                padded = items + [crushkit.ITEM_NONE] * (num_rep - len(items))
                assert rows[x].tolist() == padded, (name, num_rep, x)


def test_reweights_match_crushtool_weight(compiled_maps):
    binary = compiled_maps["3rack-weighted"]
    m = crushkit.CrushMap.from_binary(binary.read_bytes())
    weights = [1.0] * m.max_devices
    weights[0] = 0.0
    weights[3] = 0.5
    expected = show_mappings(binary, 0, 3, 255, "--weight", 0, 0, "--weight", 3, 0.5)
    rows = m.map_many(0, np.arange(256), 3, weights=weights)
    for x, items in expected.items():
        assert m.do_rule(0, x, 3, weights=weights) == items
        assert rows[x].tolist()[:len(items)] == items
    assert all(0 not in row for row in rows.tolist())
    with pytest.raises(ValueError, match="0..1"):
        m.do_rule(0, 1, 3, weights=[2.0])


def test_indep_holes_are_item_none(compiled_maps):
    # 6 hosts, ec 4+2 over hosts: 10 shards cannot all be placed.
    m = crushkit.CrushMap.from_binary(compiled_maps["6host-classes-ec"].read_bytes())
    result = m.do_rule("ec_4_2_hdd", 5, 10)
    assert len(result) == 10 and crushkit.ITEM_NONE in result
    assert crushkit.ITEM_NONE == 2147483647


def test_map_many_releases_the_gil_and_agrees_across_threads(compiled_maps):
    m = crushkit.CrushMap.from_binary(compiled_maps["6host-classes-ec"].read_bytes())
    xs = np.arange(20000, dtype=np.uint32)
    single = m.map_many(2, xs, 6)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: m.map_many(2, xs, 6), range(4)))
    for r in results:
        assert np.array_equal(r, single)


def test_bad_input_raises_value_error(compiled_maps):
    data = (SAMPLES / "embed" / "6host-classes-ec.crushmap").read_bytes()
    with pytest.raises(ValueError, match="truncated"):
        crushkit.CrushMap.from_binary(data[:100])
    with pytest.raises(ValueError):
        crushkit.CrushMap.from_binary(b"")
    # Every prefix either decodes or raises ValueError; none crashes.
    for n in range(0, len(data), 7):
        try:
            crushkit.CrushMap.from_binary(data[:n])
        except ValueError:
            pass
    with pytest.raises(ValueError, match=r"<text>:1:7: error: expected a bucket name"):
        crushkit.CrushMap.from_text("bogus {\n")
    with pytest.raises(ValueError, match="pacific"):
        crushkit.CrushMap.from_text("", release="argonaut")
    m = crushkit.CrushMap.from_binary(data)
    with pytest.raises(ValueError, match="size"):
        m.do_rule(0, 1, 0)
    with pytest.raises(ValueError, match="1-D"):
        m.map_many(0, np.zeros((2, 2), dtype=np.uint32), 3)


def test_choose_args_none_maps_without_the_weight_set(compiled_maps, tmp_path):
    # legacy-rooms has a compat weight set, which crushtool --test (and the
    # default choose_args=0) uses; the same map without it is choose_args=None.
    text = (SAMPLES / "legacy-rooms.crush").read_text()
    stripped = tmp_path / "no-weight-set.crush"
    stripped.write_text(text[:text.index("\nchoose_args ") + 1])
    binary = tmp_path / "no-weight-set.crushmap"
    run_cli("compile", stripped, "-o", binary)
    m = crushkit.CrushMap.from_binary(compiled_maps["legacy-rooms"].read_bytes())
    expected = show_mappings(binary, 1, 1, 1023)
    rows = m.map_many(1, np.arange(1024), 1, choose_args=None)
    for x, items in expected.items():
        assert m.do_rule(1, x, 1, choose_args=None) == items
        assert rows[x].tolist() == items
    assert any(m.do_rule(1, x, 1) != items for x, items in expected.items())


@pytest.mark.parametrize("name", ["pacific-choose-args", "tentacle-msr"])
def test_from_json_reads_cephs_dump_to_cephs_bytes(name):
    data = SAMPLES.parent / "tests" / "data" / "crush-dump"
    m = crushkit.CrushMap.from_json((data / f"{name}.json").read_text())
    assert m.to_binary() == (data / f"{name}.bin").read_bytes()
    with pytest.raises(ValueError, match=r"tunables\.choose_local_tries: missing"):
        crushkit.CrushMap.from_json('{"tunables": {}, "buckets": [], "rules": []}')
