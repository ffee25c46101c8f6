"""What a d20-world check means at the table, for session recaps.

Notes come from the rule text (001_a3a02f9b7363775f.txt): "Magic", "Jinx". The check's
own line already says experience, naturals and miscasts.
"""

from __future__ import annotations

from typing import Any

from .events import CheckRolled


def recap_notes(record: Any) -> list[str]:
    """Rule notes for one recorded event (``[]`` when there is nothing to add)."""
    event = record.data
    if isinstance(event, CheckRolled) and event.spell:
        return ["each jinx is −1 on later spellcasting checks; a rest recovers half (Jinx)"]
    return []
