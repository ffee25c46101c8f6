"""What a Wyrd Engine roll means at the table, for session recaps.

Notes come from the rule text (000_60e07241544698f0.txt): "Interpreting Failure", "Active Opposition", "Damage: Stress and Wounds".
"""

from __future__ import annotations

from typing import Any

from .events import CheckRolled


def recap_notes(record: Any) -> list[str]:
    """Rule notes for one recorded event (``[]`` when there is nothing to add)."""
    event = record.data
    if not isinstance(event, CheckRolled):
        return []
    notes = []
    if event.outcome == "failure":
        notes.append("the GM may offer success at a cost (Interpreting Failure)")
    if event.mode != "passive" and event.margin >= 3:
        notes.append("won by 3 or more: the GM may grant a boon (Active Opposition)")
    if event.damage:
        notes.append(f"{event.damage} damage to mark: stress first, then wounds")
    return notes
