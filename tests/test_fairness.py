"""Dice fairness: the pure tests (ledger/fairness.py) and `campaign fairness` end to end."""

from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path

import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.dice import engine as dicemod
from ledger.dice import fairness as fair
from ledger.rules.roll_inputs import RollRequest
from ledger.store.sqlite import Store

AT = "2026-03-01T19:00:00.000000Z"


# --- pure functions ------------------------------------------------------------------------


def test_chi_square_matches_pearsons_formula():
    observed = [10, 20, 30, 40]
    expected = sum(observed) / 4
    by_hand = sum((o - expected) ** 2 / expected for o in observed)
    stat, p = fair.chi_square(observed)
    assert stat == pytest.approx(by_hand) == pytest.approx(20.0)
    # chi-square with 3 df has a closed-form tail: erfc(sqrt(x/2)) + sqrt(2x/pi) e^(-x/2)
    tail = math.erfc(math.sqrt(10)) + math.sqrt(40 / math.pi) * math.exp(-10)
    assert p == pytest.approx(tail, rel=1e-9) == pytest.approx(1.6974e-4, rel=1e-4)


def test_chi_square_refuses_nothing_to_test():
    with pytest.raises(ValueError, match="at least 2 faces"):
        fair.chi_square([5])
    with pytest.raises(ValueError, match="one die"):
        fair.chi_square([0, 0, 0])


def test_small_samples_are_too_few_to_judge_even_when_lopsided():
    # 20 d20 showing 20 every time: lopsided, but 1 expected per face is too few to judge.
    report = fair.judge(20, "physical", "isa", [0] * 19 + [20], rolls=20)
    assert report.status == "too-few"
    assert not report.flagged and not report.enough
    assert "too few dice to judge" in report.verdict and "100" in report.verdict
    assert report.p is not None and report.p < 1e-10  # the number is shown, not trusted


def test_loaded_counts_are_flagged_with_the_faces_named():
    counts = [10] * 19 + [40]  # 230 d20, a 20 four times as often
    report = fair.judge(20, "physical", "isa", counts, rolls=230)
    assert report.enough and report.flagged and report.status == "flagged"
    assert report.p is not None and report.p < fair.FLAG_P
    assert "unlikely to be a fair die" in report.verdict
    assert "face 20 came up 40 times" in report.verdict


def test_even_counts_are_consistent_and_not_proven_fair():
    rng = random.Random(7)
    counts = [0] * 6
    for _ in range(600):
        counts[rng.randrange(6)] += 1
    report = fair.judge(6, "engine", "ann", counts, rolls=300)
    assert report.status == "consistent" and not report.flagged
    assert "cannot prove a die fair" in report.verdict


def test_perfectly_even_counts_are_suspicious_not_unfair():
    report = fair.judge(20, "physical", "bob", [15] * 20, rolls=300)
    assert report.status == "too-even" and not report.flagged
    assert "suspiciously even" in report.verdict


def test_watch_band_between_the_thresholds():
    # 120 d6 with one face high: chi2 = 16.0 (5 df), p = 0.0068
    report = fair.judge(6, "physical", "ann", [36, 20, 16, 16, 16, 16], rolls=120)
    assert report.p is not None and fair.FLAG_P < report.p < fair.WATCH_P
    assert report.status == "watch" and not report.flagged
    assert "worth watching" in report.verdict


def test_fudge_dice_are_named_df_with_their_symbols():
    report = fair.judge(3, "physical", "julian", [5, 5, 50], rolls=15)
    assert report.die == "dF"
    assert "face +" in report.verdict and "face −" in report.verdict


def test_roll_draws_reads_only_rolls_and_refuses_impossible_draws():
    rows = [
        (1, "campaign", None, {"type": "campaign.created"}),
        (2, "ann", 1, {"source": "engine", "draws": [[6, 3], [6, 6]], "total": 9}),
        (3, "bob", None, {"source": "physical", "draws": [[20, 20]]}),
    ]
    rolls = list(fair.roll_draws(rows))
    assert [(r.seq, r.roller, r.source, r.session, r.draws) for r in rolls] == [
        (2, "ann", "engine", 1, ((6, 3), (6, 6))),
        (3, "bob", "physical", None, ((20, 20),)),
    ]
    with pytest.raises(ValueError, match="event 4 has an impossible draw"):
        list(fair.roll_draws([(4, "ann", 1, {"source": "physical", "draws": [[6, 7]]})]))


