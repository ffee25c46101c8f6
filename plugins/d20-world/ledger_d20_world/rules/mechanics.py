"""Pure d20-world mechanics: the check gate, the d20 check, experience, harm, jinx, objectives.

Every function cites the section of seed ``001_a3a02f9b7363775f.txt`` it implements and the
digest's ruling ids (``R1`` …, docs/rulings/d20-world.md) where the text is silent.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Literal

import msgspec

from ledger import RuleError

from ..state import Band, Condition, Item, Objective, Skill

Gate = Literal["auto_fail", "disadvantage", "normal", "advantage", "auto_success"]
Mode = Literal["normal", "advantage", "disadvantage"]

ACTIONS_PER_ROUND = 3
CARRIED_CAPACITY = 5
BAG_CAPACITY = 5
DEATH_ABOVE = 5
LEARN_THRESHOLD = 10


def check_gate(
    *, time: bool, tools: bool, skill: bool, help: bool, one_factor_no_help: str = "auto_fail"
) -> Gate:
    """Whether a check is made, and how ("Checks", the time/tools/skill/help list).

    :param time, tools, skill: the three factors the acting character has.
    :param help: an ally with time, tools or skill describes how they help.
    :param one_factor_no_help: ruling R1 for one factor without help (the text is silent):
        ``"auto_fail"`` (default) or ``"disadvantage"``.
    :returns: ``"auto_fail"`` (0 factors: failure certain, no check), ``"disadvantage"``
        (1 factor + help), ``"normal"`` (2 factors), ``"advantage"`` (2 factors + help) or
        ``"auto_success"`` (all three: success certain, no check).
    """
    n = int(time) + int(tools) + int(skill)
    if n == 0:
        return "auto_fail"
    if n == 1:
        if help:
            return "disadvantage"
        return "disadvantage" if one_factor_no_help == "disadvantage" else "auto_fail"
    if n == 2:
        return "advantage" if help else "normal"
    return "auto_success"


def combine_modes(advantage: int, disadvantage: int) -> Mode:
    """Advantage and disadvantage sources combined (ruling R3): they never stack, and any
    advantage with any disadvantage is a normal roll.

    :param advantage, disadvantage: how many sources of each (≥ 0).
    """
    if advantage and disadvantage:
        return "normal"
    if advantage:
        return "advantage"
    if disadvantage:
        return "disadvantage"
    return "normal"


def dice_count(mode: Mode) -> int:
    """d20s rolled: 2 with advantage or disadvantage, else 1 ("Checks", step 2)."""
    return 1 if mode == "normal" else 2


def kept_die(dice: list[int], mode: Mode) -> int:
    """The d20 that decides the check ("Checks", step 2): the higher of two with advantage,
    the lower with disadvantage, the only one otherwise. Natural 1/20 look at this die only
    ("Natural 1 & 20").

    :raises ValueError: a face outside 1..20 or the wrong number of dice for ``mode``.
    """
    if len(dice) != dice_count(mode) or any(not 1 <= d <= 20 for d in dice):
        raise ValueError(f"a {mode} check needs {dice_count(mode)} d20 faces (1-20), not {dice}")
    if mode == "advantage":
        return max(dice)
    if mode == "disadvantage":
        return min(dice)
    return dice[0]


def band_of(total: int) -> Band:
    """Outcome band ("Checks", step 5): ≤ 8 bad, 9–17 messy, ≥ 18 good. No floor or cap."""
    if total <= 8:
        return "bad"
    if total <= 17:
        return "messy"
    return "good"


BAND_EXPERIENCE: dict[str, int] = {"bad": 2, "messy": 1, "good": 0}


def experience_for(band: Band, kept: int, *, hinder: bool) -> int:
    """Experience a check marks on its skill ("Checks" step 6, "Natural 1 & 20", "Traits").

    bad 2 / messy 1 / good 0; +1 when the kept die is a natural 1 or a natural 20; +2 when a
    trait was invoked to hinder (regardless of outcome). Range 0..5.
    """
    xp = BAND_EXPERIENCE[band]
    if kept in (1, 20):
        xp += 1
    if hinder:
        xp += 2
    return xp


def xp_threshold(skill: Skill) -> int:
    """Experience that raises a skill ("Skills"): 10 + proficiency; 10 for a skill being
    learned ("Learning Skills", proficiency 0)."""
    return LEARN_THRESHOLD + skill.proficiency


def add_experience(skill: Skill, amount: int, *, increase: bool = True) -> Skill:
    """Mark ``amount`` (≥ 0) experience on ``skill`` ("Skills", "Learning Skills").

    With ``increase`` (the default, ruling R16), once experience reaches the threshold the
    proficiency rises by 1 (an unknown skill is learned at +1) and experience resets to 0:
    at most one increase per marking, excess discarded (ruling R4). Without ``increase``
    experience just accumulates (``defer_skill_increase_to_session_end``).

    :raises RuleError: ``amount`` is negative.
    """
    if amount < 0:
        raise RuleError(f"experience is only ever marked, not removed: {amount} is negative")
    experience = skill.experience + amount
    # one replace, not two: increase_if_due inlined
    if increase and experience >= LEARN_THRESHOLD + skill.proficiency:  # xp_threshold
        return msgspec.structs.replace(
            skill, proficiency=skill.proficiency + 1, experience=0, known=True
        )
    return msgspec.structs.replace(skill, experience=experience)


def increase_if_due(skill: Skill) -> Skill:
    """The skill after its increase if its experience reached 10 + proficiency, else itself
    ("Skills"; an unknown skill becomes known at +1, "Learning Skills")."""
    if skill.experience < xp_threshold(skill):
        return skill
    return msgspec.structs.replace(
        skill, proficiency=skill.proficiency + 1, experience=0, known=True
    )


def messy_damage(weapon_damage: int, rounding: str = "ceil") -> int:
    """Half the weapon damage for a messy hit ("Attacking"); rounding is ruling R5
    (``"ceil"`` default, ``"floor"``)."""
    half = Fraction(weapon_damage, 2)
    return math.ceil(half) if rounding == "ceil" else math.floor(half)


def damage_dealt(weapon_damage: int, outcome: str, rounding: str = "ceil") -> int:
    """Damage an attack deals ("Attacking"): ``auto_hit``/``good`` full, ``messy`` half,
    ``bad`` none.

    :raises RuleError: negative weapon damage or an unknown outcome.
    """
    if weapon_damage < 0:
        raise RuleError(f"weapon damage must be 0 or more, not {weapon_damage}")
    if outcome in ("auto_hit", "good"):
        return weapon_damage
    if outcome == "messy":
        return messy_damage(weapon_damage, rounding)
    if outcome == "bad":
        return 0
    raise RuleError(f"attack outcome must be auto_hit, good, messy or bad, not {outcome!r}")


def is_shock(d6: int, wound_total: int) -> bool:
    """Shock ("Wounds"): the 1d6 is at most the sum of wound damage, the new wound included
    (ruling R9)."""
    return d6 <= wound_total


def is_dead(wound_total: int) -> bool:
    """A character perishes when the sum of wound damage is more than five ("Wounds")."""
    return wound_total > DEATH_ABOVE


def jinx_recovered(jinx: int, recovery: str = "remove_ceil_half") -> int:
    """Jinx removed by a rest ("Jinx": "recovers from half their jinx, rounded up").

    ``"remove_ceil_half"`` (ruling R7 default): ceil(jinx/2); ``"keep_ceil_half"``:
    floor(jinx/2). Jinx 5 → 3 removed (2 left) by default.
    """
    if recovery == "keep_ceil_half":
        return jinx // 2
    return -(-jinx // 2)


def carried_capacity(conditions: Iterable[Condition]) -> int:
    """Items a character can carry ("Inventory": five), changed by condition effects
    ("Conditions": "inventory capacity reduced by 1"); never below 0."""
    return max(0, CARRIED_CAPACITY + sum(c.capacity_delta for c in conditions))


def inventory_problems(
    items: Iterable[Item], *, has_bag: bool, capacity: int = CARRIED_CAPACITY
) -> list[str]:
    """Every inventory rule the items break ("Inventory").

    Carried items ≤ ``capacity``; bag items ≤ 5 and only with a bag; at most one bulky item
    (carried or in the bag, ruling R18). Destroyed items still take room until removed.
    """
    items = list(items)
    carried = [i for i in items if i.location == "carried"]
    bag = [i for i in items if i.location == "bag"]
    bulky = [i.name for i in items if i.bulky]
    problems = []
    if len(carried) > capacity:
        problems.append(
            f"{len(carried)} items carried but only {capacity} fit: move some to the bag "
            "or remove them"
        )
    if bag and not has_bag:
        problems.append("items are stored in a bag but the character has no bag")
    if len(bag) > BAG_CAPACITY:
        problems.append(f"{len(bag)} items in the bag but it holds {BAG_CAPACITY}")
    if len(bulky) > 1:
        problems.append(
            f"only one bulky, heavy or cumbersome item may be carried at a time, not "
            f"{len(bulky)} ({', '.join(bulky)})"
        )
    return problems


def action_cost(task_seconds: Fraction | int, round_seconds: Fraction | int) -> int:
    """Actions a task costs ("Time"): three actions a round, each a third of the round; a
    task costs the fewest whole actions covering its time (at least 1).

    The text's example: a 6-second round (2-second actions), drinking a potion stored in a
    bag (more than 2 and at most 4 seconds) costs two actions.

    :raises RuleError: a non-positive round length or a negative task time.
    """
    if round_seconds <= 0 or task_seconds < 0:
        raise RuleError("a round lasts more than 0 seconds and a task 0 seconds or more")
    action = Fraction(round_seconds) / ACTIONS_PER_ROUND
    return max(1, math.ceil(Fraction(task_seconds) / action))


def contribute(
    objective: Objective, *, skill: str, band: Band, distinct_skills: bool = True
) -> Objective:
    """One contributing check to an objective ("Objectives").

    good → one more good check (complete at ``required_good``); messy → a close call while
    fewer than three close calls, else the objective fails; bad → fails on the third bad.
    The same skill may not contribute twice (ruling R12, unless ``distinct_skills`` is off).

    :raises RuleError: the objective is not open, or the skill already contributed.
    """
    if objective.status != "open":
        raise RuleError(
            f"objective {objective.name!r} is already {objective.status}: open a new one"
        )
    key = skill.casefold()
    if distinct_skills and key in (s.casefold() for s in objective.skills_used):
        raise RuleError(
            f"{skill} already contributed to objective {objective.name!r}: each contributing "
            "check must use a different skill"
        )
    o = msgspec.structs.replace(objective, skills_used=(*objective.skills_used, skill))
    if band == "good":
        good = o.good + 1
        status = "completed" if good >= o.required_good else "open"
        return msgspec.structs.replace(o, good=good, status=status)
    if band == "messy":
        if o.close_calls < 3:
            return msgspec.structs.replace(o, messy=o.messy + 1, close_calls=o.close_calls + 1)
        return msgspec.structs.replace(
            o, messy=o.messy + 1, status="failed", reason="a messy outcome after three close calls"
        )
    bad = o.bad + 1
    if bad >= 3:
        return msgspec.structs.replace(o, bad=bad, status="failed", reason="a third bad outcome")
    return msgspec.structs.replace(o, bad=bad)
