"""ledger.pool_distribution: exact dice pools, checked against every ordered roll."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from ledger import RuleError, at_least, mean, pool_distribution


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
