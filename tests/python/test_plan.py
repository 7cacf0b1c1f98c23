"""crushkit.plan against `crushkit plan --json` on a real cluster's capture
(tests/data/loopback-toofull, issue 35): the same report, max_misplaced and
max_fill as --max-misplaced and --max-fill, log_tails as --log-tails."""

import json

import pytest

import crushkit
from conftest import SOURCE_DIR, run_cli

SWAP = ["osd crush reweight osd.0 0", "osd crush reweight osd.6 1"]


@pytest.fixture(scope="module")
def toofull_state(tmp_path_factory):
    data = SOURCE_DIR / "tests" / "data" / "loopback-toofull"
    path = tmp_path_factory.mktemp("toofull") / "state.pb"
    run_cli("import", "--osdmap", data / "osdmap.bin", "--pg-stats", data / "pg-dump.json",
            "--osd-df", data / "osd-df.json", "--df", data / "df.json", "-o", path)
    return path


def cli_plan(state, *args):
    do = [arg for op in SWAP for arg in ("--do", op)]
    return json.loads(run_cli("plan", state, *do, "--json", *args))


def test_plan_is_the_cli_report(toofull_state):
    state = crushkit.ClusterState.load(str(toofull_state))
    r = crushkit.plan(state, SWAP)
    assert r == cli_plan(toofull_state)
    assert crushkit.plan(state, "\n".join(SWAP) + "\n") == r
    assert r["totals"]["pgs_remapped"] > 0


def test_max_fill_stages_the_swap_as_the_cli(toofull_state):
    state = crushkit.ClusterState.load(str(toofull_state))
    r = crushkit.plan(state, SWAP, max_misplaced="100%")
    assert r == cli_plan(toofull_state, "--max-misplaced", "100%")
    # The state's backfillfull ratio (20.5%): raise osd.6 first, then lower osd.0.
    assert abs(r["staging"]["max_fill"] - 0.205) < 1e-6
    assert [s["commands"] for s in r["steps"]] == [["ceph osd crush reweight osd.6 1"],
                                                   ["ceph osd crush reweight osd.0 0"]]
    explicit = crushkit.plan(state, SWAP, max_misplaced=1.0, max_fill=0.205)
    assert explicit["steps"] == r["steps"]
    assert explicit["staging"]["max_fill"] == 0.205  # the ratio's float32 is 0.20499999821...
    for none in (0, 0.0, "none"):
        one = crushkit.plan(state, SWAP, max_misplaced=1.0, max_fill=none)
        assert len(one["steps"]) == 1
        assert one == cli_plan(toofull_state, "--max-misplaced", "100%", "--max-fill", "none")
    with pytest.raises(ValueError, match="give max_misplaced too"):
        crushkit.plan(state, SWAP, max_fill=0.5)
    with pytest.raises(ValueError, match="max_fill 1.2"):
        crushkit.plan(state, SWAP, max_misplaced=1.0, max_fill=1.2)
    with pytest.raises(ValueError, match="--max-fill '120%'"):
        crushkit.plan(state, SWAP, max_misplaced=1.0, max_fill="120%")


def test_log_tails_pick_the_pusher(toofull_state, tmp_path):
    state = crushkit.ClusterState.load(str(toofull_state))
    moves = crushkit.plan(state, SWAP, pgs=True)["pgs"]
    # A PG whose new up primary holds nothing: the lowest holder pushes
    # without tails, the holder with the oldest tail with them.
    move = next(m for m in moves if m["after"][0] not in m["before"] and len(m["before"]) > 1)
    oldest = max(move["before"])
    assert move["pusher"] == min(move["before"])
    tails = {move["pg"]: {str(o): ("40'1" if o == oldest else "40'5") for o in move["before"]}}
    text = json.dumps(tails)
    with_tails = crushkit.plan(state, SWAP, pgs=True, log_tails=text)
    pushers = {m["pg"]: m["pusher"] for m in with_tails["pgs"]}
    assert pushers[move["pg"]] == oldest
    path = tmp_path / "tails.json"
    path.write_text(text)
    assert with_tails == cli_plan(toofull_state, "--pgs", "--log-tails", path)
    with pytest.raises(ValueError, match="log tails"):
        crushkit.plan(state, SWAP, log_tails='{"2.1": {"x": "1\'1"}}')
