"""Terran Engine for Campaign Ledger (seed ``003_2aeb47bc6ca82a40.txt``, SRD v0.4.5).

Light and Dark d6 pools, Ego and HP, Challenges with exploding Effect dice, and end-of-session
advancement replayed from the log. Registered through the ``ledger`` entry point.
"""

from ledger import hookimpl

from .system import TerranEngine

__all__ = ["TerranEngine"]


@hookimpl
def register_rule_systems(register):  # type: ignore[no-untyped-def]
    """Register :class:`TerranEngine`."""
    register(TerranEngine())

