"""Decision-dice sheets (002_735c6d6cd834a641.txt): their creation (stats, levels and
derived values follow the campaign options, rulings X1–X4) and how a person reads them, in
the book's words: "Key Terms" (bonus, penalty, modifier), "Advantage and Disadvantage", "The
Rounding Rule" (derived values), "Supply Rolls" (d12 → … → empty), "D100 or Percentage"
(trackers). Nothing is GM-only: both views are the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

import msgspec

from ledger import Line, RuleError, RuleSystem, Section, Sheet, check_sheet, signed

from .events import ConditionKind
from .rules import (
    SUPPLY_ORDER,
    counted_modifier,
    current_values,
    derived_values,
    normalise_supply,
)
from .state import TRACKER_MAX, TRACKER_MIN, Character, Condition, Options


def _condition(c: Condition) -> Line:
    value: str
    if c.kind in ("advantage", "disadvantage"):
        value = c.kind
    else:
        value = f"{signed(c.value)} {c.kind}" if c.kind != "modifier" else signed(c.value)
    if c.stat:
        value += f" to {c.stat} rolls"
    note = (
        f"for {c.rolls_left} more roll{'s' if c.rolls_left != 1 else ''}"
        if c.rolls_left
        else "until removed"
    )
    good = c.kind in ("bonus", "advantage") or (c.kind == "modifier" and c.value > 0)
    return Line(label=c.name, value=value, note=note, tone="good" if good else "bad")


Whole = Annotated[int, msgspec.Meta(ge=0)]
Text = Annotated[str, msgspec.Meta(min_length=1)]


class ItemIn(msgspec.Struct, kw_only=True):
    """One ``[[equipment]]`` table: ``supply`` is d12, d10, d8, d6, d4 or empty ("Supply
    Rolls"; ``"D8"`` and ``8`` read as ``"d8"``), ``""`` for an item without a supply die."""

    name: Text
    supply: str | int = ""
    note: str = ""


class ConditionIn(msgspec.Struct, kw_only=True):
    """One ``[[conditions]]`` table: a lasting modifier ("Key Terms"; "Advantage and
    Disadvantage"); ``stat`` ``""`` for every roll, ``rolls`` 0 until removed."""

    name: Text
    kind: ConditionKind
    value: int = 0
    stat: str = ""
    rolls: Whole = 0


class SheetIn(msgspec.Struct, kw_only=True):
    """A decision-dice sheet as written (TOML)::

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

    The stats' range, the campaign's stat names and the level's minimum are campaign
    options, checked by :meth:`SheetRules.create_sheet`.
    """

    stats: Annotated[
        dict[str, int],
        msgspec.Meta(
            min_length=1, description="a [stats] table of name = integer (e.g. might = 1)"
        ),
    ]
    level: int | None = None
    equipment: list[ItemIn] = []
    trackers: dict[str, Annotated[int, msgspec.Meta(ge=TRACKER_MIN, le=TRACKER_MAX)]] = {}
    conditions: list[ConditionIn] = []


class SheetRules(RuleSystem[Character, Options]):
    """Creating a decision-dice character and laying out their sheet."""

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Read a decision-dice character sheet (:class:`SheetIn`) and return it normalised:
        stats in the campaign's spelling, supply dice as ``"d8"``, empty parts left out
        (docs/rulings/decision-dice.md).

        :raises RuleError: naming every problem at once, each led by its TOML path (unknown
            fields, missing or unknown stats, stats outside the campaign's range, bad supply
            dice, trackers outside 0..100, ...).
        """
        options = self.options
        declared = {s.lower(): s for s in options.stats}

        def rules(read: SheetIn) -> Iterable[str]:
            lo, hi = options.stat_min, options.stat_max
            for name, value in read.stats.items():
                if not lo <= value <= hi:
                    yield (
                        f"stats.{name}: expected an integer from {lo} to {hi} (this "
                        f"campaign's stat range), got {value}"
                    )
                if declared and name.lower() not in declared:
                    yield (
                        f"stats.{name}: not a stat of this campaign (its stats are "
                        f"{', '.join(options.stats)})"
                    )
            given = {str(s).lower() for s in sheet.get("stats") or {}}
            for low, name in declared.items():
                if low not in given:
                    yield (
                        f"stats.{name}: missing (this campaign's stats are "
                        f"{', '.join(options.stats)})"
                    )
            if read.level is not None and read.level < options.level_min:
                yield (
                    f"level: expected an integer of {options.level_min} or more (this "
                    f"campaign's lowest level), got {read.level}"
                )
            seen: set[str] = set()
            for item in read.equipment:
                if item.name.lower() in seen:
                    yield f"equipment: {item.name!r} is listed twice (names must differ)"
                seen.add(item.name.lower())
                try:
                    normalise_supply(str(item.supply)) if item.supply != "" else None
                except RuleError:
                    yield (
                        f"equipment: {item.name!r} has supply {item.supply!r}, expected one "
                        f"of {', '.join(SUPPLY_ORDER)}"
                    )
            for stats in options.derived.values():
                yield from (
                    f"stats.{stat}: missing (the campaign's derived values use it)"
                    for stat in stats
                    if stat.lower() not in given
                )

        read = check_sheet(SheetIn, sheet, rules=rules)
        out = {k: v for k, v in msgspec.to_builtins(read).items() if v not in (None, [], {})}
        out["stats"] = {declared.get(k.lower(), k): v for k, v in read.stats.items()}
        for item in out.get("equipment", []):
            supply = item.pop("supply")
            if supply != "":
                item["supply"] = normalise_supply(str(supply))
        return out

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
        """The initial :class:`Character` of a sheet :meth:`create_sheet` validated."""
        conditions = [{**c, "rolls_left": c["rolls"]} for c in sheet.get("conditions", [])]
        state = {**sheet, "character": character, "name": name, "conditions": conditions}
        return msgspec.convert(state, Character)

    def skills_of(self, state: Character) -> Iterable[str]:
        """Stat names, then items with a supply die (both can be rolled)."""
        return [*state.stats, *(i.name for i in state.equipment if i.supply)]

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as JSON: state fields plus ``derived`` values (Stress, Vitality, ... as
        configured, "The Rounding Rule"), ``current`` values (less what was spent, DD10)
        and each condition's counted value ("Key Terms")."""
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
