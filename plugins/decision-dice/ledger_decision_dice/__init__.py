"""Campaign Ledger rule system "decision-dice": 2d6 + STAT decision rolls, contests, supply
dice (seed 002_735c6d6cd834a641.txt, "Core Mechanics")."""

from ledger import hookimpl

from .recap import recap_notes
from .system import DecisionDice

__all__ = ["DecisionDice", "register_rule_systems"]


@hookimpl
def register_rule_systems(register):  # type: ignore[no-untyped-def]
    """Register :class:`DecisionDice` with the engine."""
    register(DecisionDice())


@hookimpl
def recap_lines(system_id: str, record: object, as_gm: bool) -> list[str] | None:
    """Rule notes for this system's events in a session recap (see :mod:`.recap`)."""
    if system_id != "decision-dice":
        return None
    return recap_notes(record) or None
