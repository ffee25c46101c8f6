"""d20 World's odds chart (001_a3a02f9b7363775f.txt, "Checks"): the bad / messy / good
bands by proficiency for a normal roll, advantage and disadvantage. Reached through
:meth:`D20World.odds_series` and :meth:`D20World.draw_odds`; drawn with the shared helpers
of :mod:`ledger.charts`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.rules.charts import (
    BAD,
    GOOD,
    MIXED,
    checked,
    figure,
    frac,
    outline,
    percent_axis,
    stacked,
)

if TYPE_CHECKING:
    from fractions import Fraction

    from matplotlib.figure import Figure

    from ledger import RuleSystem

MODES: tuple[tuple[str, dict[str, bool]], ...] = (
    ("normal", {}),
    ("advantage", {"advantage": True}),
    ("disadvantage", {"disadvantage": True}),
)
"""Each mode of the chart and the odds flags that ask for it."""

BANDS = ("bad", "messy", "good")
"""The outcome bands of a check, worst first ("Checks", step 4)."""


def odds_series(system: RuleSystem, params: dict[str, Any], top: int = 10) -> dict[str, Any]:
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
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles[:3], labels[:3], loc="outside lower center", ncol=3, fontsize=8)
    fig.suptitle("d20 World: check outcome bands by proficiency (exact)")
    return fig
