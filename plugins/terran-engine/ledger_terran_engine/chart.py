"""The Terran Engine's odds chart (003_2aeb47bc6ca82a40.txt, "2.1" Risky Actions, "2.2.1"
Effect): outcome bands by pool size, and an Effect roll's distribution when asked. Reached
through :meth:`TerranEngine.odds_series` and :meth:`TerranEngine.draw_odds`; drawn with the
shared helpers of :mod:`ledger.charts`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ledger import RuleSystem


def odds_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Any]:
    """Risky Action bands for pools ``0..max(8, pool)``, and the Effect distribution when
    ``effect`` is given (listed up to ``upto``, default 24).

    :returns: ``{"pool": N or None, "bands": {pool: {fail, mixed, success}}, "effect":
        {"code", "distribution": {value: P}, "tail": (value, P(effect > value))}, "spend":
        {roll: {Experience spent: P(success)}}}``; ``spend`` when ``threshold`` or
        ``rating`` is given without ``spend`` (the family of :func:`.odds.spend_family`).
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
