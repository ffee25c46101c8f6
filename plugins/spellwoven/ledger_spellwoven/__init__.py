"""Spellwoven: 3d10 roll-under success counting (seed 004_663ae3e4ecc71fd1.txt).

Registers :class:`Spellwoven` through the ``ledger`` entry point, as a third-party plugin
would. Modules: :mod:`.mechanics` (the rules as pure functions), :mod:`.odds` (exact
distributions), :mod:`.events`, :mod:`.sheet` (sheet, state, options), :mod:`.rolls`
(roll requests to dice), :mod:`.system` (the rule system), :mod:`.views` (log lines, sheet,
odds report).
"""

from ledger import RuleSystem, hookimpl

from .system import Spellwoven

__all__ = ["Spellwoven"]


@hookimpl
def register_rule_systems(register):  # type: ignore[no-untyped-def]
    """Register the Spellwoven rule system."""
    register(Spellwoven())


_: type[RuleSystem] = Spellwoven
