"""The Wyrd Engine rule system for Campaign Ledger (seed 000_60e07241544698f0.txt).

4dF + skill + one trait against a Difficulty Rating; stress boxes and Mild/Moderate/Severe
wounds; traits, gear, boons, boosts and teamwork. See docs/rulings/wyrd-engine.md.
"""

from collections.abc import Callable

from ledger import RuleSystem, hookimpl

from .recap import recap_notes
from .system import WyrdEngine

__all__ = ["WyrdEngine"]


@hookimpl
def register_rule_systems(register: Callable[[RuleSystem], None]) -> None:
    """Register :class:`WyrdEngine` with Campaign Ledger."""
    register(WyrdEngine())


@hookimpl
def recap_lines(system_id: str, record: object, as_gm: bool) -> list[str] | None:
    """Rule notes for this system's events in a session recap (see :mod:`.recap`)."""
    if system_id != "wyrd-engine":
        return None
    return recap_notes(record) or None
