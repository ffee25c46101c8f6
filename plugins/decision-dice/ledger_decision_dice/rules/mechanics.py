"""Decision-dice mechanics as pure functions (seed 002_735c6d6cd834a641.txt, "Core Mechanics").

Nothing here draws dice, reads a clock or knows about the ledger, so every rule can be tested
with the book's own numbers. :class:`ledger_decision_dice.rules.Rules` draws the dice and
builds events.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Literal

from ledger import RuleError, find_name

from ..events import ModifierLine
from ..state import Character, Condition, Item, Options

SIDES = 6
"""The Decision Dice are d6 ("Decision Rolls")."""

SUPPLY_ORDER: tuple[str, ...] = ("d12", "d10", "d8", "d6", "d4", "empty")
"""Supply die sizes in order, largest first ("Supply Rolls": "D12, D10, D8, D6, D4, Empty")."""

EMPTY = "empty"

SUPPLY_STEP_MAX = 3
"""A supply roll showing this or lower lowers the die one size ("Supply Rolls")."""

DIFFICULTY_SCALE: tuple[tuple[int, str], ...] = (
    (22, '↑ (beyond "Impossible")'),
    (20, '"Impossible" Task'),
    (18, "Strenuous Task"),
    (12, "Challenging Task"),
    (6, "Simple Task"),
)
"""The named rows of the "Difficulty Scale" table, highest first: (target number, description)."""

RUNGS: dict[str, int] = {"simple": 6, "challenging": 12, "strenuous": 18, "impossible": 20}
"""The named rungs of the "Difficulty Scale", by lower-case name."""

ModifierKind = Literal["bonus", "penalty", "modifier"]
RoundingMode = Literal["floor", "trunc"]


def counted_modifier(kind: ModifierKind, value: int) -> int:
    """The value a stated modifier contributes ("Key Terms", hint "Modifiers"): a bonus
    stated negative counts 0, a penalty stated positive counts 0, a modifier counts as
    stated."""
    return max(0, value) if kind == "bonus" else min(0, value) if kind == "penalty" else value


def decision_dice_count(advantage: bool | int, disadvantage: bool | int) -> int:
    """How many d6 a decision roll uses ("Advantage and Disadvantage"): 3 with advantage, 1
    with disadvantage; they do not stack, and both cancel to the neutral 2."""
    return 2 + bool(advantage) - bool(disadvantage)


def outcome_of(result: int, target: int) -> Literal["success", "failure"]:
    """The outcome band ("Success and Failure": "Success = Higher than or equal to
    target"): a tie with a target number succeeds ("Resolving a Tie")."""
    return "success" if result >= target else "failure"


def parse_target(text: str | int) -> int:
    """A target number: any integer ≥ 1 (ruling X8) or a named rung of the "Difficulty
    Scale" (``"challenging"``, ``"Challenging Task"``, ``"\\"Impossible\\""``, any case)."""
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
    """The "Difficulty Scale" row at or below ``target`` (``13`` → ``"Challenging Task"``;
    below 6: ``"below Simple"``)."""
    return next((label for tn, label in DIFFICULTY_SCALE if tn <= target), "below Simple")


def round_down(value: Fraction | int, mode: RoundingMode = "floor") -> int:
    """Round an end result down, once ("The Rounding Rule": "This only happens at the end,
    not in the middle of calculations"): ``"floor"`` (−2.5 → −3, ruling X10) or ``"trunc"``
    (−2.5 → −2)."""
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
    """Faces of a supply die label (``"d10"`` → 10); an empty item has none."""
    label = normalise_supply(die)
    if label == EMPTY:
        raise RuleError("an empty item has no supply die to roll")
    return int(label[1:])


def supply_step(die: str, face: int, step_max: int = SUPPLY_STEP_MAX) -> str:
    """The supply die after one supply roll ("Supply Rolls": "If the result is 3 or lower,
    the die size is lowered a size": d12 → d10 → d8 → d6 → d4 → empty).

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
        raise RuleError(f"a {label} shows 1 to {sides}, not {face}")
    if face <= step_max:
        return SUPPLY_ORDER[SUPPLY_ORDER.index(label) + 1]
    return label


def find_item(state: Character, wanted: str) -> Item:
    """The item named ``wanted`` (any case), with the closest name suggested when none is."""
    name = find_name(wanted, [i.name for i in state.equipment], "equipment")
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
    """A repeatable whole-number option as a list (absent → ``[]``; one int is accepted)."""
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


def _line(
    origin: Literal["option", "condition"], source: str, kind: ModifierKind, value: int
) -> ModifierLine:
    counted = counted_modifier(kind, value)
    return ModifierLine(origin=origin, source=source, kind=kind, stated=value, counted=counted)


def modifier_lines(
    stat: str,
    stat_value: int,
    params: dict[str, Any],
    conditions: Iterable[Condition],
    options: dict[str, ModifierKind] = ROLLER_OPTIONS,
) -> list[ModifierLine]:
    """The modifier breakdown of a roll: the stat, then the values of the roll options
    ``options`` names (each line names its option), then the conditions' values ("Key
    Terms", hint "Modifiers")."""
    lines = [
        ModifierLine(origin="stat", source=stat, kind="stat", stated=stat_value, counted=stat_value)
    ]
    for name, kind in options.items():
        lines += [_line("option", name, kind, value) for value in int_params(params, name)]
    for c in conditions:
        if c.kind in ("bonus", "penalty", "modifier"):
            lines.append(_line("condition", c.name, c.kind, c.value))
    return lines


def derived_values(state: Character, options: Options) -> dict[str, int]:
    """Each configured derived value (Stress, Vitality, ...): its stats halved, added,
    rounded down at the end ("The Rounding Rule", ruling X4)."""
    lower = {k.lower(): v for k, v in state.stats.items()}
    return {
        name: halved_sum([lower.get(s.lower(), 0) for s in stats], options.round_negative)
        for name, stats in options.derived.items()
    }


def current_values(state: Character, options: Options) -> dict[str, int]:
    """Each derived value now: its value from the stats less what was spent (harm taken and
    not recovered), never below 0 (ruling DD10)."""
    return {
        name: max(0, value - state.spent.get(name, 0))
        for name, value in derived_values(state, options).items()
    }
