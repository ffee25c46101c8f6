"""A decision-dice character sheet as a person reads it (``RuleSystem.sheet_layout``).

Source: 002_735c6d6cd834a641.txt (digest /work/shared/rules/decision-dice.md): "Key Terms"
(bonus, penalty, modifier), "Advantage and Disadvantage", "The Rounding Rule" (derived
values), "Supply Rolls" (d12 → d10 → d8 → d6 → d4 → empty), "D100 or Percentage"
(trackers). Nothing on a decision-dice sheet is GM-only: both views are the same.
"""

from __future__ import annotations

from ledger import Line, Section, Sheet

from .sheet import Character, Condition, Options, derived_values


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


def sheet_layout(state: Character, *, options: Options, system_name: str, as_gm: bool) -> Sheet:
    """The sheet: stats by value, derived values with how they are worked out, conditions
    with what they do to rolls and for how long, equipment with its supply die, and
    percentage trackers."""
    stats = sorted(state.stats.items(), key=lambda kv: (-kv[1], kv[0]))
    derived = derived_values(state, options)
    sections = [
        Section(title="Stats", items=tuple(Line(label=s, value=str(v)) for s, v in stats)),
        Section(
            title="Derived",
            items=tuple(
                Line(
                    label=name,
                    value=str(value),
                    note=" + ".join(f"½ {s}" for s in options.derived[name]) + ", rounded down",
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
        subtitle=system_name + level,
        sections=tuple(s for s in sections if s.items),
        as_gm=as_gm,
    )
