"""Exact odds of Spellwoven rolls as fractions (seed 004_663ae3e4ecc71fd1.txt).

The text gives no numbers, only the shape ("a bell-shaped distribution of successes that is
biased towards low numbers of successes if your Skill is less than 5, middle scores at Skill
5-6 and high scores at Skill 7 or over", "Overview: The Basic Mechanic") and a Troll program
to compute them ("Basic Distributions", "Troll Dice Code"). Here every distribution is
exact: a d10 is mapped to the successes it scores (:func:`mechanics.die_successes`), and the
pool is summed by icepool (keeping the best or the lowest-scoring dice at advantage or
disadvantage). :func:`enumerate_distribution` walks every face combination by brute force
as an independent check.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from .mechanics import (
    STANDARD_POOL,
    Mode,
    check_pool,
    contest_outcome,
    count_successes,
    dice_to_roll,
    die_successes,
    keep,
)

Distribution = dict[int, Fraction]


def success_distribution(
    skill_level: int, pool: int = STANDARD_POOL, mode: Mode = "normal"
) -> Distribution:
    """``{successes: probability}`` of one roll, exact, every probability > 0.

    - normal: ``pool`` d10, every die counts;
    - advantage: ``pool + 1`` d10, the ``pool`` scoring most are kept;
    - disadvantage: ``pool + 1`` d10, the ``pool`` highest faces are kept — since a higher
      face never scores more, that is the ``pool`` lowest-scoring dice.

    (004_663ae3e4ecc71fd1.txt, "Overview: The Basic Mechanic", "Skill level 10+",
    "Advantage & Disadvantage", "Basic Distributions")

    :param skill_level: Skill Level ``S``, 1 or more.
    :param pool: dice kept, 1..10.
    :raises RuleError: a Skill Level below 1 or a pool outside 1..10.
    """
    check_pool(pool)
    import icepool  # lazy: keeps `campaign roll` start-up lean

    die = icepool.Die([die_successes(face, skill_level) for face in range(1, 11)])
    if mode == "normal":
        total = die.pool(pool).sum()
    elif mode == "advantage":
        total = die.pool(pool + 1).highest(pool).sum()
    else:
        total = die.pool(pool + 1).lowest(pool).sum()
    denominator = total.denominator()
    return {int(k): Fraction(q, denominator) for k, q in sorted(total.items()) if q}


def enumerate_distribution(
    skill_level: int, pool: int = STANDARD_POOL, mode: Mode = "normal"
) -> Distribution:
    """The same distribution as :func:`success_distribution`, by walking all ``10**n`` rolls
    through :func:`mechanics.keep` and :func:`mechanics.count_successes` (the code
    :meth:`Spellwoven.resolve` uses). Slow above 5 dice; meant as an independent check.

    (004_663ae3e4ecc71fd1.txt, "Advantage & Disadvantage")
    """
    n = dice_to_roll(mode, pool)
    counts: Counter[int] = Counter()
    for faces in itertools.product(range(1, 11), repeat=n):
        counts[count_successes(keep(faces, skill_level, mode, pool), skill_level)] += 1
    total = 10**n
    return {k: Fraction(counts[k], total) for k in sorted(counts)}


def at_least(distribution: Distribution) -> dict[int, Fraction]:
    """``{k: P(successes >= k)}`` for k from 1 to the highest possible success count
    (the chance to pass a difficulty of k; 004_663ae3e4ecc71fd1.txt, "Difficulty levels")."""
    top = max(distribution)
    return {
        k: sum((p for s, p in distribution.items() if s >= k), Fraction(0))
        for k in range(1, top + 1)
    }


def mean(distribution: Distribution) -> Fraction:
    """The expected number of successes."""
    return sum((s * p for s, p in distribution.items()), Fraction(0))


def most_likely(distribution: Distribution) -> list[int]:
    """The mode(s): the success counts of highest probability, ascending."""
    best = max(distribution.values())
    return [s for s, p in distribution.items() if p == best]


def contest(mine: Distribution, theirs: Distribution, bonus: int = 0) -> dict[str, Fraction]:
    """``{"win", "draw", "lose"}`` probabilities of a Contest of Skill between two
    independent rolls, ``bonus`` added to mine (Effort).

    (004_663ae3e4ecc71fd1.txt, "Opposed Roll (Contest of Skill)")
    """
    result = {"win": Fraction(0), "draw": Fraction(0), "lose": Fraction(0)}
    for a, pa in mine.items():
        for b, pb in theirs.items():
            result[contest_outcome(a + bonus, b)] += pa * pb
    return result


def shifted(distribution: Distribution, bonus: int) -> Distribution:
    """The distribution with ``bonus`` successes added to every roll (Effort adds the
    Attribute; 004_663ae3e4ecc71fd1.txt, "Attributes and Effort")."""
    return {s + bonus: p for s, p in distribution.items()}


# --- the text's Troll program ("Troll Dice Code") ---------------------------------------


def troll_printed(faces: Sequence[int], s: int) -> int:
    """The text's Troll program as printed: ``(count S> N) + (count 1= N)``.

    In Troll, ``x > C`` keeps the elements of the collection ``C`` that ``x`` is greater
    than (the value on the left of the comparison is the fixed one), so ``count S> N``
    counts dice strictly **below** ``S``; ``count 1= N`` counts the 1s. With ``S:=4`` this
    is the text's rule for Skill 3, not 4 (digest V25, ruling S4).

    (004_663ae3e4ecc71fd1.txt, "Troll Dice Code")
    """
    return sum(1 for x in faces if s > x) + sum(1 for x in faces if x == 1)


def troll_corrected(faces: Sequence[int], s: int) -> int:
    """The corrected program ``(count S>= N) + (count 1= N)``: dice equal to or under ``S``
    plus the 1s, the prose rule for Skill Levels 1..9 (ruling S4).

    (004_663ae3e4ecc71fd1.txt, "Troll Dice Code", "Overview: The Basic Mechanic")
    """
    return sum(1 for x in faces if s >= x) + sum(1 for x in faces if x == 1)


def troll_distribution(s: int, n: int = STANDARD_POOL, *, corrected: bool = False) -> Distribution:
    """The distribution the Troll program gives for ``N:=n d10; S:=s``, by enumeration."""
    program = troll_corrected if corrected else troll_printed
    counts = Counter(program(faces, s) for faces in itertools.product(range(1, 11), repeat=n))
    return {k: Fraction(counts[k], 10**n) for k in sorted(counts)}


def fraction_text(value: Fraction) -> str:
    """A fraction as ``"n/d"`` (``"1/1"`` for certainty, ``"0/1"`` for impossibility)."""
    return f"{value.numerator}/{value.denominator}"
