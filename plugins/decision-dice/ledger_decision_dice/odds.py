"""Exact odds for decision rolls and supply dice (seed 002_735c6d6cd834a641.txt).

Every probability is a :class:`fractions.Fraction`; :func:`frac` renders it as ``"n/d"``
for ``campaign odds``. Distributions are built by convolution of d6 faces, so nothing is
approximated ("Target Numbers" hint, "Max Rolls", "Supply Rolls").
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from ledger import RuleError

from .mechanics import EMPTY, SIDES, SUPPLY_ORDER, SUPPLY_STEP_MAX, normalise_supply


def frac(p: Fraction) -> str:
    """``Fraction(5, 12)`` → ``"5/12"``; ``Fraction(0)`` → ``"0/1"``; ``Fraction(1)`` → ``"1/1"``.
    """
    return f"{p.numerator}/{p.denominator}"


@cache
def sum_distribution(count: int, sides: int = SIDES) -> dict[int, Fraction]:
    """The exact distribution of the sum of ``count`` dice of ``sides`` faces.

    :param count: 1..10 dice (decision rolls use 1, 2 or 3).
    :returns: ``{sum: probability}`` for every reachable sum, ``count``..``count*sides``.
    :raises RuleError: ``count`` outside 1..10.
    """
    if not 1 <= count <= 10:
        raise RuleError(f"the decision dice number 1 to 10, not {count}")
    ways: dict[int, int] = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = {}
        for total, n in ways.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + n
        ways = nxt
    outcomes = sides**count
    return {total: Fraction(n, outcomes) for total, n in sorted(ways.items())}


def p_at_least(count: int, need: int) -> Fraction:
    """``P(sum of count d6 >= need)``, exact ("Success and Failure": ties succeed)."""
    return sum(
        (p for total, p in sum_distribution(count).items() if total >= need), Fraction(0)
    )


def p_success(count: int, target: int, modifier_total: int) -> Fraction:
    """``P(dice + STAT + MODIFIERS >= TARGET)`` for a decision roll of ``count`` d6.

    :param count: the decision dice (1 with disadvantage, 2 normally, 3 with advantage).
    :param target: the target number.
    :param modifier_total: STAT plus every counted modifier.
    """
    return p_at_least(count, target - modifier_total)


def mean(count: int) -> Fraction:
    """The exact mean of ``count`` d6: 7/2 per die (2d6 "averaging at 7")."""
    return sum((t * p for t, p in sum_distribution(count).items()), Fraction(0))


def p_contest_win(
    count_a: int, mod_a: int, count_b: int, mod_b: int
) -> tuple[Fraction, Fraction, Fraction]:
    """Exact odds of one contested roll ("Contested Rolls", "Resolving a Tie").

    Ties are rerolled until someone wins (ruling X7: same dice counts and modifiers), so the
    final odds are the single-round win odds renormalised without ties.

    :returns: ``(P(A wins), P(B wins), P(a round ties))``.
    """
    da, db = sum_distribution(count_a), sum_distribution(count_b)
    win = lose = tie = Fraction(0)
    for ta, pa in da.items():
        for tb, pb in db.items():
            a, b = ta + mod_a, tb + mod_b
            if a > b:
                win += pa * pb
            elif b > a:
                lose += pa * pb
            else:
                tie += pa * pb
    decided = win + lose
    return win / decided, lose / decided, tie


def supply_odds(die: str, step_max: int = SUPPLY_STEP_MAX) -> dict[str, str]:
    """Exact facts of a supply die ("Supply Rolls").

    :returns: ``step_down`` = P(face ≤ 3) = 3/size; ``rolls_at_size`` = expected supply rolls
        spent at this size = size/3; ``rolls_to_empty`` = expected rolls from this die until
        Empty (the sum over this size and every smaller one). d12: 1/4, 4, 40/3.
    :raises RuleError: the die is not d12..d4 (Empty has no odds).
    """
    label = normalise_supply(die)
    if label == EMPTY:
        raise RuleError("an Empty item makes no supply rolls: give d12, d10, d8, d6 or d4")
    sizes = [int(d[1:]) for d in SUPPLY_ORDER[SUPPLY_ORDER.index(label) : -1]]
    sides = sizes[0]
    step = Fraction(min(step_max, sides), sides)
    to_empty = sum((Fraction(s, min(step_max, s)) for s in sizes), Fraction(0))
    return {
        "die": label,
        "step_down": frac(step),
        "rolls_at_size": frac(1 / step),
        "rolls_to_empty": frac(to_empty),
    }


def target_table(count: int, modifier_total: int, low: int = 2, high: int = 22) -> dict[str, str]:
    """``{str(TN): "n/d"}`` success odds for every target number ``low``..``high``."""
    return {
        str(tn): frac(p_success(count, tn, modifier_total)) for tn in range(low, high + 1)
    }
