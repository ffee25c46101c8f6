"""Decision dice's odds chart (002_735c6d6cd834a641.txt, "Advantage and Disadvantage",
"Difficulty Scale"): the total and the chance to meet each target for 2d6, 3d6 (advantage)
and 1d6 (disadvantage). Reached through :meth:`DecisionDice.odds_series` and
:meth:`DecisionDice.draw_odds`; drawn with the shared helpers of :mod:`ledger.charts`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ledger.rules.charts import (
    BAD,
    BEST,
    GOOD,
    LINES,
    MIXED,
    checked,
    curves,
    figure,
    frac,
    percent_axis,
    without,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ledger import RuleSystem

MODES: tuple[tuple[str, dict[str, bool]], ...] = (
    ("normal", {}),
    ("advantage", {"advantage": True}),
    ("disadvantage", {"disadvantage": True}),
)
"""Each mode of the chart and the odds flags that ask for it."""


def odds_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Any]:
    """Per mode (normal 2d6, advantage 3d6, disadvantage 1d6) the total's ``distribution``
    ``{total: P}`` and ``targets`` ``{target: P(total >= target)}``, with the stat and
    modifiers given; ``modifier`` (their total) and ``scale`` ``{target: name}`` (the text's
    difficulty scale). Without ``stat``: :func:`family_series`.

    :raises ChartError: the odds lack a distribution or a target table.
    """
    base = without(
        params, "advantage", "disadvantage", "target", "supply", "opponent",
        "opponent_advantage", "opponent_disadvantage", "opponent_modifier",
    )  # fmt: skip

    if params.get("stat") is None and not params.get("opponent"):
        return family_series(system, without(params, "advantage", "disadvantage", "supply"))

    def build() -> dict[str, Any]:
        out: dict[str, Any] = {"modes": {}, "scale": {}}
        for mode, flags in MODES:
            result = system.odds({**base, **flags})
            out["modes"][mode] = {
                "dice": str(result.get("dice", mode)),
                "distribution": {int(k): frac(v) for k, v in result["distribution"].items()},
                "targets": {int(k): frac(v) for k, v in result["targets"].items()},
            }
            out["modifier"] = int(result.get("modifier_total", 0))
            for label in result.get("difficulty_scale", {}):
                number = label.rsplit("(", 1)[-1].rstrip(")")
                if number.isdigit() and "beyond" not in label:
                    out["scale"][int(number)] = label.rsplit(" (", 1)[0].replace('"', "")
        return out

    return checked(system, build)


def family_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Any]:
    """The family (``odds`` without ``stat``) per mode: ``{"family": True, "modifiers": M,
    "target": T or None, "modes": {mode: {"dice": "2d6", "by_target": {rung: {STAT:
    P(success)}}}}}``, the rows of ``success_by_stat`` turned into one curve per rung of the
    difficulty scale (or for ``target`` alone).

    :raises ChartError: the odds lack ``success_by_stat``.
    """

    def build() -> dict[str, Any]:
        out: dict[str, Any] = {"family": True, "target": params.get("target"), "modes": {}}
        for mode, flags in MODES:
            result = system.odds({**params, **flags})
            by_target: dict[str, dict[int, Fraction]] = {}
            for row, cells in result["success_by_stat"].items():
                stat = int(str(row).rsplit(" ", 1)[-1])
                for name, p in cells.items():
                    by_target.setdefault(str(name).replace('"', ""), {})[stat] = frac(p)
            out["modes"][mode] = {"dice": str(result.get("dice", mode)), "by_target": by_target}
            out["modifiers"] = int(result.get("modifiers", 0))
        return out

    return checked(system, build)


def draw_odds(data: dict[str, Any]) -> Figure:
    """Two panels: the distribution of the total and ``P(total >= target)`` for each mode,
    with the text's difficulty scale marked (dotted lines). The family (no ``stat``):
    :func:`draw_family`."""
    if data.get("family"):
        return draw_family(data)
    from matplotlib.ticker import MaxNLocator

    fig = figure(13, 4.6)
    a, b = fig.subplots(1, 2)
    colors = [{"normal": BEST, "advantage": GOOD, "disadvantage": BAD}[m] for m in data["modes"]]
    labels = [f"{d['dice']} ({mode})" for mode, d in data["modes"].items()]
    modes = list(data["modes"].values())
    curves(a, {label: d["distribution"] for label, d in zip(labels, modes, strict=True)},
           colors=colors)  # fmt: skip
    curves(b, {label: d["targets"] for label, d in zip(labels, modes, strict=True)},
           colors=colors)  # fmt: skip
    mod = data.get("modifier", 0)
    a.set_title(f"Total of the decision dice {mod:+d}" if mod else "Total of the decision dice")
    a.set_xlabel("total")
    a.xaxis.set_major_locator(MaxNLocator(integer=True))
    b.xaxis.set_major_locator(MaxNLocator(integer=True))
    a.legend(fontsize=8)
    percent_axis(a, max(float(p) for d in modes for p in d["distribution"].values()) * 1.1)
    for number, label in sorted(data["scale"].items()):
        b.axvline(number, color="grey", linestyle=":", linewidth=1)
        b.annotate(label, (number, 1.0), rotation=90, fontsize=7, ha="right", va="top",
                   xytext=(-2, 0), textcoords="offset points")  # fmt: skip
    b.set_title("Chance to meet the target number (total ≥ target)")
    b.set_xlabel("target number")
    b.legend(fontsize=8, loc="center right", framealpha=0.9)
    percent_axis(b, 1.04)
    fig.suptitle("Decision dice: success by target, with advantage and disadvantage (exact)")
    return fig


def draw_family(data: dict[str, Any]) -> Figure:
    """One panel per mode (2d6, 3d6 with advantage, 1d6 with disadvantage): P(success) by
    STAT, a curve per rung of the difficulty scale (or the one target asked for)."""
    from matplotlib.ticker import MaxNLocator

    fig = figure(15, 4.6)
    axes = fig.subplots(1, 3, sharey=True)
    for ax, (mode, d) in zip(axes, data["modes"].items(), strict=True):
        curves(ax, d["by_target"], colors=(BEST, GOOD, MIXED, BAD, LINES[3]))
        ax.set_title(f"{d['dice']} ({mode})")
        ax.set_xlabel(
            "STAT" + (f" (modifiers {data['modifiers']:+d})" if data["modifiers"] else "")
        )
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        percent_axis(ax, 1.04)
    axes[0].set_ylabel("chance of success (total ≥ target)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), fontsize=8)
    at = f"at target {data['target']}" if data.get("target") else "for each difficulty"
    fig.suptitle(f"Decision dice: success by STAT {at}, with advantage and disadvantage (exact)")
    return fig
