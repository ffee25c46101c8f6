"""Campaign options, character state and sheet validation for decision-dice.

The seed (002_735c6d6cd834a641.txt) is only the "Core Mechanics" page: stats, levels, Luck,
Stress and Vitality are referred to but never defined. They are campaign options here
(digest §3 and rulings X1–X4, documented in docs/rulings/decision-dice.md).
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import Any, Literal

import msgspec

from ledger import RuleError

from .mechanics import SUPPLY_ORDER, RoundingMode, halved_sum, normalise_supply

TRACKER_MIN = 0
TRACKER_MAX = 100


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Campaign options (``[options]`` in campaign.toml, ``--option`` at ``campaign new``).

    :ivar stats: the stat names every sheet must give (ruling X1); ``[]`` = any names.
    :ivar stat_min, stat_max: the allowed range of a stat (default 0..10, X1).
    :ivar derived: derived values such as Stress and Vitality: name → the stats halved and
        added, rounded down at the end ("The Rounding Rule", X4). Default none.
    :ivar round_negative: ``"floor"`` (toward −∞) or ``"trunc"`` (X10).
    :ivar impossible_target: the base target number at which a task is "Impossible" (20).
    :ivar refuse_impossible: refuse a roll whose base target is "Impossible" unless the GM
        allows the attempt (``--impossible``); ``False`` only flags it (X9).
    :ivar supply_step_max: the highest supply face that lowers the die (3, "Supply Rolls").
    :ivar max_contest_rounds: safety cap on tie rerolls in one contested roll (X7).
    :ivar level_min: the lowest level (1, X2).
    :ivar harm_track: the derived value ``campaign damage`` takes harm from (DD10).
    """

    stats: list[str] = []
    stat_min: int = 0
    stat_max: int = 10
    derived: dict[str, list[str]] = {}
    round_negative: Literal["floor", "trunc"] = "floor"
    impossible_target: int = 20
    refuse_impossible: bool = True
    supply_step_max: int = 3
    max_contest_rounds: int = 100
    level_min: int = 1
    harm_track: str = "Vitality"


class Item(msgspec.Struct, frozen=True, kw_only=True):
    """A piece of equipment; ``supply`` is its supply die (``"d12"``…``"d4"``, ``"empty"``)
    or ``None`` when it makes no supply rolls ("Supply Rolls")."""

    name: str
    supply: str | None = None
    note: str = ""


class Condition(msgspec.Struct, frozen=True, kw_only=True):
    """A lasting modifier/advantage/disadvantage ("Key Terms"; "Advantage and Disadvantage").

    ``rolls_left`` is ``0`` for one that lasts until removed.
    """

    name: str
    kind: Literal["bonus", "penalty", "modifier", "advantage", "disadvantage"]
    value: int = 0
    stat: str = ""
    rolls_left: int = 0


class Character(msgspec.Struct, frozen=True, kw_only=True):
    """One character's state: stats, level, equipment, trackers and conditions (digest §3)."""

    character: str
    name: str
    stats: dict[str, int]
    level: int | None = None
    equipment: list[Item] = []
    trackers: dict[str, int] = {}
    conditions: list[Condition] = []
    spent: dict[str, int] = {}


