"""Exact odds of a d20-world check (docs/rulings/d20-world.md; seed 001_a3a02f9b7363775f.txt, "Checks",
"Natural 1 & 20", "Traits", "Wounds") and their chart: the :class:`Odds` mixin of
:class:`ledger_d20_world.system.D20World`, and :func:`odds_series` / :func:`draw_odds`, which
the system names as its chart module (``campaign odds d20-world --plot``; drawn with the
shared helpers of :mod:`ledger.rules.charts`). Fractions are :class:`fractions.Fraction`,
reported as ``"n/d"`` strings.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ledger import RuleError, RuleSystem, fraction_text, fraction_texts, pool_distribution
from ledger.rules.charts import (
    BAD,
    GOOD,
    MIXED,
    checked,
    figure,
    frac,
    legend_below,
    outline,
    percent_axis,
    stacked,
)

from .rules.mechanics import (
    Mode,
    band_of,
    combine_modes,
    dice_count,
    experience_for,
)
from .state import Character, Options

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def kept_distribution(mode: Mode) -> dict[int, Fraction]:
    """``{kept d20: probability}`` under ``mode`` ("Checks", step 2: the higher of two d20
    with advantage, the lower with disadvantage), exact."""
    return pool_distribution(range(1, 21), dice_count(mode), keep=1, lowest=mode == "disadvantage")


def check_odds(modifier: int, mode: Mode, *, hinder: bool = False) -> dict[str, Fraction]:
    """Exact probabilities of one check with ``modifier`` = proficiency − penalties.

    :returns: ``bad``, ``messy``, ``good`` (sum 1), ``natural_1``, ``natural_20`` (of the kept
        die) and ``expected_experience`` (bad 2 / messy 1, +1 on natural 1 or 20, +2 with
        ``hinder``). E.g. modifier 0 normal: 2/5, 9/20, 3/20, E[xp] 27/20.
    """
    out = {
        k: Fraction(0)
        for k in ("bad", "messy", "good", "natural_1", "natural_20", "expected_experience")
    }
    for kept, p in kept_distribution(mode).items():
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


class Odds(RuleSystem[Character, Options]):
    """Mixin of :class:`ledger_d20_world.system.D20World`: ``campaign odds d20-world``."""

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """``campaign odds d20-world`` (docs/rulings/d20-world.md).

        :param params: ``proficiency`` (int ≥ 0; absent: the :func:`family`), ``penalty``
            (int ≥ 0, default 0), ``advantage``/``disadvantage`` flags (both: a normal roll,
            ruling R3), ``hinder`` flag, ``wounds`` (int, adds ``shock``: the chance of
            shock with that wound total).
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
        mode = combine_modes(
            int(bool(params.get("advantage"))), int(bool(params.get("disadvantage")))
        )
        result = check_odds(prof - penalty, mode, hinder=bool(params.get("hinder")))
        out: dict[str, Any] = {"system": "d20-world", "modifier": prof - penalty, "mode": mode}
        out.update(fraction_texts(result))
        if params.get("wounds") is not None:
            out["shock"] = fraction_text(shock_chance(int(params["wounds"])))
        return out

    def roll_odds(self, event: Any) -> list[tuple[str, Fraction]] | None:
        """The roll form's odds of a check before it is rolled, from :meth:`odds`
        with the check's proficiency, penalties and mode ("Checks", steps 2-5: the kept
        d20 + proficiency - penalties; 18+ good, 9-17 messy, 8 or less bad).

        E.g. Isa's Lockpicking +3, no penalty: ``("you need 15+ for good", 3/10)``,
        ``("6 to 14: messy", 9/20)``, ``("5 or less: bad", 1/4)``.

        :returns: ``None`` for a shock roll or a check the rules settle without rolling.
        """
        if getattr(event, "gate", "auto_fail") in ("auto_fail", "auto_success"):
            return None
        penalty = (event.wound_penalty + event.condition_penalty + event.jinx_penalty
                   + (event.hidden_modifier or 0))  # fmt: skip
        got = self.odds({"proficiency": event.proficiency, "penalty": penalty,
                         "advantage": event.mode == "advantage",
                         "disadvantage": event.mode == "disadvantage"})  # fmt: skip
        modifier = event.proficiency - penalty
        die = {"advantage": " on the higher d20", "disadvantage": " on the lower d20"}.get(
            event.mode, ""
        )
        good, messy = 18 - modifier, 9 - modifier  # the kept face each band needs

        def face(n: int) -> int:
            return max(1, min(20, n))

        lines = [(f"you need {face(good)}+{die} for good", Fraction(got["good"]))]
        lines.append((f"{face(messy)} to {face(good - 1)}: messy", Fraction(got["messy"])))
        lines.append((f"{face(messy - 1)} or less: bad", Fraction(got["bad"])))
        return [(text, chance) for text, chance in lines if chance]


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

    :param params: as :meth:`Odds.odds`, without ``proficiency``: ``penalty`` is subtracted from
        every row; ``advantage``/``disadvantage`` keep only that mode (both: normal, R3);
        ``hinder`` adds its experience; ``wounds`` adds ``shock``.
    :returns: ``{"system", "penalty", "bands_by_proficiency": {mode label: {"+P": {"bad",
        "messy", "good", "expected_experience"}}}}`` as ``"n/d"`` strings (``"mode"`` too
        when a mode is asked for); each row equals :meth:`Odds.odds` with that proficiency.
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


