"""What a Decision Dice event means at the table, and what changed on a character, in the
rule text's words (002_735c6d6cd834a641.txt): "Resolving a Tie", "Supply Rolls",
"Advantage and Disadvantage", "Key Terms".

:func:`recap_notes` gives the notes a recap shows beside an event; :func:`change_sentences`
the sentences of :meth:`ledger.RuleSystem.describe_changes` ("Climbing Kit's supply die
steps down: d8 → d6", "Rifle ammunition 60% → 45%", "now Higher ground: advantage for 1
roll").
"""

from __future__ import annotations

from typing import Any

from .events import ContestRolled, SupplyRolled
from .sheet import Character, Condition

HANDLED = ("character", "name", "stats", "level", "equipment", "trackers", "conditions")
"""Fields :func:`change_sentences` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`)."""


def recap_notes(record: Any) -> list[str]:
    """Rule notes for one recorded event (``[]`` when there is nothing to add)."""
    event = record.data
    notes = []
    if isinstance(event, ContestRolled) and len(event.rounds) > 1:
        ties = len(event.rounds) - 1
        notes.append(f"tied {ties} time{'s' if ties != 1 else ''}, re-rolled (Resolving a Tie)")
    elif isinstance(event, SupplyRolled) and event.after != event.die:
        if event.after == "empty":
            notes.append(f"{event.item} is used up: resupply before relying on it")
        else:
            notes.append(f"{event.item}'s supply die steps down: {event.die} → {event.after}")
    return notes


def verdict(event: Any) -> str | None:
    """Decisions and contests ✔/✘; a supply roll is neither (its die keeping its size or
    stepping down is said in words), so ``None``."""
    if isinstance(event, SupplyRolled):
        return None
    outcome = getattr(event, "outcome", None)
    return {"success": "success", "failure": "failure"}.get(outcome or "")


def _condition(c: Condition) -> str:
    what: str
    if c.kind in ("advantage", "disadvantage"):
        what = c.kind
    else:
        what = f"{c.value:+d}" + (f" to {c.stat}" if c.stat else " to rolls")
    lasts = f" for {c.rolls_left} roll{'s' if c.rolls_left != 1 else ''}" if c.rolls_left else ""
    return f"now {c.name}: {what}{lasts}"


def change_sentences(before: Character | None, after: Character, *, as_gm: bool) -> list[str]:
    """What changed between two states of one character, as sentences (see module doc);
    fields outside :data:`HANDLED` are left to the generic wording."""
    if before is None:
        return [f"{after.name} joins the party"]
    out: list[str] = []
    for stat, value in after.stats.items():
        was = before.stats.get(stat)
        if was is None:
            out.append(f"new stat {stat} {value:+d}")
        elif was != value:
            out.append(f"{stat} {'rose' if value > was else 'fell'} to {value:+d}")
    if after.level != before.level and after.level is not None:
        out.append(f"reaches level {after.level}")
    old_items = {i.name: i for i in before.equipment}
    new_items = {i.name: i for i in after.equipment}
    for name, item in new_items.items():
        was_i = old_items.get(name)
        if was_i is None:
            out.append(f"gains {name}" + (f" (supply {item.supply})" if item.supply else ""))
        elif was_i.supply != item.supply:
            if item.supply == "empty":
                out.append(f"{name} is used up: resupply before relying on it")
            elif was_i.supply in (None, "empty"):
                out.append(f"{name} resupplied to {item.supply}")
            else:
                out.append(f"{name}'s supply die {was_i.supply} → {item.supply}")
    out.extend(f"loses {name}" for name in old_items if name not in new_items)
    for tracker, value in after.trackers.items():
        was_t = before.trackers.get(tracker)
        if was_t != value:
            out.append(f"{tracker} {was_t}% → {value}%" if was_t is not None
                       else f"{tracker} {value}%")
    out.extend(f"{t} no longer tracked" for t in before.trackers if t not in after.trackers)
    old_c = {c.name: c for c in before.conditions}
    new_c = {c.name: c for c in after.conditions}
    for name, c in new_c.items():
        if name not in old_c:
            out.append(_condition(c))
    out.extend(f"{name} ends" for name in old_c if name not in new_c)
    return [s[:1].upper() + s[1:] for s in out]
