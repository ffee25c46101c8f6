"""Exact odds of decision rolls and supply dice, and their chart (seed
002_735c6d6cd834a641.txt, "Target Numbers" hint, "Max Rolls", "Supply Rolls").

Distributions are sums of d6 faces (:func:`ledger.pool_distribution`), read and reported
with the core's exact helpers. :class:`Odds` answers ``campaign odds decision-dice``;
:func:`odds_series` and :func:`draw_odds` draw its ``--plot`` chart (2d6, 3d6 with
advantage, 1d6 with disadvantage: "Advantage and Disadvantage", "Difficulty Scale").
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any

import ledger.rules.charts as ch
from ledger import (
    RuleError,
    RuleSystem,
    at_least,
    at_least_table,
    chance_table,
    contest,
    fraction_texts,
    pool_distribution,
    shifted,
    summary,
)

from . import rules as m
from .state import Character, Options

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Each mode of the chart and the odds flags that ask for it ("Advantage and Disadvantage").
MODES: tuple[tuple[str, dict[str, bool]], ...] = (
    ("normal", {}), ("advantage", {"advantage": True}), ("disadvantage", {"disadvantage": True}))  # fmt: skip
#: The named rows of the "Difficulty Scale", lowest first, as the odds name them.
SCALE = tuple((tn, f"{label} ({tn})") for tn, label in reversed(m.DIFFICULTY_SCALE))


@cache
def sum_distribution(count: int) -> dict[int, Fraction]:
    """``{sum: probability}`` of ``count`` decision dice (1, 2 or 3 d6), all of them summed."""
    return pool_distribution(range(1, m.SIDES + 1), count)


def p_success(count: int, target: int, modifier_total: int) -> Fraction:
    """``P(dice + STAT + MODIFIERS >= TARGET)`` ("Success and Failure": ties succeed)."""
    return at_least(sum_distribution(count), target - modifier_total)


def p_contest_win(
    count_a: int, mod_a: int, count_b: int, mod_b: int
) -> tuple[Fraction, Fraction, Fraction]:
    """``(P(A wins), P(B wins), P(a round ties))`` of a contested roll ("Contested Rolls",
    "Resolving a Tie"): ties are rerolled until someone wins (ruling X7), so the odds are
    one round's without ties."""
    win, tie, lose = contest(
        shifted(sum_distribution(count_a), mod_a), shifted(sum_distribution(count_b), mod_b)
    )
    return win / (win + lose), lose / (win + lose), tie


def supply_odds(die: str, step_max: int = m.SUPPLY_STEP_MAX) -> dict[str, str]:
    """Exact facts of a supply die ("Supply Rolls"): ``step_down`` = P(face ≤ 3),
    ``rolls_at_size`` = expected rolls at this size, ``rolls_to_empty`` = expected rolls
    until Empty (d12: 1/4, 4, 40/3). Empty has no odds."""
    label = m.normalise_supply(die)
    if label == m.EMPTY:
        raise RuleError("an Empty item makes no supply rolls: give d12, d10, d8, d6 or d4")
    sizes = [int(d[1:]) for d in m.SUPPLY_ORDER[m.SUPPLY_ORDER.index(label) : -1]]
    step = Fraction(min(step_max, sizes[0]), sizes[0])
    to_empty = sum((Fraction(s, min(step_max, s)) for s in sizes), Fraction(0))
    chances = {"step_down": step, "rolls_at_size": 1 / step, "rolls_to_empty": to_empty}
    return {"die": label, **fraction_texts(chances)}