def test_tally_pools_everyone_only_when_several_rollers_share_a_die():
    rolls = [
        fair.RollDraws(1, "ann", "physical", 1, ((6, 1), (6, 2))),
        fair.RollDraws(2, "bob", "physical", 1, ((6, 2),)),
        fair.RollDraws(3, "ann", "engine", 1, ((20, 5),)),
    ]
    groups = fair.tally(rolls)
    assert groups[(6, "physical", fair.EVERYONE)] == ([1, 2, 0, 0, 0, 0], {1, 2})
    assert groups[(6, "physical", "ann")][0] == [1, 1, 0, 0, 0, 0]
    assert (20, "engine", fair.EVERYONE) not in groups  # only ann rolled a d20
    assert list(fair.select(rolls, roller="ann", source="engine")) == [rolls[2]]
    reports = fair.report(rolls)
    assert [(r.source, r.die, r.roller) for r in reports] == [
        ("engine", "d20", "ann"),
        ("physical", "d6", fair.EVERYONE),
        ("physical", "d6", "ann"),
        ("physical", "d6", "bob"),
    ]
    assert reports[1].rolls == 2 and reports[1].dice == 3


def test_format_p_never_rounds_to_zero():
    assert fair.format_p(0.4321) == "0.43"
    assert fair.format_p(0.0071) == "0.0071"
    assert fair.format_p(3.2e-9) == "3.2e-09"


# --- end to end: a loaded physical d20 ----------------------------------------------------


def _loaded_faces(n: int, seed: int) -> list[int]:
    """A d20 that shows 20 three times as often as any other face."""
    rng = random.Random(seed)
    return rng.choices(range(1, 21), weights=[1] * 19 + [3], k=n)


def _fair_faces(n: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(1, 20) for _ in range(n)]


SHEETS = Path(__file__).parent.parent / "campaigns" / "the-world" / "characters"


@pytest.fixture
def world(invoke, frozen):
    """A d20-world campaign with Isa (who brings a loaded d20) and Bram (an honest one),
    from the example campaign's sheets."""
    assert invoke("new", "vault", "--system", "d20-world").exit_code == 0
    for who in ("isa", "bram"):
        result = invoke("character", "add", "--sheet", str(SHEETS / f"{who}.toml"))
        assert result.exit_code == 0, result.output
    return invoke


def _roll_all(invoke, who: str, skill: str, faces: list[int]) -> None:
    """Roll ``faces`` (physical d20s) for ``who``: the first through ``campaign roll``, the
    rest through the call it makes (:meth:`Campaign.roll`) on one open campaign."""
    result = invoke("roll", who, skill, "--time", "--dice", str(faces[0]))
    assert result.exit_code == 0, result.output
    campaign = open_campaign(Store(invoke.db))
    for face in faces[1:]:
        campaign.roll(who, skill, {"time": True}, faces=str(face), actor="gm", at=AT)
    campaign.store.close()


