"""Exact Terran Engine odds as fractions (SEED ``003_2aeb47bc6ca82a40.txt``; digest §2.6).

- Risky Action with n dice (Light + Dark; "2.1"): ``P(fail) = (1/2)^n``,
  ``P(success) = 1 − (5/6)^n``, ``P(mixed) = (5/6)^n − (1/2)^n``; n = 0 fails (R3).
- Ego risk ("2.1"): each Dark die costs with probability ``min(Ego, 6)/6``.
- Effect of n dice ("2.2.1"), closed form: ``P(h = v) = (v^n − (v−1)^n)/6^n`` for v ≤ 5;
  with ``p6 = 1 − (5/6)^n`` the exploding total is ``6 + 6k + r`` (k ≥ 0 further sixes,
  r = 1..5) with probability ``p6 · (1/6)^(k+1)``. The distribution is listed exactly up
  to ``upto`` (default 30); the remaining tail is one exact number.
- Sums of k d6 (Roll Advancement, Skill Development, "1.4"): exact convolution.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

from ledger import RollParam, RuleError

from . import mechanics as m
from . import state as st

ODDS_PARAMS = (
    RollParam("pool", "Terran: total dice (Light + Dark) of a Risky Action.", type=int,
             min=0, max=30),
    RollParam("dark", "Terran: Dark Dice risked (Ego risk).", type=int, min=0, max=30),
    RollParam("ego", "Terran: current Ego (Ego risk).", type=int, min=0, max=30),
    RollParam("montage", "Terran: Montage (2 Ego per Dark die).", is_flag=True),
    RollParam("effect", "Terran: Effect dice, e.g. d/2, 1d, 2d, 1d+1."),
    RollParam("upto", "Terran: list effect values up to this one (default 30).", type=int,
             min=1, max=200),
    RollParam("spend", "Terran: Experience spent (dice summed).", type=int, min=0, max=100),
    RollParam("threshold", "Terran: Advancement target (Ego_max + HP_max).", type=int,
             min=0, max=200),
    RollParam("rating", "Terran: current Skill rating for Skill Development.", type=int,
             min=0, max=30),
)

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


def ego_risk(dark: int, ego: int, per_die: int = 1) -> dict[int, Fraction]:
    """Distribution of the Ego cost of ``dark`` Dark Dice against ``ego`` (simultaneous, R7).

    Each die costs ``per_die`` with probability ``min(ego, 6)/6`` (binomial).
    """
    if dark < 0 or ego < 0:
        raise RuleError("dark dice and Ego are 0 or more")
    p = Fraction(min(ego, 6), 6)
    out: dict[int, Fraction] = {}
    for k in range(dark + 1):
        out[k * per_die] = comb(dark, k) * p**k * (1 - p) ** (dark - k)
    return out


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


def effect_bands(code: m.EffectCode, over_17: int = 3) -> dict[str, Fraction]:
    """Complication bands of a Challenge Effect: 1-3 none, 4-6 −1d, 7-12 −2d, 13+ −3d
    (and >17 −4d with ``over_17=4``), exact closed form for n dice ("2.2.1", R4, R5)."""
    if code.half or code.plus:
        dist = {v: effect_point(code, v) for v in range(1, 4 + code.plus)}
        out = {"none": Fraction(0), "-1d": Fraction(0)}
        for v, p in dist.items():
            out["none" if m.complication_of(v) == 0 else "-1d"] += p
        return out
    n = code.n
    p6 = 1 - Fraction(5, 6) ** n
    bands = {
        "none": Fraction(1, 2) ** n,
        "-1d": Fraction(5, 6) ** n - Fraction(1, 2) ** n,
        "-2d": p6 * Fraction(5, 6),
        "-3d": p6 * SIXTH,
    }
    if over_17 == 4:
        bands["-3d"] = p6 * Fraction(5, 36)
        bands["-4d"] = p6 * Fraction(1, 36)
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


def odds(params: dict[str, Any], options: st.Options | None = None) -> dict[str, Any]:
    """Exact odds for what ``params`` names (fractions as ``"n/d"`` strings).

    ``--pool N``: Risky Action bands; ``--dark K --ego E [--montage]``: Ego cost
    distribution; ``--effect CODE [--upto V]``: Effect distribution, tail, mean and
    complication bands; ``--spend K`` with ``--threshold T`` (Roll Advancement) and/or
    ``--rating R`` (Skill Development): chance of success. Without parameters: the Risky
    Action table for 0..8 dice.

    :raises RuleError: negative numbers, a bad effect code, ``--spend`` without a target.
    """
    opts = options or st.Options()
    out: dict[str, Any] = {"system": "terran-engine"}
    given = {k: v for k, v in params.items() if v is not None and v is not False and v != ()}
    if "pool" in given:
        out["risky_action"] = {k: fmt(v) for k, v in risky_bands(int(given["pool"])).items()}
    if "dark" in given or "ego" in given:
        per = 2 if given.get("montage") else 1
        dist = ego_risk(int(given.get("dark", 0)), int(given.get("ego", 0)), per)
        out["ego_cost"] = {str(k): fmt(v) for k, v in dist.items()}
    if "effect" in given:
        code = m.parse_effect(str(given["effect"]))
        upto = int(given.get("upto", 30))
        if upto < 1:
            raise RuleError(f"--upto must be 1 or more, not {upto}")
        dist = {v: effect_point(code, v, opts.d_half) for v in range(1, upto + 1)}
        listed = {str(v): fmt(p) for v, p in dist.items() if p}
        out["effect"] = {
            "code": str(code),
            "distribution": listed,
            "tail_above": {"value": upto, "p": fmt(1 - sum(dist.values(), Fraction(0)))},
            "mean": fmt(effect_mean(code, opts.d_half)),
            "complication": {
                k: fmt(v) for k, v in effect_bands(code, opts.complication_over_17).items()
            },
        }
    if "spend" in given:
        k = int(given["spend"])
        if "threshold" not in given and "rating" not in given:
            raise RuleError("--spend needs --threshold T (Advancement) or --rating R (Skill)")
        if "threshold" in given:
            out["advancement"] = fmt(sum_at_least(k, int(given["threshold"])))
        if "rating" in given:
            out["skill_development"] = fmt(sum_at_least(k, m.skill_threshold(int(given["rating"]))))
    if len(out) == 1:
        out["risky_action_table"] = {
            str(n): {k: fmt(v) for k, v in risky_bands(n).items()} for n in range(0, 9)
        }
    return out
