"""Campaign Ledger rule system "decision-dice": 2d6 + STAT decision rolls, contests, supply
dice (seed 002_735c6d6cd834a641.txt, "Core Mechanics")."""

from ledger import hookimpl

from .system import DecisionDice

__all__ = ["DecisionDice", "register_rule_systems"]


@hookimpl
def register_rule_systems(register):  # type: ignore[no-untyped-def]
    """Register :class:`DecisionDice` with the engine."""
    register(DecisionDice())