class Odds(RuleSystem[Character, Options]):
    """``campaign odds decision-dice``: exact odds of decision, contested and supply rolls."""

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact odds as ``"n/d"`` strings ("Target Numbers" hint; docs/rulings/decision-dice.md).

        Decision roll: ``dice``, ``modifier_total`` (STAT + counted modifiers), ``min``,
        ``max``, ``mean`` and ``distribution`` of the result, ``targets`` (P(success) from 2
        to 22, or on to the first unreachable target), ``difficulty_scale`` and, with
        ``target``, ``success``/``failure``. With ``supply``: :func:`supply_odds`. With
        ``opponent``: P(win), P(lose) after tie rerolls, P(a round ties). Without ``stat``
        (and no opponent): the family by STAT (:meth:`_family`).
        """
        if params.get("supply"):
            return supply_odds(str(params["supply"]), self.options.supply_step_max)
        count = m.decision_dice_count(
            bool(params.get("advantage")), bool(params.get("disadvantage"))
        )
        mod = sum(line.counted for line in m.modifier_lines("", 0, params, ()))
        if params.get("stat") is None and not params.get("opponent"):
            return self._family(count, mod, params.get("target"))
        mod += int(params.get("stat") or 0)
        dist = shifted(sum_distribution(count), mod)
        out: dict[str, Any] = {"dice": f"{count}d6", "decision_dice": count, "modifier_total": mod,
                               **summary(dist, "min", "max", "mean", "distribution")}  # fmt: skip
        if params.get("opponent"):
            if params.get("target"):
                raise RuleError("contest odds have no Target number: the opponent's result is the "
                                "number to beat; leave out the Target number or the Opponent",
                                param="target")  # fmt: skip
            opp_count = m.decision_dice_count(
                bool(params.get("opponent_advantage")), bool(params.get("opponent_disadvantage"))
            )
            opp_mod = sum(
                line.counted for line in m.modifier_lines("", 0, params, (), m.OPPONENT_OPTIONS)
            )
            win, lose, tie = p_contest_win(count, mod, opp_count, opp_mod)
            out.update({"opponent_dice": f"{opp_count}d6", "opponent_modifier_total": opp_mod,
                        **fraction_texts({"win": win, "lose": lose, "round_tie": tie})})  # fmt: skip
            return out
        # 2 to 22, and on past 22 ("22+") until the first target the roll cannot reach
        out["targets"] = fraction_texts(at_least_table(dist, 2, max(22, max(dist) + 1)))
        out["difficulty_scale"] = fraction_texts({name: at_least(dist, tn) for tn, name in SCALE})
        if params.get("target"):
            target = m.parse_target(str(params["target"]))
            p = at_least(dist, target)
            out.update({"target": target, "need_on_dice": target - mod,
                        **fraction_texts({"success": p, "failure": 1 - p})})  # fmt: skip
        return out

    def roll_odds(self, event: Any) -> list[tuple[str, Fraction]] | None:
        """The roll form's odds of a decision roll, from :meth:`odds` ("Decision Rolls"),
        e.g. STAT 1 against 8 on 2d6: ``("you need 7+ on the dice", 7/12)``; ``None`` for a
        contested or a supply roll."""
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
        tn = m.parse_target(str(target)) if target else None
        rungs = SCALE if tn is None else ((tn, f"target {tn}"),)
        stats = range(self.options.stat_min, self.options.stat_max + 1)
        table = chance_table(((f"STAT {s}", s) for s in stats), ((name, n) for n, name in rungs),
                             lambda stat, n: p_success(count, n, stat + modifiers))  # fmt: skip
        return {"dice": f"{count}d6", "decision_dice": count, "modifiers": modifiers,
                "success_by_stat": table}  # fmt: skip


# --- the chart (``campaign odds decision-dice --plot``) ----------------------------------


def odds_series(system: RuleSystem[Any, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Per mode (normal 2d6, advantage 3d6, disadvantage 1d6) the total's ``distribution``
    ``{total: P}`` and ``targets`` ``{target: P(total >= target)}``, with the stat and
    modifiers given; ``modifier`` (their total) and ``scale`` ``{target: name}`` (the text's
    difficulty scale). Without ``stat``: :func:`family_series`.

    :raises ChartError: the odds lack a distribution or a target table.
    """
    if params.get("stat") is None and not params.get("opponent"):
        return family_series(system, ch.without(params, "advantage", "disadvantage", "supply"))
    base = ch.without(
        params, "advantage", "disadvantage", "target", "supply", "opponent",
        "opponent_advantage", "opponent_disadvantage", "opponent_modifier",
    )  # fmt: skip

    def read(odds: dict[str, Any]) -> dict[str, Any]:
        return {"dice": str(odds["dice"]), "distribution": ch.numbered(odds["distribution"]),
                "targets": ch.numbered(odds["targets"])}  # fmt: skip

    return ch.checked(system, lambda: {
        "modes": ch.by_variant(system, base, read, MODES),
        "modifier": int(system.odds(base)["modifier_total"]),
        "scale": {tn: label.replace('"', "") for tn, label in m.DIFFICULTY_SCALE if tn < 22},
    })  # fmt: skip


def family_series(system: RuleSystem[Any, Any], params: dict[str, Any]) -> dict[str, Any]:
    """The family (``odds`` without ``stat``) per mode: ``{"family": True, "target": T or
    None, "modes": {mode: {"dice": "2d6", "by_target": {rung: {STAT: P(success)}}}},
    "modifiers": M}``, one curve per rung of the difficulty scale (or ``target`` alone).

    :raises ChartError: the odds lack ``success_by_stat``.
    """

    def read(odds: dict[str, Any]) -> dict[str, Any]:
        rows = ch.family_rows(odds["success_by_stat"])
        return {"dice": str(odds["dice"]),
                "by_target": ch.transposed(rows, name=lambda rung: rung.replace('"', ""))}  # fmt: skip

    return ch.checked(system, lambda: {
        "family": True, "target": params.get("target"),
        "modes": ch.by_variant(system, params, read, MODES),
        "modifiers": int(system.odds(params)["modifiers"]),
    })  # fmt: skip


def draw_odds(data: dict[str, Any]) -> Figure:
    """Two panels: the distribution of the total and ``P(total >= target)`` for each mode,
    with the text's difficulty scale marked. The family (no ``stat``): one panel per mode,
    P(success) by STAT, a curve per rung of the difficulty scale (or the target asked for)."""
    if data.get("family"):
        at = f"at target {data['target']}" if data.get("target") else "for each difficulty"
        return ch.curve_panels(
            {f"{d['dice']} ({mode})": d["by_target"] for mode, d in data["modes"].items()},
            xlabel="STAT" + (f" (modifiers {data['modifiers']:+d})" if data["modifiers"] else ""),
            ylabel="chance of success (total ≥ target)",
            colors=(ch.BEST, ch.GOOD, ch.MIXED, ch.BAD, ch.LINES[3]),
            title=f"Decision dice: success by STAT {at}, with advantage and disadvantage (exact)",
        )  # fmt: skip
    hues = {"normal": ch.BEST, "advantage": ch.GOOD, "disadvantage": ch.BAD}
    mod = data.get("modifier", 0)
    return ch.totals_figure(
        {f"{d['dice']} ({mode})": d for mode, d in data["modes"].items()},
        colors=[hues[mode] for mode in data["modes"]], named=data["scale"],
        totals_title=f"Total of the decision dice {mod:+d}" if mod else "Total of the decision dice",
        title="Decision dice: success by target, with advantage and disadvantage (exact)",
    )  # fmt: skip
