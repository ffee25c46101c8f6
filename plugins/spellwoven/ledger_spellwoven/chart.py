"""Spellwoven's odds chart (004_663ae3e4ecc71fd1.txt, "Overview: The Basic Mechanic",
"Difficulty levels"): the chance of at least k successes by Skill Level, and the success
counts of a few levels. Reached through :meth:`Spellwoven.odds_series` and
:meth:`Spellwoven.draw_odds`; drawn with the shared helpers of :mod:`ledger.charts`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ledger.rules.charts import (
    LINES,
    bar_labels,
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

SHOWN = (3, 5, 7, 10, 15)
"""Skill Levels whose success counts are drawn when no ``skill`` is asked for."""


def odds_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Any]:
    """Per Skill Level 1..20 the ``distribution`` of successes and ``at_least``
    ``{k: P(successes >= k)}``, in the mode, pool and bonus given.

    :returns: ``{"skill": S or None, "mode", "pool", "bonus", "difficulty": D or None,
        "by_skill": {S: {"distribution": {k: P}, "at_least": {k: P}}}}``: the family
        (``odds`` without ``skill``) with the asked skill, if any, drawn apart.
    :raises ChartError: the odds lack ``by_skill`` or a distribution.
    """
    base = without(params, "skill", "vs")

    def build() -> dict[str, Any]:
        result = system.odds(base)
        by_skill = {
            int(s): {
                "distribution": {int(k): frac(v) for k, v in v["distribution"].items()},
                "at_least": {int(k): frac(p) for k, p in v["at_least"].items()},
            }
            for s, v in result["by_skill"].items()
        }
        return {
            "skill": params.get("skill"),
            "mode": str(result.get("mode", "normal")),
            "pool": int(result.get("pool", 3)),
            "bonus": int(params.get("bonus") or 0),
            "difficulty": result.get("difficulty"),
            "by_skill": by_skill,
        }

    return checked(system, build)


def draw_odds(data: dict[str, Any]) -> Figure:
    """Chance of at least k successes (k = 1..6) by Skill Level, the asked difficulty's
    curve drawn thicker, and the success counts of the asked level (or of levels 3, 5, 7,
    10 and 15)."""
    fig = figure(13, 4.6)
    a, b = fig.subplots(1, 2)
    by_skill = data["by_skill"]
    skills = sorted(by_skill)
    top = min(max(max(v["at_least"]) for v in by_skill.values()), 6)

    def at_least(ks: range) -> dict[str, dict[int, Fraction]]:
        return {f"≥ {k}": {s: by_skill[s]["at_least"].get(k, Fraction(0)) for s in skills}
                for k in ks}  # fmt: skip

    solid, dashed = at_least(range(1, min(top, 4) + 1)), at_least(range(5, top + 1))
    bold = f"≥ {data['difficulty']}" if data.get("difficulty") else None
    curves(a, solid, bold=bold, markersize=3, linestyle="-")
    curves(a, dashed, colors=LINES[len(solid) :], markersize=3, linestyle="--")
    a.set_xticks(skills)
    a.set_xlabel("Skill Level")
    a.set_title("Chance of at least k successes (difficulty k)")
    a.legend(fontsize=8, title="successes", title_fontsize=8)
    percent_axis(a, 1.04)
    shown = [int(data["skill"])] if data.get("skill") else list(SHOWN)
    shown = [s for s in shown if s in by_skill]
    width = 0.8 / max(1, len(shown))
    for i, s in enumerate(shown):
        dist = by_skill[s]["distribution"]
        xs = [k + (i - (len(shown) - 1) / 2) * width for k in dist]
        b.bar(xs, [float(p) for p in dist.values()], width, color=LINES[i % len(LINES)],
              label=f"Skill {s}")  # fmt: skip
        if len(shown) == 1:
            bar_labels(b, xs, list(dist.values()))
    b.set_xlabel("successes")
    b.set_title("How many successes, by Skill Level")
    b.legend(fontsize=8)
    percent_axis(b, max(float(p) for s in shown for p in by_skill[s]["distribution"].values())
                 * 1.15)  # fmt: skip
    mode = "" if data["mode"] == "normal" else f", {data['mode']}"
    bonus = f", +{data['bonus']} Effort" if data["bonus"] else ""
    fig.suptitle(f"Spellwoven: {data['pool']}d10 roll-under success counts{mode}{bonus} (exact)")
    return fig
