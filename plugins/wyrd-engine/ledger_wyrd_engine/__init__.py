"""The Wyrd Engine rule system for Campaign Ledger (seed 000_60e07241544698f0.txt).

4dF + skill + one trait against a Difficulty Rating; stress boxes and Mild/Moderate/Severe
wounds; traits, gear, boons, boosts and teamwork. See docs/rulings/wyrd-engine.md.
"""

from collections.abc import Callable

from ledger import RuleSystem, hookimpl

from .system import WyrdEngine

__all__ = ["WyrdEngine"]


@hookimpl
def register_rule_systems(register: Callable[[RuleSystem], None]) -> None:
    """Register :class:`WyrdEngine` with Campaign Ledger."""
    register(WyrdEngine())

