"""Exact odds of a d20-world check (digest §2.4; seed 001_a3a02f9b7363775f.txt, "Checks",
"Natural 1 & 20", "Traits", "Wounds"). Fractions are :class:`fractions.Fraction`, reported as
``"n/d"`` strings.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from itertools import product
from typing import Any

from ledger import RuleError

from .mechanics import Mode, band_of, combine_modes, dice_count, experience_for, kept_die


def fraction_text(f: Fraction) -> str:
    """``Fraction(3, 20)`` → ``"3/20"`` (always with a denominator)."""
    return f"{f.numerator}/{f.denominator}"


def kept_distribution(mode: Mode) -> Iterator[tuple[int, Fraction]]:
    """``(kept d20, probability)`` for each face 1..20 under ``mode`` ("Checks", step 2).

    Enumerates all 20 or 400 equally likely dice, so it is exact by construction.
    """
    n = dice_count(mode)
    counts = [0] * 21
    for faces in product(range(1, 21), repeat=n):
        counts[kept_die(list(faces), mode)] += 1
    total = 20**n
    for face in range(1, 21):
        if counts[face]:
            yield face, Fraction(counts[face], total)


def check_odds(modifier: int, mode: Mode, *, hinder: bool = False) -> dict[str, Fraction]:
    """Exact probabilities of one check with ``modifier`` = proficiency − penalties.

    :returns: ``bad``, ``messy``, ``good`` (sum 1), ``natural_1``, ``natural_20`` (of the kept
        die) and ``expected_experience`` (bad 2 / messy 1, +1 on natural 1 or 20, +2 with
        ``hinder``). E.g. modifier 0 normal: 2/5, 9/20, 3/20, E[xp] 27/20.
    """
    out = {k: Fraction(0) for k in ("bad", "messy", "good", "natural_1", "natural_20",
                                    "expected_experience")}
    for kept, p in kept_distribution(mode):
        band = band_of(kept + modifier)
        out[band] += p
        out["expected_experience"] += p * experience_for(band, kept, hinder=hinder)
        if kept == 1:
            out["natural_1"] += p
        if kept == 20:
            out["natural_20"] += p
    return out


def shock_chance(wound_total: int) -> Fraction:
    """Chance the shock 1d6 is ≤ the wound total ("Wounds"): min(total, 6)/6, 0 for ≤ 0."""
    return Fraction(max(0, min(wound_total, 6)), 6)


def odds(params: dict[str, Any]) -> dict[str, Any]:
    """``campaign odds d20-world`` (digest §2.4).

    :param params: ``proficiency`` (int ≥ 0; absent: the :func:`family`), ``penalty`` (int ≥ 0, default 0),
        ``advantage``/``disadvantage`` flags (both: a normal roll, ruling R3), ``hinder``
        flag, ``wounds`` (int, adds ``shock``: the chance of shock with that wound total).
    :returns: ``modifier``, ``mode``, every band's probability, natural 1/20 chances,
        expected experience, as ``"n/d"`` strings; ``shock`` when ``wounds`` is given.
    :raises RuleError: a negative proficiency or penalty.
    """
    penalty = int(params.get("penalty") or 0)
    if params.get("proficiency") is None:
        return family(params)
    prof = int(params["proficiency"])
    if prof < 0 or penalty < 0:
        raise RuleError("proficiency and penalty are 0 or more (penalties are subtracted)")
    mode = combine_modes(int(bool(params.get("advantage"))),
                         int(bool(params.get("disadvantage"))))
    result = check_odds(prof - penalty, mode, hinder=bool(params.get("hinder")))
    out: dict[str, Any] = {"system": "d20-world", "modifier": prof - penalty, "mode": mode}
    out.update({k: fraction_text(v) for k, v in result.items()})
    if params.get("wounds") is not None:
        out["shock"] = fraction_text(shock_chance(int(params["wounds"])))
    return out


FAMILY_PROFICIENCIES = range(0, 11)
"""The proficiencies of the family: +0 (a skill being practised) to +10. Characters start at
+1 to +3 ("Character Creation") and gain one at a time ("Skills")."""

MODE_LABELS: dict[Mode, str] = {
    "normal": "normal (1d20)",
    "advantage": "advantage (2d20, keep higher)",
    "disadvantage": "disadvantage (2d20, keep lower)",
}
"""How the family names each mode ("Checks", step 2)."""


def family(params: dict[str, Any]) -> dict[str, Any]:
    """``campaign odds d20-world`` without ``--proficiency``: the check's bands by
    proficiency +0..+10 for each mode, the digest's §2.4 reference table extended.

    :param params: as :func:`odds`, without ``proficiency``: ``penalty`` is subtracted from
        every row; ``advantage``/``disadvantage`` keep only that mode (both: normal, R3);
        ``hinder`` adds its experience; ``wounds`` adds ``shock``.
    :returns: ``{"system", "penalty", "bands_by_proficiency": {mode label: {"+P": {"bad",
        "messy", "good", "expected_experience"}}}}`` as ``"n/d"`` strings (``"mode"`` too
        when a mode is asked for); each row equals :func:`odds` with that proficiency.
    :raises RuleError: a negative penalty.
    """
    penalty = int(params.get("penalty") or 0)
    if penalty < 0:
        raise RuleError("proficiency and penalty are 0 or more (penalties are subtracted)")
    advantage, disadvantage = bool(params.get("advantage")), bool(params.get("disadvantage"))
    asked = advantage or disadvantage
    modes: tuple[Mode, ...] = (
        (combine_modes(int(advantage), int(disadvantage)),) if asked
        else ("normal", "advantage", "disadvantage")
    )  # fmt: skip
    out: dict[str, Any] = {"system": "d20-world", "penalty": penalty}
    if asked:
        out["mode"] = modes[0]
    hinder = bool(params.get("hinder"))

    def row(prof: int, mode: Mode) -> dict[str, str]:
        result = check_odds(prof - penalty, mode, hinder=hinder)
        return {k: fraction_text(result[k]) for k in ("bad", "messy", "good",
                                                      "expected_experience")}  # fmt: skip

    out["bands_by_proficiency"] = {
        MODE_LABELS[mode]: {f"{prof:+d}": row(prof, mode) for prof in FAMILY_PROFICIENCIES}
        for mode in modes
    }
    if params.get("wounds") is not None:
        out["shock"] = fraction_text(shock_chance(int(params["wounds"])))
    return out