def find_name(names: list[str], wanted: str, what: str) -> str:
    """The entry of ``names`` equal to ``wanted`` ignoring case, else a :class:`RuleError`
    naming ``what`` and suggesting the closest name."""
    for name in names:
        if name.lower() == wanted.strip().lower():
            return name
    close = get_close_matches(wanted.lower(), [n.lower() for n in names], n=1)
    hint = ""
    if close:
        hint = f"; did you mean {next(n for n in names if n.lower() == close[0])!r}?"
    known = ", ".join(names) if names else "none"
    raise RuleError(f"no {what} named {wanted!r} (known: {known}){hint}")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_sheet(sheet: dict[str, Any], options: Options) -> dict[str, Any]:
    """Validate a decision-dice character sheet and return it normalised (digest §3).

    Shape (TOML)::

        level = 2                                  # optional, >= level_min
        [stats]                                    # required: name = integer
        might = 1
        [[equipment]]                              # optional
        name = "Field Medkit"
        supply = "d8"                              # optional: d12, d10, d8, d6, d4, empty
        note = "resupply at any town for 20 coin"
        [trackers]                                 # optional percentage trackers, 0..100
        "Rifle ammunition" = 100
        [[conditions]]                             # optional lasting modifiers
        name = "Bad knee"
        kind = "penalty"                           # bonus, penalty, modifier, advantage, ...
        value = -1
        stat = "agility"                           # optional; "" = every roll
        rolls = 0                                  # optional; 0 = until removed

    :raises RuleError: naming every problem at once (unknown fields, missing or unknown
        stats, stats out of range, bad supply dice, trackers outside 0..100, ...).
    """
    problems: list[str] = []
    known = {"stats", "level", "equipment", "trackers", "conditions"}
    for key in sheet:
        if key not in known:
            problems.append(
                f"unknown sheet field {key!r}: a decision-dice sheet has {', '.join(sorted(known))}"
            )
    stats_in = sheet.get("stats", {})
    stats: dict[str, int] = {}
    if not isinstance(stats_in, dict) or not stats_in:
        problems.append("the sheet needs a [stats] table of name = integer (e.g. might = 1)")
        stats_in = {}
    for name, value in stats_in.items():
        if not _int(value):
            problems.append(f"stat {name!r} must be an integer, not {value!r}")
            continue
        if not options.stat_min <= value <= options.stat_max:
            problems.append(
                f"stat {name!r} is {value}: stats range from {options.stat_min} to "
                f"{options.stat_max} in this campaign"
            )
        stats[str(name)] = value
    if options.stats:
        declared = {s.lower(): s for s in options.stats}
        given = {s.lower() for s in stats_in}
        for low, name in declared.items():
            if low not in given:
                problems.append(f"stat {name!r} is missing: this campaign's stats are "
                                f"{', '.join(options.stats)}")
        for name in stats_in:
            if str(name).lower() not in declared:
                problems.append(f"unknown stat {name!r}: this campaign's stats are "
                                f"{', '.join(options.stats)}")
        stats = {declared.get(k.lower(), k): v for k, v in stats.items()}
    level = sheet.get("level")
    if level is not None and (not _int(level) or level < options.level_min):
        problems.append(f"level must be an integer of {options.level_min} or more, not {level!r}")
    equipment: list[dict[str, Any]] = []
    seen: set[str] = set()
    equipment_in = sheet.get("equipment", []) or []
    if not isinstance(equipment_in, list):
        problems.append("equipment must be a list of [[equipment]] tables (name, supply, note)")
        equipment_in = []
    for i, raw in enumerate(equipment_in, start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
            problems.append(f"equipment item {i} needs a name (name = \"Field Medkit\")")
            continue
        extra = set(raw) - {"name", "supply", "note"}
        if extra:
            problems.append(f"equipment {raw['name']!r} has unknown fields {sorted(extra)}: "
                            "use name, supply, note")
        if raw["name"].lower() in seen:
            problems.append(f"equipment {raw['name']!r} is listed twice: names must differ")
        seen.add(raw["name"].lower())
        item: dict[str, Any] = {"name": raw["name"], "note": str(raw.get("note", ""))}
        if raw.get("supply") not in (None, ""):
            try:
                item["supply"] = normalise_supply(str(raw["supply"]))
            except RuleError:
                problems.append(f"equipment {raw['name']!r}: supply die {raw['supply']!r} is "
                                f"not one of {', '.join(SUPPLY_ORDER)}")
        equipment.append(item)
    trackers_in = sheet.get("trackers", {}) or {}
    trackers: dict[str, int] = {}
    if not isinstance(trackers_in, dict):
        problems.append("trackers must be a table of name = percentage (0 to 100)")
        trackers_in = {}
    for name, value in trackers_in.items():
        if not _int(value) or not TRACKER_MIN <= value <= TRACKER_MAX:
            problems.append(f"tracker {name!r} must be a whole percentage 0 to 100, not {value!r}")
        else:
            trackers[str(name)] = value
    conditions: list[dict[str, Any]] = []
    kinds = ("bonus", "penalty", "modifier", "advantage", "disadvantage")
    conditions_in = sheet.get("conditions", []) or []
    if not isinstance(conditions_in, list):
        problems.append("conditions must be a list of [[conditions]] tables")
        conditions_in = []
    for i, raw in enumerate(conditions_in, start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
            problems.append(f"condition {i} needs a name")
            continue
        if raw.get("kind") not in kinds:
            problems.append(f"condition {raw['name']!r}: kind must be one of {', '.join(kinds)}")
            continue
        value, rolls = raw.get("value", 0), raw.get("rolls", 0)
        if not _int(value) or not _int(rolls) or rolls < 0:
            problems.append(f"condition {raw['name']!r}: value and rolls must be integers "
                            "(rolls 0 or more)")
            continue
        conditions.append({"name": raw["name"], "kind": raw["kind"],
                           "value": raw.get("value", 0), "stat": str(raw.get("stat", "")),
                           "rolls": raw.get("rolls", 0)})
    for derived_from in options.derived.values():
        for stat in derived_from:
            if stat.lower() not in {s.lower() for s in stats_in}:
                problems.append(f"derived values use stat {stat!r}, which the sheet lacks")
    if problems:
        raise RuleError(*dict.fromkeys(problems))
    out: dict[str, Any] = {"stats": stats}
    if level is not None:
        out["level"] = level
    if equipment:
        out["equipment"] = equipment
    if trackers:
        out["trackers"] = trackers
    if conditions:
        out["conditions"] = conditions
    return out


def state_from_sheet(character: str, name: str, sheet: dict[str, Any]) -> Character:
    """The initial :class:`Character` of a validated sheet."""
    return Character(
        character=character,
        name=name,
        stats=dict(sheet["stats"]),
        level=sheet.get("level"),
        equipment=[Item(name=i["name"], supply=i.get("supply"), note=i.get("note", ""))
                   for i in sheet.get("equipment", [])],
        trackers=dict(sheet.get("trackers", {})),
        conditions=[Condition(name=c["name"], kind=c["kind"], value=c["value"],
                              stat=c["stat"], rolls_left=c["rolls"])
                    for c in sheet.get("conditions", [])],
    )


def derived_values(state: Character, options: Options) -> dict[str, int]:
    """Each configured derived value: its stats halved, added, rounded down at the end."""
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
