"""Spellwoven exact odds (seed 004_663ae3e4ecc71fd1.txt, "Basic Distributions").

Expected values are exact fractions checked by hand, or small cases worked by hand in
the comments; the enumerations walk every set of faces through the same keep/count
rules the engine rolls with.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction as F

import pytest
from ledger_spellwoven import Spellwoven
from ledger_spellwoven.odds import success_distribution
from ledger_spellwoven.rules.mechanics import DIFFICULTIES, count_successes, dice_to_roll, keep

from ledger import RuleError, at_least_table, contest, mean, most_likely, shifted

# exactly, per skill: S → (mean, mode, P(0), P(>=1), P(>=2), P(>=3), P(>=4))
DIGEST_TABLE = {
    1: ("3/5", 0, "729/1000", "271/1000", "271/1000", "7/250", "7/250"),
    2: ("9/10", 0, "64/125", "61/125", "37/125", "2/25", "31/1000"),
    3: ("6/5", 0, "343/1000", "657/1000", "363/1000", "33/250", "1/25"),
    4: ("3/2", 1, "27/125", "98/125", "23/50", "19/100", "11/200"),
    5: ("9/5", 2, "1/8", "7/8", "23/40", "13/50", "19/250"),
    6: ("21/10", 2, "8/125", "117/125", "87/125", "87/250", "103/1000"),
    7: ("12/5", 2, "27/1000", "973/1000", "811/1000", "23/50", "17/125"),
    8: ("27/10", 3, "1/125", "124/125", "227/250", "301/500", "7/40"),
    9: ("3", 3, "1/1000", "999/1000", "39/40", "39/50", "11/50"),
    10: ("33/10", 3, "1/1000", "999/1000", "489/500", "33/40", "199/500"),
    11: ("18/5", 4, "1/1000", "999/1000", "981/1000", "108/125", "27/50"),
    12: ("39/10", 4, "1/1000", "999/1000", "123/125", "897/1000", "163/250"),
}


@pytest.mark.parametrize("level", sorted(DIGEST_TABLE))
def test_digest_table_of_normal_rolls(level):
    avg, mode, p0, *p_at_least = DIGEST_TABLE[level]
    dist = success_distribution(level)
    assert mean(dist) == F(avg)
    assert most_likely(dist) == [mode]
    assert dist[0] == F(p0)
    assert [at_least_table(dist, 1)[k] for k in (1, 2, 3, 4)] == [F(p) for p in p_at_least]


def test_mean_is_three_tenths_of_skill_plus_one_up_to_9():
    # each die scores [d <= S] + [d == 1], so 3 × (S/10 + 1/10)
    for level in range(1, 10):
        assert mean(success_distribution(level)) == F(3 * (level + 1), 10)


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (3, {0: "343/1000", 1: "147/500", 2: "231/1000", 3: "23/250", 4: "33/1000", 5: "3/500",
             6: "1/1000"}),
        (5, {0: "1/8", 1: "3/10", 2: "63/200", 3: "23/125", 4: "63/1000", 5: "3/250",
             6: "1/1000"}),
        (7, {0: "27/1000", 1: "81/500", 2: "351/1000", 3: "81/250", 4: "117/1000", 5: "9/500",
             6: "1/1000"}),
    ],
)  # fmt: skip
def test_digest_full_distributions(level, expected):
    assert success_distribution(level) == {k: F(v) for k, v in expected.items()}


ADVANTAGE = {
    3: ("7599/10000", "971/2000", "2307/10000", "891/10000"),
    5: ("15/16", "59/80", "179/400", "1739/10000"),
    7: ("9919/10000", "9271/10000", "7219/10000", "2683/10000"),
}
DISADVANTAGE = {
    3: ("3483/10000", "1131/10000", "277/10000", "61/10000"),
    5: ("11/16", "131/400", "177/2000", "133/10000"),
    7: ("9163/10000", "6571/10000", "2629/10000", "253/10000"),
}


@pytest.mark.parametrize(
    ("mode", "table"), [("advantage", ADVANTAGE), ("disadvantage", DISADVANTAGE)]
)
def test_digest_advantage_and_disadvantage(mode, table):
    for level, expected in table.items():
        dist = success_distribution(level, mode=mode)
        assert [at_least_table(dist, 1)[k] for k in (1, 2, 3, 4)] == [F(p) for p in expected]


def test_the_fumble_chance_stays_one_in_a_thousand_at_any_high_skill():
    # "some (albeit remote) chance of completely fumbling": three 10s
    for level in range(9, 21):
        assert success_distribution(level)[0] == F(1, 1000)
        assert success_distribution(level, mode="advantage")[0] == F(1, 10000)


def test_pool_of_one_by_hand():
    # one d10 at S 1: face 1 scores 2, the rest 0; at S 20: 1-3 score 3, 4-9 score 2, 10 none
    assert success_distribution(1, pool=1) == {0: F(9, 10), 2: F(1, 10)}
    assert success_distribution(20, pool=1) == {0: F(1, 10), 2: F(6, 10), 3: F(3, 10)}
    # advantage with one die kept: 2d10, the better one; P(no 1 on two dice) = 81/100
    assert success_distribution(1, pool=1, mode="advantage") == {0: F(81, 100), 2: F(19, 100)}
    # disadvantage: keep the higher face; it is a 1 only when both are
    assert success_distribution(1, pool=1, mode="disadvantage") == {0: F(99, 100), 2: F(1, 100)}


def walk_every_roll(skill_level, pool=3, mode="normal"):
    """The distribution of one roll by walking all ``10**n`` rolls in order through ``keep``
    and ``count_successes`` (the code ``resolve`` uses)."""
    n = dice_to_roll(mode, pool)
    counts = Counter(
        count_successes(keep(faces, skill_level, mode, pool), skill_level)
        for faces in itertools.product(range(1, 11), repeat=n)
    )
    return {k: F(counts[k], 10**n) for k in sorted(counts)}


def enumerate_distribution(skill_level, pool=3, mode="normal"):
    """The distribution of one roll by walking every set of faces (each multiset of ``n``
    d10 once) through ``keep`` and ``count_successes`` (the code ``resolve`` uses), weighted
    by the number of rolls that show those faces: an independent check of the odds.

    ``keep`` drops a die by its face (among equal faces, the later one), so the faces kept,
    and their successes, do not depend on the order the dice came in;
    :func:`test_the_order_of_the_dice_changes_no_count` checks this against every ordered
    roll."""
    n = dice_to_roll(mode, pool)
    counts: Counter[int] = Counter()
    for faces in itertools.combinations_with_replacement(range(1, 11), n):
        orders = math.factorial(n)
        for same in Counter(faces).values():
            orders //= math.factorial(same)
        counts[count_successes(keep(faces, skill_level, mode, pool), skill_level)] += orders
    assert sum(counts.values()) == 10**n
    return {k: F(counts[k], 10**n) for k in sorted(counts)}


@pytest.mark.parametrize("pool", [1, 2])
@pytest.mark.parametrize("mode", ["normal", "advantage", "disadvantage"])
def test_the_order_of_the_dice_changes_no_count(pool, mode):
    # up to three dice in every order: ties of every kind, the dropped die first, middle, last
    for level in (1, 5, 9, 12, 17, 18, 20):
        assert enumerate_distribution(level, pool, mode) == walk_every_roll(level, pool, mode)


@pytest.mark.parametrize("level", range(1, 21))
@pytest.mark.parametrize("mode", ["normal", "advantage", "disadvantage"])
def test_every_skill_1_to_20_matches_brute_force_enumeration(level, mode):
    assert success_distribution(level, 3, mode) == enumerate_distribution(level, 3, mode)


@pytest.mark.parametrize("pool", range(1, 11))
@pytest.mark.parametrize("mode", ["normal", "advantage", "disadvantage"])
def test_every_pool_size_is_a_distribution(pool, mode):
    for level in (1, 5, 9, 12, 17, 18, 20):
        dist = success_distribution(level, pool, mode)
        assert sum(dist.values()) == 1
        assert all(p > 0 for p in dist.values())
        top = {1: 2, 5: 2, 9: 2, 12: 2, 17: 2, 18: 3, 20: 3}[level]
        assert max(dist) == top * pool  # every kept die can score its best
        if level >= 9:  # only 10s score nothing
            tens = F(1, 10) ** pool
            expected = {
                "normal": tens,  # every die a 10
                "advantage": tens / 10,  # all pool + 1 dice are 10s
                "disadvantage": tens / 10 + (pool + 1) * F(9, 10) * tens,  # >= pool tens
            }[mode]
            assert dist[0] == expected


@pytest.mark.parametrize("pool", [1, 2, 4])
def test_other_pools_match_enumeration(pool):
    for mode in ("normal", "advantage", "disadvantage"):
        assert success_distribution(6, pool, mode) == enumerate_distribution(6, pool, mode)


def test_contest_by_hand():
    one = success_distribution(1, pool=1)  # 2 successes 1/10, else 0
    assert contest(one, one) == (F(9, 100), F(82, 100), F(9, 100))  # win, draw, lose
    # an Effort bonus of 1 turns every 0-0 into a win and every 2-2 into a loss... for them
    assert contest(shifted(one, 1), one)[1] == 0


def test_contest_of_equals_is_symmetric():
    five = success_distribution(5)
    win, draw, lose = contest(five, five)
    assert win == lose
    assert win + draw + lose == 1


def test_odds_report_through_the_rule_system():
    system = Spellwoven().configure({})
    report = system.odds({"skill": 5, "difficulty": 2})
    assert report["pass"] == "23/40"
    assert report["distribution"]["0"] == "1/8"
    assert report["mean"] == "9/5"
    assert report["at_least"]["4"] == "19/250"
    advantage = system.odds({"skill": 3, "advantage": True, "difficulty": 1})
    assert (advantage["mode"], advantage["pass"]) == ("advantage", "7599/10000")
    weakness = system.odds({"skill": 3, "weakness": True, "difficulty": 1})
    assert weakness["pass"] == "7599/10000"  # exploiting a Weakness = advantage
    cancelled = system.odds({"skill": 3, "advantage": True, "disadvantage": True, "difficulty": 1})
    assert cancelled["pass"] == "657/1000"  # ruling S8: they cancel
    target = system.odds({"skill": 7, "target": 4})  # Attribute 4 → 3 successes
    assert (target["difficulty"], target["pass"]) == (3, "23/50")


def test_odds_report_with_effort_bonus():
    report = Spellwoven().configure({}).odds({"skill": 5, "bonus": 3, "difficulty": 4})
    assert report["pass"] == "7/8"  # P(>=1) at S 5: Effort +3 makes any success pass 4


def test_odds_report_contest_and_every_level():
    system = Spellwoven().configure({})
    report = system.odds({"skill": 1, "pool": 1, "vs": "rival:1"})
    assert report["contest"] == {"win": "9/100", "draw": "41/50", "lose": "9/100"}
    every = system.odds({})
    assert sorted(every["by_skill"], key=int) == [str(s) for s in range(1, 21)]
    assert every["by_skill"]["9"]["distribution"]["0"] == "1/1000"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"skill": 0}, "1 to 30"),
        ({"skill": 5, "pool": 0}, "1 to 10"),
        ({"skill": 5, "difficulty": 5}, "Daunting"),
        ({"skill": 5, "target": 5}, "1 to 4"),
        ({"skill": 5, "difficulty": 1, "target": 2}, "not both"),
        ({"skill": 5, "vs": "rival"}, "Skill Level"),
        ({"skill": 5, "bonus": 9}, "0 to 4"),
        ({"vs": "rival:5"}, "needs the roller's Skill Level"),  # not the family, silently
        ({"difficulty": 1, "target": 2}, "not both"),
        ({"difficulty": 5}, "Daunting"),
    ],
)
def test_odds_report_refuses_bad_input(params, message):
    with pytest.raises(RuleError, match=message):
        Spellwoven().configure({}).odds(params)


def test_odds_without_a_skill_give_the_family_by_skill_and_difficulty():
    # Issue 15: `odds` without the skill draws the whole family of curves
    system = Spellwoven().configure({})
    family = system.odds({})["pass_by_skill"]
    assert list(family) == [f"Skill {s}" for s in range(1, 21)]
    assert list(family["Skill 5"]) == ["1 Normal", "2 Difficult", "3 Very difficult",
                                       "4 Daunting"]  # fmt: skip
    for level in range(1, 21):  # each row is `odds` with that Skill Level given
        for d in range(1, 5):
            single = system.odds({"skill": level, "difficulty": d})
            assert family[f"Skill {level}"][f"{d} {DIFFICULTIES[d]}"] == single["pass"]
    assert family["Skill 5"]["2 Difficult"] == "23/40"


def test_the_family_honours_the_difficulty_mode_pool_and_effort():
    system = Spellwoven().configure({})
    asked = {"target": 4, "advantage": True, "pool": 2, "bonus": 1}  # Attribute 4: 3 successes
    family = system.odds(asked)
    assert family["difficulty"] == 3 and family["mode"] == "advantage"
    for level in (1, 7, 12, 20):
        single = system.odds({**asked, "skill": level})
        assert family["pass_by_skill"][f"Skill {level}"] == {"3 Very difficult": single["pass"]}
        assert family["by_skill"][str(level)]["at_least"] == single["at_least"]
    assert system.odds({"target": 1})["pass_by_skill"]["Skill 1"] == {"0 automatic": "1/1"}
