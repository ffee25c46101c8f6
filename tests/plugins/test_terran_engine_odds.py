"""Terran Engine exact odds against hand-checked values.

Seed 003_2aeb47bc6ca82a40.txt, "2.1" (highest die bands), "2.2.1" (exploding effects),
"1.4" (sums of d6). Expected fractions are worked by hand in the comments.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from ledger_terran_engine import TerranEngine
from ledger_terran_engine.odds import (
    effect_bands,
    effect_mean,
    effect_point,
    risky_bands,
    sum_at_least,
)
from ledger_terran_engine.rules import mechanics as m

from ledger import RuleError

SYS = TerranEngine().configure({})
F = Fraction

# n: (fail, mixed, success), exactly: (1/2)^n, (5/6)^n − (1/2)^n, 1 − (5/6)^n
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
    with pytest.raises(RuleError, match="Advancement target \\(threshold\\)"):
        SYS.odds({"spend": 2})
    with pytest.raises(RuleError, match="not understood"):
        SYS.odds({"effect": "3x"})


# --- +N codes, the campaign's options, the chance of losing the character ------------------


def test_complication_bands_of_a_plus_code_sum_to_one() -> None:
    # "2.2.1" Effect Roll table, 1d+1 (a medium weapon two-handed): faces 1-2 give 2-3
    # (none, 1/3), 3-5 give 4-6 (−1d, 1/2); a 6 explodes, 7 + x with x the chain: 8-12 when
    # x is 1-5 (−2d, 1/6 · 5/6 = 5/36), 13+ only after a second six (−3d, 1/36)
    bands = effect_bands(m.parse_effect("1d+1"))
    assert bands == {"none": F(1, 3), "-1d": F(1, 2), "-2d": F(5, 36), "-3d": F(1, 36)}
    assert sum(bands.values()) == 1
    # the fifth band: 13-17 needs x of 7-10 after two sixes (4/216), 18+ the rest (2/216)
    four = effect_bands(m.parse_effect("1d+1"), over_17=4)
    assert (four["-3d"], four["-4d"]) == (F(1, 54), F(1, 108))
    out = SYS.odds({"effect": "1d+1"})["effect"]["complication"]
    assert out == {"none": "1/3", "-1d": "1/2", "-2d": "5/36", "-3d": "1/36"}


def test_d_half_bands_follow_the_d_half_option() -> None:
    # ceil(1d6/2) is 1-3: never a complication; exploding first (t), then halved up:
    # t 1-5 → none 5/6, t 7-11 → 4-6 (5/36), t 13-17 or 19-23 → 7-12 (5/216 + 5/1296),
    # t 25+ (four sixes) → 13+ (1/1296)
    assert effect_bands(m.parse_effect("d/2")) == {
        "none": F(1), "-1d": F(0), "-2d": F(0), "-3d": F(0)}
    explode = effect_bands(m.parse_effect("d/2"), d_half="explode_then_halve")
    assert explode == {"none": F(5, 6), "-1d": F(5, 36), "-2d": F(35, 1296), "-3d": F(1, 1296)}
    campaign = TerranEngine().configure({"d_half": "explode_then_halve"})
    out = campaign.odds({"effect": "d/2"})
    assert out["effect"]["complication"]["-3d"] == "1/1296"
    assert out["options"]["d_half"] == "explode_then_halve"
    assert SYS.odds({"effect": "d/2", "d_half": "explode_then_halve"})["effect"] == out["effect"]


def test_ego_risk_follows_the_ego_check_option_and_shows_the_chance_of_being_lost() -> None:
    # 3 Dark Dice at Ego 2. Simultaneous (R7): each die ≤ 2 costs (1/3): lost when 2 or 3
    # cost, 3·(1/3)²·(2/3) + (1/3)³ = 7/27. Sequential: the first hit (1/3) leaves Ego 1 and
    # the next die must show 1 (1/6): HH 1/18 + HMH 5/108 + MHH 4/108 = 15/108 = 5/36
    simultaneous = SYS.odds({"dark": 3, "ego": 2})
    assert simultaneous["lost"] == "7/27"
    assert "options" not in simultaneous  # the text's defaults
    sequential = TerranEngine().configure({"ego_check": "sequential"}).odds({"dark": 3, "ego": 2})
    assert sequential["lost"] == "5/36"
    assert sequential["options"]["ego_check"] == "sequential"
    assert SYS.odds({"dark": 3, "ego": 2, "ego_check": "sequential"})["lost"] == "5/36"
    # sequentially the second of two dice at Ego 1 never costs: {0: 25/36, 1: 11/36}
    assert SYS.odds({"dark": 2, "ego": 1, "ego_check": "sequential"})["ego_cost"] == {
        "0": "25/36", "1": "11/36"}
    # a Montage die costs 2: one die at Ego 2 is lost on 1-2 (1/3); Dark Dice that cannot
    # reach the Ego cannot lose the character
    assert SYS.odds({"dark": 1, "ego": 2, "montage": True})["lost"] == "1/3"
    assert SYS.odds({"dark": 1, "ego": 4})["lost"] == "0"
    with pytest.raises(RuleError, match="the Ego check is simultaneous or sequential"):
        SYS.odds({"dark": 1, "ego": 2, "ego_check": "sometimes"})


@pytest.mark.parametrize("ego", [1, 2, 3, 7])
@pytest.mark.parametrize("mode", ["simultaneous", "sequential"])
def test_ego_risk_matches_enumeration(ego: int, mode: str) -> None:
    from ledger_terran_engine.odds import ego_risk

    for per in (1, 2):
        counts: dict[int, int] = {}
        for faces in itertools.product(range(1, 7), repeat=3):
            cost = m.ego_cost(list(faces), ego, per, mode)
            counts[cost] = counts.get(cost, 0) + 1
        want = {k: F(v, 216) for k, v in sorted(counts.items())}
        got = {k: p for k, p in ego_risk(3, ego, per, mode).items() if p}
        assert got == want


def test_the_default_table_is_the_family_by_pool_size() -> None:
    # Issue 15: `odds` without a pool gives the whole family (each row is `odds --pool n`)
    table = SYS.odds({})["risky_action_table"]
    assert list(table) == [str(n) for n in range(9)]
    for n, row in table.items():
        assert row == SYS.odds({"pool": int(n)})["risky_action"]


def test_threshold_or_rating_without_spend_give_the_family_by_experience_spent() -> None:
    # Seen: `odds terran-engine --threshold 20` silently ignored the threshold
    out = SYS.odds({"threshold": 8, "rating": 2})
    advancement, skill = out["advancement_by_spend"], out["skill_development_by_spend"]
    assert advancement["2 XP"] == "5/12"  # P(2d6 >= 8) = 15/36: T = 8, k = 2
    for spent, p in advancement.items():  # each entry is `odds --spend k`
        k = int(spent.split()[0])
        assert p == SYS.odds({"spend": k, "threshold": 8})["advancement"]
    # rating 2: the sum must reach 3 × 2 = 6; 3d6 >= 6 is 103/108 (95%), 4d6 1291/1296 (99.6%)
    assert list(skill) == ["1 XP", "2 XP", "3 XP", "4 XP"]
    assert skill["3 XP"] == "103/108" == SYS.odds({"spend": 3, "rating": 2})["skill_development"]
    assert skill["4 XP"] == "1291/1296"
    assert F(list(advancement.values())[-1]) >= F(99, 100) > F(list(advancement.values())[-2])
    assert SYS.odds({"threshold": 0})["advancement_by_spend"] == {"1 XP": "1"}