def test_a_loaded_physical_d20_is_flagged_and_an_honest_one_is_not(world):
    invoke = world
    assert invoke("session", "start").exit_code == 0
    _roll_all(invoke, "isa", "Lockpicking", _loaded_faces(240, seed=1))
    _roll_all(invoke, "bram", "Brawl", _fair_faces(240, seed=2))
    result = invoke("fairness", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    groups = {(g["source"], g["die"], g["roller"]): g for g in out["groups"]}
    isa = groups[("physical", "d20", "isa")]
    bram = groups[("physical", "d20", "bram")]
    assert isa["dice"] == isa["rolls"] == 240
    assert isa["flagged"] and isa["p"] < 0.001
    assert isa["observed"]["20"] > 2 * isa["expected_per_face"]
    assert isa["roller_name"] == "Isa Marrow"
    assert not bram["flagged"] and bram["status"] == "consistent"
    # the table says the same in words
    text = invoke("fairness", "--character", "isa").output
    assert "physical d20, Isa Marrow: 240 dice from 240 rolls  [FLAGGED]" in text
    assert "unlikely to be a fair die" in text
    assert "Bram" not in text


def test_a_few_loaded_rolls_are_too_few_to_judge(world):
    invoke = world
    _roll_all(invoke, "isa", "Lockpicking", _loaded_faces(40, seed=3))
    out = json.loads(invoke("fairness", "--json").output)
    (group,) = out["groups"]
    assert group["status"] == "too-few" and not group["flagged"]
    assert "too few dice to judge" in group["verdict"]


def test_corrections_blind_rolls_and_filters(world):
    invoke = world
    assert invoke("session", "start").exit_code == 0
    _roll_all(invoke, "isa", "Lockpicking", [20, 20, 3])
    seq = json.loads(
        invoke("roll", "isa", "Lockpicking", "--time", "--dice", "7", "--json").output
    )["seq"]
    assert invoke("correct", str(seq), "--reason", "typo").exit_code == 0  # retracted
    assert invoke("roll", "isa", "Lockpicking", "--time", "--dice", "5", "--blind").exit_code == 0
    assert invoke("session", "end").exit_code == 0
    assert invoke("session", "start").exit_code == 0
    assert invoke("roll", "bram", "Brawl", "--time").exit_code == 0  # an engine roll

    def observed(*args):
        result = invoke("--as", "gm", "fairness", "--json", *args)
        assert result.exit_code == 0, result.output
        return {
            (g["source"], g["roller"]): {k: v for k, v in g["observed"].items() if v}
            for g in json.loads(result.output)["groups"]
        }

    assert observed() == {
        ("engine", "bram"): observed("--source", "engine")[("engine", "bram")],
        ("physical", "isa"): {"20": 2, "3": 1, "5": 1},
    }
    assert observed("--source", "physical", "--session", "1") == {
        ("physical", "isa"): {"20": 2, "3": 1, "5": 1}
    }
    assert set(observed("--session", "2")) == {("engine", "bram")}
    assert observed("--character", "bram", "--source", "physical") == {}
    # a player's view leaves out the GM's blind roll
    result = invoke("--as", "player", "fairness", "--json", "--source", "physical")
    assert json.loads(result.output)["groups"][0]["observed"]["5"] == 0


def test_bad_input_is_one_line_and_the_right_exit(world, tmp_path):
    invoke = world
    _roll_all(invoke, "isa", "Lockpicking", [4])
    cases = [
        (("fairness", "--source", "dice"), 2),
        (("fairness", "--session", "0"), 2),
        (("fairness", "--plot", str(tmp_path / "chart.txt")), 2),
        (("fairness", "--character", "nobody"), 1),
        (("fairness", "--session", "9"), 1),
        (("fairness", "--source", "engine", "--plot", str(tmp_path / "none.png")), 1),
    ]
    for args, code in cases:
        result = invoke(*args)
        assert result.exit_code == code, (args, result.output)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error: "), (args, result.output)
    assert not (tmp_path / "none.png").exists() and not (tmp_path / "chart.txt").exists()


def test_fairness_plot_draws_a_png(world, tmp_path):
    invoke = world
    _roll_all(invoke, "isa", "Lockpicking", _loaded_faces(120, seed=4))
    path = tmp_path / "fair.png"
    result = invoke("fairness", "--plot", str(path))
    assert result.exit_code == 0, result.output
    assert f"Chart: {path}" in result.output
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_rolls_yet_says_so(world):
    result = world("fairness")
    assert result.exit_code == 0
    assert "No dice match" in result.output


# --- end to end: 10,000 engine rolls -------------------------------------------------------


def test_ten_thousand_engine_rolls_are_not_flagged(toy_campaign, db_path, monkeypatch):
    """Real engine rolls (the session's committed seed, nonces 0..9999) drawn through the
    toy system's resolve and appended in batches, then verified and tested.

    The seed is fixed so the test is deterministic: a fair source is flagged with
    probability 0.001 per group, so about 1 seed in 330 would flag one of the 3 groups;
    this seed is not such a one (and any change to the engine's draws changes the counts).
    """
    invoke = toy_campaign
    seed = hashlib.sha256(b"fairness test seed").digest()
    monkeypatch.setattr(dicemod, "new_seed", lambda: seed)
    assert invoke("session", "start").exit_code == 0
    campaign = open_campaign(Store(db_path))
    system = campaign.system
    states = {cid: campaign.state_of(cid) for cid in ("ann", "bob")}
    skills = {"ann": "brawl", "bob": "sneak"}
    for start in range(0, 10_000, 2_500):
        batch = []
        for nonce in range(start, start + 2_500):
            cid = "ann" if nonce % 2 else "bob"
            dice = dicemod.EngineDice(seed, campaign.id, 1, nonce, "")
            request = RollRequest(cid, cid, skills[cid], {})
            batch.append(system.resolve(states[cid], request, dice))
        campaign.append(batch, actor="gm", at=AT)
    assert invoke("session", "end").exit_code == 0
    verify = invoke("verify")
    assert verify.exit_code == 0, verify.output
    out = json.loads(invoke("fairness", "--json").output)
    assert out["rolls"] == 10_000
    by_roller = {g["roller"]: g for g in out["groups"]}
    assert set(by_roller) == {"*", "ann", "bob"}
    assert by_roller["*"]["dice"] == 20_000 and by_roller["ann"]["rolls"] == 5_000
    for group in out["groups"]:
        assert group["source"] == "engine" and group["die"] == "d6"
        assert group["enough"] and not group["flagged"], group
        assert group["status"] == "consistent", group
