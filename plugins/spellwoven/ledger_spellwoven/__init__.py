"""Spellwoven: 3d10 roll-under success counting (seed 004_663ae3e4ecc71fd1.txt).

Registers :class:`Spellwoven` through the ``ledger`` entry point, as a third-party plugin
would, and the ``campaign effort`` command. Modules: :mod:`.mechanics` (the rules as pure
functions), :mod:`.odds` (exact distributions), :mod:`.events`, :mod:`.sheet` (sheet, state,
options), :mod:`.rolls` (roll requests to dice), :mod:`.system` (the rule system),
:mod:`.views` (log lines, sheet, odds report), :mod:`.command` (``campaign effort``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger import hookimpl

from .system import Spellwoven

if TYPE_CHECKING:
    from collections.abc import Callable

    import click

    from ledger import RuleSystem

__all__ = ["Spellwoven"]


@hookimpl
def register_rule_systems(register: Callable[[RuleSystem], None]) -> None:
    """Register the Spellwoven rule system."""
    register(Spellwoven())


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``campaign effort CHARACTER`` (spend Effort after a roll)."""
    from .command import effort

    cli.add_command(effort)

