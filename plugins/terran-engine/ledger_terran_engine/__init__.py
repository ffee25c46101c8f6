"""Terran Engine for Campaign Ledger (seed ``003_2aeb47bc6ca82a40.txt``, SRD v0.4.5).

Light and Dark d6 pools, Ego and HP, Challenges with exploding Effect dice, and end-of-session
advancement replayed from the log. Registered through the ``ledger`` entry point.
"""

from ledger import hookimpl

from .recap import recap_notes
from .system import TerranEngine

__all__ = ["TerranEngine"]


@hookimpl
def register_rule_systems(register):  # type: ignore[no-untyped-def]
    """Register :class:`TerranEngine`."""
    register(TerranEngine())


@hookimpl
def recap_lines(system_id: str, record: object, as_gm: bool) -> list[str] | None:
    """Rule notes for this system's events in a session recap (see :mod:`.recap`)."""
    if system_id != "terran-engine":
        return None
    return recap_notes(record) or None
