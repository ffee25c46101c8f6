"""d20-world: the d20 "The World" game (seed 001_a3a02f9b7363775f.txt) for Campaign Ledger.

Checks gated by time, tools, skill and help; a d20 with advantage or disadvantage; bad /
messy / good bands; experience marks; traits invoked to help or hinder; bonds with favor only
The World sees; inventory, armour, conditions, wounds and shock; spells and jinx; objectives.
"""

from ledger import hookimpl

from .system import D20World

__all__ = ["D20World"]


@hookimpl
def register_rule_systems(register):  # type: ignore[no-untyped-def]
    """Register :class:`D20World` with the engine."""
    register(D20World())

