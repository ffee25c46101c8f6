"""Exact odds for decision rolls and supply dice, and their chart (seed
002_735c6d6cd834a641.txt).

Every probability is a :class:`fractions.Fraction`; :func:`frac` renders it as ``"n/d"``
for ``campaign odds``. Distributions are built by convolution of d6 faces, so nothing is
approximated ("Target Numbers" hint, "Max Rolls", "Supply Rolls"). :class:`Odds` answers
``campaign odds decision-dice``; :func:`odds_series` and :func:`draw_odds` draw its chart
(``--plot``: the total and the chance to meet each target for 2d6, 3d6 with advantage and
1d6 with disadvantage, "Advantage and Disadvantage", "Difficulty Scale") with the shared
helpers of :mod:`ledger.charts`; the system names this module as its ``chart``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any

from ledger import RuleError, RuleSystem, at_least, mean, pool_distribution
from ledger.rules.charts import (
    BAD,
    BEST,
    GOOD,
    LINES,
    MIXED,
    checked,
    curves,
    figure,
    percent_axis,
    without,
)
from ledger.rules.charts import frac as as_fraction

from .rules.mechanics import (
    DIFFICULTY_SCALE,
    EMPTY,
    OPPONENT_OPTIONS,
    SIDES,
    SUPPLY_ORDER,
    SUPPLY_STEP_MAX,
    decision_dice_count,
    modifier_lines,
    normalise_supply,
    parse_target,
)
from .state import Character, Options

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The named rows of the "Difficulty Scale", lowest first, as the odds name them.
SCALE = tuple((tn, f"{label} ({tn})") for tn, label in reversed(DIFFICULTY_SCALE))


def frac(p: Fraction) -> str:
    """``Fraction(5, 12)`` → ``"5/12"``; ``Fraction(0)`` → ``"0/1"``; ``Fraction(1)`` → ``"1/1"``."""
    return f"{p.numerator}/{p.denominator}"


@cache
def sum_distribution(count: int) -> dict[int, Fraction]:
    """``{sum: probability}`` of ``count`` decision dice (1, 2 or 3 d6), all of them summed."""
    return pool_distribution(range(1, SIDES + 1), count)


def p_success(count: int, target: int, modifier_total: int) -> Fraction:
    """``P(dice + STAT + MODIFIERS >= TARGET)`` of a decision roll of ``count`` d6
    ("Success and Failure": ties succeed)."""
    return at_least(sum_distribution(count), target - modifier_total)


def p_contest_win(
    count_a: int, mod_a: int, count_b: int, mod_b: int
) -> tuple[Fraction, Fraction, Fraction]:
    """``(P(A wins), P(B wins), P(a round ties))`` of a contested roll ("Contested Rolls",
    "Resolving a Tie"): ties are rerolled with the same dice and modifiers until someone
    wins (ruling X7), so the odds are one round's renormalised without ties."""
    da, db = sum_distribution(count_a), sum_distribution(count_b)
    margins = [(ta + mod_a - tb - mod_b, pa * pb) for ta, pa in da.items() for tb, pb in db.items()]
    win = sum((p for m, p in margins if m > 0), Fraction(0))
    lose = sum((p for m, p in margins if m < 0), Fraction(0))
    return win / (win + lose), lose / (win + lose), 1 - win - lose


def supply_odds(die: str, step_max: int = SUPPLY_STEP_MAX) -> dict[str, str]:
    """Exact facts of a supply die ("Supply Rolls"): ``step_down`` = P(face ≤ 3),
    ``rolls_at_size`` = expected rolls at this size, ``rolls_to_empty`` = expected rolls
    until Empty (d12: 1/4, 4, 40/3). Empty has no odds."""
    label = normalise_supply(die)
    if label == EMPTY:
        raise RuleError("an Empty item makes no supply rolls: give d12, d10, d8, d6 or d4")
    sizes = [int(d[1:]) for d in SUPPLY_ORDER[SUPPLY_ORDER.index(label) : -1]]
    step = Fraction(min(step_max, sizes[0]), sizes[0])
    to_empty = sum((Fraction(s, min(step_max, s)) for s in sizes), Fraction(0))
    return {
        "die": label,
        "step_down": frac(step),
        "rolls_at_size": frac(1 / step),
        "rolls_to_empty": frac(to_empty),
    }


