"""What people read: log lines, the sheet and the odds report (seed 004_663ae3e4ecc71fd1.txt)."""

from __future__ import annotations

from typing import Any

import msgspec

from ledger import Event, RuleError

from . import odds as exact
from .events import (
    ConditionAdded,
    ConditionRemoved,
    ContestEffortSpent,
    ContestRolled,
    EffortLost,
    EffortSpent,
    SkillChanged,
    Slept,
    SpecialisationLearned,
    TestRolled,
    WeaknessExploited,
)
from .mechanics import (
    DIFFICULTIES,
    MAX_SKILL_LEVEL,
    Mode,
    boxes,
    check_difficulty,
    difficulty_from_attribute,
    notation,
    parse_difficulty,
    roll_mode,
    skill_level,
)
from .rolls import flag, int_param, parse_vs, read_pool
from .sheet import Character


def _faces(faces: list[int], kept: list[int] | None) -> str:
    text = "[" + " ".join(str(f) for f in faces) + "]"
    if kept is not None:
        text += " keep [" + " ".join(str(f) for f in kept) + "]"
    return text


def _plural(n: int) -> str:
    return f"{n} success" if n == 1 else f"{n} successes"


def _difficulty(required: int) -> str:
    return f"{DIFFICULTIES[required]} ({required})" if required in DIFFICULTIES else str(required)


def _mine(event: TestRolled | ContestRolled) -> str:
    level = event.skill_level
    text = f"{event.character} — {event.skill} {level}"
    if event.mode != "normal":
        text += f" at {event.mode}" + (" (Weakness)" if event.weakness else "")
    text += f", dice {_faces(event.dice, event.kept)} = {_plural(event.dice_successes)}"
    if event.effort_spent:
        text += f", +{event.effort_bonus} Effort ({event.attribute}) = {event.successes}"
    return text


def describe(event: Event) -> str | None:
    """One line for ``log`` and recaps, e.g. ``"jen — Sprint 5, dice [6 6 10] = 0 successes
    vs Normal (1): fail"``; ``None`` for events of other systems."""
    if isinstance(event, TestRolled):
        if event.difficulty == 0:
            return (
                f"{event.character} — {event.skill}: automatic hit, the target's Attribute "
                f"{event.target_attribute} gives difficulty 0 (no roll)"
            )
        return f"{_mine(event)} vs {_difficulty(event.difficulty)}: {event.outcome}"
    if isinstance(event, ContestRolled):
        who = event.opponent or "the opponent"
        mode = "" if event.opponent_mode == "normal" else f" at {event.opponent_mode}"
        theirs = _plural(event.opponent_successes)
        if event.vs_effort_spent:
            theirs = (
                f"{_plural(event.opponent_successes - (event.vs_effort_bonus or 0))}, "
                f"+{event.vs_effort_bonus} Effort ({event.vs_attribute}) = "
                f"{event.opponent_successes}"
            )
        return (
            f"{_mine(event)} vs {who} ({event.opponent_skill_level}{mode}), dice "
            f"{_faces(event.opponent_dice, event.opponent_kept)} = {theirs}: {event.outcome}"
        )
    if isinstance(event, ContestEffortSpent):
        return (
            f"{event.character} spends 1 Effort in the Contest of Skill of roll {event.roll} "
            f"(against {event.roller}): +{event.bonus} ({event.attribute})"
        )
    if isinstance(event, EffortSpent):
        on = f" on roll {event.roll}" if event.roll is not None else " on the latest roll"
        if event.bonus is not None and event.successes is not None and event.outcome:
            attribute = f" ({event.attribute})" if event.attribute else ""
            return (
                f"{event.character} spends 1 Effort{on}: +{event.bonus}{attribute} = "
                f"{_plural(event.successes)}: {event.outcome}"
            )
        attribute = f" (+{event.attribute})" if event.attribute else ""
        return f"{event.character} spends 1 Effort{on}{attribute}"
    if isinstance(event, EffortLost):
        reason = f": {event.reason}" if event.reason else ""
        return f"{event.character} loses {event.amount} Effort{reason}"
    if isinstance(event, Slept):
        return f"{event.character} sleeps the night: Effort refreshed"
    if isinstance(event, WeaknessExploited):
        by = f" by {event.by}" if event.by else ""
        return f"{event.character}'s {event.weakness} Weakness is used against them{by}"
    if isinstance(event, SkillChanged):
        reason = f" ({event.reason})" if event.reason else ""
        return f"{event.character}: {notation(event.skill, event.rank)}{reason}"
    if isinstance(event, SpecialisationLearned):
        reason = f" ({event.reason})" if event.reason else ""
        return (f"{event.character} learns the Specialisation {event.specialisation} "
                f"({event.skill}): {notation(event.specialisation, event.rank)}{reason}")
    if isinstance(event, ConditionAdded):
        return f"{event.character} now: {event.condition}"
    if isinstance(event, ConditionRemoved):
        return f"{event.character} no longer: {event.condition}"
    return None


