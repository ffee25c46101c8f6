"""Exact odds of Spellwoven rolls as fractions, and their chart (seed
004_663ae3e4ecc71fd1.txt).

The text gives only the shape ("a bell-shaped distribution of successes that is biased
towards low numbers of successes if your Skill is less than 5, middle scores at Skill 5-6
and high scores at Skill 7 or over", "Overview: The Basic Mechanic") and a Troll program
("Basic Distributions", "Troll Dice Code"). Here each d10 is scored as the successes it
gives (:func:`.rules.mechanics.die_successes`) and the pool summed exactly by
:func:`ledger.pool_distribution`; tests/plugins/test_spellwoven_odds.py checks it by brute
force. :class:`Odds` answers ``campaign odds spellwoven``; :func:`odds_series` and
:func:`draw_odds` draw its ``--plot`` chart ("Difficulty levels").
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

import ledger.rules.charts as ch
from ledger import (
    RuleError,
    RuleSystem,
    at_least,
    chance_table,
    contest,
    fraction_text,
    fraction_texts,
    pool_distribution,
    shifted,
    summary,
)

from .rules import mechanics as m
from .rules import parse_vs, read_pool
from .state import Character, Options

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def success_distribution(
    skill_level: int, pool: int = m.STANDARD_POOL, mode: m.Mode = "normal"
) -> dict[int, Fraction]:
    """``{successes: probability}`` of one roll, exact, every probability > 0.

    - normal: ``pool`` d10, every die counts;
    - advantage: ``pool + 1`` d10, the ``pool`` scoring most are kept;
    - disadvantage: ``pool + 1`` d10, the ``pool`` highest faces are kept — since a higher
      face never scores more, that is the ``pool`` lowest-scoring dice.

    (004_663ae3e4ecc71fd1.txt, "Overview: The Basic Mechanic", "Skill level 10+",
    "Advantage & Disadvantage", "Basic Distributions")
    """
    m.check_pool(pool)
    scores = [m.die_successes(face, skill_level) for face in range(1, 11)]
    if mode == "normal":
        return pool_distribution(scores, pool)
    return pool_distribution(scores, pool + 1, keep=pool, lowest=mode == "disadvantage")


#: What the odds report of each distribution of successes.
SUMMARY = ("distribution", "at_least", "mean", "most_likely")

FAMILY_LEVELS = range(1, 21)
"""The Skill Levels of the family: 1 to 20 ("Basic Distributions")."""


class Odds(RuleSystem[Character, Options]):
    """``campaign odds spellwoven``: exact odds of a Test or Contest of Skill
    (004_663ae3e4ecc71fd1.txt, "Basic Distributions")."""

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact odds of a roll, fractions as ``"n/d"``: ``system``, ``pool``, ``mode``,
        ``skill_level``, ``bonus`` and the summary (``distribution``, ``at_least``, ``mean``,
        ``most_likely``); with a difficulty ``difficulty`` and ``pass``; with ``vs`` the
        ``opponent`` and ``contest`` (win, draw, lose). Without ``skill``, the family:
        ``pass_by_skill`` (``{"Skill S": {"N Name": "n/d"}}``, each difficulty or the one
        asked for; each row equals the odds with that ``skill``) and ``by_skill`` (each
        level's summary).

        (004_663ae3e4ecc71fd1.txt, "Basic Distributions", "Difficulty levels", "Static
        Difficulty from Attributes", "Opposed Roll (Contest of Skill)", "Advantage &
        Disadvantage")
        """
        pool, mode = read_pool(params), m.mode_of(params)
        bonus = int(params.get("bonus") or 0)
        if not 0 <= bonus <= 4:
            raise RuleError(f"the bonus is the Attribute Effort adds, 0 to 4, not {bonus}",
                            param="bonus")  # fmt: skip
        report: dict[str, Any] = {"system": "spellwoven", "pool": pool, "mode": mode}
        level, vs = params.get("skill"), params.get("vs") not in (None, "")
        if level is None and vs:
            raise RuleError("a Contest of Skill needs the roller's Skill Level (skill)",
                            param="skill")  # fmt: skip
        if level is not None and not 1 <= level <= m.MAX_SKILL_LEVEL:
            raise RuleError(f"the skill is a Skill Level from 1 to {m.MAX_SKILL_LEVEL}, not "
                            f"{level}", param="skill")  # fmt: skip
        required = m.asked_difficulty(params, contest=vs)
        if level is None:
            wanted = m.DIFFICULTIES if required is None else {
                required: m.DIFFICULTIES.get(required, "automatic")}  # fmt: skip
            family = {s: shifted(success_distribution(s, pool, mode), bonus) for s in FAMILY_LEVELS}
            if required is not None:
                report["difficulty"] = required
            report["pass_by_skill"] = chance_table(
                ((f"Skill {s}", dist) for s, dist in family.items()),
                ((f"{d} {name}", d) for d, name in wanted.items()), at_least)  # fmt: skip
            report["by_skill"] = {str(s): summary(dist, *SUMMARY) for s, dist in family.items()}
            return report
        # Effort adds the Attribute to the successes ("Attributes and Effort")
        distribution = shifted(success_distribution(level, pool, mode), bonus)
        report.update({"skill_level": level, "bonus": bonus, **summary(distribution, *SUMMARY)})
        if vs:
            opponent = parse_vs(params["vs"])
            theirs = success_distribution(opponent.level, pool, opponent.mode)
            report["opponent"] = {"name": opponent.name, "skill_level": opponent.level,
                                  "mode": opponent.mode}  # fmt: skip
            # the most successes wins, the same number is a draw ("Opposed Roll")
            win, draw, lose = contest(distribution, theirs)
            report["contest"] = fraction_texts({"win": win, "draw": draw, "lose": lose})
        elif required is not None:
            report["difficulty"] = required
            report["pass"] = fraction_text(at_least(distribution, required))
        return report

    def roll_odds(self, event: Any) -> list[tuple[str, Fraction]] | None:
        """The roll form's odds of a Test of Skill, from :meth:`odds` with the roll's Skill
        Level, dice kept, mode, Effort bonus and difficulty ("Test of Skill": pass with at
        least that many successes), e.g. ``("you need 1 success to pass", 7/8)``; ``None``
        for a contest or an automatic hit (difficulty 0)."""
        if not hasattr(event, "skill_level") or not getattr(event, "difficulty", 0):
            return None
        try:
            got = self.odds({"skill": event.skill_level, "pool": event.pool or 3,
                             "advantage": event.mode == "advantage",
                             "disadvantage": event.mode == "disadvantage",
                             "bonus": event.effort_bonus, "difficulty": event.difficulty})  # fmt: skip
        except RuleError:
            return None
        need = event.difficulty
        return [
            (f"you need {need} success{'es' if need > 1 else ''} to pass", Fraction(got["pass"]))
        ]


