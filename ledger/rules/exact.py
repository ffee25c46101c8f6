"""Exact dice distributions for a system's odds: no sampling, no floats, no dependency.

A rule system's ``odds`` usually needs the distribution of a pool of identical dice, summed,
perhaps keeping only the best or the worst few (advantage, disadvantage), with each face
first turned into what it scores (a success count, a shifted value).
:func:`pool_distribution` gives it as ``{total: Fraction}`` by walking the multisets of
scores (never every ordered roll: 11 d10 that score 0, 1 or 2 are 78 multisets);
:func:`at_least` and :func:`mean` read it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from fractions import Fraction
from itertools import combinations_with_replacement

from ledger.errors import RuleError

__all__ = ["at_least", "mean", "pool_distribution"]


def pool_distribution(
    faces: Iterable[int], count: int, *, keep: int | None = None, lowest: bool = False
) -> dict[int, Fraction]:
    """The exact distribution of the sum of ``count`` dice, each showing one of ``faces``
    with equal chance (a d6: ``range(1, 7)``; a d10 scored as successes:
    ``[score(f) for f in range(1, 11)]``, repeats allowed).

    :param count: dice rolled, 1 or more.
    :param keep: how many dice count (the highest, or with ``lowest`` the lowest);
        ``None``: all of them.
    :returns: ``{total: probability}`` in ascending order of total, every probability
        above 0, summing to 1.
    :raises RuleError: no faces, ``count`` below 1, or ``keep`` outside 1..``count``.
    """
    weights = Counter(faces)
    if not weights or count < 1 or (keep is not None and not 1 <= keep <= count):
        raise RuleError(f"no distribution of {keep} kept of {count} dice with {len(weights)} faces")
    values = sorted(weights)
    sides = sum(weights.values())
    ways: Counter[int] = Counter()
    for roll in combinations_with_replacement(values, count):  # ascending
        shown = Counter(roll)
        orders = math.factorial(count)
        for value, n in shown.items():
            orders = orders // math.factorial(n) * weights[value] ** n
        kept = roll if keep is None else roll[:keep] if lowest else roll[count - keep :]
        ways[sum(kept)] += orders
    total = sides**count
    return {t: Fraction(n, total) for t, n in sorted(ways.items())}


def at_least(distribution: Mapping[int, Fraction], need: int) -> Fraction:
    """``P(total >= need)`` of a distribution (``{total: probability}``)."""
    return sum((p for t, p in distribution.items() if t >= need), Fraction(0))


def mean(distribution: Mapping[int, Fraction]) -> Fraction:
    """The expected total of a distribution (``{total: probability}``), exact."""
    return sum((t * p for t, p in distribution.items()), Fraction(0))
