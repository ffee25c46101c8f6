"""Decision-dice mechanics as pure functions (seed 002_735c6d6cd834a641.txt, "Core Mechanics").

Nothing here draws dice, reads a clock or knows about the ledger: each function takes the
faces, numbers or state it needs and returns plain values, so every rule can be tested with
the book's own numbers. :class:`ledger_decision_dice.rules.Rules` draws the dice and builds
events.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from difflib import get_close_matches
from fractions import Fraction
from typing import Any, Literal

from ledger import RuleError

from ..events import ModifierLine
from ..state import Character, Condition, Item, Options

SIDES = 6
"""The Decision Dice are d6 ("Decision Rolls")."""

NORMAL_DICE = 2
ADVANTAGE_DICE = 3
DISADVANTAGE_DICE = 1

SUPPLY_ORDER: tuple[str, ...] = ("d12", "d10", "d8", "d6", "d4", "empty")
"""Supply die sizes in order, largest first ("Supply Rolls": "D12, D10, D8, D6, D4, Empty")."""

EMPTY = "empty"

SUPPLY_STEP_MAX = 3
"""A supply roll showing this or lower lowers the die one size ("Supply Rolls")."""

DIFFICULTY_SCALE: tuple[tuple[int, str], ...] = (
    (22, '↑ (beyond "Impossible")'),
    (20, '"Impossible" Task'),
    (18, "Strenuous Task"),
    (16, "↓"),
    (14, "↓"),
    (12, "Challenging Task"),
    (10, "↓"),
    (8, "↓"),
    (6, "Simple Task"),
    (4, "↓"),
    (2, ""),
)
"""The "Difficulty Scale" table, highest first: (target number, description)."""

RUNGS: dict[str, int] = {
    "simple": 6,
    "challenging": 12,
    "strenuous": 18,
    "impossible": 20,
}
"""The named rungs of the "Difficulty Scale", by lower-case name."""

IMPOSSIBLE_TN = RUNGS["impossible"]

ModifierKind = Literal["bonus", "penalty", "modifier"]
RoundingMode = Literal["floor", "trunc"]


def counted_modifier(kind: ModifierKind, value: int) -> int:
    """The value a stated modifier contributes ("Key Terms", hint "Modifiers").

    A *bonus* is positive: a bonus stated with a negative value counts 0. A *penalty* is
    negative: a penalty stated with a positive value counts 0. A plain *modifier* may be
    either sign and counts as stated.

    :param kind: ``"bonus"``, ``"penalty"`` or ``"modifier"``.
    :param value: the stated value (penalties are stated as negative numbers, e.g. ``-2``).
    :returns: ``max(0, value)`` for a bonus, ``min(0, value)`` for a penalty, else ``value``.
    :raises RuleError: an unknown kind.
    """
    if kind == "bonus":
        return max(0, value)
    if kind == "penalty":
        return min(0, value)
    if kind == "modifier":
        return value
    raise RuleError(f"a modifier is a bonus, a penalty or a modifier, not {kind!r}")


def decision_dice_count(advantage: bool | int, disadvantage: bool | int) -> int:
    """How many d6 a decision roll uses ("Advantage and Disadvantage").

    Advantage adds one d6 (3d6), disadvantage removes one (1d6). They do not stack (any
    number of advantages is one advantage) and a roll facing both cancels to the neutral 2d6.

    :param advantage: truthy when at least one advantage applies (a count is accepted).
    :param disadvantage: truthy when at least one disadvantage applies.
    :returns: 1, 2 or 3.
    """
    if advantage and not disadvantage:
        return ADVANTAGE_DICE
    if disadvantage and not advantage:
        return DISADVANTAGE_DICE
    return NORMAL_DICE


def is_success(result: int, target: int) -> bool:
    """``True`` when ``result`` meets the target number ("Success and Failure").

    "Success = Higher than or equal to target"; a tie with a target number counts as a
    success ("Resolving a Tie").
    """
    return result >= target


def outcome_of(result: int, target: int) -> Literal["success", "failure"]:
    """The outcome band: ``"success"`` (margin ≥ 0) or ``"failure"`` ("Success and Failure")."""
    return "success" if is_success(result, target) else "failure"


def parse_target(text: str | int) -> int:
    """A target number from an integer or a named rung of the "Difficulty Scale".

    Accepts ``12``, ``"12"``, ``"challenging"``, ``"Challenging Task"``, ``"\\"Impossible\\""``
    (case-insensitive). Any integer ≥ 1 is a target number: the scale's even values are
    anchors, not the only choices (ruling X8).

    :raises RuleError: text that is neither an integer nor a rung name, or a number below 1.
    """
    if isinstance(text, int):
        value = text
    else:
        cleaned = text.strip().strip("\"'“”").lower()
        if cleaned.endswith(" task"):
            cleaned = cleaned[: -len(" task")].strip().strip("\"'“”")
        if cleaned in RUNGS:
            return RUNGS[cleaned]
        try:
            value = int(cleaned)
        except ValueError:
            names = ", ".join(f"{name} ({tn})" for name, tn in RUNGS.items())
            raise RuleError(
                f"the target {text!r} is not a number or a difficulty: give a number such as 8 "
                f"or one of {names}"
            ) from None
    if value < 1:
        raise RuleError(f"the target number must be 1 or more, not {value}")
    return value


def difficulty_label(target: int) -> str:
    """The "Difficulty Scale" description of the highest anchor at or below ``target``.

    ``6`` → ``"Simple Task"``; ``13`` → ``"Challenging Task"``; ``22`` and above → the ↑ row;
    below 6 → ``"below Simple"``. Arrows are shown as the nearest named rung below.
    """
    if target >= 22:
        return DIFFICULTY_SCALE[0][1]
    for tn, label in DIFFICULTY_SCALE:
        if tn <= target and label not in ("", "↓"):
            return label
    return "below Simple"


def is_impossible_task(base_target: int, threshold: int = IMPOSSIBLE_TN) -> bool:
    """Whether a task *starts* at or above "Impossible" ("\\"Impossible\\" Tasks").

    Only the base difficulty counts: "A target that reaches this description due to
    adjustments, abilities, or other modifications to the target value, is not considered an
    'Impossible' task" (ruling X9).
    """
    return base_target >= threshold


def round_down(value: Fraction | int, mode: RoundingMode = "floor") -> int:
    """Apply "The Rounding Rule" once, to an end result.

    "round down. This only happens at the end, not in the middle of calculations." Callers
    keep intermediate values exact (``Fraction``) and call this once.

    :param value: the exact end result.
    :param mode: ``"floor"`` (toward −∞, ruling X10: −2.5 → −3) or ``"trunc"`` (toward 0:
        −2.5 → −2). Positive values are the same either way.
    :raises RuleError: an unknown mode.
    """
    if mode == "floor":
        return math.floor(value)
    if mode == "trunc":
        return math.trunc(value)
    raise RuleError(f"round_negative must be 'floor' or 'trunc', not {mode!r}")


def halved_sum(values: Iterable[int], mode: RoundingMode = "floor") -> int:
    """Stress/Vitality-style value: each value halved, added, rounded down at the end.

    "The Rounding Rule" example: 3 and 1 → 1.5 + 0.5 = 2; 3 and 2 → 1.5 + 1 = 2.5 → 2.
    (Rounding each half first would wrongly give 1 + 0 = 1 for 3 and 1.) Ruling X4.
    """
    return round_down(sum((Fraction(v, 2) for v in values), Fraction(0)), mode)


def contest_winner(a_total: int, b_total: int) -> Literal["a", "b"] | None:
    """The winner of one round of a contested roll, or ``None`` for a tie.

    "Contested Rolls": the highest roller wins; "Resolving a Tie": on a tie the decision dice
    are rerolled until a winner is determined.
    """
    if a_total > b_total:
        return "a"
    if b_total > a_total:
        return "b"
    return None


def normalise_supply(text: str) -> str:
    """A supply die label: ``"D8"`` / ``"d8"`` / ``"8"`` → ``"d8"``; ``"Empty"`` → ``"empty"``.

    :raises RuleError: not one of d12, d10, d8, d6, d4, empty ("Supply Rolls").
    """
    cleaned = str(text).strip().lower()
    if cleaned.isdigit():
        cleaned = "d" + cleaned
    if cleaned not in SUPPLY_ORDER:
        raise RuleError(f"a supply die is one of {', '.join(SUPPLY_ORDER)}, not {text!r}")
    return cleaned


def supply_sides(die: str) -> int:
    """Faces of a supply die label (``"d10"`` → 10).

    :raises RuleError: the die is ``"empty"`` or not a supply die.
    """
    label = normalise_supply(die)
    if label == EMPTY:
        raise RuleError("an empty item has no supply die to roll")
    return int(label[1:])


def supply_step(die: str, face: int, step_max: int = SUPPLY_STEP_MAX) -> str:
    """The supply die after one supply roll ("Supply Rolls").

    "If the result is 3 or lower, the die size is lowered a size":
    d12 → d10 → d8 → d6 → d4 → empty.

    :param die: the die rolled (``"d12"`` … ``"d4"``).
    :param face: the face shown, 1..size.
    :param step_max: the highest face that lowers the die (3 in the text).
    :returns: the new die label.
    :raises RuleError: the die is empty (an empty item cannot be used where a supply roll is
        required) or the face is not on the die.
    """
    label = normalise_supply(die)
    if label == EMPTY:
        raise RuleError(
            "the item is Empty: it cannot be used where a supply roll is required "
            "(resupply it first)"
        )
    sides = int(label[1:])
    if not 1 <= face <= sides:
        raise RuleError(f"a {label} cannot show {face} (1 to {sides})")
    if face <= step_max:
        return SUPPLY_ORDER[SUPPLY_ORDER.index(label) + 1]
    return label


def sum_faces(faces: Sequence[int]) -> int:
    """The sum of the decision dice (all of them are summed, also the third die of advantage)."""
    return sum(faces)


def find_name(names: list[str], wanted: str, what: str) -> str:
    """The entry of ``names`` equal to ``wanted`` ignoring case (stats, items, conditions
    and trackers are matched so on the command line, ruling X1).

    :raises RuleError: naming ``what``, the known names and the closest one.
    """
    for name in names:
        if name.lower() == wanted.strip().lower():
            return name
    close = get_close_matches(wanted.lower(), [n.lower() for n in names], n=1)
    hint = ""
    if close:
        hint = f"; did you mean {next(n for n in names if n.lower() == close[0])!r}?"
    known = ", ".join(names) if names else "none"
    raise RuleError(f"no {what} named {wanted!r} (known: {known}){hint}")


def find_item(state: Character, wanted: str) -> Item:
    """The item named ``wanted`` (any case).

    :raises RuleError: no such item, with the closest name suggested.
    """
    name = find_name([i.name for i in state.equipment], wanted, "equipment")
    return next(i for i in state.equipment if i.name == name)


def supply_die_of(item: Item) -> str:
    """The item's supply die for a roll that requires supplies ("Supply Rolls").

    :raises RuleError: the item makes no supply rolls, or is Empty (E15: "Empty items
        cannot be used if a supply roll is required").
    """
    if item.supply is None:
        raise RuleError(f"{item.name!r} has no supply die: it makes no supply rolls")
    if item.supply == EMPTY:
        raise RuleError(
            f"{item.name!r} is Empty: it cannot be used where a supply roll is required "
            "(resupply it first; it may still be used where no supply roll is needed)"
        )
    return item.supply


def int_params(params: dict[str, Any], name: str) -> list[int]:
    """A multiple int parameter as a list (absent → ``[]``; a single int is accepted).

    :raises RuleError: a value that is not a whole number.
    """
    value = params.get(name)
    if value is None:
        return []
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    try:
        return [int(v) for v in value]
    except (TypeError, ValueError):
        raise RuleError(f"the {name} takes whole numbers, not {value!r}", param=name) from None


def applicable_conditions(state: Character, stat: str) -> list[Condition]:
    """The character's conditions that apply to a roll of ``stat`` (``stat == ""``: all)."""
    return [c for c in state.conditions if not c.stat or c.stat.lower() == stat.lower()]


#: The roll options that add a line to the roller's breakdown, by name, and their kind.
ROLLER_OPTIONS: dict[str, ModifierKind] = {
    "bonus": "bonus",
    "penalty": "penalty",
    "modifier": "modifier",
}
#: The option that adds a line to the opposing side's breakdown (a character on the ledger).
OPPONENT_OPTIONS: dict[str, ModifierKind] = {"opponent_modifier": "modifier"}


def modifier_lines(
    stat: str,
    stat_value: int,
    params: dict[str, Any],
    conditions: Iterable[Condition],
    options: dict[str, ModifierKind] = ROLLER_OPTIONS,
) -> list[ModifierLine]:
    """The modifier breakdown of a roll: the stat, then the values of the roll options
    ``options`` names (bonus, penalty, modifier; each line names its option), then the
    conditions' values ("Key Terms", hint "Modifiers")."""
    lines = [
        ModifierLine(origin="stat", source=stat, kind="stat", stated=stat_value, counted=stat_value)
    ]
    for name, kind in options.items():
        for value in int_params(params, name):
            lines.append(
                ModifierLine(
                    origin="option",
                    source=name,
                    kind=kind,
                    stated=value,
                    counted=counted_modifier(kind, value),
                )
            )
    for c in conditions:
        if c.kind in ("bonus", "penalty", "modifier"):
            lines.append(
                ModifierLine(
                    origin="condition",
                    source=c.name,
                    kind=c.kind,
                    stated=c.value,
                    counted=counted_modifier(c.kind, c.value),
                )
            )
    return lines


def derived_values(state: Character, options: Options) -> dict[str, int]:
    """Each configured derived value (Stress, Vitality, ...): its stats halved, added,
    rounded down at the end ("The Rounding Rule", ruling X4)."""
    lower = {k.lower(): v for k, v in state.stats.items()}
    mode: RoundingMode = options.round_negative
    return {
        name: halved_sum([lower.get(s.lower(), 0) for s in stats], mode)
        for name, stats in options.derived.items()
    }


def current_values(state: Character, options: Options) -> dict[str, int]:
    """Each derived value now: its value from the stats less what was spent (harm taken and
    not recovered), never below 0 (ruling DD10)."""
    return {
        name: max(0, value - state.spent.get(name, 0))
        for name, value in derived_values(state, options).items()
    }
