"""d20-world odds: a reference table of exact fractions checked by hand, and the formulas
(seed 001_a3a02f9b7363775f.txt, "Checks", "Natural 1 & 20", "Wounds")."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from ledger_d20_world import D20World
from ledger_d20_world.odds import check_odds, shock_chance

from ledger import RuleError

SYS = D20World().configure({})

TABLE = [
    (0, "normal", "2/5", "9/20", "3/20", "27/20"),
    (1, "normal", "7/20", "9/20", "1/5", "5/4"),
    (2, "normal", "3/10", "9/20", "1/4", "23/20"),
    (3, "normal", "1/4", "9/20", "3/10", "21/20"),
    (4, "normal", "1/5", "9/20", "7/20", "19/20"),
    (0, "advantage", "4/25", "9/16", "111/400", "393/400"),
    (1, "advantage", "49/400", "207/400", "9/25", "69/80"),
    (2, "advantage", "9/100", "189/400", "7/16", "301/400"),
    (3, "advantage", "1/16", "171/400", "51/100", "261/400"),
    (0, "disadvantage", "16/25", "27/80", "9/400", "687/400"),
    (1, "disadvantage", "231/400", "153/400", "1/25", "131/80"),
    (2, "disadvantage", "51/100", "171/400", "1/16", "619/400"),
    (3, "disadvantage", "7/16", "189/400", "9/100", "579/400"),
]


@pytest.mark.parametrize(("p", "mode", "bad", "messy", "good", "xp"), TABLE)
def test_reference_table(p, mode, bad, messy, good, xp):
    params = {"proficiency": p, mode: True} if mode != "normal" else {"proficiency": p}
    out = SYS.odds(params)
    assert (out["bad"], out["messy"], out["good"], out["expected_experience"]) == (
        bad, messy, good, xp)
    assert out["mode"] == mode


@pytest.mark.parametrize("p", range(-12, 14))
def test_general_formulas(p):
    normal = check_odds(p, "normal")
    assert normal["bad"] == F(min(max(8 - p, 0), 20), 20)
    assert normal["good"] == F(min(max(p + 3, 0), 20), 20)
    adv = check_odds(p, "advantage")
    k = min(max(8 - p, 0), 20)
    assert adv["bad"] == F(k, 20) ** 2
    dis = check_odds(p, "disadvantage")
    assert dis["bad"] == 1 - F(20 - k, 20) ** 2
    for o in (normal, adv, dis):
        assert o["bad"] + o["messy"] + o["good"] == 1


def test_naturals_and_penalty_and_hinder():
    assert [check_odds(0, m)["natural_1"] for m in ("normal", "advantage", "disadvantage")] == [
        F(1, 20), F(1, 400), F(39, 400)]
    assert [check_odds(0, m)["natural_20"] for m in ("normal", "advantage", "disadvantage")] \
        == [F(1, 20), F(39, 400), F(1, 400)]
    # proficiency 3 with a penalty of 3 is the +0 row
    assert SYS.odds({"proficiency": 3, "penalty": 3})["bad"] == "2/5"
    # hinder adds exactly 2 to the expected experience
    assert check_odds(0, "disadvantage", hinder=True)["expected_experience"] == F(687 + 800, 400)
    # advantage and disadvantage together are a normal roll (ruling R3)
    assert SYS.odds({"advantage": True, "disadvantage": True})["mode"] == "normal"


def test_shock_chance():
    assert [shock_chance(w) for w in (0, 1, 3, 6, 9)] == [F(0), F(1, 6), F(1, 2), F(1), F(1)]
    assert SYS.odds({"wounds": 2})["shock"] == "1/3"


def test_bad_odds_input():
    with pytest.raises(RuleError, match="0 or more"):
        SYS.odds({"penalty": -1})


def test_odds_without_a_proficiency_give_the_family_of_every_mode():
    # Issue 15: `odds` without the skill draws the whole family of curves
    family = SYS.odds({})["bands_by_proficiency"]
    assert list(family) == [
        "normal (1d20)", "advantage (2d20, keep higher)", "disadvantage (2d20, keep lower)",
    ]  # fmt: skip
    flags = ({}, {"advantage": True}, {"disadvantage": True})
    for flag, label in zip(flags, family, strict=True):
        assert list(family[label]) == [f"+{p}" for p in range(11)]
        for prof, row in enumerate(family[label].values()):  # each row is `odds` at that rating
            single = SYS.odds({"proficiency": prof, **flag})
            assert row == {k: single[k] for k in ("bad", "messy", "good", "expected_experience")}
    # the reference table is in it: +0 with advantage, good 111/400
    assert family["advantage (2d20, keep higher)"]["+0"]["good"] == "111/400"
    assert family["normal (1d20)"]["+4"] == {
        "bad": "1/5", "messy": "9/20", "good": "7/20", "expected_experience": "19/20",
    }  # fmt: skip


def test_the_family_follows_the_penalty_mode_hinder_and_wounds():
    family = SYS.odds({"penalty": 3, "disadvantage": True, "hinder": True, "wounds": 4})
    assert family["mode"] == "disadvantage" and family["shock"] == "2/3"
    (rows,) = family["bands_by_proficiency"].values()
    # proficiency +3 with a penalty of 3 is the +0 row; hinder adds 2 experience
    assert rows["+3"] == {"bad": "16/25", "messy": "27/80", "good": "9/400",
                          "expected_experience": "1487/400"}  # fmt: skip
    assert rows["+5"]["good"] == SYS.odds(
        {"proficiency": 5, "penalty": 3, "disadvantage": True})["good"]  # fmt: skip
    both = SYS.odds({"advantage": True, "disadvantage": True})
    assert list(both["bands_by_proficiency"]) == ["normal (1d20)"]  # ruling R3
    with pytest.raises(RuleError, match="0 or more"):
        SYS.odds({"penalty": -1})
