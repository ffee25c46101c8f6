"""Exact Terran Engine odds as fractions, and their chart (SEED ``003_2aeb47bc6ca82a40.txt``;
docs/rulings/terran-engine.md).

- Risky Action with n dice (Light + Dark; "2.1"): ``P(fail) = (1/2)^n``,
  ``P(success) = 1 − (5/6)^n``, ``P(mixed) = (5/6)^n − (1/2)^n``; n = 0 fails (R3).
- Ego risk ("2.1"): each Dark die costs with probability ``min(Ego, 6)/6``.
- Effect of n dice ("2.2.1"), closed form: ``P(h = v) = (v^n − (v−1)^n)/6^n`` for v ≤ 5;
  with ``p6 = 1 − (5/6)^n`` the exploding total is ``6 + 6k + r`` (k ≥ 0 further sixes,
  r = 1..5) with probability ``p6 · (1/6)^(k+1)``. The distribution is listed exactly up
  to ``upto`` (default 30); the remaining tail is one exact number.
- Sums of k d6 (Roll Advancement, Skill Development, "1.4"): exact convolution.

:class:`Odds` answers ``campaign odds terran-engine`` and ``advance --dry-run``;
:func:`odds_series` and :func:`draw_odds` draw ``--plot`` (``TerranEngine.chart``): outcome
bands by pool size ("2.1" Risky Actions), an Effect roll's distribution ("2.2.1") and the
Advancement chance by Experience spent ("1.4"), with the shared helpers of
:mod:`ledger.rules.charts`.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING, Any

import msgspec

from ledger import Event, RuleError, RuleSystem
from ledger.rules.charts import (
    BAD,
    GOOD,
    MIXED,
    ask,
    checked,
    curves,
    distribution,
    figure,
    frac,
    outline,
    percent_axis,
    stacked,
)

from . import state as st
from .events import AdvancementRolled, SkillDevelopmentRolled
from .rules import mechanics as m
from .state import Character, Options

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SIXTH = Fraction(1, 6)


def fmt(p: Fraction) -> str:
    """``"n/d"`` (``"1"`` and ``"0"`` for certainties)."""
    return str(p)


def risky_bands(n: int) -> dict[str, Fraction]:
    """``{"fail", "mixed", "success"}`` for a Risky Action of ``n`` dice ("2.1"; R3).

    :raises RuleError: negative ``n``.
    """
    if n < 0:
        raise RuleError(f"a dice pool has 0 or more dice, not {n}")
    if n == 0:
        return {"fail": Fraction(1), "mixed": Fraction(0), "success": Fraction(0)}
    fail = Fraction(1, 2) ** n
    success = 1 - Fraction(5, 6) ** n
    return {"fail": fail, "mixed": 1 - fail - success, "success": success}


def ego_risk(
    dark: int, ego: int, per_die: int = 1, mode: str = "simultaneous"
) -> dict[int, Fraction]:
    """Distribution of the Ego cost of ``dark`` Dark Dice against ``ego`` ("2.1", R7).

    ``mode="simultaneous"``: each die costs ``per_die`` with probability ``min(ego, 6)/6``
    (binomial). ``"sequential"``: Ego drops die by die, so each die is compared with the Ego
    left (:func:`mechanics.ego_cost`), worked out exactly over the Ego left.

    :raises RuleError: negative dice or Ego.
    """
    if dark < 0 or ego < 0:
        raise RuleError("dark dice and Ego are 0 or more")
    if mode == "simultaneous":
        p = Fraction(min(ego, 6), 6)
        return {k * per_die: comb(dark, k) * p**k * (1 - p) ** (dark - k)
                for k in range(dark + 1)}
    paths: dict[tuple[int, int], Fraction] = {(ego, 0): Fraction(1)}  # (Ego left, cost)
    for _ in range(dark):
        nxt: dict[tuple[int, int], Fraction] = {}
        for (left, cost), p in paths.items():
            hit = Fraction(min(left, 6), 6)
            for key, q in (((max(0, left - per_die), cost + per_die), hit),
                           ((left, cost), 1 - hit)):
                if q:
                    nxt[key] = nxt.get(key, Fraction(0)) + p * q
        paths = nxt
    out: dict[int, Fraction] = {}
    for (_, cost), p in paths.items():
        out[cost] = out.get(cost, Fraction(0)) + p
    return dict(sorted(out.items()))


def lost_chance(dark: int, ego: int, per_die: int = 1, mode: str = "simultaneous") -> Fraction:
    """Exact chance that the Dark Dice take the character's last Ego ("1.3.2": "If your Ego
    reaches 0 you are lost somehow"; R7, R10): P(cost ≥ ``ego``), 0 when ``dark × per_die``
    cannot reach it. ``ego`` is 1 or more (a character at Ego 0 is lost already)."""
    return sum((p for cost, p in ego_risk(dark, ego, per_die, mode).items() if cost >= ego),
               Fraction(0))


def effect_point(code: m.EffectCode, value: int, d_half: str = "ceil") -> Fraction:
    """Exact ``P(effect == value)`` for Effect dice ``code`` ("2.2.1"; R6 for d/2)."""
    v = value - code.plus
    if code.half:
        if d_half == "explode_then_halve":
            # halve-up of the 1d exploding total t: v = ceil(t/2) ⇔ t ∈ {2v−1, 2v}
            one = m.EffectCode(n=1)
            return effect_point(one, 2 * v - 1) + effect_point(one, 2 * v)
        faces = range(1, 7)
        halve = (lambda f: max(1, f // 2)) if d_half == "floor_min1" else (lambda f: -(-f // 2))
        return Fraction(sum(1 for f in faces if halve(f) == v), 6)
    n = code.n
    if 1 <= v <= 5:
        return Fraction(v**n - (v - 1) ** n, 6**n)
    if v >= 7:
        x = v - 6  # the explosion chain's total
        k, r = divmod(x, 6)
        if r == 0:
            return Fraction(0)
        p6 = 1 - Fraction(5, 6) ** n
        return p6 * SIXTH ** (k + 1)
    return Fraction(0)


def effect_mean(code: m.EffectCode, d_half: str = "ceil") -> Fraction:
    """Exact expected Effect: Σ v·P(h=v) + p6·(6 + 21/5) (+ plus); d/2 ceil → 2 (R6)."""
    if code.half:
        if d_half == "explode_then_halve":
            # E[ceil(t/2)] = (E[t] + P(t odd)) / 2 with E[t] = 21/5 and P(t odd) = 1/2 + 1/10
            return (Fraction(21, 5) + Fraction(3, 5)) / 2 + code.plus
        return sum((v * effect_point(code, v + code.plus, d_half) for v in range(1, 4)),
                   Fraction(0)) + code.plus
    n = code.n
    low = sum((Fraction(v * (v**n - (v - 1) ** n), 6**n) for v in range(1, 6)), Fraction(0))
    p6 = 1 - Fraction(5, 6) ** n
    return low + p6 * (6 + Fraction(21, 5)) + code.plus


def effect_bands(
    code: m.EffectCode, over_17: int = 3, d_half: str = "ceil"
) -> dict[str, Fraction]:
    """Complication bands of a Challenge Effect: 1-3 none, 4-6 −1d, 7-12 −2d, 13+ −3d
    (13-17 −3d and 18+ −4d with ``over_17=4``) ("2.2.1" Effect Roll table, R4, R5).

    Exact for every code, ``+N`` and d/2 included: the bands sum :func:`effect_point` over
    their values and the last band is the exact rest, 1 minus the others (a ``1d+1`` has
    no 6 − 1 = 5 … a 6 explodes to 7+, +1 makes 8+, so it reaches −2d and −3d).
    """

    def upto(top: int) -> Fraction:
        return sum((effect_point(code, v, d_half) for v in range(1, top + 1)), Fraction(0))

    none, low, mid = upto(3), upto(6), upto(12)
    bands = {"none": none, "-1d": low - none, "-2d": mid - low, "-3d": 1 - mid}
    if over_17 == 4:
        top = upto(17)
        bands["-3d"], bands["-4d"] = top - mid, 1 - top
    return bands


def sum_at_least(k: int, target: int) -> Fraction:
    """Exact ``P(sum of k d6 ≥ target)`` (Roll Advancement / Skill Development, "1.4")."""
    if k < 0:
        raise RuleError(f"spend 0 or more Experience, not {k}")
    dist = {0: 1}
    for _ in range(k):
        nxt: dict[int, int] = {}
        for s, c in dist.items():
            for f in range(1, 7):
                nxt[s + f] = nxt.get(s + f, 0) + c
        dist = nxt
    hits = sum(c for s, c in dist.items() if s >= target)
    return Fraction(hits, 6**k)


SPEND_SURE = Fraction(99, 100)
"""The spend family stops at the first spend whose chance reaches this (or at 100)."""


def spend_family(target: int) -> dict[str, str]:
    """``{"k XP": P(sum of k d6 >= target)}`` for k = 1, 2, ... up to the first spend that
    succeeds 99% of the time (at most 100, the most ``--spend`` takes): what a player weighs
    before a Roll Advancement (target Ego_max + HP_max) or a Skill Development roll (target
    3 × rating) (SEED "1.4"). Each entry equals ``odds`` with ``--spend k``.

    :raises RuleError: a negative target.
    """
    if target < 0:
        raise RuleError(f"a target sum is 0 or more, not {target}")
    out: dict[str, str] = {}
    for k in range(1, 101):
        p = sum_at_least(k, target)
        out[f"{k} XP"] = fmt(p)
        if p >= SPEND_SURE:
            break
    return out


class Odds(RuleSystem[Character, Options]):
    """``campaign odds terran-engine`` and the odds ``advance --dry-run`` shows."""

    def roll_odds(self, event: Any) -> list[tuple[str, Fraction]] | None:
        """The roll form's odds of a Risky Action before it is rolled, from
        :meth:`odds` with its pool (Light + Dark dice; "2.1 Risky Actions": the highest die,
        6 success, 4-5 mixed, 1-3 fail; no dice fail, ruling R3). E.g. 3 dice: ``("a 6 on
        any die: success", 91/216)``.

        :returns: ``None`` for any other roll (an Effect, an Attribute at creation, ...).
        """
        if not hasattr(event, "light") or not hasattr(event, "highest"):
            return None
        pool = len(event.light) + len(event.dark)
        bands = self.odds({"pool": pool})["risky_action"]
        lines = [(f"a 6 on any of {pool} dice: success", Fraction(bands["success"])),
                 ("4 or 5 at best: mixed", Fraction(bands["mixed"])),
                 ("3 or less: fail", Fraction(bands["fail"]))]  # fmt: skip
        return [(text, chance) for text, chance in lines if chance]

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact odds for what ``params`` names (fractions as ``"n/d"`` strings).

        ``--pool N``: Risky Action bands; ``--dark K --ego E [--montage]``: Ego cost
        distribution; ``--effect CODE [--upto V]``: Effect distribution, tail, mean and
        complication bands; ``--spend K`` with ``--threshold T`` (Roll Advancement) and/or
        ``--rating R`` (Skill Development): chance of success; without ``--spend``, that chance
        for each Experience spent (:func:`spend_family`). Without parameters: the Risky Action
        table for 0..8 dice (the family by pool size).

        :raises RuleError: negative numbers, a bad effect code, ``--spend`` without a target.
        """
        opts = self.options
        out: dict[str, Any] = {"system": "terran-engine"}
        given = {k: v for k, v in params.items() if v is not None and v is not False and v != ()}
        chosen = {k: given[k] for k in ("ego_check", "d_half") if k in given}
        if chosen:
            try:
                opts = msgspec.convert({**msgspec.to_builtins(opts), **chosen}, st.Options)
            except msgspec.ValidationError as e:
                raise RuleError(f"{e}: the Ego check is simultaneous or sequential; d/2 is "
                                "ceil, floor_min1 or explode_then_halve") from None
        used = {"ego_check": opts.ego_check, "d_half": opts.d_half,
                "complication_over_17": opts.complication_over_17}
        if used != {"ego_check": "simultaneous", "d_half": "ceil", "complication_over_17": 3}:
            out["options"] = used  # the campaign's (or given) options the odds follow
        if "pool" in given:
            out["risky_action"] = {k: fmt(v) for k, v in risky_bands(int(given["pool"])).items()}
        if "dark" in given or "ego" in given:
            per = 2 if given.get("montage") else 1
            dark, ego = int(given.get("dark", 0)), int(given.get("ego", 0))
            dist = ego_risk(dark, ego, per, opts.ego_check)
            out["ego_cost"] = {str(k): fmt(v) for k, v in dist.items()}
            if ego >= 1:
                out["lost"] = fmt(lost_chance(dark, ego, per, opts.ego_check))
        if "effect" in given:
            code = m.parse_effect(str(given["effect"]))
            upto = int(given.get("upto", 30))
            if upto < 1:
                raise RuleError(f"upto must be 1 or more, not {upto}", param="upto")
            dist = {v: effect_point(code, v, opts.d_half) for v in range(1, upto + 1)}
            listed = {str(v): fmt(p) for v, p in dist.items() if p}
            out["effect"] = {
                "code": str(code),
                "distribution": listed,
                "tail_above": {"value": upto, "p": fmt(1 - sum(dist.values(), Fraction(0)))},
                "mean": fmt(effect_mean(code, opts.d_half)),
                "complication": {
                    k: fmt(v)
                    for k, v in effect_bands(code, opts.complication_over_17, opts.d_half).items()
                },
            }
        if "spend" in given:
            k = int(given["spend"])
            if "threshold" not in given and "rating" not in given:
                raise RuleError("Experience spent needs an Advancement target (threshold) or a Skill rating", param="spend")
            if "threshold" in given:
                out["advancement"] = fmt(sum_at_least(k, int(given["threshold"])))
            if "rating" in given:
                target = m.skill_threshold(int(given["rating"]))
                out["skill_development"] = fmt(sum_at_least(k, target))
        else:
            if "threshold" in given:
                out["advancement_by_spend"] = spend_family(int(given["threshold"]))
            if "rating" in given:
                out["skill_development_by_spend"] = spend_family(
                    m.skill_threshold(int(given["rating"]))
                )
        if len(out) == 1 + ("options" in out):
            out["risky_action_table"] = {
                str(n): {k: fmt(v) for k, v in risky_bands(n).items()} for n in range(0, 9)
            }
        return out

    def advance_odds(self, event: Event) -> dict[str, str] | None:
        """Exact odds of a planned Roll Advancement or Skill Development ("1.4"): the chance
        that ``spent`` d6 reach its threshold (:func:`sum_at_least`; its dice are never
        read)."""
        if isinstance(event, AdvancementRolled | SkillDevelopmentRolled):
            return {"success": str(sum_at_least(event.spent, event.threshold))}
        return None


# --- the chart (`campaign odds terran-engine --plot`) -----------------------------------


def odds_series(system: RuleSystem[Character, Options], params: dict[str, Any]) -> dict[str, Any]:
    """Risky Action bands for pools ``0..max(8, pool)``, and the Effect distribution when
    ``effect`` is given (listed up to ``upto``, default 24).

    :returns: ``{"pool": N or None, "bands": {pool: {fail, mixed, success}}, "effect":
        {"code", "distribution": {value: P}, "tail": (value, P(effect > value))}, "spend":
        {roll: {Experience spent: P(success)}}}``; ``spend`` when ``threshold`` or
        ``rating`` is given without ``spend`` (the family of :func:`spend_family`).
    :raises ChartError: the odds lack the bands or the Effect distribution.
    """
    pool = params.get("pool")

    def build() -> dict[str, Any]:
        top = max(8, int(pool or 0))
        bands = {
            n: {k: frac(v) for k, v in ask(system, {"pool": n}, "risky_action").items()}
            for n in range(0, top + 1)
        }
        out: dict[str, Any] = {"pool": pool, "bands": bands}
        spend = {k: v for k, v in params.items() if k in ("threshold", "rating")}
        if spend and params.get("spend") is None:
            result = system.odds(spend)
            out["spend"] = {
                name: {int(str(k).split()[0]): frac(p) for k, p in result[key].items()}
                for key, name in (
                    ("advancement_by_spend", f"Roll Advancement (sum ≥ {spend.get('threshold')})"),
                    ("skill_development_by_spend",
                     f"Skill Development, rating {spend.get('rating')}"),
                )
                if key in result
            }  # fmt: skip
        if params.get("effect"):
            asked = {"effect": params["effect"], "upto": int(params.get("upto") or 24)}
            effect = ask(system, asked, "effect")
            out["effect"] = {
                "code": str(effect.get("code", params["effect"])),
                "distribution": {int(k): frac(v) for k, v in effect["distribution"].items()},
                "tail": (int(effect["tail_above"]["value"]), frac(effect["tail_above"]["p"])),
            }
        return out

    return checked(system, build)


def draw_odds(data: dict[str, Any]) -> Figure:
    """Risky Action bands by pool size (the asked pool outlined), and beside it the Effect
    distribution and the Advancement chance by Experience spent, when asked."""
    from matplotlib.ticker import MaxNLocator

    effect = data.get("effect")
    spend = data.get("spend")
    panels = 1 + bool(effect) + bool(spend)
    fig = figure({1: 8, 2: 13, 3: 18}[panels], 4.6)
    axes = fig.subplots(1, panels, squeeze=False)[0]
    a = axes[0]
    xs = list(data["bands"])
    rows = list(data["bands"].values())
    stacked(a, xs, rows, ("fail", "mixed", "success"), (BAD, MIXED, GOOD),
            ("fail (highest 1-3)", "mixed (4-5)", "success (a 6)"))  # fmt: skip
    for x, r in zip(xs, rows, strict=True):
        a.annotate(f"{float(r['success']):.0%}", (x, 1.0), ha="center", va="bottom", fontsize=7)
    if data.get("pool") is not None:
        outline(a, int(data["pool"]))
    a.set_xticks(xs)
    a.set_xlabel("dice in the pool (Light + Dark)")
    a.set_title("Risky Action: outcome by pool size (full-success % on top)")
    a.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)
    percent_axis(a, 1.08)
    if effect:
        b = axes[1]
        distribution(b, effect["distribution"])
        b.set_title(f"Effect {effect['code']}: each value (sixes explode); "
                    f"P(> {effect['tail'][0]}) = {float(effect['tail'][1]):.1%}")  # fmt: skip
        b.set_xlabel("effect")
    if spend:
        c = axes[-1]
        curves(c, spend)
        c.set_title("Advancement: chance by Experience spent (sum of the d6 ≥ target)")
        c.set_xlabel("Experience spent (d6 rolled)")
        c.xaxis.set_major_locator(MaxNLocator(integer=True))
        c.legend(fontsize=8)
        percent_axis(c, 1.04)
    fig.suptitle("The Terran Engine: Risky Actions (exact)")
    return fig
