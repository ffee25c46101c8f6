"""ledger.pool_distribution: exact dice pools, checked against every ordered roll."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from ledger import (
    RuleError,
    at_least,
    at_least_table,
    chance_table,
    contest,
    fraction_text,
    fraction_texts,
    mean,
    most_likely,
    pool_distribution,
    shifted,
    summary,
)

F = Fraction


def brute(faces, count, keep=None, lowest=False):
    totals = Counter()
    for roll in itertools.product(faces, repeat=count):
        ordered = sorted(roll)
        kept = ordered if keep is None else ordered[:keep] if lowest else ordered[-keep:]
        totals[sum(kept)] += 1
    n = len(faces) ** count
    return {t: Fraction(c, n) for t, c in sorted(totals.items())}


@pytest.mark.parametrize(
    ("faces", "count", "keep", "lowest"),
    [
        (range(1, 7), 2, None, False),
        (range(1, 7), 3, 2, False),
        (range(1, 7), 3, 2, True),
        ([0, 0, 0, 1, 1, 1, 1, 2, 1, 0], 4, 3, False),  # a d10 scored as successes
        ([0, 0, 0, 1, 1, 1, 1, 2, 1, 0], 4, 3, True),
        ([-1, 0, 1], 4, None, False),  # Fudge dice
    ],
)
def test_every_pool_equals_walking_every_roll(faces, count, keep, lowest):
    got = pool_distribution(faces, count, keep=keep, lowest=lowest)
    assert got == brute(list(faces), count, keep, lowest)
    assert sum(got.values()) == 1 and list(got) == sorted(got)


def test_at_least_and_mean_read_a_distribution():
    two = pool_distribution(range(1, 7), 2)
    assert two[7] == Fraction(1, 6)
    assert at_least(two, 8) == Fraction(15, 36)
    assert at_least(two, 2) == 1 and at_least(two, 13) == 0
    assert mean(two) == 7


@pytest.mark.parametrize(
    ("faces", "count", "keep"), [([], 2, None), ([1, 2], 0, None), ([1, 2], 2, 3)]
)
def test_impossible_pools_are_refused(faces, count, keep):
    with pytest.raises(RuleError):
        pool_distribution(faces, count, keep=keep)


def test_at_least_table_gives_every_target_between_its_bounds():
    two = pool_distribution(range(1, 7), 2)
    assert at_least_table(two, 7, 9) == {7: F(7, 12), 8: F(5, 12), 9: F(5, 18)}
    table = at_least_table(two)  # from the lowest total to the highest
    assert list(table) == list(range(2, 13))
    assert table[2] == 1 and table[8] == F(15, 36) and table[12] == F(1, 36)
    assert at_least_table(two, 0, 1) == {0: 1, 1: 1} and at_least_table(two, 13, 14) == {
        13: 0,
        14: 0,
    }


def test_most_likely_and_shifted():
    two = pool_distribution(range(1, 7), 2)
    assert most_likely(two) == [7]
    assert most_likely(pool_distribution(range(1, 7), 1)) == [1, 2, 3, 4, 5, 6]
    plus = shifted(two, 3)
    assert list(plus) == list(range(5, 16)) and plus[10] == F(1, 6)
    assert mean(plus) == 10 and mean(shifted(two, -2)) == 5


def test_contest_compares_totals():
    d6 = pool_distribution(range(1, 7), 1)
    assert contest(d6, d6) == (F(5, 12), F(1, 6), F(5, 12))
    # 2d6 against 1d6 + 3 (4..9, each 1/6): P(2d6 > x) is 30, 26, 21, 15, 10, 6 of 36 for
    # x = 4..9, so a win is 108/216; P(2d6 = x) is 3, 4, 5, 6, 5, 4 of 36, a tie 27/216
    win, tie, lose = contest(pool_distribution(range(1, 7), 2), shifted(d6, 3))
    assert (win, tie, lose) == (F(1, 2), F(1, 8), F(3, 8))
    assert contest({0: F(1)}, {1: F(1)}) == (0, 0, 1)


def test_fraction_text_is_always_n_over_d():
    assert fraction_text(F(5, 12)) == "5/12"
    assert fraction_text(F(1)) == "1/1" and fraction_text(F(0)) == "0/1"
    assert fraction_texts({7: F(1, 6), "win": F(1, 2)}) == {"7": "1/6", "win": "1/2"}


def test_summary_reports_the_fields_asked_in_order():
    two = pool_distribution(range(1, 7), 2)
    got = summary(two, "min", "max", "mean")
    assert got == {"min": 2, "max": 12, "mean": "7/1"} and list(got) == ["min", "max", "mean"]
    assert summary(two, "distribution")["distribution"]["7"] == "1/6"
    successes = {0: F(1, 8), 1: F(3, 8), 2: F(3, 8), 3: F(1, 8)}  # three coins
    report = summary(successes, "at_least", "most_likely")
    assert report == {"at_least": {"1": "7/8", "2": "1/2", "3": "1/8"}, "most_likely": [1, 2]}
    with pytest.raises(ValueError, match="not 'median'"):
        summary(two, "median")


def test_chance_table_has_a_row_per_stat_and_a_column_per_target():
    two = pool_distribution(range(1, 7), 2)
    table = chance_table(
        ((f"STAT {s}", s) for s in (0, 1)),
        (("8+", 8), ("12+", 12)),
        lambda stat, need: at_least(two, need - stat),
    )
    assert table == {
        "STAT 0": {"8+": "5/12", "12+": "1/36"},
        "STAT 1": {"8+": "7/12", "12+": "1/12"},
    }
