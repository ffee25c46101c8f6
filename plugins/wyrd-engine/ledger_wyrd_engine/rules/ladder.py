"""The Wyrd Engine's named ladders: Difficulty Ratings, skill levels and outcome bands.

Source: 000_60e07241544698f0.txt, "Difficulty Levels" (table "Difficulty Levels in The Wyrd
Engine" and table "Success probability per skill level"), "Skills" (table "Skill Levels in
The Wyrd Engine") and the worked examples, which use the Fate-ladder names (Fair +1, Good +2,
Great +3). The text's macros ``\\Trivial … \\Impossible`` and ``\\Untrained … \\Expert`` are
never defined; the numbers are recovered from the probability table (docs/rulings/wyrd-engine.md, §2.4,
ruling C3). Re-exported by :mod:`ledger_wyrd_engine.rules`.
"""

from __future__ import annotations

from typing import Final

from ledger import RuleError

#: ``(name, value under ">=", Fate-ladder alias or None)``, easiest first (docs/rulings/wyrd-engine.md).
DR_LADDER: Final[tuple[tuple[str, int, str | None], ...]] = (
    ("Trivial", -3, None),
    ("Simple", -2, "Terrible"),
    ("Easy", -1, "Poor"),
    ("Basic", 0, "Average"),
    ("Challenging", 1, "Fair"),
    ("Difficult", 2, "Good"),
    ("Formidable", 3, "Great"),
    ("Arduous", 4, "Superb"),
    ("Extreme", 5, "Fantastic"),
    ("Impossible", 6, "Epic"),
)

#: Every DR name, lower case, both name sets (what the table shell offers for ``--dr``).
DR_NAMES: Final[tuple[str, ...]] = tuple(
    name.lower() for row in DR_LADDER for name in (row[0], row[2]) if name is not None
)

#: Extra spellings accepted for a DR (lower-case name → value under ">=").
_DR_EXTRA_ALIASES: Final[dict[str, int]] = {"mediocre": 0}

#: ``(level name, rating, Fate alias)`` of the skill levels (docs/rulings/wyrd-engine.md).
SKILL_LEVELS: Final[tuple[tuple[str, int, str], ...]] = (
    ("Untrained", 0, "Average"),
    ("Novice", 1, "Fair"),
    ("Skilled", 2, "Good"),
    ("Expert", 3, "Great"),
)

#: Outcome band ids of a roll against a DR, lowest first (docs/rulings/wyrd-engine.md, ruling C6).
BANDS: Final[tuple[str, ...]] = ("failure", "tie", "success", "success_with_style")

#: Extra band for positive margins listed in the ``minor_cost_margins`` option (ruling C6).
SUCCESS_AT_COST: Final = "success_at_cost"

#: Human labels of every band id.
BAND_LABELS: Final[dict[str, str]] = {
    "failure": "failure",
    "tie": "tie (succeeds; the GM may add a complication)",
    "success": "success",
    "success_with_style": "success with style",
    "success_at_cost": "success with a minor cost",
    "hit": "hit",
    "miss": "miss",
    "defended": "defended",
    "acts_first": "acts first",
    "acts_second": "acts second",
    "initiative": "initiative",
}

COMPARISONS: Final = (">=", ">")


def signed(value: int) -> str:
    """``+2``, ``+0``, ``-1``: a modifier as the book writes it ("Average (+0)")."""
    return f"+{value}" if value >= 0 else str(value)


def _shift(comparison: str) -> int:
    """How far the ladder moves under ``comparison``: 0 for ``>=``, −1 for ``>`` (docs/rulings/wyrd-engine.md)."""
    if comparison not in COMPARISONS:
        raise RuleError(f"dr_comparison must be '>=' or '>', not {comparison!r}")
    return 0 if comparison == ">=" else -1


def dr_ladder(comparison: str = ">=") -> list[tuple[str, int, str | None]]:
    """The DR ladder as ``(name, value, Fate alias)`` for a success test ``comparison``.

    With the text's "meets or exceeds" (``>=``, default, ruling C1) the values run −3…+6;
    with the strict ``>`` of the "Conflict resolution at a glance" box they run −4…+5, so the
    success chance of every named DR stays what the probability table says
    (000_60e07241544698f0.txt, "Passive Opposition").

    :raises RuleError: ``comparison`` is neither ``>=`` nor ``>``.
    """
    shift = _shift(comparison)
    return [(name, value + shift, alias) for name, value, alias in DR_LADDER]


