"""What a Terran Engine roll means at the table, for session recaps.

Notes come from the rule text (003_2aeb47bc6ca82a40.txt): "2.1 Risky Actions",
"1.4 Advancements".
"""

from __future__ import annotations

from typing import Any

from .events import RiskyActionRolled


def recap_notes(record: Any) -> list[str]:
    """Rule notes for one recorded event (``[]`` when there is nothing to add)."""
    event = record.data
    notes = []
    if isinstance(event, RiskyActionRolled) and event.ego_lost:
        notes.append(f"{event.ego_lost} Ego lost: it becomes Experience at the end of the session")
    return notes
