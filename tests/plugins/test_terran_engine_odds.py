"""Terran Engine exact odds against hand-checked values (digest §2.6).

Seed 003_2aeb47bc6ca82a40.txt, "2.1" (highest die bands), "2.2.1" (exploding effects),
"1.4" (sums of d6). Expected fractions are worked by hand in the comments.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from ledger_terran_engine import TerranEngine
from ledger_terran_engine import mechanics as m
from ledger_terran_engine.odds import (
    effect_bands,
    effect_mean,
    effect_point,
    risky_bands,
    sum_at_least,
)

from ledger import RuleError

SYS = TerranEngine().configure({})
F = Fraction

# n: (fail, mixed, success) from the digest's table: (1/2)^n, (5/6)^n − (1/2)^n, 1 − (5/6)^n
TABLE = {
    0: ("1", "0", "0"),
    1: ("1/2", "1/3", "1/6"),
    2: ("1/4", "4/9", "11/36"),
    3: ("1/8", "49/108", "91/216"),
    4: ("1/16", "34/81", "671/1296"),
    5: ("1/32", "1441/3888", "4651/7776"),
    6: ("1/64", "931/2916", "31031/46656"),
    7: ("1/128", "37969/139968", "201811/279936"),
    8: ("1/256", "6001/26244", "1288991/1679616"),
}


@pytest.mark.parametrize("n", sorted(TABLE))
def test_risky_action_bands_match_the_table(n: int) -> None:
    out = SYS.odds({"pool": n})["risky_action"]
    assert (out["fail"], out["mixed"], out["success"]) == TABLE[n]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_risky_action_bands_by_enumeration(n: int) -> None:
    counts = {"fail": 0, "mixed": 0, "success": 0}
    for faces in itertools.product(range(1, 7), repeat=n):
        counts[m.outcome_of(max(faces))] += 1
    assert risky_bands(n) == {k: F(v, 6**n) for k, v in counts.items()}


def test_default_odds_list_the_whole_table() -> None:
    table = SYS.odds({})["risky_action_table"]
    assert table["3"] == {"fail": "1/8", "mixed": "49/108", "success": "91/216"}


def test_ego_risk_is_binomial_in_min_ego_6() -> None:
    # 2 dark dice, Ego 3: each costs with 1/2 → 0: 1/4, 1: 1/2, 2: 1/4; Montage doubles cost
    assert SYS.odds({"dark": 2, "ego": 3})["ego_cost"] == {"0": "1/4", "1": "1/2", "2": "1/4"}
    assert SYS.odds({"dark": 1, "ego": 9, "montage": True})["ego_cost"] == {"0": "0", "2": "1"}


@pytest.mark.parametrize(
    ("code", "mean"), [("1d", F(21, 5)), ("2d", F(259, 45)), ("3d", F(1211, 180)),
                       ("4d", F(12019, 1620)), ("d/2", F(2)), ("1d+1", F(26, 5))]
)
def test_effect_means(code: str, mean: Fraction) -> None:
    assert effect_mean(m.parse_effect(code)) == mean


def test_effect_1d_distribution_is_the_exploding_series() -> None:
    one = m.parse_effect("1d")
    # 1..5 → 1/6 each; 6 impossible; 7..11 → 1/36; 12 impossible; 13..17 → 1/216
    assert [effect_point(one, v) for v in range(1, 8)] == [F(1, 6)] * 5 + [F(0), F(1, 36)]
    assert effect_point(one, 12) == 0 and effect_point(one, 13) == F(1, 216)
    out = SYS.odds({"effect": "1d", "upto": 11})["effect"]
    assert out["tail_above"] == {"value": 11, "p": "1/36"}  # a second six: 1/6 · 1/6
    assert "6" not in out["distribution"]


def test_effect_distribution_sums_to_one_within_the_listed_tail() -> None:
    for code in ("1d", "2d", "3d", "d/2", "1d+1"):
        out = SYS.odds({"effect": code, "upto": 40})["effect"]
        listed = sum(F(p) for p in out["distribution"].values())
        assert listed + F(out["tail_above"]["p"]) == 1


def test_effect_bands_closed_form() -> None:
    # 2d: none (1/2)^2 = 1/4; −1d (5/6)^2 − 1/4 = 4/9; p6 = 11/36 → −2d 55/216, −3d 11/216
    assert effect_bands(m.parse_effect("2d")) == {
        "none": F(1, 4), "-1d": F(4, 9), "-2d": F(55, 216), "-3d": F(11, 216)
    }
    four = effect_bands(m.parse_effect("1d"), over_17=4)
    assert (four["-3d"], four["-4d"]) == (F(5, 216), F(1, 216))


def test_attribute_generation_odds() -> None:
    counts = [0, 0, 0]
    for a, b in itertools.product(range(1, 7), repeat=2):
        counts[m.attribute_from_faces([a, b])] += 1
    assert [F(c, 36) for c in counts] == [F(1, 4), F(4, 9), F(11, 36)]


@pytest.mark.parametrize(
    ("k", "target", "p"),
    [(2, 8, F(5, 12)), (3, 8, F(181, 216)), (4, 8, F(1261, 1296)),
     (1, 3, F(2, 3)), (2, 3, F(35, 36)), (1, 6, F(1, 6)), (2, 6, F(13, 18)),
     (3, 6, F(103, 108)), (2, 9, F(5, 18)), (3, 9, F(20, 27))],
)
def test_advancement_and_skill_sums(k: int, target: int, p: Fraction) -> None:
    assert sum_at_least(k, target) == p


def test_odds_spend_with_threshold_and_rating() -> None:
    out = SYS.odds({"spend": 2, "threshold": 8, "rating": 2})
    assert (out["advancement"], out["skill_development"]) == ("5/12", "13/18")
    with pytest.raises(RuleError, match="--threshold"):
        SYS.odds({"spend": 2})
    with pytest.raises(RuleError, match="not understood"):
        SYS.odds({"effect": "3x"})