# --- the chart (`campaign odds spellwoven --plot`) ---------------------------------------

SHOWN = (3, 5, 7, 10, 15)
"""Skill Levels whose success counts are drawn when no ``skill`` is asked for."""


def odds_series(system: RuleSystem[Any, Any], params: dict[str, Any]) -> dict[str, Any]:
    """The family (``odds`` without ``skill``) in the mode, pool and bonus given:
    ``{"skill": S or None, "mode", "pool", "bonus", "difficulty": D or None, "by_skill":
    {S: {"distribution": {k: P}, "at_least": {k: P(successes >= k)}}}}``, the asked skill,
    if any, drawn apart.

    :raises ChartError: the odds lack ``by_skill`` or a distribution.
    """
    base = ch.without(params, "skill", "vs")

    def build() -> dict[str, Any]:
        result = system.odds(base)
        by_skill = {int(s): {"distribution": ch.numbered(v["distribution"]),
                             "at_least": ch.numbered(v["at_least"])}
                    for s, v in result["by_skill"].items()}  # fmt: skip
        return {"skill": params.get("skill"), "mode": str(result.get("mode", "normal")),
                "pool": int(result.get("pool", 3)), "bonus": int(params.get("bonus") or 0),
                "difficulty": result.get("difficulty"), "by_skill": by_skill}  # fmt: skip

    return ch.checked(system, build)


def draw_odds(data: dict[str, Any]) -> Figure:
    """Chance of at least k successes (k = 1..6) by Skill Level, the asked difficulty's
    curve drawn thicker, and the success counts of the asked level (or of levels 3, 5, 7,
    10 and 15)."""
    mode = "" if data["mode"] == "normal" else f", {data['mode']}"
    bonus = f", +{data['bonus']} Effort" if data["bonus"] else ""
    return ch.successes_figure(
        data["by_skill"], [int(data["skill"])] if data.get("skill") else SHOWN,
        name="Skill", axis="Skill Level", bold=data.get("difficulty") or None,
        chances_title="Chance of at least k successes (difficulty k)",
        counts_title="How many successes, by Skill Level",
        title=f"Spellwoven: {data['pool']}d10 roll-under success counts{mode}{bonus} (exact)",
    )  # fmt: skip
