"""Decision-dice characters: sheets, their creation and how a person reads them.

Source: 002_735c6d6cd834a641.txt (rulings: docs/rulings/decision-dice.md). The seed is
only the "Core Mechanics" page, so stats, levels and derived values follow the campaign
options (rulings X1–X4, docs/rulings/decision-dice.md). The sheet reads in the book's words:
"Key Terms" (bonus, penalty, modifier), "Advantage and Disadvantage", "The Rounding Rule"
(derived values), "Supply Rolls" (d12 → d10 → d8 → d6 → d4 → empty), "D100 or Percentage"
(trackers). Nothing on a decision-dice sheet is GM-only: both views are the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ledger import Line, RuleError, RuleSystem, Section, Sheet

from .rules.mechanics import (
    SUPPLY_ORDER,
    counted_modifier,
    current_values,
    derived_values,
    normalise_supply,
)
from .state import TRACKER_MAX, TRACKER_MIN, Character, Condition, Item, Options


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "0"


def _condition(c: Condition) -> Line:
    value: str
    if c.kind in ("advantage", "disadvantage"):
        value = c.kind
    else:
        value = f"{_signed(c.value)} {c.kind}" if c.kind != "modifier" else _signed(c.value)
    if c.stat:
        value += f" to {c.stat} rolls"
    note = (
        f"for {c.rolls_left} more roll{'s' if c.rolls_left != 1 else ''}"
        if c.rolls_left
        else "until removed"
    )
    good = c.kind in ("bonus", "advantage") or (c.kind == "modifier" and c.value > 0)
    return Line(label=c.name, value=value, note=note, tone="good" if good else "bad")


class SheetRules(RuleSystem[Character, Options]):
    """Creating a decision-dice character and laying out their sheet."""

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Validate a decision-dice character sheet and return it normalised (docs/rulings/decision-dice.md).

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
        options = self.options
        problems: list[str] = []
        known = {"stats", "level", "equipment", "trackers", "conditions"}
        for key in sheet:
            if key not in known:
                problems.append(f"unknown sheet field {key!r}: a decision-dice sheet has "
                                f"{', '.join(sorted(known))}")
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
            problems.append(f"level must be an integer of {options.level_min} or more, "
                            f"not {level!r}")
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
                problems.append(f"tracker {name!r} must be a whole percentage 0 to 100, "
                                f"not {value!r}")
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
                problems.append(f"condition {raw['name']!r}: kind must be one of "
                                f"{', '.join(kinds)}")
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

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
        """The initial :class:`Character` of a sheet :meth:`create_sheet` validated."""
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

    def skills_of(self, state: Character) -> Iterable[str]:
        """Stat names, then items with a supply die (both can be rolled)."""
        return [*state.stats, *(i.name for i in state.equipment if i.supply)]

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as JSON: state fields plus ``derived`` values (Stress, Vitality, ... as
        configured, "The Rounding Rule"), ``current`` values (less what was spent, DD10)
        and each condition's counted value ("Key Terms"). Nothing here is GM-only."""
        view: dict[str, Any] = msgspec.to_builtins(state)
        view["derived"] = derived_values(state, self.options)
        view["current"] = current_values(state, self.options)
        for cond in view["conditions"]:
            if cond["kind"] in ("bonus", "penalty", "modifier"):
                cond["counted"] = counted_modifier(cond["kind"], cond["value"])
        return view

    def sheet_layout(self, state: Character, *, as_gm: bool) -> Sheet:
        """The sheet: stats by value, derived values with how they are worked out, conditions
        with what they do to rolls and for how long, equipment with its supply die, and
        percentage trackers."""
        stats = sorted(state.stats.items(), key=lambda kv: (-kv[1], kv[0]))
        derived = derived_values(state, self.options)
        sections = [
            Section(title="Stats", items=tuple(Line(label=s, value=str(v)) for s, v in stats)),
            Section(
                title="Derived",
                items=tuple(
                    Line(
                        label=name,
                        value=str(value),
                        note=" + ".join(f"½ {s}" for s in self.options.derived[name])
                        + ", rounded down",
                    )
                    for name, value in derived.items()
                ),
            ),
            Section(title="Conditions", items=tuple(_condition(c) for c in state.conditions)),
            Section(
                title="Equipment",
                items=tuple(
                    Line(
                        label=i.name,
                        value="" if i.supply is None else f"supply {i.supply}",
                        note=i.note,
                        tone="bad" if i.supply == "empty" else "",
                    )
                    for i in state.equipment
                ),
            ),
            Section(
                title="Trackers",
                items=tuple(Line(label=t, value=f"{v}%") for t, v in state.trackers.items()),
            ),
        ]
        level = f" · level {state.level}" if state.level is not None else ""
        return Sheet(
            title=state.name,
            subtitle=self.name + level,
            sections=tuple(s for s in sections if s.items),
            as_gm=as_gm,
        )