def sheet_view(state: Character) -> dict[str, Any]:
    """The sheet as JSON: Attributes with boxes and the difficulty they give attackers
    (Attribute − 1; Evasion = Quickness − 1), skills with their Skill Level and sheet
    notation ("Skill: 12 (4/9)"), specialisations, Weaknesses, Effort, conditions and the
    latest roll. Nothing in Spellwoven is GM-only.

    (004_663ae3e4ecc71fd1.txt, "Attributes and Effort", "Static Difficulty from
    Attributes", "Skill level 10+", "Weaknesses")
    """
    attributes = {
        name: {
            "value": value,
            "boxes": boxes(value),
            "difficulty_to_hit": difficulty_from_attribute(value),
        }
        for name, value in state.attributes.items()
    }
    skills = {
        name: {
            "rank": skill.rank,
            "attribute": skill.attribute,
            "skill_level": skill_level(skill.rank, state.attributes[skill.attribute]),
            "notation": notation(name, skill.rank),
        }
        for name, skill in state.skills.items()
    }
    specialisations = {
        name: {"rank": spec.rank, "skill": spec.skill, "notation": notation(name, spec.rank)}
        for name, spec in state.specialisations.items()
    }
    return {
        "id": state.id,
        "name": state.name,
        "kind": state.kind,
        "attributes": attributes,
        "evasion": difficulty_from_attribute(state.attributes["Quickness"]),
        "skills": skills,
        "specialisations": specialisations,
        "weaknesses": dict(state.weaknesses),
        "effort": state.effort,
        "effort_max": state.effort_max,
        "conditions": list(state.conditions),
        "last_roll": msgspec.to_builtins(state.last_roll) if state.last_roll else None,
        "scene_rolls": [msgspec.to_builtins(r) for r in state.scene_rolls],
    }


def _frac(value: Any) -> str:
    return exact.fraction_text(value)


def _summary(distribution: exact.Distribution) -> dict[str, Any]:
    return {
        "distribution": {str(k): _frac(p) for k, p in distribution.items()},
        "at_least": {str(k): _frac(p) for k, p in exact.at_least(distribution).items()},
        "mean": _frac(exact.mean(distribution)),
        "most_likely": exact.most_likely(distribution),
    }


FAMILY_LEVELS = range(1, 21)
"""The Skill Levels of the family: 1 to 20 ("Basic Distributions")."""


def _family(
    report: dict[str, Any], params: dict[str, Any], pool: int, mode: Mode, bonus: int
) -> dict[str, Any]:
    """``odds`` without ``skill``: for every Skill Level 1..20, the chance to pass each
    difficulty 1-4 ("Difficulty levels": Normal to Daunting) or the one asked for
    (``difficulty``, or ``target``: the Attribute - 1), and each level's success counts.

    :returns: ``report`` with ``"difficulty"`` (when asked), ``"pass_by_skill": {"Skill S":
        {"N Name": "n/d"}}`` (each row equals ``odds`` with that ``skill``: its ``pass``,
        or its ``at_least``) and ``"by_skill": {S: {...}}``.
    :raises RuleError: both ``difficulty`` and ``target``, one out of range, or ``vs`` (a
        contest needs the roller's Skill Level).

    (004_663ae3e4ecc71fd1.txt, "Basic Distributions", "Difficulty levels", "Static
    Difficulty from Attributes")
    """
    if params.get("vs") not in (None, ""):
        raise RuleError("a Contest of Skill (--vs) needs the roller's --skill S")
    difficulty = int_param(params, "difficulty")
    target = int_param(params, "target")
    if difficulty is not None and target is not None:
        raise RuleError("give --difficulty or --target, not both")
    if target is not None:
        difficulty = difficulty_from_attribute(target)
    elif difficulty is not None:
        check_difficulty(difficulty)
    wanted = {difficulty: DIFFICULTIES.get(difficulty, "automatic")} if difficulty is not None \
        else DIFFICULTIES  # fmt: skip
    distributions = {
        s: exact.shifted(exact.success_distribution(s, pool, mode), bonus) for s in FAMILY_LEVELS
    }
    if difficulty is not None:
        report["difficulty"] = difficulty
    report["pass_by_skill"] = {
        f"Skill {s}": {
            f"{d} {name}": _frac(sum((p for k, p in dist.items() if k >= d), exact.Fraction(0)))
            for d, name in wanted.items()
        }
        for s, dist in distributions.items()
    }
    report["by_skill"] = {str(s): _summary(dist) for s, dist in distributions.items()}
    return report


