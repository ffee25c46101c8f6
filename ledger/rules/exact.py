"""Exact dice distributions for a system's odds: no sampling, no floats, no dependency.

A rule system's ``odds`` usually needs the distribution of a pool of identical dice, summed,
perhaps keeping only the best or the worst few (advantage, disadvantage), with each face
first turned into what it scores (a success count, a shifted value).
:func:`pool_distribution` gives it as ``{total: Fraction}`` by walking the multisets of
scores (never every ordered roll: 11 d10 that score 0, 1 or 2 are 78 multisets);
:func:`at_least`, :func:`at_least_table`, :func:`mean` and :func:`most_likely` read it,
:func:`shifted` adds a bonus to every total and :func:`contest` sets two of them against
each other.

``campaign odds`` shows every probability as ``"n/d"`` (:func:`fraction_text`,
:func:`fraction_texts`); :func:`summary` reports a distribution and :func:`chance_table` a
family of chances (one row per stat or level) in that form.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from itertools import combinations_with_replacement
from typing import Any, TypeVar

from ledger.errors import RuleError

__all__ = [
    "at_least",
    "at_least_table",
    "chance_table",
    "contest",
    "fraction_text",
    "fraction_texts",
    "mean",
    "most_likely",
    "pool_distribution",
    "shifted",
    "summary",
]

R = TypeVar("R")
C = TypeVar("C")


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


def at_least_table(
    distribution: Mapping[int, Fraction], low: int | None = None, high: int | None = None
) -> dict[int, Fraction]:
    """``{k: P(total >= k)}`` for every ``k`` from ``low`` to ``high`` inclusive (default:
    the lowest and the highest total), ascending; 1 below the lowest total, 0 above the
    highest. 2d6 from 7 to 9: ``{7: 7/12, 8: 5/12, 9: 5/18}``."""
    low = min(distribution) if low is None else low
    high = max(distribution) if high is None else high
    return {k: at_least(distribution, k) for k in range(low, high + 1)}


def most_likely(distribution: Mapping[int, Fraction]) -> list[int]:
    """The mode(s) of a distribution: the totals of highest probability, ascending (2d6:
    ``[7]``; 1d6: all six faces)."""
    best = max(distribution.values())
    return sorted(t for t, p in distribution.items() if p == best)


def shifted(distribution: Mapping[int, Fraction], bonus: int) -> dict[int, Fraction]:
    """The distribution with ``bonus`` (of either sign) added to every total, in the same
    order: 1d6 shifted by 2 is ``{3: 1/6, ..., 8: 1/6}``."""
    return {t + bonus: p for t, p in distribution.items()}


def contest(
    mine: Mapping[int, Fraction], theirs: Mapping[int, Fraction]
) -> tuple[Fraction, Fraction, Fraction]:
    """``(P(win), P(tie), P(lose))`` of two independent rolls compared by total: mine
    higher, equal, lower (add a side's modifier with :func:`shifted` first). The three sum
    to 1; 1d6 against 1d6 is ``(5/12, 1/6, 5/12)``. Where the rules reroll a tie,
    ``win / (win + lose)`` is the chance to win in the end."""
    win = tie = lose = Fraction(0)
    for a, pa in mine.items():
        for b, pb in theirs.items():
            if a > b:
                win += pa * pb
            elif a == b:
                tie += pa * pb
            else:
                lose += pa * pb
    return win, tie, lose


def fraction_text(p: Fraction) -> str:
    """A probability as ``campaign odds`` shows it, always ``"n/d"``: ``Fraction(5, 12)`` →
    ``"5/12"``, certainty ``"1/1"``, impossibility ``"0/1"``."""
    return f"{p.numerator}/{p.denominator}"


def fraction_texts(chances: Mapping[Any, Fraction]) -> dict[str, str]:
    """``{str(key): "n/d"}`` of a table of probabilities, in its order (a distribution, an
    :func:`at_least_table`, outcome bands): ``{7: Fraction(1, 6)}`` → ``{"7": "1/6"}``."""
    return {str(k): fraction_text(p) for k, p in chances.items()}


SUMMARY_FIELDS = ("min", "max", "mean", "distribution", "at_least", "most_likely")
"""What :func:`summary` can report of a distribution."""


def summary(distribution: Mapping[int, Fraction], *fields: str) -> dict[str, Any]:
    """A distribution as ``campaign odds`` reports it, with ``fields`` in the order given:

    - ``"min"``, ``"max"``: the lowest and the highest total (``int``);
    - ``"mean"``: the expected total, ``"n/d"``;
    - ``"distribution"``: ``{"total": "n/d"}``;
    - ``"at_least"``: ``{"k": P(total >= k)}`` for ``k`` from 1 to the highest total (the
      chance to reach ``k`` successes), ``"n/d"``;
    - ``"most_likely"``: the mode(s), ascending (:func:`most_likely`).

    2d6 with ``"min", "mean"``: ``{"min": 2, "mean": "7/1"}``.

    :raises ValueError: a field not in :data:`SUMMARY_FIELDS`.
    """
    report: dict[str, Any] = {}
    for field in fields:
        if field == "min":
            report[field] = min(distribution)
        elif field == "max":
            report[field] = max(distribution)
        elif field == "mean":
            report[field] = fraction_text(mean(distribution))
        elif field == "distribution":
            report[field] = fraction_texts(distribution)
        elif field == "at_least":
            report[field] = fraction_texts(at_least_table(distribution, 1))
        elif field == "most_likely":
            report[field] = most_likely(distribution)
        else:
            raise ValueError(f"a summary reports {', '.join(SUMMARY_FIELDS)}, not {field!r}")
    return report


def chance_table(
    rows: Iterable[tuple[str, R]],
    columns: Iterable[tuple[str, C]],
    chance: Callable[[R, C], Fraction],
) -> dict[str, dict[str, str]]:
    """A family of chances as ``campaign odds`` reports it: ``{row label: {column label:
    "n/d"}}``, ``chance(row, column)`` in each cell, rows and columns in the order given
    (e.g. one row per STAT, one column per difficulty)."""
    columns = list(columns)
    return {
        label: {name: fraction_text(chance(row, column)) for name, column in columns}
        for label, row in rows
    }
