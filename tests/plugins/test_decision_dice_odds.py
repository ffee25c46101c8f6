"""decision-dice: exact odds through ``DecisionDice.odds`` (seed 002_735c6d6cd834a641.txt,
"Target Numbers").

Hand-checked values are exact fractions worked by hand; icepool is an independent second
computation.
"""

from __future__ import annotations

from fractions import Fraction

import icepool
import pytest
from ledger_decision_dice import DecisionDice
from ledger_decision_dice.odds import p_contest_win, supply_odds

from ledger import RuleError


def odds(**params):
    return DecisionDice().configure({}).odds(params)


def test_the_texts_stated_probabilities():
    # "without any modifiers": STAT 0 (without --stat, odds give every STAT: see below)
    assert odds(stat=0)["distribution"]["12"] == "1/36"                  # 12 on 2d6: "< 3%"
    assert odds(stat=0, modifier=(1,), target="12")["success"] == "1/12"   # "almost 9%"
    assert odds(stat=0, target="8")["success"] == "5/12"                   # "41%"
    assert odds(stat=0, target="8", modifier=(1,))["success"] == "7/12"    # "58%"
    assert odds(stat=0)["mean"] == "7/1"                                 # "averaging at 7"
    assert (odds(stat=0)["min"], odds(stat=0)["max"]) == (2, 12)


def test_targets_2_to_22_for_each_dice_count():
    plain, adv, dis = odds(stat=0), odds(stat=0, advantage=True), odds(stat=0, disadvantage=True)
    assert list(plain["targets"]) == [str(t) for t in range(2, 23)]
    assert plain["targets"]["2"] == "1/1" and plain["targets"]["13"] == "0/1"
    assert adv["dice"] == "3d6" and adv["targets"]["18"] == "1/216"
    assert adv["targets"]["19"] == "0/1"
    assert dis["dice"] == "1d6" and dis["targets"]["2"] == "5/6"
    assert odds(stat=0, advantage=True, disadvantage=True)["dice"] == "2d6"
    high = odds(advantage=True, stat=8)["targets"]   # 22+: 3d6 + 8 reaches 26
    assert list(high)[-1] == "27" and high["26"] == "1/216" and high["27"] == "0/1"
    scale = plain["difficulty_scale"]
    assert scale["Simple Task (6)"] == "13/18"
    assert scale["Challenging Task (12)"] == "1/36"
    assert scale["\"Impossible\" Task (20)"] == "0/1"
    assert list(scale) == ["Simple Task (6)", "Challenging Task (12)", "Strenuous Task (18)",
                           "\"Impossible\" Task (20)", "↑ (beyond \"Impossible\") (22)"]


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("mod", [-2, 0, 3])
def test_odds_agree_with_icepool(count, mod):
    result = odds(stat=mod, advantage=count == 3, disadvantage=count == 1)
    pool = count @ icepool.d6 + mod
    for tn in range(2, 23):
        assert Fraction(result["targets"][str(tn)]) == pool.probability(">=", tn), tn


def test_stat_and_typed_modifiers_move_the_curve():
    result = odds(stat=2, bonus=-1, penalty=1, modifier=(1, -1), target="challenging")
    assert result["modifier_total"] == 2     # the negative bonus and positive penalty count 0
    assert result["need_on_dice"] == 10
    assert (result["success"], result["failure"]) == ("1/6", "5/6")
    assert odds(stat=0, penalty=-2, target="8")["success"] == "1/6"


def test_supply_odds_from_the_digest():
    assert odds(supply="d12") == {"die": "d12", "step_down": "1/4", "rolls_at_size": "4/1",
                                  "rolls_to_empty": "40/3"}
    assert [supply_odds(d)["rolls_to_empty"] for d in ("d10", "d8", "d6", "d4")] == [
        "28/3", "6/1", "10/3", "4/3"]
    assert [supply_odds(d)["step_down"] for d in ("d10", "d8", "d6", "d4")] == [
        "3/10", "3/8", "1/2", "3/4"]
    with pytest.raises(RuleError, match="Empty"):
        odds(supply="empty")


def test_contest_odds_renormalise_ties():
    win, lose, tie = p_contest_win(2, 0, 2, 0)
    assert (win, lose) == (Fraction(1, 2), Fraction(1, 2))
    assert tie == Fraction(146, 1296)  # sum over t of P(2d6 = t)^2 = 146/1296
    result = odds(opponent="Ogre", opponent_modifier=(1,))
    a, b = 2 @ icepool.d6, 2 @ icepool.d6 + 1
    p_win = (a > b).probability(True)
    p_lose = (a < b).probability(True)
    assert Fraction(result["win"]) == p_win / (p_win + p_lose)
    assert Fraction(result["win"]) + Fraction(result["lose"]) == 1


def test_bad_target_is_refused():
    with pytest.raises(RuleError, match="simple"):
        odds(target="very hard")
    with pytest.raises(RuleError, match="have no Target number"):
        odds(target="8", opponent="Ogre")


def test_odds_without_a_stat_give_the_family_by_stat():
    # Issue 15: `odds` without the stat draws the whole family of curves
    family = odds()["success_by_stat"]
    assert list(family) == [f"STAT {s}" for s in range(0, 11)]  # stat_min..stat_max (X1)
    for stat, row in enumerate(family.values()):  # each row is `odds` with that STAT
        assert row == odds(stat=stat)["difficulty_scale"]
    # "Strenuous (18) … < 10% for low level characters": 2d6 + 7 = 1/12, 2d6 + 5 = 0
    assert family["STAT 7"]["Strenuous Task (18)"] == "1/12"
    assert family["STAT 5"]["Strenuous Task (18)"] == "0/1"
    # with advantage (3d6) and a counted bonus: STAT 3 + 1 at 18 is 3d6 >= 14 = 35/216
    adv = odds(advantage=True, bonus=1)
    assert adv["dice"] == "3d6" and adv["modifiers"] == 1
    assert adv["success_by_stat"]["STAT 3"]["Strenuous Task (18)"] == "35/216"
    for stat, row in enumerate(odds(target="8", modifier=(1,))["success_by_stat"].values()):
        assert row == {"target 8": odds(stat=stat, target="8", modifier=(1,))["success"]}
    assert odds(target="8")["success_by_stat"]["STAT 0"] == {"target 8": "5/12"}  # "41%"


def test_the_family_follows_the_campaigns_stat_range():
    system = DecisionDice().configure({"stat_min": -2, "stat_max": 3})
    family = system.odds({"disadvantage": True})["success_by_stat"]
    assert list(family) == ["STAT -2", "STAT -1", "STAT 0", "STAT 1", "STAT 2", "STAT 3"]
    assert family["STAT -2"]["Simple Task (6)"] == "0/1"  # 1d6 - 2 never reaches 6
    assert family["STAT 3"]["Simple Task (6)"] == "2/3"  # 1d6 + 3 >= 6: a 3 or more
    with pytest.raises(RuleError):
        odds(target="very hard")