def odds_report(params: dict[str, Any]) -> dict[str, Any]:
    """Exact odds of a roll, fractions as ``"n/d"``.

    Params: ``skill`` (Skill Level 1..30; absent: every level 1..20), ``pool`` (dice kept,
    default 3), ``advantage``/``disadvantage``/``weakness``, ``difficulty`` (1..4) or
    ``target`` (the target's Attribute 1..4), ``bonus`` (successes Effort adds), ``vs``
    (an opponent: ``S``, ``NAME:S`` or ``NAME:S:advantage``).

    :returns: ``{"system", "pool", "mode", "skill_level", "distribution": {k: p},
        "at_least": {k: P(>= k)}, "mean", "most_likely"}``, plus ``"difficulty"`` and
        ``"pass"`` with a difficulty, ``"contest": {"win", "draw", "lose"}`` with ``vs``;
        without ``skill``, the family (:func:`_family`): ``"pass_by_skill"`` and
        ``"by_skill": {S: {...}}`` for S 1..20.
    :raises RuleError: a level, pool, difficulty or Attribute out of range; both
        ``difficulty`` and ``target``; ``vs`` with a difficulty, or without ``skill``.

    (004_663ae3e4ecc71fd1.txt, "Basic Distributions", "Difficulty levels", "Opposed Roll
    (Contest of Skill)", "Advantage & Disadvantage")
    """
    pool = read_pool(params)
    mode = roll_mode(
        flag(params, "advantage"), flag(params, "disadvantage"), flag(params, "weakness")
    )
    bonus = int_param(params, "bonus") or 0
    if not 0 <= bonus <= 4:
        raise RuleError(f"--bonus is the Attribute Effort adds, 0 to 4, not {bonus}")
    report: dict[str, Any] = {"system": "spellwoven", "pool": pool, "mode": mode}
    level = int_param(params, "skill")
    if level is None:
        return _family(report, params, pool, mode, bonus)
    if not 1 <= level <= MAX_SKILL_LEVEL:
        raise RuleError(f"--skill is a Skill Level from 1 to {MAX_SKILL_LEVEL}, not {level}")
    distribution = exact.shifted(exact.success_distribution(level, pool, mode), bonus)
    report.update({"skill_level": level, "bonus": bonus, **_summary(distribution)})
    difficulty = parse_difficulty(params.get("difficulty"))
    target = int_param(params, "target")
    if difficulty is not None and target is not None:
        raise RuleError("give --difficulty or --target, not both")
    if params.get("vs") not in (None, ""):
        if difficulty is not None or target is not None:
            raise RuleError(
                "a Contest of Skill (--vs) has no difficulty: drop --difficulty/--target"
            )
        opponent = parse_vs(params["vs"])
        theirs = exact.success_distribution(opponent.level, pool, opponent.mode)
        report["opponent"] = {
            "name": opponent.name,
            "skill_level": opponent.level,
            "mode": opponent.mode,
        }
        report["contest"] = {k: _frac(p) for k, p in exact.contest(distribution, theirs).items()}
        return report
    if target is not None:
        required = difficulty_from_attribute(target)
    elif difficulty is not None:
        check_difficulty(difficulty)
        required = difficulty
    else:
        return report
    passing = sum((p for s, p in distribution.items() if s >= required), exact.Fraction(0))
    report["difficulty"] = required
    report["pass"] = _frac(passing)
    return report
