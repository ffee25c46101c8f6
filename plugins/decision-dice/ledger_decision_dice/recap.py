"""What a Decision Dice roll means at the table, for session recaps.

Notes come from the rule text (002_735c6d6cd834a641.txt): "Resolving a Tie",
"Supply Rolls".
"""

from __future__ import annotations

from typing import Any

from .events import ContestRolled, SupplyRolled


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
