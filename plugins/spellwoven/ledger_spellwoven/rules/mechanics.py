"""Spellwoven's resolution mechanic as pure functions (seed 004_663ae3e4ecc71fd1.txt).

3d10 roll-under success counting: every d10 showing a face equal to or under the Skill
Level is a success, every 1 adds a bonus success, rolls of 10 never count, and Skill Levels
of 10 and above widen the double (and, from 18, triple) success ranges ("Overview: The Basic
Mechanic", "Test of Skill", "Skill level 10+"). Nothing here touches dice sources, events or
state: these functions take faces, numbers and names and return numbers, so the odds module
and the rule system share one definition of every rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ledger import RuleError, closest_name, name_in

if TYPE_CHECKING:
    from ..state import Options

#: The five Attributes, in the order the text lists them ("Attributes and Effort").
ATTRIBUTES: tuple[str, ...] = ("Behest", "Fortitude", "Presence", "Quickness", "Wits")

#: Static difficulty levels: successes required → name ("Difficulty levels").
DIFFICULTIES: dict[int, str] = {1: "Normal", 2: "Difficult", 3: "Very difficult", 4: "Daunting"}

#: Attributes are "rated on a scale of 1 to 4" ("Static Difficulty from Attributes").
ATTRIBUTE_MIN, ATTRIBUTE_MAX = 1, 4
#: The default (untrained) Skill Level ("Overview: The Basic Mechanic").
UNTRAINED_LEVEL = 3
#: Highest face that can ever count: "rolls of 10 never count" ("Skill level 10+").
UPPER_THRESHOLD = 9
#: The standard pool: "you roll 3d10" ("Overview: The Basic Mechanic").
STANDARD_POOL = 3
#: The largest pool the GM may grant by fiat ("Basic Distributions"); a guard, not a rule.
MAX_POOL = 10
#: Highest Skill Level the odds and notation support (the text's table stops at 20).
MAX_SKILL_LEVEL = 30
#: The GM's calls that set a roll's mode ("Advantage & Disadvantage", "Weaknesses").
MODES: tuple[str, ...] = ("advantage", "disadvantage", "weakness")

Mode = Literal["normal", "advantage", "disadvantage"]
TestOutcome = Literal["pass", "fail"]
ContestOutcome = Literal["win", "lose", "draw"]


def thresholds(skill_level: int) -> list[int]:
    """The success thresholds ``[T1, T2, T3, ...]`` of a Skill Level.

    A face ``d`` (1..9) scores one success for every threshold ``Tk`` with ``d <= Tk``:
    ``T1 = min(S, 9)`` ("equal to or under a Skill value counts as a success"),
    ``T2 = clamp(S - 8, 1, 9)`` ("Each 1 you roll adds a bonus success"; at 10 "a roll of
    1-2 scores two successes", at 11 1-3, ...), and ``Tk = clamp(S - 9k + 10, 0, 9)`` for
    k >= 3 (triples from 18: "Skill Rank 18 — Three Successes 1"). Trailing zero thresholds
    are left out, so the list has 2 entries up to S 17, 3 from S 18 to 26, ...

    (004_663ae3e4ecc71fd1.txt, "Overview: The Basic Mechanic", "Skill level 10+")
    """
    if skill_level < 1:
        raise RuleError(f"a Skill Level must be 1 or more, not {skill_level}")
    result = [min(skill_level, UPPER_THRESHOLD), min(max(skill_level - 8, 1), UPPER_THRESHOLD)]
    k = 3
    while (t := min(max(skill_level - 9 * k + 10, 0), UPPER_THRESHOLD)) > 0:
        result.append(t)
        k += 1
    return result


def die_successes(face: int, skill_level: int) -> int:
    """Successes one d10 face scores: a 10 never counts; otherwise one per threshold of
    :func:`thresholds` the face is equal to or under. At S 5: 1 → 2, 2..5 → 1, 6..10 → 0.
    At S 12: 1..4 → 2, 5..9 → 1, 10 → 0. At S 18: 1 → 3, 2..9 → 2.

    (004_663ae3e4ecc71fd1.txt, "Overview: The Basic Mechanic", "Skill level 10+")
    """
    if not 1 <= face <= 10:
        raise RuleError(f"a d10 shows 1 to 10, not {face}")
    levels = thresholds(skill_level)
    return 0 if face == 10 else sum(1 for t in levels if face <= t)


def count_successes(faces: Sequence[int], skill_level: int) -> int:
    """The success level of kept d10 faces (004_663ae3e4ecc71fd1.txt, "Overview: The Basic
    Mechanic": "you add up successes to get a success level")."""
    return sum(die_successes(face, skill_level) for face in faces)


def roll_mode(advantage: bool, disadvantage: bool, weakness: bool = False) -> Mode:
    """The roll's mode from the GM's calls. Exploiting an opponent's Weakness lets the
    roller "roll at advantage"; advantage and disadvantage cancel to a plain roll, and
    several sources of advantage do not stack (ruling S8).

    (004_663ae3e4ecc71fd1.txt, "Advantage & Disadvantage", "Weaknesses")
    """
    up = advantage or weakness
    if up == disadvantage:
        return "normal"
    return "advantage" if up else "disadvantage"


def mode_of(params: dict[str, Any]) -> Mode:
    """The mode of a roll's (or odds') ``advantage``, ``disadvantage`` and ``weakness``."""
    return roll_mode(*(bool(params.get(call)) for call in MODES))


def dice_to_roll(mode: Mode, pool: int = STANDARD_POOL) -> int:
    """How many d10 to roll: the pool, plus one at advantage or disadvantage ("4d10 instead
    of 3d10"; 004_663ae3e4ecc71fd1.txt, "Advantage & Disadvantage")."""
    check_pool(pool)
    return pool + (0 if mode == "normal" else 1)


def check_pool(pool: int) -> None:
    """Refuse a pool outside 1..10 (004_663ae3e4ecc71fd1.txt, "Basic Distributions")."""
    if not 1 <= pool <= MAX_POOL:
        raise RuleError(
            f"the dice pool must be 1 to {MAX_POOL} d10, not {pool}; it is 3 unless the GM "
            "grants more or fewer dice"
        )


def keep(
    faces: Sequence[int], skill_level: int, mode: Mode, pool: int = STANDARD_POOL
) -> list[int]:
    """The faces kept from a roll, in roll order.

    - normal: every face (the roll has exactly ``pool`` dice).
    - advantage: "taking the three rolls of your choice": the engine chooses for the roller
      the ``pool`` dice scoring the most successes, i.e. it drops one die scoring the fewest
      (the highest face; on a tie the later die).
    - disadvantage: "the three highest rolls": it drops the lowest face (on a tie the later
      die).

    (004_663ae3e4ecc71fd1.txt, "Advantage & Disadvantage", "Weaknesses")
    """
    expected = dice_to_roll(mode, pool)
    if len(faces) != expected:
        raise RuleError(f"a {mode} roll of pool {pool} needs {expected} d10, not {len(faces)}")
    if mode == "normal":
        return list(faces)
    indexed = list(enumerate(faces))
    if mode == "advantage":
        # drop the die scoring least; among equals, the highest face; then the later die
        drop = min(indexed, key=lambda p: (die_successes(p[1], skill_level), -p[1], -p[0]))
    else:
        drop = min(indexed, key=lambda p: (p[1], -p[0]))
    return [face for i, face in indexed if i != drop[0]]


def difficulty_from_attribute(attribute: int) -> int:
    """Difficulty to 'hit' a target = the target's relevant Attribute (1..4) − 1; 0 means
    no roll: the target is hit automatically. Evasion is the same number for Quickness
    (ruling S9). (004_663ae3e4ecc71fd1.txt, "Static Difficulty from Attributes")"""
    if not ATTRIBUTE_MIN <= attribute <= ATTRIBUTE_MAX:
        raise RuleError(
            f"the target's Attribute must be {ATTRIBUTE_MIN} to {ATTRIBUTE_MAX}, not {attribute}"
        )
    return attribute - 1


def _levels() -> str:
    return ", ".join(f"{n} {name}" for n, name in DIFFICULTIES.items())


def parse_difficulty(value: object) -> int | None:
    """A static difficulty given as a number of successes or a level's name: ``2``,
    ``"Difficult"``, ``"very difficult"`` (any case; ``-`` or ``_`` for the space), ``None``
    when absent (004_663ae3e4ecc71fd1.txt, "Difficulty levels": "1 success required =
    Normal difficulty - 2 successes required = Difficult - 3 successes required = Very
    difficult - 4 successes required = Daunting")."""
    if value is None or value is False or value == "":
        return None
    if isinstance(value, int):
        return int(value)  # True: 1
    text = " ".join(str(value).replace("-", " ").replace("_", " ").split())
    if text.lstrip("-").isdigit():
        return int(text)
    for number, name in DIFFICULTIES.items():
        if name.casefold() == text.casefold():
            return number
    raise RuleError(
        f"the Difficulty {value!r} is neither a number nor a level: {_levels()}",
        param="difficulty",
    )


def check_difficulty(required: int) -> None:
    """Refuse a static difficulty outside 1..4 (004_663ae3e4ecc71fd1.txt, "Difficulty
    levels")."""
    if required not in DIFFICULTIES:
        raise RuleError(f"the difficulty must be one of {_levels()}; not {required}")


def asked_difficulty(params: dict[str, Any], *, contest: bool = False) -> int | None:
    """The successes a roll's (or odds') options ask for: the ``target``'s Attribute − 1
    or the ``difficulty`` (1..4 or a level's name); ``None`` when neither is given, and
    always for a ``contest``, which has none.

    (004_663ae3e4ecc71fd1.txt, "Difficulty levels", "Static Difficulty from Attributes",
    "Opposed Roll (Contest of Skill)")
    """
    difficulty, target = params.get("difficulty"), params.get("target")
    if contest and (difficulty not in (None, False, "") or target is not None):
        raise RuleError(
            "a Contest of Skill has no difficulty: drop the Difficulty and the Target's Attribute",
            param="difficulty",
        )
    difficulty = parse_difficulty(difficulty)
    if difficulty is not None and target is not None:
        raise RuleError("give the Difficulty or the Target's Attribute, not both", param="target")
    if target is not None:
        return difficulty_from_attribute(target)
    if difficulty is not None:
        check_difficulty(difficulty)
    return difficulty


def outcome_of_test(successes: int, required: int) -> TestOutcome:
    """``"pass"`` when the successes reach the successes required (a difficulty of 0
    always passes), else ``"fail"`` (004_663ae3e4ecc71fd1.txt, "Test of Skill",
    "Difficulty levels")."""
    return "pass" if successes >= required else "fail"


def contest_outcome(successes: int, opponent_successes: int) -> ContestOutcome:
    """``"win"``, ``"lose"`` or ``"draw"``: "whichever Character scores the most successes
    wins. If both Characters score the same number of successes, the result is a draw."

    (004_663ae3e4ecc71fd1.txt, "Opposed Roll (Contest of Skill)")
    """
    if successes == opponent_successes:
        return "draw"
    return "win" if successes > opponent_successes else "lose"


def skill_level(rank: int | None, attribute: int, untrained: str = "max3attr") -> int:
    """The Skill Level ``S`` a test is rolled against.

    "roll 3d10 against your Skill Level or relevant Attribute Level, whichever is higher"
    ("Test of Skill"); an untrained test rolls against 3 ("Overview") or "defaults to the
    relevant Attribute Level" ("Test of Skill"). Ruling S2 picks by ``untrained``:
    ``"max3attr"`` (default) ``max(3, attribute)``, ``"fixed3"`` 3, ``"attribute"`` the
    Attribute. A trained skill is ``max(rank, attribute)``.

    (004_663ae3e4ecc71fd1.txt, "Overview: The Basic Mechanic", "Test of Skill")
    """
    if rank is not None:
        return max(rank, attribute, 1)
    if untrained == "max3attr":
        return max(UNTRAINED_LEVEL, attribute)
    if untrained == "fixed3":
        return UNTRAINED_LEVEL
    if untrained == "attribute":
        return max(attribute, 1)
    raise RuleError(f"untrained must be max3attr, fixed3 or attribute, not {untrained!r}")


def notation(name: str, rank: int) -> str:
    """The character-sheet notation of a skill, e.g. ``"Skill: 12 (4/9)"``.

    Up to 9 just the rank (``"Sprint: 5"``); from 10 the double-success range and the upper
    threshold, ``"Skill: 12 (4/9)"`` = double successes on 1-4, single on 9 or under. From 18
    (our ruling SW1) the triple range comes first: ``"Skill: 19 (2/9/9)"``.

    (004_663ae3e4ecc71fd1.txt, "Skill level 10+")
    """
    if rank < 10:
        return f"{name}: {rank}"
    levels = thresholds(rank)
    return f"{name}: {rank} ({'/'.join(str(t) for t in reversed(levels[1:]))}/{levels[0]})"


def boxes(value: int, maximum: int = ATTRIBUTE_MAX) -> str:
    """An Attribute drawn as boxes, e.g. 3 → ``"■■■□"`` (Jen's Quickness "■■■")."""
    return "■" * value + "□" * max(0, maximum - value)


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the closest of ``names``, or ``""``."""
    close = closest_name(name, names)
    return f" (did you mean {close}?)" if close else ""


def attribute_named(name: str, *, param: str | None = None) -> str:
    """The Attribute ``name`` names, in any case ("Attributes and Effort"); refused, with
    the five listed, when it is none of them."""
    found = name_in(name, ATTRIBUTES)
    if found is None:
        raise RuleError(
            f"{name!r} is not an Attribute; use one of {', '.join(ATTRIBUTES)}"
            + did_you_mean(name, ATTRIBUTES),
            param=param,
        )
    return found


def check_rank(rank: int, options: Options, skill: str) -> None:
    """Refuse a rank in play below 1 or above ``skill_cap_in_play`` (ruling S1;
    004_663ae3e4ecc71fd1.txt, "Skill level 10+": "Skills can be increased to 10 and above")."""
    if rank < 1:
        raise RuleError(f"{skill}: a rank must be 1 or more, not {rank}")
    cap = options.skill_cap_in_play
    if cap is not None and rank > cap:
        raise RuleError(f"{skill}: this campaign caps skills at {cap} in play, not {rank}")
