"""What a Spellwoven roll means at the table, for session recaps.

Notes come from the rule text (004_663ae3e4ecc71fd1.txt): "Attributes and Effort",
"Advantage & Disadvantage".
"""

from __future__ import annotations

from typing import Any

from .events import ContestRolled, TestRolled


def recap_notes(record: Any) -> list[str]:
    """Rule notes for one recorded event (``[]`` when there is nothing to add)."""
    event = record.data
    notes = []
    if isinstance(event, TestRolled | ContestRolled):
        if event.kept is not None:
            notes.append(f"four dice rolled at {event.mode}, three kept")
        if event.effort_spent:
            notes.append(f"Effort spent: +{event.effort_bonus} successes")
    return notes