# --- the chart (RuleSystem.chart) ----------------------------------------------------------

MODES: tuple[tuple[str, dict[str, bool]], ...] = (
    ("normal", {}),
    ("advantage", {"advantage": True}),
    ("disadvantage", {"disadvantage": True}),
)
"""Each mode of the chart and the odds flags that ask for it."""

BANDS = ("bad", "messy", "good")
"""The outcome bands of a check, worst first ("Checks", step 4)."""


def odds_series(
    system: RuleSystem[Any, Any], params: dict[str, Any], top: int = 10
) -> dict[str, Any]:
    """Per mode and proficiency ``0..max(top, proficiency)`` (with the penalty given) the
    bands ``{bad, messy, good}``.

    :returns: ``{"proficiency": P, "penalty": N, "modes": {mode: {proficiency: {band:
        Fraction}}}}``; ``proficiency`` is the one asked for, ``None`` without one (the
        family, :func:`.odds.family`, drawn with no bar outlined).
    :raises ChartError: the odds lack a band.
    """
    asked = params.get("proficiency")
    prof = None if asked is None else int(asked)
    penalty = int(params.get("penalty") or 0)

    def build() -> dict[str, Any]:
        modes: dict[str, dict[int, dict[str, Fraction]]] = {}
        for mode, flags in MODES:
            modes[mode] = {}
            for p in range(0, max(top, prof or 0) + 1):
                r = system.odds({"proficiency": p, "penalty": penalty, **flags})
                modes[mode][p] = {b: frac(r[b]) for b in BANDS}
        return {"proficiency": prof, "penalty": penalty, "modes": modes}

    return checked(system, build)


def draw_odds(data: dict[str, Any]) -> Figure:
    """One panel per mode (normal, advantage, disadvantage): bad / messy / good by
    proficiency, with the given proficiency's bar outlined and its good chance on top (for
    the family, every bar's good chance)."""
    fig = figure(15, 4.4)
    axes = fig.subplots(1, 3, sharey=True)
    keep = {"advantage": " (2d20, keep higher)", "disadvantage": " (2d20, keep lower)"}
    for ax, (mode, by_prof) in zip(axes, data["modes"].items(), strict=True):
        xs = list(by_prof)
        stacked(ax, xs, list(by_prof.values()), BANDS, (BAD, MIXED, GOOD),
                ("bad (total ≤ 8)", "messy (9-17)", "good (≥ 18)"))  # fmt: skip
        ax.set_title(f"{mode}{keep.get(mode, ' (1d20)')}")
        ax.set_xticks(xs)
        ax.set_xlabel("proficiency" + (f" (penalty {data['penalty']})" if data["penalty"] else ""))
        p = data["proficiency"]
        if p is None:  # the family: every bar's good chance on top
            for x, bands in by_prof.items():
                ax.annotate(f"{float(bands['good']):.0%}", (x, 1.0), ha="center", va="bottom",
                            fontsize=7)  # fmt: skip
        else:
            outline(ax, p)
            good = by_prof[p]["good"]
            ax.annotate(f"good {float(good):.0%}", (p, 1.0), ha="center", va="bottom", fontsize=7)
        percent_axis(ax, 1.08)
    legend_below(fig, axes[0], 3)
    fig.suptitle("d20 World: check outcome bands by proficiency (exact)")
    return fig