def parse_dr(text: str | int, comparison: str = ">=") -> tuple[int, str | None]:
    """A Difficulty Rating from a number or a ladder name, case-insensitive.

    Accepts ``"2"``, ``"+2"``, ``"-1"``, a ladder name (``"Difficult"``) or a Fate alias
    (``"good"``); returns ``(value, ladder name or None)``. A number is taken as given; a
    number that sits on the ladder gets that step's name.
    (000_60e07241544698f0.txt, "Difficulty Levels"; docs/rulings/wyrd-engine.md)

    :raises RuleError: the text is neither a number nor a ladder name (the message lists
        the names).
    """
    ladder = dr_ladder(comparison)
    if isinstance(text, int):
        value = text
    else:
        key = text.strip().lower()
        try:
            value = int(key)
        except ValueError:
            for name, step, alias in ladder:
                if key in (name.lower(), (alias or "").lower()):
                    return step, name
            if key in _DR_EXTRA_ALIASES:
                step = _DR_EXTRA_ALIASES[key] + _shift(comparison)
                return step, dr_name(step, comparison)
            names = ", ".join(
                f"{name}{'/' + alias if alias else ''} ({signed(step)})"
                for name, step, alias in ladder
            )
            raise RuleError(
                f"unknown difficulty {text!r}: give a number or one of {names}"
            ) from None
    return value, dr_name(value, comparison)


def dr_name(value: int, comparison: str = ">=") -> str | None:
    """The ladder name of a DR value (``2`` → ``"Difficult"``), ``None`` off the ladder."""
    for name, step, _alias in dr_ladder(comparison):
        if step == value:
            return name
    return None


def dr_label(value: int, comparison: str = ">=") -> str:
    """``"Difficult/Good (+2)"`` for display; ``"+7"`` off the ladder."""
    for name, step, alias in dr_ladder(comparison):
        if step == value:
            return f"{name}{'/' + alias if alias else ''} ({signed(value)})"
    return signed(value)


def parse_rating(value: object) -> int:
    """A skill rating from an int or a level name (``"Expert"``, ``"Great"``, ``"+3"``).

    Level names and Fate aliases come from 000_60e07241544698f0.txt, "Skills" and the
    character sidebars (docs/rulings/wyrd-engine.md).

    :raises RuleError: not an integer and not a level name.
    """
    if isinstance(value, bool):
        raise RuleError(f"a skill rating must be a number or a level name, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        key = value.strip().lower()
        try:
            return int(key)
        except ValueError:
            pass
        for name, rating, alias in SKILL_LEVELS:
            if key in (name.lower(), alias.lower()):
                return rating
        if key == "mediocre":
            return 0
    names = ", ".join(f"{n}/{a} ({signed(r)})" for n, r, a in SKILL_LEVELS)
    raise RuleError(f"skill rating {value!r} is not a number or one of {names}")


def level_name(rating: int) -> str:
    """``"Expert/Great (+3)"`` for 0…+3, else the signed number (e.g. impaired ``-1``)."""
    for name, value, alias in SKILL_LEVELS:
        if value == rating:
            return f"{name}/{alias} ({signed(rating)})"
    return signed(rating)


def band_for_margin(margin: int, minor_cost_margins: tuple[int, ...] | list[int] = ()) -> str:
    """The outcome band id of a passive roll from its ``margin`` (total minus DR).

    ``< 0`` failure, ``0`` tie (a success, the GM may add a complication), ``1…2`` success,
    ``>= 3`` success_with_style; a positive margin listed in ``minor_cost_margins`` is
    ``success_at_cost`` (Felix's "Success with a Minor Cost"). Sources:
    000_60e07241544698f0.txt, "Passive Opposition", "Ties and Partial Successes",
    "Active Opposition" (the ≥3 boon threshold), "Example 1: Applying a +2 Bonus";
    docs/rulings/wyrd-engine.md, rulings C1 and C6.
    """
    if margin < 0:
        return "failure"
    if margin == 0:
        return "tie"
    if margin in minor_cost_margins:
        return SUCCESS_AT_COST
    if margin >= 3:
        return "success_with_style"
    return "success"