class Odds(RuleSystem[Character, Options]):
    """``campaign odds decision-dice``: exact odds of decision, contested and supply rolls."""

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact odds as ``"n/d"`` strings ("Target Numbers" hint; docs/rulings/decision-dice.md).

        Decision roll: ``dice`` count, ``modifier_total`` (STAT + counted modifiers),
        ``min``/``max``/``mean`` of the result, ``distribution`` of the result, ``targets``
        (P(success) for every target from 2 to 22, or on to the first unreachable target
        above 22), ``difficulty_scale`` (the named rungs and 22+)
        and, with ``target``, ``success``/``failure``.
        With ``supply``: the supply die's step-down odds and expected rolls. With
        ``opponent``: P(win) and P(lose) after tie rerolls and P(a round ties) (STAT 0
        unless given). Without ``stat`` (and no opponent): the family, P(success) by STAT
        (:meth:`_family`).
        """
        if params.get("supply"):
            return supply_odds(str(params["supply"]), self.options.supply_step_max)
        count = decision_dice_count(bool(params.get("advantage")), bool(params.get("disadvantage")))
        mod = sum(line.counted for line in modifier_lines("", 0, params, ()))
        if params.get("stat") is None and not params.get("opponent"):
            return self._family(count, mod, params.get("target"))
        mod += int(params.get("stat") or 0)
        dist = sum_distribution(count)
        out: dict[str, Any] = {
            "dice": f"{count}d6",
            "decision_dice": count,
            "modifier_total": mod,
            "min": min(dist) + mod,
            "max": max(dist) + mod,
            "mean": frac(mean(dist) + mod),
            "distribution": {str(t + mod): frac(p) for t, p in dist.items()},
        }
        if params.get("opponent"):
            if params.get("target"):
                raise RuleError(
                    "contest odds have no Target number: the opponent's result is the "
                    "number to beat; leave out the Target number or the Opponent",
                    param="target",
                )
            opp_count = decision_dice_count(
                bool(params.get("opponent_advantage")), bool(params.get("opponent_disadvantage"))
            )
            opp_mod = sum(
                line.counted for line in modifier_lines("", 0, params, (), OPPONENT_OPTIONS)
            )
            win, lose, tie = p_contest_win(count, mod, opp_count, opp_mod)
            out.update(
                {
                    "opponent_dice": f"{opp_count}d6",
                    "opponent_modifier_total": opp_mod,
                    "win": frac(win),
                    "lose": frac(lose),
                    "round_tie": frac(tie),
                }
            )
            return out
        # 2 to 22, and on past 22 ("22+") until the first target the roll cannot reach
        high = max(22, max(dist) + mod + 1)
        out["targets"] = {str(tn): frac(p_success(count, tn, mod)) for tn in range(2, high + 1)}
        out["difficulty_scale"] = {name: frac(p_success(count, tn, mod)) for tn, name in SCALE}
        if params.get("target"):
            target = parse_target(str(params["target"]))
            p = p_success(count, target, mod)
            out.update(
                {
                    "target": target,
                    "need_on_dice": target - mod,
                    "success": frac(p),
                    "failure": frac(1 - p),
                }
            )
        return out

    def roll_odds(self, event: Any) -> list[tuple[str, Fraction]] | None:
        """The roll form's odds of a decision roll before it is rolled, from :meth:`odds`
        ("Decision Rolls": the total meets the target number), e.g. STAT 1 against 8 on 2d6:
        ``("you need 7+ on the dice", 7/12)``; ``None`` for a contested or a supply roll."""
        if not hasattr(event, "target") or not hasattr(event, "decision_dice"):
            return None
        got = self.odds({"stat": event.modifier_total, "target": str(event.target),
                         "advantage": event.decision_dice == 3,
                         "disadvantage": event.decision_dice == 1})  # fmt: skip
        dice = f"{event.decision_dice}d6"
        return [(f"you need {got['need_on_dice']}+ on the {dice} to meet {event.target}",
                 Fraction(got["success"]))]  # fmt: skip

    def _family(self, count: int, modifiers: int, target: Any) -> dict[str, Any]:
        """``odds`` without ``stat``: P(success) for every STAT the campaign allows
        (``stat_min``..``stat_max``, ruling X1) at each named rung of the "Difficulty Scale",
        or at ``target`` alone ("Decision Rolls", "Target Numbers"); each row equals
        ``odds`` with that ``stat``."""
        rungs = SCALE
        if target:
            tn = parse_target(str(target))
            rungs = ((tn, f"target {tn}"),)
        lo, hi = self.options.stat_min, self.options.stat_max
        return {
            "dice": f"{count}d6", "decision_dice": count, "modifiers": modifiers,
            "success_by_stat": {
                f"STAT {stat}": {
                    name: frac(p_success(count, tn, stat + modifiers))
                    for tn, name in rungs
                }
                for stat in range(lo, hi + 1)
            },
        }  # fmt: skip


# --- the chart (``campaign odds decision-dice --plot``) ----------------------------------

MODES: tuple[tuple[str, dict[str, bool]], ...] = (
    ("normal", {}),
    ("advantage", {"advantage": True}),
    ("disadvantage", {"disadvantage": True}),
)
"""Each mode of the chart and the odds flags that ask for it."""


def odds_series(system: RuleSystem[Any, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Per mode (normal 2d6, advantage 3d6, disadvantage 1d6) the total's ``distribution``
    ``{total: P}`` and ``targets`` ``{target: P(total >= target)}``, with the stat and
    modifiers given; ``modifier`` (their total) and ``scale`` ``{target: name}`` (the text's
    difficulty scale). Without ``stat``: :func:`family_series`.

    :raises ChartError: the odds lack a distribution or a target table.
    """
    if params.get("stat") is None and not params.get("opponent"):
        return family_series(system, without(params, "advantage", "disadvantage", "supply"))
    base = without(
        params, "advantage", "disadvantage", "target", "supply", "opponent",
        "opponent_advantage", "opponent_disadvantage", "opponent_modifier",
    )  # fmt: skip

    def build() -> dict[str, Any]:
        out: dict[str, Any] = {"modes": {}}
        for mode, flags in MODES:
            result = system.odds({**base, **flags})
            out["modes"][mode] = {
                "dice": str(result.get("dice", mode)),
                "distribution": {int(k): as_fraction(v) for k, v in result["distribution"].items()},
                "targets": {int(k): as_fraction(v) for k, v in result["targets"].items()},
            }
            out["modifier"] = int(result.get("modifier_total", 0))
        out["scale"] = {tn: label.replace('"', "") for tn, label in DIFFICULTY_SCALE if tn < 22}
        return out

    return checked(system, build)


def family_series(system: RuleSystem[Any, Any], params: dict[str, Any]) -> dict[str, Any]:
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
                    by_target.setdefault(str(name).replace('"', ""), {})[stat] = as_fraction(p)
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
