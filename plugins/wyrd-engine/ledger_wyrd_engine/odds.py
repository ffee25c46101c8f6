"""Exact odds of the 4dF mechanic as fractions (digest §2.7, ruling C4).

The text's "Success probability per skill level" table prints 38.7% where the exact value
is 31/81 = 38.27%; these functions never copy the text's numbers, they count outcomes.
Source: 000_60e07241544698f0.txt, "Fudge dice (4dF)", "Passive Opposition",
"Active Opposition", "Attacking and Defending".
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import cache
from typing import Any

from .ladder import BANDS, dr_ladder
from .mechanics import contest_band, passive_band


@cache
def fudge_counts(dice: int = 4) -> dict[int, int]:
    """Ways each sum of ``dice`` Fudge dice occurs, out of ``3**dice`` (enumerated).

    4dF: −4:1, −3:4, −2:10, −1:16, 0:19, +1:16, +2:10, +3:4, +4:1 (of 81).
    """
    counts = Counter(sum(faces) for faces in itertools.product((-1, 0, 1), repeat=dice))
    return dict(sorted(counts.items()))


def fudge_distribution(dice: int = 4) -> dict[int, Fraction]:
    """``P(sum of dice dF = k)`` for every k, as exact fractions."""
    total = 3**dice
    return {k: Fraction(n, total) for k, n in fudge_counts(dice).items()}


def ratio(f: Fraction) -> str:
    """A fraction as ``"n/d"`` (always with a denominator: ``1`` → ``"1/1"``)."""
    return f"{f.numerator}/{f.denominator}"


def percent(f: Fraction) -> str:
    """A fraction as a percentage with one decimal, rounded half up: 31/81 → ``"38.3"``."""
    tenths = (f * 1000 + Fraction(1, 2)).__floor__()
    return f"{tenths // 10}.{tenths % 10}"


def passive_bands(
    modifier: int, dr: int, comparison: str = ">=", minor_cost_margins: tuple[int, ...] = ()
) -> dict[str, Fraction]:
    """``P(band)`` of ``4dF + modifier`` against ``dr``, for every band (digest §2.2).

    ``modifier`` is everything added to the dice (skill, trait, boost, teamwork, penalties).
    Bands: failure, tie, success, success_with_style (and success_at_cost if configured);
    every band appears, zero or not.
    """
    out: dict[str, Fraction] = {band: Fraction(0) for band in BANDS}
    if minor_cost_margins:
        out["success_at_cost"] = Fraction(0)
    for roll, p in fudge_distribution().items():
        _margin, band = passive_band(roll + modifier, dr, comparison, minor_cost_margins)
        out[band] += p
    return out


def success_chance(modifier: int, dr: int, comparison: str = ">=") -> Fraction:
    """``P(4dF + modifier meets the DR)`` (``>=``; or exceeds it under ``>``).

    Example (W15): modifier 0 vs Basic (0) → 50/81.
    """
    bands = passive_bands(modifier, dr, comparison)
    return bands["tie"] + bands["success"] + bands["success_with_style"]


def ladder_odds(
    modifier: int, comparison: str = ">=", minor_cost_margins: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """Success chance and band split of ``4dF + modifier`` at every DR of the ladder.

    Each row: ``dr``, ``name``, ``alias``, ``success`` (``"n/d"``), ``percent`` (one decimal),
    ``bands`` (band id → ``"n/d"``).
    """
    rows = []
    for name, value, alias in dr_ladder(comparison):
        bands = passive_bands(modifier, value, comparison, minor_cost_margins)
        win = sum((p for b, p in bands.items() if b != "failure"), Fraction(0))
        rows.append(
            {
                "dr": value,
                "name": name,
                "alias": alias,
                "success": ratio(win),
                "percent": percent(win),
                "bands": {b: ratio(p) for b, p in bands.items()},
            }
        )
    return rows


def contest_odds(modifier: int, opposition: int) -> dict[str, Fraction]:
    """Band split of a contest: ``4dF + modifier`` against ``4dF + opposition``.

    The difference of two independent 4dF is 8dF-shaped over −8…+8 (counts of
    ``(x⁻¹ + 1 + x)⁸`` out of 6561). Bands as :func:`ledger_wyrd_engine.mechanics.contest_band`;
    an attack hits with probability ``success + success_with_style`` (strictly higher).
    """
    out: dict[str, Fraction] = {band: Fraction(0) for band in BANDS}
    for diff, p in fudge_distribution(8).items():
        _d, band = contest_band(diff + modifier, opposition)
        out[band] += p
    return out
