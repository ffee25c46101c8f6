"""Exact odds of the 4dF mechanic as fractions, and the odds chart (docs/rulings/wyrd-engine.md, ruling C4).

The text's "Success probability per skill level" table prints 38.7% where the exact value
is 31/81 = 38.27%; these functions never copy the text's numbers, they count outcomes.
The :class:`Odds` mixin of :class:`ledger_wyrd_engine.system.WyrdEngine` answers ``campaign
odds wyrd-engine``; :func:`odds_series` and :func:`draw_odds` draw its chart (the system's
``chart = ".odds"``): the text's three figures redrawn from exact values ("Skills",
"Difficulty Levels": the "4dF", "4dF-DR" and "shifted-DR" figures), with the shared helpers
of :mod:`ledger.charts`. Source: 000_60e07241544698f0.txt, "Fudge dice (4dF)", "Passive
Opposition", "Active Opposition", "Attacking and Defending".
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any

from ledger import RuleError, RuleSystem, fraction_texts, pool_distribution, shifted
from ledger import fraction_text as ratio
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

from .rules import BANDS, SKILL_LEVELS, contest_band, dr_ladder, parse_dr, passive_band, signed
from .state import Character, Options

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@cache
def fudge_distribution(dice: int = 4) -> dict[int, Fraction]:
    """``P(sum of dice dF = k)`` for every k, exact: 4dF is −4:1, −3:4, −2:10, −1:16, 0:19,
    +1:16, +2:10, +3:4, +4:1 (of 81)."""
    return pool_distribution((-1, 0, 1), dice)


def percent(f: Fraction) -> str:
    """A fraction as a percentage with one decimal, rounded half up: 31/81 → ``"38.3"``."""
    tenths = (f * 1000 + Fraction(1, 2)).__floor__()
    return f"{tenths // 10}.{tenths % 10}"


def passive_bands(
    modifier: int, dr: int, comparison: str = ">=", minor_cost_margins: tuple[int, ...] = ()
) -> dict[str, Fraction]:
    """``P(band)`` of ``4dF + modifier`` against ``dr``, for every band (docs/rulings/wyrd-engine.md).

    ``modifier`` is everything added to the dice (skill, trait, boost, teamwork, penalties).
    Bands: failure, tie, success, success_with_style (and success_at_cost if configured);
    every band appears, zero or not.
    """
    out: dict[str, Fraction] = {band: Fraction(0) for band in BANDS}
    if minor_cost_margins:
        out["success_at_cost"] = Fraction(0)
    for roll, p in fudge_distribution().items():
        _margin, band = passive_band(roll + modifier, dr, comparison, minor_cost_margins)
        out[band] += p
    return out


def success_chance(modifier: int, dr: int, comparison: str = ">=") -> Fraction:
    """``P(4dF + modifier meets the DR)`` (``>=``; or exceeds it under ``>``).

    Example (W15): modifier 0 vs Basic (0) → 50/81.
    """
    bands = passive_bands(modifier, dr, comparison)
    return bands["tie"] + bands["success"] + bands["success_with_style"]


def ladder_odds(
    modifier: int, comparison: str = ">=", minor_cost_margins: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """Success chance and band split of ``4dF + modifier`` at every DR of the ladder.

    Each row: ``dr``, ``name``, ``alias``, ``success`` (``"n/d"``), ``percent`` (one decimal),
    ``bands`` (band id → ``"n/d"``).
    """
    rows = []
    for name, value, alias in dr_ladder(comparison):
        bands = passive_bands(modifier, value, comparison, minor_cost_margins)
        win = sum((p for b, p in bands.items() if b != "failure"), Fraction(0))
        rows.append(
            {
                "dr": value,
                "name": name,
                "alias": alias,
                "success": ratio(win),
                "percent": percent(win),
                "bands": fraction_texts(bands),
            }
        )
    return rows


def contest_odds(modifier: int, opposition: int) -> dict[str, Fraction]:
    """Band split of a contest: ``4dF + modifier`` against ``4dF + opposition``.

    The difference of two independent 4dF is 8dF-shaped over −8…+8 (counts of
    ``(x⁻¹ + 1 + x)⁸`` out of 6561). Bands as :func:`ledger_wyrd_engine.rules.contest_band`;
    an attack hits with probability ``success + success_with_style`` (strictly higher).
    """
    out: dict[str, Fraction] = {band: Fraction(0) for band in BANDS}
    for diff, p in fudge_distribution(8).items():
        _d, band = contest_band(diff + modifier, opposition)
        out[band] += p
    return out


class Odds(RuleSystem[Character, Options]):
    """``campaign odds wyrd-engine`` (a mixin; reads ``self.options``)."""

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact odds of ``4dF + skill`` (docs/rulings/wyrd-engine.md): with ``vs``, a contest's band split
        and the attack hit chance; with ``dr``, that DR; otherwise every DR of the ladder.
        Fractions are ``"n/d"`` strings.

        Without ``skill``, the family: P(success) by DR for each skill level of the book's
        table ("Success probability per skill level": Untrained +0 to Expert +3).

        :raises RuleError: ``vs`` without ``skill``, both ``dr`` and ``vs``, or an unknown
            DR name.
        """
        skill = params.get("skill")
        if params.get("dr") is not None and params.get("vs") is not None:
            raise RuleError(
                "give either a Difficulty Rating or an opponent's rating, not both", param="vs"
            )
        comparison = self.options.dr_comparison
        margins = tuple(self.options.minor_cost_margins)
        if skill is None:
            if params.get("vs") is not None:
                raise RuleError(
                    "a contest needs the roller's modifier (skill) with the opponent's rating",
                    param="skill",
                )
            return self._family(params.get("dr"), comparison, margins)
        out: dict[str, Any] = {"system": self.id, "skill": skill, "dice": "4dF",
                               "comparison": comparison}  # fmt: skip
        if params.get("vs") is not None:
            bands = contest_odds(skill, params["vs"])
            hit = bands["success"] + bands["success_with_style"]
            out.update(vs=params["vs"], bands=fraction_texts(bands),
                       win=ratio(hit), attack_hits=ratio(hit), percent=percent(hit))  # fmt: skip
            return out
        if params.get("dr") is not None:
            dr, name = parse_dr(params["dr"], comparison)
            bands = passive_bands(skill, dr, comparison, margins)
            win = 1 - bands["failure"]
            alias = next((a for n, v, a in dr_ladder(comparison) if v == dr), None)
            out["ladder"] = [{
                "dr": dr, "name": name, "alias": alias, "success": ratio(win),
                "percent": percent(win), "bands": fraction_texts(bands),
            }]  # fmt: skip
            return out
        out["ladder"] = ladder_odds(skill, comparison, margins)
        return out

    def roll_odds(self, event: Any) -> list[tuple[str, Fraction]] | None:
        """The roll form's odds of a check before it is rolled, from :meth:`odds` with
        the roll's modifier (skill + trait + boost + teamwork + situational - wounds) and
        its DR ("Fudge dice (4dF)", "Passive Opposition") or the opposition's rating
        ("Active Opposition"). E.g. Fair (+1) against Good (+2): ``("you need +1 or more on
        the four dice", 31/81)``.

        :returns: ``None`` for initiative (compared at the table).
        """
        modifier = event.total - event.roll
        if event.mode == "initiative":
            return None
        if event.dr is None:
            got = self.odds({"skill": modifier, "vs": event.opposition})
            verb = "the attack hits" if event.mode == "attack" else "you come out on top"
            return [(verb, Fraction(got["win"]))]
        row = self.odds({"skill": modifier, "dr": str(event.dr)})["ladder"][0]
        need = event.dr - modifier + (1 if self.options.dr_comparison == ">" else 0)
        if need > 4:
            return [("the four dice cannot reach it", Fraction(0))]
        lines = [(f"you need {signed(max(need, -4))} or more on the four dice",
                  Fraction(row["success"]))]  # fmt: skip
        lines += [(band.replace("_", " "), Fraction(p)) for band, p in row["bands"].items()]
        return lines

    def _family(self, dr_text: Any, comparison: str, margins: tuple[int, ...]) -> dict[str, Any]:
        """``odds`` without ``--skill``: ``{"skills": {"Expert/Great (+3)": {DR name:
        P(success)}}}`` for every skill level (000_60e07241544698f0.txt, "Difficulty Levels",
        table "Success probability per skill level"), one DR when ``dr_text`` names one."""
        wanted = parse_dr(dr_text, comparison)[0] if dr_text is not None else None
        family: dict[str, dict[str, str]] = {}
        for name, rating, alias in SKILL_LEVELS:
            row = {}
            for item in ladder_odds(rating, comparison, margins):
                if wanted is None or item["dr"] == wanted:
                    row[f"{item['name']} ({signed(item['dr'])})"] = item["success"]
            family[f"{name}/{alias} ({signed(rating)})"] = row
        return {"system": self.id, "dice": "4dF", "comparison": comparison,
                "success_by_skill": family}  # fmt: skip


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
    totals = shifted(dist, skill)
    distribution(a, totals, width=0.7)
    a.set_xticks(list(totals))
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
