"""The Wyrd Engine's odds chart: the text's three figures redrawn from exact values
(000_60e07241544698f0.txt, "Skills", "Difficulty Levels": the "4dF", "4dF-DR" and
"shifted-DR" figures). Reached through :meth:`WyrdEngine.odds_series` and
:meth:`WyrdEngine.draw_odds`; drawn with the shared helpers of :mod:`ledger.charts`.
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
    ChartError,
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

LEVEL_NAMES = {0: "Untrained", 1: "Novice", 2: "Skilled", 3: "Expert"}
"""The skill levels of the text's table ("Success probability per skill level")."""


def odds_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Any]:
    """The figures' numbers, from the system's own ``odds`` ladders.

    :param params: ``skill`` (default 0: the family of skill levels 0..3 is always drawn);
        ``dr`` marks one rating (a number, a name or an alias).
    :returns: ``skill``; ``dr`` (the marked rating or ``None``); ``distribution``
        ``{4dF total -4..4: P}`` recovered from the ladders of skills 0..3
        (``P(4dF >= DR - skill)``); ``ladders`` ``{skill: [(dr, name, P(success), {band:
        P})]}`` for skills 0..3 and ``skill``.
    :raises ChartError: the ladders miss a rating or do not cover every 4dF total.
    """
    skill = int(params.get("skill") or 0)

    def build() -> dict[str, Any]:
        ladders: dict[int, list[tuple[int, str, Fraction, dict[str, Fraction]]]] = {}
        tail: dict[int, Fraction] = {}
        wanted = str(params.get("dr", "")).strip().lower()
        marked = None
        for s in sorted({0, 1, 2, 3, skill}):
            rows = []
            for item in ask(system, {"skill": s}, "ladder"):
                dr, p = int(item["dr"]), frac(item["success"])
                names = {str(dr), f"{dr:+d}", str(item.get("name")), str(item.get("alias"))}
                if wanted and wanted in {n.lower() for n in names}:
                    marked = dr
                bands = {k: frac(v) for k, v in item.get("bands", {}).items()}
                rows.append((dr, str(item.get("name") or dr), p, bands))
                if 0 <= s <= 3:
                    tail[dr - s] = p
            ladders[s] = rows
        lo, hi = min(tail), max(tail)
        dist = {k: tail[k] - tail.get(k + 1, Fraction(0)) for k in range(lo, hi + 1) if k in tail}
        if tail[lo] != 1 or tail[hi] != 0:
            raise ChartError("wyrd-engine's ladders do not cover every 4dF total")
        return {
            "skill": skill,
            "dr": marked,
            "distribution": {k: p for k, p in dist.items() if p},
            "ladders": ladders,
        }

    return checked(system, build)


def draw_odds(data: dict[str, Any]) -> Figure:
    """Three panels: the 4dF (+ skill) distribution, the bands by DR at ``skill`` (the
    marked DR outlined), and success by DR for skill levels 0..3 (and ``skill``)."""
    skill = data["skill"]
    fig = figure(15, 4.6)
    a, b, c = fig.subplots(1, 3)
    dist = data["distribution"]
    shifted = {k + skill: p for k, p in dist.items()}
    distribution(a, shifted, width=0.7)
    a.set_xticks(list(shifted))
    a.set_title(f"4dF{skill:+d}: how likely each total is" if skill else "4dF: each total")
    a.set_xlabel("total" if skill else "4dF result")

    ladder = data["ladders"][skill]
    names = [f"{name} ({dr:+d})" for dr, name, _, _ in ladder]
    xs_b = list(range(len(ladder)))
    order = ("success_with_style", "success", "tie", "failure")
    if all(rows for _, _, _, rows in ladder):
        stacked(
            b, xs_b, [bands for _, _, _, bands in ladder], order, (BEST, GOOD, MIXED, BAD),
            ("success with style", "success", "tie (succeeds)", "failure"),
        )  # fmt: skip
        b.legend(loc="upper center", bbox_to_anchor=(0.5, -0.32), ncol=4, fontsize=7)
    else:
        b.bar(xs_b, [float(p) for _, _, p, _ in ladder], color=GOOD)
    for x, (_, _, p, _) in zip(xs_b, ladder, strict=True):
        b.annotate(f"{float(p):.0%}", (x, float(p)), ha="center", va="bottom", fontsize=7,
                   xytext=(0, 1), textcoords="offset points")  # fmt: skip
    b.set_xticks(xs_b, names, rotation=45, ha="right", fontsize=8)
    b.set_ylabel("share of rolls (success % on top)")
    b.set_title(f"Skill {skill:+d}: outcome by Difficulty Rating (total ≥ DR succeeds)")
    percent_axis(b, 1.08)
    for x, (dr, _, _, _) in zip(xs_b, ladder, strict=True):
        if dr == data.get("dr"):
            b.get_xticklabels()[x].set_fontweight("bold")
            outline(b, x)

    lines = {
        f"{s:+d} {LEVEL_NAMES.get(s, '')}".strip(): {i: p for i, (_, _, p, _) in enumerate(rows)}
        for s, rows in sorted(data["ladders"].items())
    }
    curves(c, lines, colors=LINES, bold=f"{skill:+d} {LEVEL_NAMES.get(skill, '')}".strip())
    c.set_xticks(range(len(ladder)), [name for _, name, _, _ in ladder], rotation=45,
                 ha="right", fontsize=8)  # fmt: skip
    c.set_title("Success by Difficulty Rating, per skill level")
    c.legend(fontsize=8, title="skill", title_fontsize=8)
    percent_axis(c, 1.04)
    fig.suptitle("The Wyrd Engine: 4dF + skill against a Difficulty Rating (exact)")
    return fig
